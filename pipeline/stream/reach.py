"""Is the broker there at all? A bounded wait before the stream starts.

kafka-python waits for its first connection up to ``bootstrap_timeout_ms`` per client (30 s
by default), and the stream's retries then try again, client after client: against an
address where nothing listens, ``stream --until-idle`` went on for minutes, retrying, and
looked like it never exits. :func:`wait_for_broker` bounds that wait to one figure
(``--connect-timeout``), then says what is wrong and what to do.
"""

from __future__ import annotations

import logging
import time

from kafka import KafkaAdminClient

from pipeline.ingest.errors import TransientError
from pipeline.stream.settings import DEFAULT_CONNECT_TIMEOUT, KafkaSettings, env_var

__all__ = ["DEFAULT_CONNECT_TIMEOUT", "BrokerUnreachableError", "wait_for_broker"]


class BrokerUnreachableError(TransientError):
    """No broker answered at the bootstrap address within the connect timeout (transient:
    the command exits 75, try again later)."""


def wait_for_broker(settings: KafkaSettings, timeout: float) -> float:
    """Return the seconds it took a broker at ``settings.bootstrap_servers`` to answer for
    cluster metadata; raise :class:`BrokerUnreachableError` after ``timeout`` seconds."""
    started = time.monotonic()
    kafka_log = logging.getLogger("kafka")
    level = kafka_log.level
    if not kafka_log.isEnabledFor(logging.INFO):  # each refused connection is said below once
        kafka_log.setLevel(logging.CRITICAL)
    try:
        return _wait(settings, timeout, started)
    finally:
        kafka_log.setLevel(level)


def _wait(settings: KafkaSettings, timeout: float, started: float) -> float:
    last: BaseException | None = None
    while True:
        remaining = timeout - (time.monotonic() - started)
        if remaining <= 0:
            break
        try:
            admin = KafkaAdminClient(
                **settings.client_kwargs(),
                bootstrap_timeout_ms=max(100, int(remaining * 1000)),
                request_timeout_ms=max(1000, int(min(remaining, 10.0) * 1000)),
            )
        except Exception as exc:  # KafkaTimeoutError, NoBrokersAvailable, ...
            last = exc
            time.sleep(min(0.2, max(0.0, timeout - (time.monotonic() - started))))
            continue
        admin.close()
        return time.monotonic() - started
    why = f" (last error: {type(last).__name__}: {last})" if last is not None else ""
    raise BrokerUnreachableError(
        f"no Kafka broker answered at {settings.bootstrap_servers} within {timeout:g} s"
        f"{why}; nothing was read or written. Check the address (--bootstrap or "
        f"${env_var('bootstrap_servers')}) and that the broker is running (the bundled one: "
        "`baccarat-audit broker --port PORT`), then run the command again; "
        "--connect-timeout SECONDS waits longer."
    )
