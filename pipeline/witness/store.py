"""A witness: an append-only store of checkpoints, kept apart from the ledger and its
operators, that refuses (and records refusing) any checkpoint that does not extend the ones
it holds.

The witness has its own Ed25519 key, and countersigns each record it keeps, so what it
returns can be told from what an operator wrote into its file. When it is set up it pins the
installation's keyring (``pinned-keyring.json``): a checkpoint counts only when a pinned key,
or a key rotated in by one (:meth:`pipeline.config.keys.Keyring.problems`), signed it, so an
operator who made a keyring of their own cannot feed it checkpoints.

A checkpoint is refused when it is smaller than the latest the witness holds for the same
ledger and log (truncation, or a restored backup), when it has the latest's size but another
head, or when the content digests sent with it do not chain the latest head to the new one
(a fork). The refusal is kept, signed, so ``verify`` reports the attempt later.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pipeline.config.installation import InstallationError, check_private
from pipeline.config.keys import (
    Keyring,
    KeyringError,
    PublicKey,
    key_id_of,
    read_keyring,
    signed_message,
    verify_signature,
)
from pipeline.witness.checkpoint import GENESIS, LOGS, Checkpoint, extends

ACCEPTED = "accepted"
REFUSED = "refused"


class CheckpointRefusedError(ValueError):
    """The witness did not accept a checkpoint; the message says why."""


@dataclass(frozen=True)
class WitnessRecord:
    """One line of a witness's store, countersigned by the witness."""

    kind: str
    checkpoint: dict[str, Any]
    reason: str | None
    witnessed_at: str
    witness_key_id: str
    witness_signature: str

    def signed_content(self) -> bytes:
        body = {k: v for k, v in asdict(self).items() if k != "witness_signature"}
        return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    def authentic(self, witness_public_key: str) -> bool:
        return verify_signature(
            witness_public_key, "witness", self.signed_content(), self.witness_signature
        )

    @classmethod
    def from_json(cls, data: Any) -> WitnessRecord:
        try:
            return cls(**{k: data[k] for k in cls.__dataclass_fields__})
        except (KeyError, TypeError) as err:
            raise ValueError(f"not a witness record ({err!r})") from err


class WitnessStore:
    """A witness's folder: ``witness.key`` (0600), ``witness.json`` (its public key),
    ``pinned-keyring.json`` and ``checkpoints.jsonl`` (append-only)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.records_path = root / "checkpoints.jsonl"
        self.key_path = root / "private" / "witness.key"
        self.public_path = root / "witness.json"
        self.pinned_path = root / "pinned-keyring.json"
        self.heads_path = root / "heads.json"
        """The latest accepted checkpoint of each ledger's log, so judging a new checkpoint
        reads one small file, not every record kept over the years."""

    # ------------------------------------------------------------------ set-up
    @classmethod
    def create(cls, root: Path, keyring: Keyring) -> WitnessStore:
        """A new witness pinning ``keyring``; refused where one exists."""
        store = cls(root)
        if store.public_path.exists():
            raise InstallationError(f"{root}: a witness exists here already")
        keyring_problems = keyring.problems()
        if keyring_problems:
            raise KeyringError("; ".join(keyring_problems))
        store.key_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        store.key_path.parent.chmod(0o700)
        private = Ed25519PrivateKey.generate()
        fd = os.open(store.key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fo:
            fo.write(
                private.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.PKCS8,
                    serialization.NoEncryption(),
                )
            )
        public = private.public_key()
        raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        store.public_path.write_text(
            json.dumps({"key_id": key_id_of(public), "public_key": raw.hex()}) + "\n"
        )
        store.pinned_path.write_text(
            json.dumps({"keys": [asdict(k) for k in keyring.keys]}, indent=2) + "\n"
        )
        store.records_path.touch()
        return store

    @property
    def public_key(self) -> str:
        return str(json.loads(self.public_path.read_text())["public_key"])

    def _private(self) -> tuple[str, Ed25519PrivateKey]:
        check_private(self.key_path, "the witness's key")
        private = serialization.load_pem_private_key(self.key_path.read_bytes(), None)
        if not isinstance(private, Ed25519PrivateKey):
            raise InstallationError(f"{self.key_path}: not an Ed25519 private key")
        return key_id_of(private.public_key()), private

    def _pinned(self, offered: Sequence[dict[str, Any]]) -> Keyring:
        """The pinned keyring, with the offered keys that a pinned key rotated in."""
        keys = list(read_keyring(self.pinned_path).keys)
        known = {k.key_id for k in keys}
        grew = True
        candidates = []
        for item in offered:
            try:
                candidates.append(PublicKey(**item))
            except TypeError:
                continue
        while grew:  # a chain of rotations arrives in any order
            grew = False
            for key in candidates:
                if key.key_id in known or key.follows not in known:
                    continue
                if key.rotated_in_by(next(k for k in keys if k.key_id == key.follows)):
                    keys.append(key)
                    known.add(key.key_id)
                    grew = True
        return Keyring(self.pinned_path, tuple(keys))

    # ------------------------------------------------------------------ the store
    @contextmanager
    def _locked(self) -> Iterator[Any]:
        with self.records_path.open("a+", encoding="utf-8") as fo:
            fcntl.flock(fo, fcntl.LOCK_EX)
            try:
                yield fo
            finally:
                fcntl.flock(fo, fcntl.LOCK_UN)

    def records(self) -> list[WitnessRecord]:
        records = []
        for line in self.records_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                records.append(WitnessRecord.from_json(json.loads(line)))
        return records

    def _heads(self) -> dict[str, dict[str, Any]]:
        """:attr:`heads_path`, made from the records when it is missing (a store kept before
        it, or one whose index was removed)."""
        if self.heads_path.exists():
            heads: dict[str, dict[str, Any]] = json.loads(self.heads_path.read_text())
            return heads
        heads = {}
        for record in self.records():
            if record.kind == ACCEPTED:
                _advance(heads, Checkpoint.from_json(record.checkpoint))
        return heads

    def latest(self, ledger_id: str, log: str) -> Checkpoint | None:
        """The largest checkpoint of ``ledger_id``'s ``log`` this witness accepted."""
        kept = self._heads().get(_head_key(ledger_id, log))
        return Checkpoint.from_json(kept) if kept is not None else None

    def submit(
        self,
        checkpoint: Checkpoint,
        proof: Sequence[str],
        offered_keys: Sequence[dict[str, Any]] = (),
    ) -> WitnessRecord:
        """Keep ``checkpoint`` if it extends the latest one of its ledger and log (``proof``:
        the content digests of the entries since); otherwise keep the refusal and raise
        :class:`CheckpointRefusedError`."""
        with self._locked() as fo:
            reason = self._judge(checkpoint, proof, offered_keys)
            record = self._record(ACCEPTED if reason is None else REFUSED, checkpoint, reason)
            fo.write(json.dumps(asdict(record), sort_keys=True) + "\n")
            fo.flush()
            os.fsync(fo.fileno())
            if reason is None:
                heads = self._heads()
                _advance(heads, checkpoint)
                temporary = self.heads_path.with_suffix(".tmp")
                temporary.write_text(json.dumps(heads, sort_keys=True))
                os.replace(temporary, self.heads_path)
        if reason is not None:
            raise CheckpointRefusedError(reason)
        return record

    def _judge(
        self, checkpoint: Checkpoint, proof: Sequence[str], offered: Sequence[dict[str, Any]]
    ) -> str | None:
        keyring = self._pinned(offered)
        if not keyring.verify(
            LOGS[checkpoint.log],
            checkpoint.key_id,
            checkpoint.signed_content(),
            checkpoint.signature,
        ):
            return (
                f"the checkpoint is not signed by a key of the installation this witness "
                f"pinned (key {checkpoint.key_id}): another installation's, or forged"
            )
        latest = self.latest(checkpoint.ledger_id, checkpoint.log)
        size, head = (latest.size, latest.head) if latest else (0, GENESIS)
        if checkpoint.size < size:
            return (
                f"truncation or rollback: the {checkpoint.log} log of ledger "
                f"{checkpoint.ledger_id} has {checkpoint.size} entries, but this witness "
                f"holds a checkpoint of {size} ({latest.describe() if latest else ''})"
            )
        if len(proof) != checkpoint.size - size or not extends(
            checkpoint.log, head, proof, checkpoint.head
        ):
            return (
                f"fork: the {checkpoint.log} log of ledger {checkpoint.ledger_id} at "
                f"{checkpoint.size} entries (head {checkpoint.head}) does not extend the "
                f"checkpoint this witness holds at {size} entries (head {head})"
            )
        return None

    def _record(self, kind: str, checkpoint: Checkpoint, reason: str | None) -> WitnessRecord:
        key_id, private = self._private()
        unsigned = WitnessRecord(
            kind,
            asdict(checkpoint),
            reason,
            datetime.now(UTC).isoformat(timespec="microseconds"),
            key_id,
            "",
        )
        signature = private.sign(signed_message("witness", unsigned.signed_content())).hex()
        return WitnessRecord(**{**asdict(unsigned), "witness_signature": signature})

    def about(self, ledger_id: str | None = None, ledger: str | None = None) -> list[WitnessRecord]:
        """The records of checkpoints of ledger ``ledger_id``, or made of a ledger at the
        place ``ledger`` (another ledger put in its place is told that way)."""
        return [
            r
            for r in self.records()
            if (ledger_id is not None and r.checkpoint.get("ledger_id") == ledger_id)
            or (ledger is not None and r.checkpoint.get("ledger") == ledger)
        ]


def _head_key(ledger_id: str, log: str) -> str:
    return f"{ledger_id} {log}"


def _advance(heads: dict[str, dict[str, Any]], checkpoint: Checkpoint) -> None:
    """Keep ``checkpoint`` as its log's latest in ``heads`` unless a larger one is there."""
    key = _head_key(checkpoint.ledger_id, checkpoint.log)
    if checkpoint.size >= heads.get(key, {}).get("size", -1):
        heads[key] = asdict(checkpoint)
