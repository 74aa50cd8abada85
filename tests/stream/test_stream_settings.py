"""KafkaSettings: from the environment, validated, with messages that name the variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.stream.settings import KafkaSettings, KafkaSettingsError


def test_defaults_from_a_minimal_environment() -> None:
    settings = KafkaSettings.from_env({"BACCARAT_KAFKA_BOOTSTRAP_SERVERS": "k1:9092, k2:9093"})
    assert settings.topic == "table-events"
    assert settings.dlq_topic == "table-events.dlq"
    assert settings.group_id == "baccarat-audit"
    assert settings.partitions == 6
    kwargs = settings.client_kwargs()
    assert kwargs["bootstrap_servers"] == ["k1:9092", "k2:9093"]
    assert kwargs["security_protocol"] == "PLAINTEXT"
    assert "api_version" not in kwargs
    assert "sasl_mechanism" not in kwargs


def test_every_setting_from_the_environment(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    settings = KafkaSettings.from_env(
        {
            "BACCARAT_KAFKA_BOOTSTRAP_SERVERS": "broker.example:9094",
            "BACCARAT_KAFKA_CLIENT_ID": "pit-7",
            "BACCARAT_KAFKA_TOPIC": "floor-a",
            "BACCARAT_KAFKA_GROUP_ID": "audit-a",
            "BACCARAT_KAFKA_SECURITY_PROTOCOL": "sasl_ssl",
            "BACCARAT_KAFKA_SASL_MECHANISM": "scram-sha-512",
            "BACCARAT_KAFKA_SASL_PLAIN_USERNAME": "auditor",
            "BACCARAT_KAFKA_SASL_PLAIN_PASSWORD": "s3cret",
            "BACCARAT_KAFKA_SSL_CAFILE": str(ca),
            "BACCARAT_KAFKA_PARTITIONS": "12",
        }
    )
    assert settings.dlq_topic == "floor-a.dlq"
    assert settings.partitions == 12
    kwargs = settings.consumer_kwargs(enable_auto_commit=False)
    assert kwargs["group_id"] == "audit-a"
    assert kwargs["enable_auto_commit"] is False
    assert kwargs["security_protocol"] == "SASL_SSL"
    assert kwargs["sasl_mechanism"] == "SCRAM-SHA-512"
    assert kwargs["sasl_plain_username"] == "auditor"
    assert kwargs["sasl_plain_password"] == "s3cret"
    assert kwargs["ssl_cafile"] == str(ca)
    assert "s3cret" not in settings.describe()


def test_options_override_the_environment() -> None:
    settings = KafkaSettings.from_env(
        {"BACCARAT_KAFKA_BOOTSTRAP_SERVERS": "env:9092", "BACCARAT_KAFKA_TOPIC": "env-topic"},
        bootstrap_servers="cli:9092",
        topic=None,
        group_id="cli-group",
    )
    assert (settings.bootstrap_servers, settings.topic, settings.group_id) == (
        "cli:9092",
        "env-topic",
        "cli-group",
    )


def test_missing_bootstrap_names_the_variable() -> None:
    with pytest.raises(KafkaSettingsError, match="BACCARAT_KAFKA_BOOTSTRAP_SERVERS is not set"):
        KafkaSettings.from_env({})


def test_all_problems_are_reported_at_once() -> None:
    with pytest.raises(KafkaSettingsError) as caught:
        KafkaSettings.from_env(
            {
                "BACCARAT_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
                "BACCARAT_KAFKA_SASL_MECHANISM": "PLAIN",
                "BACCARAT_KAFKA_PARTITIONS": "six",
                "BACCARAT_KAFKA_SSL_CAFILE": "/no/such/ca.pem",
            }
        )
    text = str(caught.value)
    for variable in (
        "BACCARAT_KAFKA_BOOTSTRAP_SERVERS",
        "BACCARAT_KAFKA_PARTITIONS",
        "BACCARAT_KAFKA_SASL_PLAIN_USERNAME",
        "BACCARAT_KAFKA_SASL_PLAIN_PASSWORD",
        "BACCARAT_KAFKA_SSL_CAFILE",
    ):
        assert variable in text
    assert len(caught.value.problems) == 5


@pytest.mark.parametrize(
    ("env", "variable"),
    [
        ({"BACCARAT_KAFKA_SECURITY_PROTOCOL": "TLS"}, "BACCARAT_KAFKA_SECURITY_PROTOCOL"),
        ({"BACCARAT_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT"}, "BACCARAT_KAFKA_SASL_MECHANISM"),
        (
            {
                "BACCARAT_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
                "BACCARAT_KAFKA_SASL_MECHANISM": "MD5",
            },
            "BACCARAT_KAFKA_SASL_MECHANISM",
        ),
        ({"BACCARAT_KAFKA_SASL_MECHANISM": "PLAIN"}, "BACCARAT_KAFKA_SECURITY_PROTOCOL"),
        ({"BACCARAT_KAFKA_PARTITIONS": "0"}, "BACCARAT_KAFKA_PARTITIONS"),
        (
            {"BACCARAT_KAFKA_TOPIC": "a", "BACCARAT_KAFKA_DLQ_TOPIC": "a"},
            "BACCARAT_KAFKA_DLQ_TOPIC",
        ),
        ({"BACCARAT_KAFKA_GROUP_ID": "two words"}, "BACCARAT_KAFKA_GROUP_ID"),
    ],
)
def test_invalid_settings_name_their_variable(env: dict[str, str], variable: str) -> None:
    with pytest.raises(KafkaSettingsError, match=variable):
        KafkaSettings.from_env({"BACCARAT_KAFKA_BOOTSTRAP_SERVERS": "k:9092", **env})


def test_bad_bootstrap_address() -> None:
    with pytest.raises(KafkaSettingsError, match="'k1' is not HOST:PORT"):
        KafkaSettings(bootstrap_servers="k1").validate()


def test_changing_the_topic_moves_the_default_dlq() -> None:
    settings = KafkaSettings(bootstrap_servers="k:9092").with_overrides(topic="live")
    assert settings.dlq_topic == "live.dlq"
    explicit = KafkaSettings(bootstrap_servers="k:9092", dlq_topic="quarantine")
    assert explicit.with_overrides(topic="live").dlq_topic == "quarantine"
