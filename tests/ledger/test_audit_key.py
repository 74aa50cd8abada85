"""The record's keys (pipeline.config.keys): Ed25519 keys in the installation's private/
folder, never created on the fly, refused when other accounts could read them or when they
are not the keyring's; rotation keeps what the old key signed verifying; a key added to the
keyring by hand is refused."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from pipeline.bundle.acks import AckJournal
from pipeline.config.installation import INSTALLATION_ENV, InstallationError, installation
from pipeline.config.keys import (
    KeyringError,
    PublicKey,
    _raw_hex,
    key_id_of,
    load_keyring,
    rotate,
    signer,
)
from pipeline.witness.provision import init_demo_installation


@pytest.fixture
def inst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = init_demo_installation(tmp_path / "inst").root
    monkeypatch.setenv(INSTALLATION_ENV, str(root))
    return root


def _journal(tmp_path: Path) -> AckJournal:
    return AckJournal(tmp_path / "acks.jsonl", ledger_id="L1", ledger=tmp_path / "l.duckdb")


def _ack(journal: AckJournal, action: str = "ESCALATE") -> None:
    journal.append(exception_id="e1", action=action, note="n", actor="a", actor_source="x")


def test_a_missing_key_is_refused_and_never_created(inst: Path, tmp_path: Path) -> None:
    key = inst / "private" / "journal.key"
    key.unlink()
    with pytest.raises(InstallationError, match="journal signing key is missing: it is never"):
        signer("journal")
    with pytest.raises(InstallationError):
        _ack(_journal(tmp_path))
    assert not key.exists()
    assert not (tmp_path / "acks.jsonl").exists() or not (tmp_path / "acks.jsonl").read_text()


def test_no_installation_is_refused_and_none_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(INSTALLATION_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(InstallationError, match="no baccarat-audit installation here"):
        signer("seal")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660])
def test_a_key_file_other_accounts_can_read_is_refused(inst: Path, mode: int) -> None:
    key = inst / "private" / "journal.key"
    key.chmod(mode)
    with pytest.raises(InstallationError, match=f"mode {mode:04o} lets other accounts read"):
        signer("journal")


def test_a_private_folder_other_accounts_can_enter_is_refused(inst: Path) -> None:
    (inst / "private").chmod(0o750)
    with pytest.raises(InstallationError, match="mode 0750"):
        signer("webhook")


def test_another_accounts_key_is_refused(inst: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a file to another account needs root")
    key = inst / "private" / "seal.key"
    os.chown(key, 4242, 4242)
    with pytest.raises(InstallationError, match="owned by uid 4242, not by this account"):
        signer("seal")


def test_a_key_file_replaced_by_another_key_is_refused(inst: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    other = Ed25519PrivateKey.generate()
    (inst / "private" / "journal.key").write_bytes(
        other.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    with pytest.raises(KeyringError, match="is not the keyring's current journal key"):
        signer("journal")


def test_rotation_keeps_old_entries_verifying(inst: Path, tmp_path: Path) -> None:
    journal = _journal(tmp_path)
    _ack(journal, "ESCALATE")
    old = signer("journal").key_id
    new = rotate("journal")
    assert new.follows == old and new.key_id != old
    _ack(journal, "ACKNOWLEDGE")
    keys = [r.key_id for r in journal.records()]
    assert keys == [old, new.key_id]
    assert journal.verify() == []
    assert load_keyring().problems() == []
    retired = load_keyring().find(old, "journal")
    assert retired is not None and retired.retired is not None


def test_a_line_signed_with_a_retired_key_kept_after_rotation_is_named(
    inst: Path, tmp_path: Path
) -> None:
    journal = _journal(tmp_path)
    kept = (inst / "private" / "journal.key").read_bytes()  # a copy kept before rotation
    rotate("journal")
    retired_key = signer("journal")
    (inst / "private" / "journal.key").write_bytes(kept)
    from cryptography.hazmat.primitives import serialization

    from pipeline.bundle import acks
    from pipeline.config.keys import Signer

    private = serialization.load_pem_private_key(kept, password=None)
    assert isinstance(private, Ed25519PrivateKey)
    old = Signer("journal", key_id_of(private.public_key()), private)
    record = acks._signed(
        acks.AckRecord(
            "a" * 32, "e1", "ACKNOWLEDGE", "n", "mallory", "x",
            "2099-01-01T00:00:00.000000+00:00", None, None, "L1", acks.GENESIS, "",
        ),
        old,
    )  # fmt: skip
    journal.path.write_text(acks._line_text(record))
    problems = journal.verify()
    assert len(problems) == 1 and "a copy of the retired key was kept" in problems[0]
    assert retired_key.key_id != old.key_id


def test_a_key_added_to_the_keyring_by_hand_is_refused(inst: Path, tmp_path: Path) -> None:
    path = inst / "keyring.json"
    data = json.loads(path.read_text())
    mine = Ed25519PrivateKey.generate()
    current = next(k for k in data["keys"] if k["purpose"] == "journal")
    added = PublicKey(
        key_id_of(mine.public_key()),
        "journal",
        _raw_hex(mine.public_key()),
        current["created"],
        follows=current["key_id"],
        rotation_signature="00" * 64,
    )
    data["keys"] = [
        {**k, "retired": k["created"]} if k["key_id"] == current["key_id"] else k
        for k in data["keys"]
    ] + [asdict(added)]
    path.write_text(json.dumps(data))
    problems = load_keyring().problems()
    assert any("did not sign it in: added by hand; refused" in p for p in problems)
    first = replace(added, follows=None, rotation_signature=None)
    data["keys"][-1] = asdict(first)
    path.write_text(json.dumps(data))
    assert any("2 first journal keys" in p for p in load_keyring().problems())
    assert installation().root == inst
