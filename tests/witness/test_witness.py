"""The witness: checkpoints it keeps, and the ones it refuses (truncation, rollback, fork,
another installation's key), in its folder and over HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from pipeline.config.installation import Installation
from pipeline.config.keys import load_keyring, rotate, signer
from pipeline.witness.checkpoint import GENESIS, Checkpoint, chain_link, extends
from pipeline.witness.client import Witness, add_witness
from pipeline.witness.provision import init_demo_installation
from pipeline.witness.record import (
    LogState,
    NotWitnessedError,
    problems_against_witnesses,
    publish,
    signed_checkpoint,
)
from pipeline.witness.server import serve
from pipeline.witness.store import ACCEPTED, REFUSED, CheckpointRefusedError, WitnessStore


@pytest.fixture
def inst(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Installation:
    made = init_demo_installation(tmp_path / "installation")
    monkeypatch.setenv("BACCARAT_INSTALLATION", str(made.root))
    return made


def a_log(n: int, log: str = "seal", ledger_id: str = "L1") -> LogState:
    digests = [f"{i:064x}" for i in range(1, n + 1)]
    links, link = [], GENESIS
    for digest in digests:
        link = chain_link(log, link, digest)
        links.append(link)
    return LogState(log, ledger_id, "/ledgers/ledger.duckdb", links, digests)


def checkpoint_of(state: LogState, inst: Installation) -> Checkpoint:
    return signed_checkpoint(state, signer(state.log, inst))


def test_a_link_commits_to_the_log_the_previous_link_and_the_content() -> None:
    base = chain_link("seal", GENESIS, "a" * 64)
    assert base != chain_link("journal", GENESIS, "a" * 64)
    assert base != chain_link("seal", "1" * 64, "a" * 64)
    assert base != chain_link("seal", GENESIS, "b" * 64)
    state = a_log(5)
    assert extends("seal", state.links[1], state.digests[2:], state.links[-1])
    assert not extends("seal", state.links[1], state.digests[3:], state.links[-1])


def test_the_witness_keeps_a_log_that_grows(inst: Installation) -> None:
    publish(a_log(2), inst)
    publish(a_log(5), inst)
    publish(a_log(5), inst)  # the same head again: nothing new, still consistent
    records = WitnessStore(inst.root / "demo-witness").records()
    assert [(r.kind, r.checkpoint["size"]) for r in records] == [
        (ACCEPTED, 2),
        (ACCEPTED, 5),
        (ACCEPTED, 5),
    ]
    assert problems_against_witnesses(a_log(5), inst) == []


def test_a_log_cut_short_is_refused_and_the_refusal_is_kept(inst: Installation) -> None:
    publish(a_log(5), inst)
    with pytest.raises(NotWitnessedError, match=r"truncation or rollback: .* has 3 entries"):
        publish(a_log(3), inst)
    problems = problems_against_witnesses(a_log(3), inst)
    assert any(
        "cut short or rolled back" in p and "entries 4-5 were deleted" in p for p in problems
    )
    assert any("refused a checkpoint" in p and "truncation or rollback" in p for p in problems)


def test_a_fork_is_refused(inst: Installation) -> None:
    """Another history from a common prefix: two entries in common, then others."""
    publish(a_log(3), inst)
    genuine = a_log(3)
    other = a_log(2)
    forked_digest = "f" * 64
    forked = LogState(
        "seal",
        "L1",
        genuine.ledger,
        [*other.links, chain_link("seal", other.links[-1], forked_digest)],
        [*other.digests, forked_digest],
    )
    with pytest.raises(NotWitnessedError, match="fork"):
        publish(
            LogState(
                "seal", "L1", genuine.ledger, [*forked.links, "0" * 64], [*forked.digests, "1" * 64]
            ),
            inst,
        )
    problems = problems_against_witnesses(forked, inst)
    assert any("rewritten or forked: entry 3 is not the one witnessed" in p for p in problems)


def test_a_checkpoint_of_another_installation_is_refused(
    inst: Installation, tmp_path: Path
) -> None:
    mallory = init_demo_installation(tmp_path / "mallory")
    store = WitnessStore(inst.root / "demo-witness")
    with pytest.raises(CheckpointRefusedError, match="not signed by a key of the installation"):
        store.submit(checkpoint_of(a_log(1), mallory), a_log(1).digests)
    assert [r.kind for r in store.records()] == [REFUSED]


def test_a_rotated_key_is_learned_from_its_predecessor_s_signature(inst: Installation) -> None:
    publish(a_log(1), inst)
    rotate("seal", inst)
    publish(a_log(2), inst)
    store = WitnessStore(inst.root / "demo-witness")
    assert [r.kind for r in store.records()] == [ACCEPTED, ACCEPTED]
    # a key slipped into the keyring by hand is not rotated in by anything pinned
    forged = [
        {**asdict(k), "key_id": "ee" * 16, "follows": None}
        for k in load_keyring(inst).keys
        if k.purpose == "seal" and k.retired is None
    ]
    assert store._pinned(forged).find("ee" * 16, "seal") is None


def test_an_edited_witness_record_is_named(inst: Installation) -> None:
    publish(a_log(4), inst)
    records = inst.root / "demo-witness" / "checkpoints.jsonl"
    line = json.loads(records.read_text())
    line["checkpoint"]["size"] = 2  # an operator shrinking the witnessed size
    records.write_text(json.dumps(line) + "\n")
    problems = problems_against_witnesses(a_log(2), inst)
    assert any("not countersigned by the witness: its store was edited" in p for p in problems)


def test_unwitnessed_entries_and_a_missing_witness_are_named(
    inst: Installation,
) -> None:
    publish(a_log(2), inst)
    assert problems_against_witnesses(a_log(4), inst) == [
        "seal log (witness demo-witness): entries 3-4 are not witnessed: witness them "
        "(baccarat-audit witness sync --db /ledgers/ledger.duckdb)"
    ]
    inst.witnesses_path.unlink()
    assert "no witness is configured" in problems_against_witnesses(a_log(4), inst)[0]
    with pytest.raises(NotWitnessedError, match="names no witness"):
        publish(a_log(4), inst)


@pytest.fixture
def http_witness(inst: Installation, tmp_path: Path) -> Iterator[Witness]:
    store = WitnessStore.create(tmp_path / "remote", load_keyring(inst))
    server = serve(store, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Witness(
            "remote", store.public_key, url=f"http://127.0.0.1:{server.server_address[1]}"
        )
    finally:
        server.shutdown()
        server.server_close()


def test_the_witness_process_keeps_and_refuses_over_http(
    inst: Installation, http_witness: Witness
) -> None:
    state = a_log(3)
    kept = http_witness.submit(checkpoint_of(state, inst), state.digests, [])
    assert kept.kind == ACCEPTED and kept.authentic(http_witness.public_key)
    short = a_log(1)
    with pytest.raises(CheckpointRefusedError, match="truncation or rollback"):
        http_witness.submit(checkpoint_of(short, inst), [], [])
    assert [r.kind for r in http_witness.about("L1", None)] == [ACCEPTED, REFUSED]


def test_an_unreachable_witness_is_named_and_the_others_still_keep_it(
    inst: Installation,
) -> None:
    with inst.witnesses_path.open("a") as fo:
        fo.write(
            '\n[[witness]]\nname = "down"\nurl = "http://127.0.0.1:9"\n'
            f'public_key = "{"ab" * 32}"\n'
        )
    with pytest.raises(NotWitnessedError, match="witness down"):
        publish(a_log(2), inst)
    assert [r.kind for r in WitnessStore(inst.root / "demo-witness").records()] == [ACCEPTED]


def test_publish_through_the_witness_process_sends_only_what_it_lacks(
    inst: Installation, http_witness: Witness
) -> None:
    """The installation names the HTTP witness; each checkpoint's proof starts after the
    size the witness reports (``/heads``), and a log cut short is refused there too."""
    inst.witnesses_path.write_text("")
    add_witness(inst, http_witness)
    publish(a_log(2), inst)
    assert http_witness.seen("L1", "seal") == 2
    publish(a_log(6), inst)
    assert http_witness.seen("L1", "seal") == 6 and http_witness.seen("L1", "journal") == 0
    with pytest.raises(NotWitnessedError, match="truncation or rollback"):
        publish(a_log(4), inst)


def test_the_witness_index_is_rebuilt_from_its_records(inst: Installation) -> None:
    publish(a_log(3), inst)
    store = WitnessStore(inst.root / "demo-witness")
    store.heads_path.unlink()
    latest = store.latest("L1", "seal")
    assert latest is not None and latest.size == 3 and latest.head == a_log(3).links[-1]
    publish(a_log(5), inst)
    grown = store.latest("L1", "seal")
    assert grown is not None and grown.size == 5
