"""Kafka connection settings for the producer, the consumer and the admin client.

One :class:`KafkaSettings` describes a cluster and the pipeline's names on it. Build it in
code, or from the environment with :meth:`KafkaSettings.from_env` (``BACCARAT_KAFKA_*``
variables, listed in :data:`ENV_VARS`). Every problem is reported at once, each naming the
variable to set, e.g.::

    BACCARAT_KAFKA_SASL_PLAIN_PASSWORD is required when BACCARAT_KAFKA_SECURITY_PROTOCOL
    is SASL_SSL with mechanism PLAIN

``api_version`` is deliberately not a setting: kafka-python probes the broker, which works
for Apache Kafka, Redpanda, MSK and the bundled tansu broker alike.

``check_crcs`` (default on) makes the consumer verify each record batch's CRC-32C, so bytes
damaged between the producer and the consumer are an error, not an event. It is a setting
(``BACCARAT_KAFKA_CHECK_CRCS=false``), never consumer tuning, so that turning it off is an
explicit, visible choice (:meth:`KafkaSettings.describe` says so).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

PREFIX = "BACCARAT_KAFKA_"
DEFAULT_TOPIC = "table-events"
DEFAULT_GROUP = "baccarat-audit"
DEFAULT_CLIENT_ID = "baccarat-audit"
DEFAULT_PARTITIONS = 6
DEFAULT_MAX_BATCH = 50_000
"""Most messages a consumer loads in one ledger transaction. Each batch has a fixed cost
(fingerprints, the touched table-days' rows written, the commit): a consumer catching up on
a 6-table day used 73 us of CPU per event in batches of 5,000 and 56 us in batches of 50,000,
against 37-38 us for the file path in the same runs (issue 13). A live consumer's batches
stay small whatever this is: a batch ends once the consumer has read what the broker holds."""
DLQ_SUFFIX = ".dlq"
DEFAULT_EXCEPTIONS_TOPIC = "audit-exceptions"
DEFAULT_CONNECT_TIMEOUT = 30.0
"""Seconds the stream waits for a broker to answer at the bootstrap address before giving up
(``stream --connect-timeout``; :mod:`pipeline.stream.reach`)."""
DEFAULT_COPY_EVERY = 5.0
"""Seconds between two copies of the ledger the stream writes for the dashboards while a close
runs beside its batches and lends them nothing (``stream --copy-every``;
:class:`~pipeline.stream.ledgers.OneLedger`): the dashboards' figures are then at most a few
seconds older than the ledger's. A copy of a 12-table day took 1.6 to 2 s on an idle machine,
on a thread of its own, and the copies never take more than a quarter of the time
(:data:`~pipeline.stream.ledgers.COPY_REST`)."""

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI")
_PASSWORD_MECHANISMS = frozenset({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}

ENV_VARS: dict[str, str] = {
    "bootstrap_servers": "BOOTSTRAP_SERVERS",
    "client_id": "CLIENT_ID",
    "topic": "TOPIC",
    "dlq_topic": "DLQ_TOPIC",
    "exceptions_topic": "EXCEPTIONS_TOPIC",
    "group_id": "GROUP_ID",
    "security_protocol": "SECURITY_PROTOCOL",
    "sasl_mechanism": "SASL_MECHANISM",
    "sasl_plain_username": "SASL_PLAIN_USERNAME",
    "sasl_plain_password": "SASL_PLAIN_PASSWORD",
    "ssl_cafile": "SSL_CAFILE",
    "ssl_certfile": "SSL_CERTFILE",
    "ssl_keyfile": "SSL_KEYFILE",
    "partitions": "PARTITIONS",
    "check_crcs": "CHECK_CRCS",
}
"""Setting name -> environment variable name without :data:`PREFIX`."""


def env_var(setting: str) -> str:
    """The environment variable of a setting, e.g. ``BACCARAT_KAFKA_GROUP_ID``."""
    return PREFIX + ENV_VARS[setting]


class KafkaSettingsError(ValueError):
    """Settings that cannot work; ``problems`` lists each one with the variable to set."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("Kafka settings are not usable:\n  - " + "\n  - ".join(problems))


@dataclass(frozen=True)
class KafkaSettings:
    """Where the cluster is, how to authenticate, and the pipeline's topic and group names.

    ``dlq_topic`` defaults to ``<topic>.dlq``. ``exceptions_topic`` is where the consumer
    publishes the exceptions it raises and withdraws (:mod:`pipeline.stream.notices`).
    ``partitions`` is used only when the pipeline creates a missing topic; an existing topic
    keeps its partition count. ``check_crcs``: see
    the module docstring.
    """

    bootstrap_servers: str = "127.0.0.1:9092"
    client_id: str = DEFAULT_CLIENT_ID
    topic: str = DEFAULT_TOPIC
    dlq_topic: str = ""
    exceptions_topic: str = DEFAULT_EXCEPTIONS_TOPIC
    group_id: str = DEFAULT_GROUP
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_plain_username: str | None = None
    sasl_plain_password: str | None = None
    ssl_cafile: str | None = None
    ssl_certfile: str | None = None
    ssl_keyfile: str | None = None
    partitions: int = DEFAULT_PARTITIONS
    check_crcs: bool = True

    def __post_init__(self) -> None:
        if not self.dlq_topic:
            object.__setattr__(self, "dlq_topic", self.topic + DLQ_SUFFIX)
        object.__setattr__(self, "security_protocol", self.security_protocol.upper())
        if self.sasl_mechanism:
            object.__setattr__(self, "sasl_mechanism", self.sasl_mechanism.upper())

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> KafkaSettings:
        """Settings from ``BACCARAT_KAFKA_*`` variables (``environ`` defaults to
        ``os.environ``); ``overrides`` that are not ``None`` win over the environment.
        Raises :class:`KafkaSettingsError` naming every variable to fix."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        problems: list[str] = []
        for setting, suffix in ENV_VARS.items():
            raw = env.get(PREFIX + suffix)
            if raw is None or raw.strip() == "":
                continue
            raw = raw.strip()
            if setting == "partitions":
                try:
                    values[setting] = int(raw)
                except ValueError:
                    problems.append(f"{PREFIX + suffix}={raw!r} must be a whole number, e.g. 6")
                    continue
            elif setting == "check_crcs":
                if raw.lower() not in _BOOLEANS:
                    problems.append(f"{PREFIX + suffix}={raw!r} must be true or false")
                    continue
                values[setting] = _BOOLEANS[raw.lower()]
            else:
                values[setting] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown Kafka setting(s): {sorted(unknown)}")
        if "bootstrap_servers" not in values:
            problems.append(
                f"{env_var('bootstrap_servers')} is not set: give the brokers as "
                "HOST:PORT[,HOST:PORT...], e.g. 127.0.0.1:9092"
            )
            values["bootstrap_servers"] = "placeholder:9092"  # check everything else too
        try:
            settings = cls(**values).validate()
        except KafkaSettingsError as err:
            problems.extend(err.problems)
        if problems:
            raise KafkaSettingsError(problems)
        return settings

    def with_overrides(self, **changes: Any) -> KafkaSettings:
        """A copy with the given settings changed (``None`` values are ignored)."""
        kept = {k: v for k, v in changes.items() if v is not None}
        if (
            "topic" in kept
            and "dlq_topic" not in kept
            and self.dlq_topic == (self.topic + DLQ_SUFFIX)
        ):
            kept["dlq_topic"] = ""
        return replace(self, **kept)

    # ------------------------------------------------------------------ validation
    def validate(self) -> KafkaSettings:
        """Raise :class:`KafkaSettingsError` listing every problem; return ``self`` if none."""
        problems: list[str] = []
        servers = [s.strip() for s in self.bootstrap_servers.split(",") if s.strip()]
        if not servers:
            problems.append(f"{env_var('bootstrap_servers')} is empty; give HOST:PORT")
        for server in servers:
            host, sep, port = server.rpartition(":")
            if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
                problems.append(
                    f"{env_var('bootstrap_servers')}: {server!r} is not HOST:PORT "
                    "(e.g. broker-1.example:9092)"
                )
        for setting in ("topic", "dlq_topic", "exceptions_topic", "group_id", "client_id"):
            value = getattr(self, setting)
            if not value or any(c.isspace() for c in value):
                problems.append(f"{env_var(setting)}={value!r} must be a non-empty name")
        if self.topic == self.dlq_topic:
            problems.append(
                f"{env_var('dlq_topic')} must differ from {env_var('topic')} ({self.topic!r})"
            )
        if self.exceptions_topic in (self.topic, self.dlq_topic):
            problems.append(
                f"{env_var('exceptions_topic')} must differ from the events and dead-letter "
                f"topics ({self.exceptions_topic!r})"
            )
        if not isinstance(self.partitions, int) or self.partitions < 1:
            problems.append(f"{env_var('partitions')}={self.partitions!r} must be at least 1")
        protocol = self.security_protocol
        if protocol not in SECURITY_PROTOCOLS:
            problems.append(
                f"{env_var('security_protocol')}={protocol!r} must be one of "
                f"{', '.join(SECURITY_PROTOCOLS)}"
            )
        if protocol.startswith("SASL_"):
            problems.extend(self._sasl_problems())
        elif self.sasl_mechanism:
            problems.append(
                f"{env_var('sasl_mechanism')} is set but {env_var('security_protocol')} is "
                f"{protocol}; use SASL_SSL (or SASL_PLAINTEXT) to authenticate with SASL"
            )
        if protocol in ("SSL", "SASL_SSL"):
            for setting in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
                path = getattr(self, setting)
                if path and not Path(path).is_file():
                    problems.append(f"{env_var(setting)}={path!r}: no such file")
            if bool(self.ssl_certfile) != bool(self.ssl_keyfile):
                missing = "ssl_keyfile" if self.ssl_certfile else "ssl_certfile"
                problems.append(
                    f"{env_var(missing)} is required with "
                    f"{env_var('ssl_certfile' if missing == 'ssl_keyfile' else 'ssl_keyfile')} "
                    "(a client certificate needs its key)"
                )
        elif any((self.ssl_cafile, self.ssl_certfile, self.ssl_keyfile)):
            problems.append(
                f"SSL files are set but {env_var('security_protocol')} is {protocol}; "
                "use SSL or SASL_SSL"
            )
        if problems:
            raise KafkaSettingsError(problems)
        return self

    def _sasl_problems(self) -> list[str]:
        protocol = self.security_protocol
        mechanism = self.sasl_mechanism
        if not mechanism:
            return [
                f"{env_var('sasl_mechanism')} is required when {env_var('security_protocol')} "
                f"is {protocol} (one of {', '.join(SASL_MECHANISMS)})"
            ]
        if mechanism not in SASL_MECHANISMS:
            return [
                f"{env_var('sasl_mechanism')}={mechanism!r} must be one of "
                f"{', '.join(SASL_MECHANISMS)}"
            ]
        problems = []
        if mechanism in _PASSWORD_MECHANISMS:
            for setting in ("sasl_plain_username", "sasl_plain_password"):
                if not getattr(self, setting):
                    problems.append(
                        f"{env_var(setting)} is required when {env_var('security_protocol')} "
                        f"is {protocol} with mechanism {mechanism}"
                    )
        return problems

    # ------------------------------------------------------------------ kafka-python
    def client_kwargs(self) -> dict[str, Any]:
        """Connection keyword arguments shared by KafkaProducer, KafkaConsumer and
        KafkaAdminClient (``api_version`` left to kafka-python's probe)."""
        kwargs: dict[str, Any] = {
            "bootstrap_servers": [s.strip() for s in self.bootstrap_servers.split(",")],
            "client_id": self.client_id,
            "security_protocol": self.security_protocol,
        }
        if self.security_protocol.startswith("SASL_"):
            kwargs["sasl_mechanism"] = self.sasl_mechanism
            if self.sasl_mechanism in _PASSWORD_MECHANISMS:
                kwargs["sasl_plain_username"] = self.sasl_plain_username
                kwargs["sasl_plain_password"] = self.sasl_plain_password
        if self.security_protocol in ("SSL", "SASL_SSL"):
            for setting in ("ssl_cafile", "ssl_certfile", "ssl_keyfile"):
                if getattr(self, setting):
                    kwargs[setting] = getattr(self, setting)
        return kwargs

    def producer_kwargs(self, **tuning: Any) -> dict[str, Any]:
        """KafkaProducer arguments: the connection plus ``tuning`` (linger_ms, ...)."""
        return {**self.client_kwargs(), **tuning}

    def consumer_kwargs(self, **tuning: Any) -> dict[str, Any]:
        """KafkaConsumer arguments: the connection, the group, record-batch CRC checks (the
        ``check_crcs`` setting), plus ``tuning``, which may not set the CRC check."""
        if "check_crcs" in tuning:
            raise ValueError(
                "check_crcs is not consumer tuning: the record-batch CRC check is on unless "
                f"the {env_var('check_crcs')} setting turns it off"
            )
        return {
            **self.client_kwargs(),
            "group_id": self.group_id,
            "check_crcs": self.check_crcs,
            **tuning,
        }

    def describe(self) -> str:
        """One line for logs, without secrets."""
        auth = self.security_protocol
        if self.sasl_mechanism and auth.startswith("SASL_"):
            auth += f"/{self.sasl_mechanism}"
            if self.sasl_plain_username:
                auth += f" as {self.sasl_plain_username}"
        crcs = "" if self.check_crcs else f"; record CRCs NOT checked ({env_var('check_crcs')})"
        return (
            f"{self.bootstrap_servers} ({auth}) topic {self.topic}, dead letters "
            f"{self.dlq_topic}, exceptions to {self.exceptions_topic}, group "
            f"{self.group_id}{crcs}"
        )
