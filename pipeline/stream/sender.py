"""Send messages the consumer must know arrived: dead letters and exception notices.

One idempotent producer (``acks=all``), made on first use; :meth:`AcknowledgedSender.send`
returns only once the broker acknowledged every message of the call, retrying transient
failures with the consumer's backoff, so the caller may then record in the ledger that they
were sent.

A broker that restarted and forgot the producer's id (``UnknownProducerIdError``; also an
out-of-order sequence or a fenced epoch) refuses every later send of that producer: its
sequence numbers belong to a session the broker no longer has. Idempotence only holds within
one producer session, so the producer is dropped and the whole call sent again by a new one
(a new producer id), as one more transient failure. Messages of the call the broker had
acknowledged before may then be on the topic twice: the dead-letter and exceptions topics
are at-least-once by design (their consumers de-duplicate on the ``dlq.source.*`` headers
and the notice id), and the ledger, which holds what the stream loaded, is not touched.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from kafka import KafkaProducer
from kafka import errors as kafka_errors

from pipeline.ingest.errors import TransientError
from pipeline.stream.settings import KafkaSettings

log = logging.getLogger(__name__)

Message = tuple[bytes | None, bytes, list[tuple[str, bytes]]]
"""(key, value, headers) of one message."""

ACK_TIMEOUT_SECONDS = 30

FORGOTTEN_PRODUCER = (
    kafka_errors.UnknownProducerIdError,
    kafka_errors.OutOfOrderSequenceNumberError,
    kafka_errors.InvalidProducerEpochError,
)
"""The broker no longer knows the producer's session (it restarted or lost its state)."""


class ProducerForgottenError(TransientError):
    """The broker forgot the producer's session; a new producer sends the call again."""


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
            try:
                for future in futures:
                    future.get(timeout=ACK_TIMEOUT_SECONDS)
            except FORGOTTEN_PRODUCER as err:
                self._drop()
                log.warning(
                    "%s: the broker at %s forgot this producer (%s: it restarted or lost its "
                    "state); sending the %d message(s) again with a new producer",
                    self.topic, self.settings.bootstrap_servers, type(err).__name__,
                    len(messages),
                )  # fmt: skip
                raise ProducerForgottenError(
                    f"{type(err).__name__} from {self.settings.bootstrap_servers} sending "
                    f"{what} to {self.topic}: the broker no longer knows this producer (it "
                    "restarted or lost its state)"
                ) from err

        self.retrying(attempt, f"sending {what} to {self.topic}")
        self.sent += len(messages)

    def _drop(self) -> None:
        """Let go of a producer whose session the broker forgot, without waiting for it."""
        if self._producer is not None:
            producer, self._producer = self._producer, None
            try:
                producer.close(timeout=1)
            except Exception as exc:  # it is broken already; a new one takes over
                log.info("closing a forgotten producer: %s: %s", type(exc).__name__, exc)

    def close(self) -> None:
        if self._producer is not None:
            self._producer.close()
            self._producer = None
