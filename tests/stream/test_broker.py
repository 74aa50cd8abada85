"""The bundled tansu broker: startup, failure reporting and a kafka-python round trip."""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer

from pipeline.stream import broker as broker_mod
from pipeline.stream.broker import (
    BrokerStartupError,
    TansuNotFoundError,
    find_tansu,
    free_port,
    local_broker,
)

TABLE_IDS = ("BAC-01", "BAC-02", "MINI-07")


def test_find_tansu_returns_an_executable() -> None:
    tansu = find_tansu()
    assert tansu.is_file()
    assert tansu.name.startswith("tansu")


def test_find_tansu_rejects_a_bad_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(broker_mod.TANSU_ENV_VAR, str(tmp_path / "no-such-tansu"))
    with pytest.raises(TansuNotFoundError, match="not an executable"):
        find_tansu()


def test_free_port_is_bindable() -> None:
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_two_brokers_get_separate_ports() -> None:
    with local_broker() as first, local_broker() as second:
        assert first != second
        assert first.startswith("127.0.0.1:")


def test_taken_port_is_reported_with_broker_output() -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(BrokerStartupError, match="AddrInUse"), local_broker(port):
            pytest.fail("broker must not start on a taken port")
        assert time.monotonic() - started < 10


@pytest.mark.broker
def test_round_trip_through_a_consumer_group(kafka_broker: str) -> None:
    topic = f"table-events-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_broker, client_id="test-admin")
    try:
        admin.create_topics(
            {topic: {"num_partitions": 3, "replication_factor": 1}}, wait_for_metadata=True
        )
    finally:
        admin.close()

    producer = KafkaProducer(bootstrap_servers=kafka_broker)
    sent: dict[bytes, int] = {}
    try:
        for table_id in TABLE_IDS:
            meta = producer.send(
                topic, key=table_id.encode(), value=f"hand@{table_id}".encode()
            ).get(timeout=10)
            sent[table_id.encode()] = meta.partition
    finally:
        producer.close()

    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=kafka_broker,
        group_id=f"auditors-{uuid.uuid4().hex[:8]}",
        enable_auto_commit=False,
        session_timeout_ms=6000,
        auto_offset_reset="earliest",
    )
    received: dict[bytes, tuple[bytes, int]] = {}
    try:
        started = time.monotonic()
        join_seconds: float | None = None
        deadline = started + 30
        while len(received) < len(TABLE_IDS) and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=200).values():
                for record in records:
                    received[record.key] = (record.value, record.partition)
            if join_seconds is None and consumer.assignment():
                join_seconds = time.monotonic() - started
        assert join_seconds is not None, "consumer never joined its group"
        consumer.commit()
        assert len(consumer.assignment()) == 3
    finally:
        consumer.close()

    assert received == {key: (b"hand@" + key, partition) for key, partition in sent.items()}
    # tansu holds a group's first join for ~session_timeout_ms / 2 (3 s here).
    assert join_seconds < 15, f"group join took {join_seconds:.1f}s"
    print(f"consumer group join took {join_seconds:.2f}s")
