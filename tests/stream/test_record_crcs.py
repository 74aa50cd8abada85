"""Kafka record-batch CRCs are checked by the consumer, and only an explicit setting turns
that off: bytes damaged between producer and consumer are an error, not an event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kafka import KafkaConsumer

import pipeline.stream.consumer as consumer_module
from pipeline.config.catalog import load_catalog
from pipeline.stream.consumer import run_consumer
from pipeline.stream.settings import KafkaSettings, KafkaSettingsError

BROKERS = {"BACCARAT_KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:1"}


class Built(Exception):
    """Stops the consumer once its KafkaConsumer exists."""


def consumer_built_by_run_consumer(settings: KafkaSettings, monkeypatch: Any, tmp_path: Path,
                                   **config: Any) -> KafkaConsumer:  # fmt: skip
    """The real KafkaConsumer that run_consumer builds from ``settings`` (no broker needed:
    the protocol version is given, so nothing connects before the first poll)."""
    built: list[KafkaConsumer] = []

    def build(**kwargs: Any) -> KafkaConsumer:
        built.append(KafkaConsumer(**kwargs, api_version=(2, 8)))
        raise Built

    monkeypatch.setattr(consumer_module, "KafkaConsumer", build)
    with pytest.raises(Built):
        run_consumer(
            settings, tmp_path / "ledger.duckdb", load_catalog(), until_idle=0,
            create_topics=False, consumer_config=config or None,
        )  # fmt: skip
    [made] = built
    made.close()
    return made


def test_the_consumer_checks_record_batch_crcs_by_default(monkeypatch: Any, tmp_path: Path) -> None:
    settings = KafkaSettings.from_env(BROKERS)
    assert settings.check_crcs is True
    made = consumer_built_by_run_consumer(settings, monkeypatch, tmp_path)
    assert made.config["check_crcs"] is True
    assert made._fetcher.config["check_crcs"] is True  # what verifies each fetched batch


def test_consumer_tuning_cannot_turn_the_check_off(monkeypatch: Any, tmp_path: Path) -> None:
    settings = KafkaSettings.from_env(BROKERS)
    with pytest.raises(ValueError, match="BACCARAT_KAFKA_CHECK_CRCS"):
        settings.consumer_kwargs(check_crcs=False)
    with pytest.raises(ValueError, match="not consumer tuning"):
        consumer_built_by_run_consumer(settings, monkeypatch, tmp_path, check_crcs=False)


def test_only_the_explicit_setting_turns_it_off(monkeypatch: Any, tmp_path: Path) -> None:
    settings = KafkaSettings.from_env({**BROKERS, "BACCARAT_KAFKA_CHECK_CRCS": "false"})
    assert settings.check_crcs is False
    assert "record CRCs NOT checked (BACCARAT_KAFKA_CHECK_CRCS)" in settings.describe()
    made = consumer_built_by_run_consumer(settings, monkeypatch, tmp_path)
    assert made.config["check_crcs"] is False
    with pytest.raises(KafkaSettingsError, match="BACCARAT_KAFKA_CHECK_CRCS='off please'"):
        KafkaSettings.from_env({**BROKERS, "BACCARAT_KAFKA_CHECK_CRCS": "off please"})
