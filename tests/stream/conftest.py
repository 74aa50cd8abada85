"""Fixtures for the streaming tests: a small emulated day, its file-loaded reference ledger,
and unique topic / group names on the session's tansu broker."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer, TopicPartition
from kafka_checks import file_reference, unique_settings

from pipeline.config.catalog import load_catalog
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import SimulationResult, simulate
from pipeline.stream.settings import PREFIX, KafkaSettings

GAMING_DATE = date(2026, 11, 24)


@pytest.fixture(autouse=True)
def _no_kafka_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's BACCARAT_KAFKA_* variables must not leak into the tests."""
    for name in [n for n in os.environ if n.startswith(PREFIX)]:
        monkeypatch.delenv(name)


@pytest.fixture(scope="session")
def catalog() -> Mapping[str, TableRules]:
    return load_catalog()


@pytest.fixture(scope="session")
def small_day(catalog: Mapping[str, TableRules]) -> SimulationResult:
    """3 tables for 1 hour with every kind of fault: about 3,400 events."""
    return simulate(3, 1, 7, parse_faults("all"), GAMING_DATE, catalog)


@pytest.fixture(scope="session")
def file_ledger(tmp_path_factory: pytest.TempPathFactory, small_day: SimulationResult) -> Path:
    """The reference: ``small_day`` written to Avro files and loaded like ``ingest`` does."""
    db: Path = file_reference(small_day, tmp_path_factory.mktemp("files"), GAMING_DATE)
    return db


@pytest.fixture
def stream_settings(kafka_broker: str) -> KafkaSettings:
    """Settings for a topic and group no other test uses."""
    settings: KafkaSettings = unique_settings(kafka_broker)
    return settings


ReadTopic = Callable[[KafkaSettings, str, int], list[Any]]


@pytest.fixture
def read_topic() -> ReadTopic:
    """``read(settings, topic, expected)``: every record of ``topic`` from the beginning
    (waits up to 10 s for ``expected`` records, then one more short poll so that extra
    records show up too)."""

    def read(settings: KafkaSettings, topic: str, expected: int) -> list[Any]:
        consumer = KafkaConsumer(**settings.client_kwargs())
        try:
            numbers = consumer.partitions_for_topic(topic) or set()
            partitions = [TopicPartition(topic, p) for p in sorted(numbers)]
            consumer.assign(partitions)
            consumer.seek_to_beginning(*partitions)
            records: list[Any] = []
            deadline = time.monotonic() + 10
            while len(records) < expected and time.monotonic() < deadline:
                for batch in consumer.poll(timeout_ms=200).values():
                    records.extend(batch)
            for batch in consumer.poll(timeout_ms=300).values():
                records.extend(batch)
        finally:
            consumer.close()
        return records

    return read
