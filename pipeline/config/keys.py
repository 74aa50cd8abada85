"""The record's keys: Ed25519 signing keys the installation's service account alone holds,
one per purpose, and the public keyring anyone can verify with.

Why signatures and not a shared secret: with an HMAC, whoever verifies holds what forges,
so every operator who can run ``verify``, and every webhook receiver, could rewrite history.
An Ed25519 signature is made with a private key in the installation's ``private/`` folder
(:mod:`pipeline.config.installation`) and checked with its public half in ``keyring.json``.

One key per purpose (:data:`PURPOSES`), and every signed message starts with its purpose, so a
webhook receiver holding the webhook key's public half learns nothing about seals, and a
signature made for one purpose never passes for another.

Rotation (``baccarat-audit keys rotate --purpose P``) makes a new key, signs a statement
"key N follows key O" with the old key (and the new one), marks the old one retired and
deletes its private half. Entries keep the key id they were signed with; the keyring keeps
every public key, so the whole record verifies after any number of rotations, and a key added
to the keyring by hand (no statement signed by its predecessor) is refused.

Ledgers closed before signatures carry HMAC links under the old shared key. They verify only
with that key given explicitly (``BACCARAT_LEGACY_AUDIT_KEY`` or ``_FILE``); without it
``verify`` names them as unverifiable instead of taking them on trust.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from pipeline.config.installation import (
    Installation,
    InstallationError,
    check_private,
    installation,
)

PURPOSES = ("seal", "journal", "webhook")
"""What each key signs: the seal log and its checkpoints; the acknowledgement journal and
its checkpoints; the alerts sent to webhooks."""

LEGACY_KEY_ENV = "BACCARAT_LEGACY_AUDIT_KEY"
LEGACY_KEY_FILE_ENV = "BACCARAT_LEGACY_AUDIT_KEY_FILE"
LEGACY_KEY_BYTES = 32


class KeyringError(InstallationError):
    """The keyring cannot be read, or a key in it was not rotated in by its predecessor."""


def key_id_of(public: Ed25519PublicKey) -> str:
    """A key's id: the first 16 bytes of the SHA-256 of its raw public key, as hex."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:32]


def _raw_hex(public: Ed25519PublicKey) -> str:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def signed_message(purpose: str, message: bytes) -> bytes:
    """What a signature of ``purpose`` covers: the purpose, then the message."""
    if purpose not in (*PURPOSES, "rotation", "witness"):
        raise ValueError(f"unknown signing purpose {purpose!r}")
    return f"baccarat-audit {purpose}\n".encode() + message


def public_key_from_hex(text: str) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))


def verify_signature(public_hex: str, purpose: str, message: bytes, signature: str) -> bool:
    """Whether ``signature`` (hex) is the signature of ``message`` for ``purpose``."""
    try:
        public_key_from_hex(public_hex).verify(
            bytes.fromhex(signature), signed_message(purpose, message)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class PublicKey:
    key_id: str
    purpose: str
    public_key: str
    """The raw Ed25519 public key, hex."""
    created: str
    retired: str | None = None
    follows: str | None = None
    """The key id this one replaced (``None`` for the installation's first key)."""
    rotation_signature: str | None = None
    """The statement "this key follows ``follows``", signed by the key it replaced."""

    def rotated_in_by(self, before: PublicKey | None) -> bool:
        """Whether ``before``, a key of the same purpose, signed this key in (its
        rotation statement)."""
        return (
            before is not None
            and before.purpose == self.purpose
            and verify_signature(
                before.public_key,
                "rotation",
                self.rotation_statement(),
                self.rotation_signature or "",
            )
        )

    def rotation_statement(self) -> bytes:
        return json.dumps(
            {
                "purpose": self.purpose,
                "follows": self.follows,
                "key_id": self.key_id,
                "public_key": self.public_key,
                "created": self.created,
            },
            sort_keys=True,
            separators=(",", ":"),
        ).encode()


@dataclass(frozen=True)
class Keyring:
    path: Path
    keys: tuple[PublicKey, ...]

    def current(self, purpose: str) -> PublicKey:
        live = [k for k in self.keys if k.purpose == purpose and k.retired is None]
        if len(live) != 1:
            raise KeyringError(
                f"{self.path}: {len(live)} unretired {purpose} keys (one expected): the "
                "keyring was edited; restore it from the installation's backup"
            )
        return live[0]

    def find(self, key_id: str | None, purpose: str) -> PublicKey | None:
        return next((k for k in self.keys if k.key_id == key_id and k.purpose == purpose), None)

    def verify(self, purpose: str, key_id: str | None, message: bytes, signature: str) -> bool:
        """Whether ``signature`` over ``message`` was made by the key ``key_id`` of
        ``purpose`` in this keyring (retired keys included: what they signed stays valid)."""
        key = self.find(key_id, purpose)
        return key is not None and verify_signature(key.public_key, purpose, message, signature)

    def retired_before(
        self, purpose: str, key_id: str | None, made_at: datetime
    ) -> PublicKey | None:
        """The key ``key_id`` of ``purpose`` when it was retired before ``made_at`` (naive:
        UTC): its private half is deleted at the rotation, so a signature it made later comes
        from a copy someone kept."""
        key = self.find(key_id, purpose)
        if key is None or key.retired is None:
            return None
        retired = datetime.fromisoformat(key.retired)
        made = made_at if made_at.tzinfo else made_at.replace(tzinfo=UTC)
        return key if made > retired else None

    def problems(self) -> list[str]:
        """Keys that no predecessor rotated in: one first key per purpose, each later key
        signed into the keyring by the key it follows."""
        problems = []
        for purpose in PURPOSES:
            chain = [k for k in self.keys if k.purpose == purpose]
            firsts = [k for k in chain if k.follows is None]
            if len(firsts) != 1:
                problems.append(
                    f"{self.path}: {len(firsts)} first {purpose} keys (one expected): a key "
                    "was added to the keyring by hand"
                )
            for key in chain:
                if key.follows is None:
                    continue
                if not key.rotated_in_by(self.find(key.follows, purpose)):
                    problems.append(
                        f"{self.path}: {purpose} key {key.key_id} claims to follow "
                        f"{key.follows}, but that key did not sign it in: added by hand; "
                        "refused"
                    )
        return problems


def load_keyring(where: Installation | None = None) -> Keyring:
    """The installation's keyring."""
    return read_keyring((where or installation()).keyring_path)


def read_keyring(path: Path) -> Keyring:
    """The keyring in ``path`` (an installation's, or the copy a witness pinned)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        keys = tuple(PublicKey(**k) for k in data["keys"])
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise KeyringError(
            f"{path}: cannot read the keyring ({err}): restore it from the installation's backup"
        ) from err
    return Keyring(path, keys)


def _write_keyring(inst: Installation, keys: Sequence[PublicKey]) -> None:
    text = json.dumps({"keys": [asdict(k) for k in keys]}, indent=2, sort_keys=True) + "\n"
    temporary = inst.keyring_path.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.chmod(0o644)
    os.replace(temporary, inst.keyring_path)


@dataclass(frozen=True)
class Signer:
    purpose: str
    key_id: str
    private: Ed25519PrivateKey

    def sign(self, message: bytes) -> str:
        return self.private.sign(signed_message(self.purpose, message)).hex()


def signer(purpose: str, where: Installation | None = None) -> Signer:
    """The installation's current key for ``purpose``; refused when the file is missing,
    unreadable by this account, or open to other accounts (never created here)."""
    inst = where or installation()
    path = inst.private_key_path(purpose)
    check_private(path, f"the {purpose} signing key")
    try:
        private = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError) as err:
        raise InstallationError(f"{path}: not an Ed25519 private key ({err})") from err
    if not isinstance(private, Ed25519PrivateKey):
        raise InstallationError(f"{path}: not an Ed25519 private key")
    key_id = key_id_of(private.public_key())
    current = load_keyring(inst).current(purpose)
    if current.key_id != key_id:
        raise KeyringError(
            f"{path}: key {key_id} is not the keyring's current {purpose} key "
            f"({current.key_id}): the key file was replaced; restore it, or rotate"
        )
    return Signer(purpose, key_id, private)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _write_private(inst: Installation, purpose: str, private: Ed25519PrivateKey) -> None:
    path = inst.private_key_path(purpose)
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fo:
        fo.write(pem)
        fo.flush()
        os.fsync(fo.fileno())
    os.replace(temporary, path)


def create_keys(inst: Installation) -> list[PublicKey]:
    """The installation's first key of every purpose (``installation init``); refused where
    a keyring exists (rotate instead)."""
    if inst.keyring_path.exists():
        raise KeyringError(
            f"{inst.keyring_path}: the installation has keys already; replace one with "
            "baccarat-audit keys rotate --purpose PURPOSE"
        )
    inst.private_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    inst.private_dir.chmod(0o700)
    keys = []
    for purpose in PURPOSES:
        private = Ed25519PrivateKey.generate()
        _write_private(inst, purpose, private)
        public = private.public_key()
        keys.append(PublicKey(key_id_of(public), purpose, _raw_hex(public), _now()))
    _write_keyring(inst, keys)
    return keys


def rotate(purpose: str, where: Installation | None = None) -> PublicKey:
    """Replace ``purpose``'s key: the old key signs the new one in, is marked retired and its
    private half is deleted; what it signed keeps verifying with its public half."""
    inst = where or installation()
    old = signer(purpose, inst)
    ring = load_keyring(inst)
    private = Ed25519PrivateKey.generate()
    public = private.public_key()
    unsigned = PublicKey(key_id_of(public), purpose, _raw_hex(public), _now(), follows=old.key_id)
    new = replace(
        unsigned,
        rotation_signature=old.private.sign(
            signed_message("rotation", unsigned.rotation_statement())
        ).hex(),
    )
    keys = [replace(k, retired=_now()) if k.key_id == old.key_id else k for k in ring.keys]
    _write_keyring(inst, [*keys, new])
    _write_private(inst, purpose, private)
    return new


# ---------------------------------------------------------------------- legacy HMAC links
def legacy_audit_key() -> bytes | None:
    """The shared HMAC key that ledgers closed before signatures were made with, when given
    explicitly (``BACCARAT_LEGACY_AUDIT_KEY``: hex; or ``BACCARAT_LEGACY_AUDIT_KEY_FILE``);
    ``None`` otherwise: nothing is ever read from a default place or created."""
    given = os.environ.get(LEGACY_KEY_ENV, "").strip()
    where = LEGACY_KEY_ENV
    if not given and os.environ.get(LEGACY_KEY_FILE_ENV):
        path = Path(os.environ[LEGACY_KEY_FILE_ENV])
        check_private(path, "the legacy audit key")
        given, where = path.read_text(encoding="ascii").strip(), str(path)
    if not given:
        return None
    try:
        key = bytes.fromhex(given)
    except ValueError as err:
        raise InstallationError(f"{where}: the legacy audit key must be hex digits") from err
    if len(key) < LEGACY_KEY_BYTES:
        raise InstallationError(
            f"{where}: the legacy audit key must be at least {LEGACY_KEY_BYTES} bytes"
        )
    return key


def legacy_tag(message: bytes, key: bytes) -> str:
    """The hex HMAC-SHA-256 the legacy records carry."""
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def legacy_authentic(message: bytes, tag: str) -> bool | None:
    """Whether ``tag`` is the legacy HMAC of ``message``; ``None`` when no legacy key was
    given (the record cannot be verified, and must be reported so)."""
    key = legacy_audit_key()
    if key is None:
        return None
    return hmac.compare_digest(legacy_tag(message, key), tag)
