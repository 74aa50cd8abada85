"""The application's secret key: what authenticates the record's seals and acknowledgements.

A SHA-256 chain shows that a record changed only to someone who kept an earlier digest; anyone
who can edit the ledger or the journal can recompute it. An HMAC keyed with a secret the
application holds cannot be recomputed without the secret, so a line or a seal written by
anything but this program is recognised as such.

Where the key comes from, first match wins:

1. ``BACCARAT_AUDIT_KEY``: the key itself, as hex (at least 32 bytes), e.g. injected from a
   secrets manager;
2. ``BACCARAT_AUDIT_KEY_FILE``: a file holding it;
3. ``$XDG_CONFIG_HOME/baccarat-audit/audit.key`` (``~/.config/...``), created on first use
   with 32 random bytes and mode 0600.

The ledger and its journal should be writable by the pipeline's operators; the key file
should not be (a production install gives it to the service account only).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_BYTES = 32


class AuditKeyError(RuntimeError):
    """The key cannot be read or is too short; the message says where it was looked for."""


def key_path() -> Path:
    """The key file used when ``BACCARAT_AUDIT_KEY`` is not set."""
    explicit = os.environ.get("BACCARAT_AUDIT_KEY_FILE")
    if explicit:
        return Path(explicit)
    config_home = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home) / "baccarat-audit" / "audit.key"


def audit_key() -> bytes:
    """The application's key (see the module docstring for where it comes from)."""
    given = os.environ.get("BACCARAT_AUDIT_KEY")
    if given:
        return _checked(given.strip(), "BACCARAT_AUDIT_KEY")
    path = key_path()
    if not path.exists() and "BACCARAT_AUDIT_KEY_FILE" not in os.environ:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fo:
            fo.write(secrets.token_hex(KEY_BYTES) + "\n")
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as err:
        raise AuditKeyError(
            f"{path}: cannot read the audit key ({err}); set BACCARAT_AUDIT_KEY_FILE to the "
            "key file the seals and acknowledgements were made with"
        ) from err
    return _checked(text, str(path))


def _checked(text: str, where: str) -> bytes:
    try:
        key = bytes.fromhex(text)
    except ValueError as err:
        raise AuditKeyError(f"{where}: the audit key must be hex digits") from err
    if len(key) < KEY_BYTES:
        raise AuditKeyError(f"{where}: the audit key must be at least {KEY_BYTES} bytes")
    return key


def authenticate(message: bytes, key: bytes | None = None) -> str:
    """The hex HMAC-SHA-256 of ``message`` under the application's key."""
    return hmac.new(key if key is not None else audit_key(), message, hashlib.sha256).hexdigest()


def authentic(message: bytes, tag: str, key: bytes | None = None) -> bool:
    """Whether ``tag`` is this application's HMAC of ``message`` (constant-time compare)."""
    return hmac.compare_digest(authenticate(message, key), tag)
