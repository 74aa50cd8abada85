"""What a witness holds: a checkpoint of an append-only log, and the chain that proves a later
checkpoint extends an earlier one.

The record is two append-only logs per ledger: the seal log (every close and reopen) and the
acknowledgement journal. Each entry's link is a hash of the link before it and of the entry's
content digest (:func:`chain_link`), so the head after ``n`` entries commits to all of them,
in order. A checkpoint states a log's size and head at a time, signed by the installation's
key of that log; a witness keeps every checkpoint it accepted. As in Certificate Transparency
(RFC 9162), anyone holding an earlier checkpoint can tell whether today's log still extends
it: the entry at the checkpoint's size must carry the checkpoint's head. A log cut short
(fewer entries than a witnessed size), rolled back (an earlier state restored, then grown
again) or forked (another history from a common prefix) cannot.

A witness checks that a new checkpoint extends its latest one from the content digests of
the entries in between (:func:`extends`), without ever seeing the entries.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

LOGS = {"seal": "seal", "journal": "journal"}
"""Each log of a ledger, and the purpose of the installation key that signs its checkpoints
(:data:`pipeline.config.keys.PURPOSES`)."""

GENESIS = "0" * 64
"""The link before the first entry."""


def chain_link(log: str, previous_link: str, content_digest: str) -> str:
    """The link of an entry of ``log``: SHA-256 over the log's name, the previous link and
    the entry's content digest (hex)."""
    if log not in LOGS:
        raise ValueError(f"unknown log {log!r}")
    return hashlib.sha256(
        f"baccarat-audit {log} chain\n{previous_link}\n{content_digest}".encode()
    ).hexdigest()


def extends(log: str, head: str, proof: Sequence[str], new_head: str) -> bool:
    """Whether chaining the content digests ``proof`` onto ``head`` gives ``new_head``."""
    link = head
    for digest in proof:
        link = chain_link(log, link, digest)
    return link == new_head


@dataclass(frozen=True)
class Checkpoint:
    ledger_id: str
    ledger: str
    """Where the ledger was when the checkpoint was made (a name for people; the id decides)."""
    log: str
    size: int
    head: str
    made_at: str
    key_id: str
    signature: str

    def signed_content(self) -> bytes:
        body = {k: v for k, v in asdict(self).items() if k != "signature"}
        return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    def describe(self) -> str:
        return f"{self.log} log of {self.size} entries, head {self.head[:16]}..., {self.made_at}"

    @classmethod
    def from_json(cls, data: Any) -> Checkpoint:
        """A checkpoint from its JSON object; :class:`ValueError` naming what is wrong."""
        try:
            checkpoint = cls(**{k: data[k] for k in cls.__dataclass_fields__})
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a checkpoint ({err!r})") from err
        if not (
            isinstance(checkpoint.size, int)
            and checkpoint.size >= 0
            and checkpoint.log in LOGS
            and all(
                isinstance(getattr(checkpoint, f), str)
                for f in ("ledger_id", "ledger", "head", "made_at", "key_id", "signature")
            )
        ):
            raise ValueError("not a checkpoint (a field has the wrong type or value)")
        return checkpoint
