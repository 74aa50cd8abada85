"""Each close of a gaming day is a revision of its report (the close that N.J.A.C. 19:47-3.3(c)3
figures are filed in): earlier revisions are kept byte for byte, a reopened day's latest report
says REOPENED with the reopen's actor, time and reason, the next close states them, and
``verify`` and the dashboards' download check every revision's files against its seal.

Real DuckDB ledgers of a small emulated day (2 tables, 1 hour), closed for real.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.ledger.seal_record import seal_log
from pipeline.ledger.store import Ledger
from pipeline.reports.close import reopen_gaming_day, verify
from pipeline.reports.revisions import read_sealed_file
from tests.reports.test_seals import DAY, LEDGER, close, copy, emulate, load

REASON = "late file from T01 <b>after</b> the count"


pytestmark = pytest.mark.xdist_group("revised-day")
"""Its tests share a module fixture that costs seconds to build: on one worker, it is built once."""


@pytest.fixture(scope="module")
def revised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A day closed, reopened with a reason, and closed again; each step's report files
    are kept in ``steps/<n>`` for comparison."""
    directory = tmp_path_factory.mktemp("revised")
    load(directory, emulate(directory, DAY, 2))
    out = directory / "reports"
    steps = directory / "steps"

    def keep(step: int) -> None:
        (steps / str(step)).mkdir(parents=True)
        for path in out.glob("close-*"):
            (steps / str(step) / path.name).write_bytes(path.read_bytes())

    with Ledger(directory / LEDGER) as ledger:
        close(ledger, DAY, out)
        keep(1)
        reopen_gaming_day(ledger, DAY, REASON, actor="controller", actor_source="test")
        keep(2)
        close(ledger, DAY, out)
        keep(3)
    return directory


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.glob("close-*")}


def test_a_close_writes_revision_1_and_the_same_bytes_as_the_latest(revised: Path) -> None:
    first = revised / "steps" / "1"
    assert names(first) == {
        f"close-{DAY}{r}.{s}" for r in ("", ".r1") for s in ("csv", "html", "json", "xlsx")
    }
    for suffix in ("csv", "html", "json", "xlsx"):
        latest = (first / f"close-{DAY}.{suffix}").read_bytes()
        assert latest == (first / f"close-{DAY}.r1.{suffix}").read_bytes()
    page = (first / f"close-{DAY}.r1.html").read_text()
    assert f"Gaming day close {DAY}, revision 1: CLOSED" in page
    assert json.loads((first / f"close-{DAY}.r1.json").read_text())["revision"] == 1


def test_a_reopened_days_latest_report_says_reopened_and_keeps_the_sealed_revision(
    revised: Path,
) -> None:
    """While reopened, no unnumbered report says CLOSED; revision 1 is untouched."""
    first, reopened = revised / "steps" / "1", revised / "steps" / "2"
    assert names(reopened) == {f"close-{DAY}.html", f"close-{DAY}.json"} | {
        f"close-{DAY}.r1.{s}" for s in ("csv", "html", "json", "xlsx")
    }
    for path in first.glob(f"close-{DAY}.r1.*"):
        assert (reopened / path.name).read_bytes() == path.read_bytes()
    page = (reopened / f"close-{DAY}.html").read_text()
    assert f"Gaming day close {DAY}: REOPENED" in page and "CLOSED" not in page
    assert "by controller (test); reason: late file from T01 &lt;b&gt;after&lt;/b&gt;" in page
    assert f"<code>close-{DAY}.r1.html</code>" in page
    notice = json.loads((reopened / f"close-{DAY}.json").read_text())
    assert notice["status"] == "REOPENED" and notice["superseded_revision"] == 1
    assert (notice["reopened"]["actor"], notice["reopened"]["reason"]) == ("controller", REASON)


def test_the_next_close_is_revision_2_with_the_reopen_and_revision_1_kept(revised: Path) -> None:
    first, second = revised / "steps" / "1", revised / "steps" / "3"
    for path in first.glob(f"close-{DAY}.r1.*"):
        assert (second / path.name).read_bytes() == path.read_bytes()
    document = json.loads((second / f"close-{DAY}.r2.json").read_text())
    assert document["revision"] == 2
    (reopen,) = document["reopened_since_previous_close"]
    assert (reopen["actor"], reopen["reason"], reopen["seq"]) == ("controller", REASON, 2)
    page = (second / f"close-{DAY}.r2.html").read_text()
    assert f"Gaming day close {DAY}, revision 2: CLOSED" in page
    assert f"it supersedes revision 1, whose files (<code>close-{DAY}.r1.*</code>)" in page
    assert "late file from T01 &lt;b&gt;after&lt;/b&gt; the count" in page
    assert f"{reopen['reopened_at']}" in page
    for suffix in ("csv", "html", "json", "xlsx"):
        latest = (second / f"close-{DAY}.{suffix}").read_bytes()
        assert latest == (second / f"close-{DAY}.r2.{suffix}").read_bytes()
    with Ledger(revised / LEDGER, read_only=True) as ledger:
        assert verify(ledger) == []


def test_report_rewrites_the_newest_revision_and_leaves_the_earlier_one(revised: Path) -> None:
    """In the fixture's own folder: the reports link the Data Docs the ledger names."""
    out = revised / "reports"
    sealed = {p.name: p.read_bytes() for p in out.glob("close-*")}
    gone = [out / f"close-{DAY}.r1.html", *out.glob(f"close-{DAY}.r2.*")]
    try:
        for path in gone:
            path.unlink()
        db = str(revised / LEDGER)
        assert main(["report", "--db", db, "--gaming-day", str(DAY), "--out", str(out)]) == 0
        assert {p.name: p.read_bytes() for p in out.glob("close-*")} == {
            n: b for n, b in sealed.items() if n != f"close-{DAY}.r1.html"
        }
    finally:
        for name, content in sealed.items():
            (out / name).write_bytes(content)


def test_verify_checks_every_revision_it_sealed(revised: Path, tmp_path: Path) -> None:
    """An edited file of the superseded revision is named, as is a revision whose JSON no
    longer holds the figures its seal covers; a missing file beside the others is named."""
    directory = copy(revised, tmp_path / "copy")
    out = directory / "reports"
    page = out / f"close-{DAY}.r1.html"
    edited = page.read_bytes().replace(b"CLOSED", b"CLOSED (handle corrected)")
    page.write_bytes(edited)
    figures = out / f"close-{DAY}.r2.json"
    document = json.loads(figures.read_text())
    document["totals"]["handle_cents"] += 100
    figures.write_text(json.dumps(document, indent=2))
    (out / f"close-{DAY}.r1.xlsx").unlink()
    with Ledger(directory / LEDGER, read_only=True) as ledger:
        problems = verify(ledger)
    assert problems == [
        f"{DAY}: {page}: not the file its seal renders (SHA-256 "
        f"{hashlib.sha256(edited).hexdigest()}, sealed "
        f"{hashlib.sha256((revised / 'steps' / '1' / page.name).read_bytes()).hexdigest()}, "
        "seal event 1): edited or replaced since the close",
        f"{DAY}: {out / f'close-{DAY}.r1.xlsx'}: missing (seal event 1); the other files of "
        "its revision are there: restore it from a backup",
        f"{DAY}: {figures} (revision 2, seal event 3): its figures (SHA-256 "
        f"{problems[2].split('SHA-256 ')[1].split(')')[0]}) are not those the seal covers "
        f"({document['report_sha256']}): the file was edited or replaced",
    ]


def test_the_sealed_file_is_served_only_when_it_matches_its_seal(
    revised: Path, tmp_path: Path
) -> None:
    directory = copy(revised, tmp_path / "copy")
    with Ledger(directory / LEDGER, read_only=True) as ledger:
        log = seal_log(ledger)
    served = read_sealed_file(log, log[-1], directory / LEDGER, ".html")
    assert served.path == directory / "reports" / f"close-{DAY}.r2.html"
    assert served.problem is None and served.content == served.path.read_bytes()
    served.path.write_bytes(served.content.replace(b"<h1>", b"<h1>Edited "))
    refused = read_sealed_file(log, log[-1], directory / LEDGER, ".html")
    assert refused.content is None and refused.problem is not None
    assert refused.problem.startswith(f"{served.path}: not the file its seal renders (SHA-256 ")
    assert f"baccarat-audit report --gaming-day {DAY}" in refused.problem


def test_report_of_a_reopened_day_points_to_the_notice_and_the_revisions(
    revised: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = copy(revised, tmp_path / "copy")
    db = str(directory / LEDGER)
    with Ledger(db) as ledger:
        reopen_gaming_day(ledger, DAY, "second look", actor="controller", actor_source="test")
    out = str(directory / "reports")
    assert main(["report", "--db", db, "--gaming-day", str(DAY), "--out", out]) == 2
    refusal = capsys.readouterr().err
    assert f"reopened at seal event 4: {out}/close-{DAY}.html says so" in refusal
    notice = json.loads((directory / "reports" / f"close-{DAY}.json").read_text())
    assert notice["superseded_revision"] == 2 and notice["superseded_seal"] == 3
