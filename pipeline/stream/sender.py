"""Send messages the consumer must know arrived: dead letters and exception notices.

One idempotent producer (``acks=all``), made on first use; :meth:`AcknowledgedSender.send`
returns only once the broker acknowledged every message of the call, retrying transient
failures with the consumer's backoff, so the caller may then record in the ledger that they
were sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kafka import KafkaProducer

from pipeline.stream.settings import KafkaSettings

Message = tuple[bytes | None, bytes, list[tuple[str, bytes]]]
"""(key, value, headers) of one message."""

ACK_TIMEOUT_SECONDS = 30


class AcknowledgedSender:
    """Sends to one topic and waits for the acknowledgements (see the module docstring)."""

    def __init__(
        self,
        settings: KafkaSettings,
        topic: str,
        retrying: Callable[[Callable[[], Any], str], Any],
    ) -> None:
        self.settings = settings
        self.topic = topic
        self.retrying = retrying
        self._producer: KafkaProducer | None = None
        self.sent = 0

    def _get(self) -> KafkaProducer:
        if self._producer is None:
            self._producer = self.retrying(
                lambda: KafkaProducer(
                    **self.settings.producer_kwargs(
                        acks="all", enable_idempotence=True, linger_ms=5
                    )
                ),
                f"connecting a producer for {self.topic} to {self.settings.bootstrap_servers}",
            )
        return self._producer

    def send(self, messages: Sequence[Message], what: str) -> None:
        """Send ``messages`` (``what`` they are, for errors) and wait until all are
        acknowledged."""

        def attempt() -> None:
            producer = self._get()
            futures = [
                producer.send(self.topic, key=key, value=value, headers=headers)
                for key, value, headers in messages
            ]
            producer.flush()
            for future in futures:
                future.get(timeout=ACK_TIMEOUT_SECONDS)

        self.retrying(attempt, f"sending {what} to {self.topic}")
        self.sent += len(messages)

    def close(self) -> None:
        if self._producer is not None:
            self._producer.close()
            self._producer = None
