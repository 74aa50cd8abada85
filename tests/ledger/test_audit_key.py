"""The application key that authenticates seals and acknowledgements (pipeline.config.keys)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pipeline.config.keys import AuditKeyError, audit_key, authentic, authenticate, key_path


def test_key_from_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACCARAT_AUDIT_KEY", "ab" * 32)
    assert audit_key() == bytes.fromhex("ab" * 32)


def test_key_file_is_created_once_private(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("BACCARAT_AUDIT_KEY", raising=False)
    monkeypatch.delenv("BACCARAT_AUDIT_KEY_FILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    first = audit_key()
    assert key_path() == tmp_path / "baccarat-audit" / "audit.key"
    assert stat.S_IMODE(key_path().stat().st_mode) == 0o600
    assert audit_key() == first and len(first) == 32


def test_named_key_file_must_exist(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("BACCARAT_AUDIT_KEY", raising=False)
    monkeypatch.setenv("BACCARAT_AUDIT_KEY_FILE", str(tmp_path / "missing.key"))
    with pytest.raises(AuditKeyError, match=r"missing\.key"):
        audit_key()


@pytest.mark.parametrize("bad", ["zz" * 32, "ab" * 8])
def test_malformed_or_short_key_is_refused(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("BACCARAT_AUDIT_KEY", bad)
    with pytest.raises(AuditKeyError):
        audit_key()


def test_tag_depends_on_key_and_message() -> None:
    key, other = b"k" * 32, b"o" * 32
    tag = authenticate(b"line", key)
    assert authentic(b"line", tag, key)
    assert not authentic(b"line!", tag, key)
    assert not authentic(b"line", tag, other)
