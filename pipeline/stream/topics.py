"""Create the pipeline's topics (events, dead letters, exception notices) when missing."""

from __future__ import annotations

import logging
from typing import Any

from kafka import KafkaAdminClient
from kafka import errors as kafka_errors

from pipeline.stream.settings import KafkaSettings

log = logging.getLogger(__name__)

TOPIC_EXISTS = kafka_errors.TopicAlreadyExistsError.errno


def ensure_topics(
    settings: KafkaSettings, *, partitions: int | None = None, timeout_ms: int = 15_000
) -> dict[str, bool]:
    """Make sure the events, dead-letter and exception topics exist; return, per topic,
    whether this call created it.

    New topics get ``partitions`` (default ``settings.partitions``) partitions and the
    cluster's default replication factor. Existing topics are left as they are, and a topic
    another client creates at the same moment counts as existing.
    """
    count = partitions or settings.partitions
    admin = KafkaAdminClient(
        **settings.client_kwargs(),
        request_timeout_ms=timeout_ms,
        bootstrap_timeout_ms=timeout_ms,
    )
    try:
        existing = set(admin.list_topics())
        topics = (settings.topic, settings.dlq_topic, settings.exceptions_topic)
        wanted = [t for t in topics if t not in existing]
        created = dict.fromkeys(topics, False)
        if not wanted:
            return created
        spec: dict[str, dict[str, Any]] = {
            t: {"num_partitions": count, "replication_factor": -1} for t in wanted
        }
        response = admin.create_topics(
            spec, timeout_ms=timeout_ms, raise_errors=False, wait_for_metadata=True
        )
        for entry in response.get("topics", []):
            name, code = entry["name"], entry["error_code"]
            if code == 0:
                created[name] = True
                log.info("created topic %s with %d partitions", name, count)
            elif code != TOPIC_EXISTS:
                error = kafka_errors.for_code(code)
                raise error(f"cannot create topic {name}: {entry.get('error_message') or ''}")
        return created
    finally:
        admin.close()


def partitions_for(settings: KafkaSettings, topic: str | None = None) -> int:
    """How many partitions ``topic`` (default: the events topic) has; 0 if it is missing."""
    admin = KafkaAdminClient(**settings.client_kwargs())
    try:
        described = admin.describe_topics([topic or settings.topic])
    finally:
        admin.close()
    for entry in described:
        if entry.get("error_code", 0) == 0:
            return len(entry.get("partitions", []))
    return 0
