"""Cut short, rolled back, forked or transplanted, the record says so: each attack of issue 25
as an insider with shell access would try it, caught by ``verify`` against the checkpoints
the installation's witness holds (N.J.A.C. 19:47-3.9 and the Casino Control Act's record
keeping: the close is the accounting record of the gaming day)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from pipeline.cli import ingest_paths, main, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG
from pipeline.config.installation import installation
from pipeline.ledger.seal_record import seal_log
from pipeline.ledger.store import Ledger
from pipeline.reports.close import close_gaming_day, reopen_gaming_day
from pipeline.reports.seals import ANCHOR_FILE
from pipeline.reports.verify import check
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from pipeline.witness.record import NotWitnessedError
from pipeline.witness.store import WitnessStore
from tests.tampering import rows_in_the_file

DAYS = (date(2026, 11, 24), date(2026, 11, 25))
LEDGER = "ledger.duckdb"
CLOSE_TABLES = ("settlements", "rounds", "wagers", "exceptions", "close_digests")


def emulate(out: Path, day: date) -> list[Path]:
    written = write_simulation(simulate(1, 1, 11, parse_faults("none"), day), out / "sim", day)
    events = out / "events"
    events.mkdir(parents=True, exist_ok=True)
    return [p.rename(events / f"{day.isoformat()}-{p.name}") for p in written]


def close(ledger: Ledger, day: date, out: Path) -> None:
    close_gaming_day(
        ledger,
        day,
        out,
        actor="accountant",
        actor_source="command line",
        accept_quality_failures="emulated day",
    )


pytestmark = pytest.mark.xdist_group("witnessed-two-days")
"""Its tests share a module fixture that costs seconds to build: on one worker, it is built once."""


@pytest.fixture(scope="module")
def two_days(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ledger with two closed days, each day's reports in its own folder, and a copy of
    the ledger and reports taken after the first close (a backup)."""
    directory = tmp_path_factory.mktemp("two-days") / "record"  # its backup beside it
    directory.mkdir()
    with Ledger(directory / LEDGER) as ledger:
        for day in DAYS:
            ingest_paths(ledger, emulate(directory, day), DEFAULT_CATALOG)
        close(ledger, DAYS[0], directory / "reports" / DAYS[0].isoformat())
    shutil.copytree(directory, directory.parent / "backup")
    with Ledger(directory / LEDGER) as ledger:
        close(ledger, DAYS[1], directory / "reports" / DAYS[1].isoformat())
    return directory


@pytest.fixture
def ledger_copy(two_days: Path, tmp_path: Path) -> Iterator[Ledger]:
    directory = shutil.copytree(two_days, tmp_path / "copy")
    with Ledger(directory / LEDGER) as ledger:
        yield rows_in_the_file(ledger)


def problems(ledger: Ledger) -> list[str]:
    return check(ledger).problems


def test_the_untouched_ledger_is_intact(ledger_copy: Ledger) -> None:
    assert problems(ledger_copy) == []


def test_the_newest_close_deleted_with_its_rows_and_anchor_is_named(
    ledger_copy: Ledger,
) -> None:
    """Delete the newest seal-log row and the day's close rows, add $5,000 to a payout of
    the day, and remove the anchor file's last line: a consistent shorter record, which
    only the witness can tell from the genuine one."""
    con = ledger_copy.con
    con.execute("DELETE FROM seal_log WHERE seq = (SELECT max(seq) FROM seal_log)")
    con.execute("DELETE FROM gaming_days WHERE gaming_date = ?", [DAYS[1]])
    con.execute("DELETE FROM close_digests WHERE gaming_date = ?", [DAYS[1]])
    con.execute(
        "UPDATE settlements SET recorded_paid_cents = recorded_paid_cents + 500000 WHERE rowid = "
        "(SELECT min(rowid) FROM settlements WHERE gaming_date = ?)",
        [DAYS[1]],
    )
    anchors = ledger_copy.path.parent / "reports" / DAYS[1].isoformat() / ANCHOR_FILE
    anchors.write_text("".join(anchors.read_text().splitlines(keepends=True)[:-1]))
    found = problems(ledger_copy)
    assert any(
        "cut short or rolled back: the witness holds a checkpoint of 2 entries" in p
        and "the ledger has 1: entries 2-2 were deleted" in p
        for p in found
    ), found


def test_every_closed_day_deleted_with_the_anchor_files_is_named(ledger_copy: Ledger) -> None:
    """'0 closed gaming days ... intact' is what this attack used to get."""
    for table in ("seal_log", "gaming_days", "close_digests"):
        ledger_copy.con.execute(f"DELETE FROM {table}")
    for anchors in (ledger_copy.path.parent / "reports").rglob(ANCHOR_FILE):
        anchors.unlink()
    found = check(ledger_copy)
    assert found.days_checked == 0
    assert any("the ledger has 0: entries 1-2 were deleted" in p for p in found.problems)


def test_a_ledger_with_its_identity_deleted_too_is_named(ledger_copy: Ledger) -> None:
    for table in ("seal_log", "gaming_days", "close_digests", "ledger_identity"):
        ledger_copy.con.execute(f"DELETE FROM {table}")
    assert any("the ledger has no identity" in p for p in problems(ledger_copy))


def test_a_backup_restored_and_closed_again_is_named(two_days: Path, tmp_path: Path) -> None:
    """Restore the ledger and its reports from before the second close, and close that day
    again (with other figures): the witness refuses the checkpoint, and verify names both
    the rollback and the refusal."""
    restored = shutil.copytree(two_days.parent / "backup", tmp_path / "restored")
    with Ledger(restored / LEDGER) as ledger:
        settlements = ledger.stored("settlements")  # the open day's, in the file
        ledger.con.execute(
            f"UPDATE {settlements} SET recorded_paid_cents = recorded_paid_cents + 500000 "
            f"WHERE rowid = (SELECT min(rowid) FROM {settlements} WHERE gaming_date = ?)",
            [DAYS[1]],
        )
        with pytest.raises(NotWitnessedError, match="fork"):
            close(ledger, DAYS[1], restored / "reports" / DAYS[1].isoformat())
        found = problems(ledger)
    assert any("rewritten or forked: entry 2 is not the one witnessed" in p for p in found)
    assert any("the witness refused a checkpoint" in p and "fork" in p for p in found)


def test_a_backup_restored_without_closing_is_named(two_days: Path, tmp_path: Path) -> None:
    restored = shutil.copytree(two_days.parent / "backup", tmp_path / "restored")
    with Ledger(restored / LEDGER) as ledger:
        found = problems(ledger)
    assert any("entries 2-2 were deleted, or an older copy was restored" in p for p in found)


def test_a_head_filed_earlier_is_accepted_and_a_foreign_one_is_not(
    ledger_copy: Ledger,
) -> None:
    """A checkpoint filed yesterday (the first close's head) can be checked today."""
    first, second = seal_log(ledger_copy)
    assert check(ledger_copy, expect_head=first.link).problems == []
    assert check(ledger_copy, expect_head=second.link).problems == []
    assert any(
        "no seal event has the link" in p
        for p in check(ledger_copy, expect_head="ab" * 32).problems
    )


def test_a_seal_entry_transplanted_from_another_ledger_is_named(
    ledger_copy: Ledger,
) -> None:
    ledger_copy.con.execute("UPDATE ledger_identity SET ledger_id = 'another-ledger'")
    found = problems(ledger_copy)
    assert any("transplanted from another ledger" in p for p in found)


def test_a_restore_drill_writes_its_own_anchors_and_witness(
    two_days: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reopen on a restore-drill copy, under the drill's own installation (its own
    witness), leaves production's anchor files and witness untouched: the anchor path in
    an entry is relative to the ledger."""
    production = shutil.copytree(two_days, tmp_path / "production")
    anchors = sorted(production.rglob(ANCHOR_FILE))
    before = [a.read_bytes() for a in anchors]
    drill = shutil.copytree(production, tmp_path / "drill")
    drill_installation = shutil.copytree(installation().root, tmp_path / "drill-installation")
    shutil.rmtree(drill_installation / "demo-witness")
    shutil.copytree(installation().root / "demo-witness", drill_installation / "demo-witness")
    monkeypatch.setenv("BACCARAT_INSTALLATION", str(drill_installation))
    with Ledger(drill / LEDGER) as ledger:
        entry = reopen_gaming_day(
            ledger, DAYS[1], "restore drill", actor="accountant", actor_source="command line"
        )
    assert not Path(str(entry.anchor_path)).is_absolute()
    assert [a.read_bytes() for a in anchors] == before
    monkeypatch.undo()
    with Ledger(production / LEDGER) as ledger:
        assert problems(ledger) == []


def test_the_close_sends_its_checkpoint_as_it_seals(two_days: Path) -> None:
    records = WitnessStore(installation().root / "demo-witness").records()
    with Ledger(two_days / LEDGER, read_only=True) as ledger:
        ours = [r for r in records if r.checkpoint["ledger_id"] == ledger.ledger_id]
    assert [
        (r.kind, r.checkpoint["log"], r.checkpoint["size"])
        for r in ours
        if r.checkpoint["log"] == "seal"
    ] == [
        ("accepted", "seal", 1),
        ("accepted", "seal", 2),
    ]


def test_verify_on_the_command_line_names_the_rollback(
    two_days: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    restored = shutil.copytree(two_days.parent / "backup", tmp_path / "restored")
    code = main(["verify", "--db", str(restored / LEDGER)])
    out = capsys.readouterr()
    assert code == 1
    assert "cut short or rolled back" in out.out + out.err


def test_a_close_in_an_installation_of_the_operator_s_own_does_not_verify(
    two_days: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An operator who cannot read the seal key points BACCARAT_INSTALLATION at an
    installation of their own (their keys, their witness) and reopens a day with it: the
    entry is signed by a key the real keyring does not hold, and the real witness never saw
    it."""
    from pipeline.witness.provision import init_demo_installation

    production = shutil.copytree(two_days, tmp_path / "production")
    real = installation().root
    monkeypatch.setenv("BACCARAT_INSTALLATION", str(init_demo_installation(tmp_path / "own").root))
    with Ledger(production / LEDGER) as ledger:
        reopen_gaming_day(
            ledger, DAYS[1], "my own keys", actor="accountant", actor_source="command line"
        )
    monkeypatch.setenv("BACCARAT_INSTALLATION", str(real))
    with Ledger(production / LEDGER) as ledger:
        found = problems(ledger)
    assert any(
        "seal_log seq 3" in p and "written without the installation's seal key" in p for p in found
    ), found
    assert any("entries 3-3 are not witnessed" in p for p in found), found


def test_one_closed_day_is_recomputed_alone(
    ledger_copy: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26: `verify --gaming-day` recomputes that day's rows and archive only, so its
    cost does not grow with the days stored; a row edited on another day is not its problem,
    and a day that is not closed has nothing to check (exit 2)."""
    ledger_copy.con.execute(
        "UPDATE settlements SET recorded_paid_cents = recorded_paid_cents + 500000 "
        "WHERE rowid = (SELECT min(rowid) FROM settlements WHERE gaming_date = ?)",
        [DAYS[0]],
    )
    path = str(ledger_copy.path)
    ledger_copy.close()
    assert main(["verify", "--db", path, "--gaming-day", DAYS[1].isoformat()]) == 0
    assert "1 closed gaming days checked" in capsys.readouterr().out
    assert main(["verify", "--db", path, "--gaming-day", DAYS[0].isoformat()]) == 1
    assert f"{DAYS[0]}: settlements: row changed or added" in capsys.readouterr().out
    assert main(["verify", "--db", path, "--gaming-day", "2026-11-26"]) == 2
    assert "gaming day 2026-11-26 is not closed" in capsys.readouterr().err
