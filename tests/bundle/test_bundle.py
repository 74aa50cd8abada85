"""Evidence bundles: what goes in, that it round-trips, and that tampering is detected."""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import zipfile
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pipeline.bundle import (
    AckJournal,
    BundleError,
    add_bundle_parser,
    export_bundle,
    file_sha256,
    verify_bundle,
)
from pipeline.bundle.export import MANIFEST
from pipeline.cli import main
from pipeline.events import default_codec
from pipeline.events.convert import from_record
from pipeline.ledger.exceptions import all_exceptions
from pipeline.ledger.store import Ledger
from pipeline.rules.codes import RULE_CODES
from pipeline.rules.config import money
from pipeline.safe_text import file_stem

from .ledger import DAY, ledger_copy


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return ledger_copy(tmp_path / "ledger")


def _exception_round(db: Path) -> tuple[str, str, str]:
    with Ledger(db, read_only=True) as ledger:
        row = ledger.con.execute(
            "SELECT round_id, exception_id, code FROM exceptions WHERE round_id IS NOT NULL "
            "AND code LIKE '%VIG%' ORDER BY round_id LIMIT 1"
        ).fetchone()
    assert row is not None
    return str(row[0]), str(row[1]), str(row[2])


def _read(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _write(path: Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)


def _rehash(files: dict[str, bytes], name: str) -> None:
    """Update the manifest for a changed file, as a careful forger would."""
    manifest = json.loads(files[MANIFEST])
    manifest["files"][name] = {
        "sha256": hashlib.sha256(files[name]).hexdigest(),
        "bytes": len(files[name]),
    }
    files[MANIFEST] = json.dumps(manifest).encode()


def _csv(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode())))


def test_round_bundle_round_trips(db: Path, tmp_path: Path) -> None:
    round_id, exception_id, code = _exception_round(db)
    with Ledger(db, read_only=True) as ledger:
        journal = AckJournal.for_ledger(db, ledger.ledger_id)
    journal.append(
        exception_id=exception_id,
        action="ESCALATE",
        note="see video",
        actor="analyst-7",
        actor_source="command line",
    )
    journal.append(
        exception_id=exception_id,
        action="ASSIGN",
        note="yours to review",
        actor="analyst-7",
        actor_source="command line",
        assignee="investigator-2",
    )
    with Ledger(db, read_only=True) as ledger:
        path = export_bundle(ledger, round_id=round_id, out=tmp_path)
        stored = ledger.con.execute(
            "SELECT event_id, payload_type, fields_json FROM deliveries WHERE "
            "json_extract_string(fields_json, '$.round_id') = ?",
            [round_id],
        ).fetchall()
        wagers = ledger.con.execute(
            "SELECT count(*) FROM wagers WHERE round_id = ?", [round_id]
        ).fetchone()
    assert path == tmp_path / f"evidence-round-{round_id}.zip"
    assert verify_bundle(path) == []
    assert verify_bundle(path, expected_sha256=file_sha256(path)) == []

    files = _read(path)
    manifest = json.loads(files[MANIFEST])
    assert manifest["selector"]["round_id"] == round_id
    assert set(manifest["files"]) == set(files) - {MANIFEST}
    for name, entry in manifest["files"].items():
        assert hashlib.sha256(files[name]).hexdigest() == entry["sha256"]

    avro = tmp_path / "events.avro"
    avro.write_bytes(files["events.avro"])
    events = [from_record(e) for e in default_codec().read_events(avro)]
    ids = {e.event_id for e in events}
    assert {str(event_id) for event_id, _, _ in stored} <= ids  # every event of the round
    assert "TableOpened" in {e.payload_type for e in events}  # and its context
    by_id = {e.event_id: e for e in events}
    for event_id, payload_type, fields_json in stored:
        assert by_id[str(event_id)].payload_type == payload_type
        assert json.loads(json.dumps(by_id[str(event_id)].fields, default=str)) == json.loads(
            fields_json
        )

    assert len(_csv(files["rows/rounds.csv"])) == 1
    assert wagers is not None and len(_csv(files["rows/wagers.csv"])) == wagers[0]
    exceptions = _csv(files["rows/exceptions.csv"])
    assert exception_id in {e["exception_id"] for e in exceptions}
    citations = json.loads(files["citations.json"])
    assert citations[code]["citation"] == RULE_CODES[code].citation
    assert code in files["citations.md"].decode()
    acks = _csv(files["rows/acknowledgements.csv"])
    assert [
        (a["exception_id"], a["action"], a["actor"], a["recorded_in"], a["assignee"]) for a in acks
    ] == [
        (exception_id, "ESCALATE", "analyst-7", "journal", ""),
        (exception_id, "ASSIGN", "analyst-7", "journal", "investigator-2"),
    ]


def test_form_and_table_bundles(db: Path, tmp_path: Path) -> None:
    with Ledger(db, read_only=True) as ledger:
        (serial,) = ledger.con.execute("SELECT min(serial) FROM comp_vig_forms").fetchone() or ()
        form = export_bundle(ledger, serial=int(serial), out=tmp_path / "form.zip")
        table = export_bundle(ledger, table_id="T02", gaming_date=DAY, out=tmp_path)
        (deliveries,) = (
            ledger.con.execute("SELECT count(*) FROM deliveries WHERE table_id = 'T02'").fetchone()
            or ()
        )
    assert form == tmp_path / "form.zip" and verify_bundle(form) == []
    files = _read(form)
    assert [r["serial"] for r in _csv(files["rows/comp_vig_forms.csv"])] == [str(serial)]
    assert {r["kind"] for r in _csv(files["rows/form_events.csv"])} <= {
        "ORIGINAL_COUNTED",
        "DUPLICATE_RECEIVED",
    }
    payloads = {r["payload_type"] for r in _csv(files["deliveries.csv"])}
    assert "FormSeriesReceived" in payloads and "CompVigFormIssued" in payloads
    assert table.name == f"evidence-table-T02-{DAY.isoformat()}.zip"
    assert verify_bundle(table) == []
    assert json.loads(_read(table)[MANIFEST])["counts"]["events.avro"] == deliveries


def test_nothing_selected_or_not_found(db: Path, tmp_path: Path) -> None:
    with Ledger(db, read_only=True) as ledger:
        with pytest.raises(BundleError, match="say what"):
            export_bundle(ledger, out=tmp_path)
        with pytest.raises(BundleError, match="no round"):
            export_bundle(ledger, round_id="T09-nope", out=tmp_path)
        with pytest.raises(BundleError, match="no Complimentary Vigorish Form"):
            export_bundle(ledger, serial=1, out=tmp_path)


@pytest.fixture
def bundle(db: Path, tmp_path: Path) -> Path:
    round_id, _, _ = _exception_round(db)
    with Ledger(db, read_only=True) as ledger:
        return export_bundle(ledger, round_id=round_id, out=tmp_path / "b.zip")


def test_an_altered_file_is_detected(bundle: Path) -> None:
    files = _read(bundle)
    files["rows/settlements.csv"] = files["rows/settlements.csv"].replace(b"WIN", b"LOSE", 1)
    _write(bundle, files)
    problems = verify_bundle(bundle)
    assert any("rows/settlements.csv" in p and "altered" in p for p in problems)


def test_events_and_deliveries_must_agree_even_with_a_rewritten_manifest(bundle: Path) -> None:
    files = _read(bundle)
    rows = files["deliveries.csv"].decode().splitlines()
    header, first = rows[0], rows[1].split(",")
    first[5] = str(int(first[5]) + 1)  # the device sequence number of the first event
    files["deliveries.csv"] = ("\n".join([header, ",".join(first), *rows[2:]]) + "\n").encode()
    _rehash(files, "deliveries.csv")
    _write(bundle, files)
    problems = verify_bundle(bundle)
    assert problems and all("SHA-256" not in p for p in problems)
    assert any("differs from deliveries.csv in seq" in p for p in problems)


def test_removed_rows_are_counted(bundle: Path) -> None:
    files = _read(bundle)
    lines = files["rows/cards.csv"].decode().splitlines()
    files["rows/cards.csv"] = ("\n".join(lines[:-1]) + "\n").encode()
    _rehash(files, "rows/cards.csv")
    _write(bundle, files)
    assert any(
        "rows/cards.csv" in p and "rows, the manifest says" in p for p in verify_bundle(bundle)
    )


def test_a_consistent_forgery_is_caught_by_the_recorded_zip_hash(bundle: Path) -> None:
    recorded = file_sha256(bundle)
    files = _read(bundle)
    files["README.txt"] += b"nothing to see\n"
    _rehash(files, "README.txt")
    _write(bundle, files)
    assert verify_bundle(bundle) == []  # internally consistent...
    problems = verify_bundle(bundle, expected_sha256=recorded)
    assert len(problems) == 1 and "SHA-256" in problems[0]  # ...but not the bundle exported


def test_added_missing_and_broken_files(bundle: Path, tmp_path: Path) -> None:
    files = _read(bundle)
    _write(bundle, {**files, "rows/extra.csv": b"a\n1\n"})
    assert any("rows/extra.csv" in p and "added" in p for p in verify_bundle(bundle))
    _write(bundle, {k: v for k, v in files.items() if k != "citations.md"})
    assert any("citations.md" in p and "missing" in p for p in verify_bundle(bundle))
    _write(bundle, {k: v for k, v in files.items() if k != MANIFEST})
    assert verify_bundle(bundle) == ["manifest.json is missing"]
    broken = dict(files)
    broken["events.avro"] = broken["events.avro"][:-40]
    _rehash(broken, "events.avro")
    _write(bundle, broken)
    assert any("events.avro" in p for p in verify_bundle(bundle))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    assert "not a readable zip" in verify_bundle(junk)[0]
    assert "no such file" in verify_bundle(tmp_path / "absent.zip")[0]


def test_cli_bundle_and_verify(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    add_bundle_parser(parser.add_subparsers(dest="command", required=True))
    round_id, _, _ = _exception_round(db)
    out = tmp_path / "cli"
    out.mkdir()
    args = parser.parse_args(["bundle", "--db", str(db), "--round", round_id, "--out", str(out)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    path = out / f"evidence-round-{round_id}.zip"
    assert str(path) in printed
    digest = printed.split("sha256 ")[1].split()[0]
    args = parser.parse_args(["verify-bundle", str(path), "--sha256", digest])
    assert args.func(args) == 0
    assert "intact" in capsys.readouterr().out
    files = _read(path)
    files["rows/rounds.csv"] += b"x\n"
    _write(path, files)
    assert args.func(args) == 1
    assert "do not rely on this bundle" in capsys.readouterr().out
    # refusals are raised, and said with exit 2 by the command line's one mapping
    assert main(["bundle", "--db", str(db), "--round", "nope", "--out", str(out)]) == 2
    assert "no round 'nope'" in capsys.readouterr().err
    assert main(["bundle", "--db", str(tmp_path / "none.duckdb"), "--table", "T01"]) == 2
    assert "no ledger here yet" in capsys.readouterr().err


@pytest.mark.rule("PB-3.3c4-DEFERRED-DEADLINE")
def test_an_exceptions_bundle_holds_exactly_the_events_it_cites(db: Path, tmp_path: Path) -> None:
    """PB-3.3c4-DEFERRED-DEADLINE, N.J.A.C. 19:47-3.3(c)2 and (c)4: the bundle of a deferred
    deadline holds its row, the events it cites (the debt and its deadline) and the vigorish
    ledger's rows of those events, nothing else of the table; its README and HTML read as
    the sum the events prove, on the casino's clock."""
    with Ledger(db, read_only=True) as ledger:
        deadlines = [
            r for r in all_exceptions(ledger)
            if r.code == "PB-3.3c4-DEFERRED-DEADLINE" and r.actual_cents == 0
        ]  # fmt: skip
        chosen = max(deadlines, key=lambda r: len(r.source_event_ids))
        zone = ZoneInfo("America/New_York")
        path = export_bundle(ledger, exception_id=chosen.exception_id, out=tmp_path, zone=zone)
    assert path.name == f"evidence-exception-{file_stem(chosen.exception_id)}.zip"
    assert verify_bundle(path) == []
    files = _read(path)
    cited = set(chosen.source_event_ids)
    assert {d["event_id"] for d in _csv(files["deliveries.csv"])} == cited
    assert [e["exception_id"] for e in _csv(files["rows/exceptions.csv"])] == [chosen.exception_id]
    vig = _csv(files["rows/vig_ledger.csv"])
    assert vig and {v["source_event_id"] for v in vig} <= cited
    assert _csv(files["rows/wagers.csv"]) == [] and _csv(files["rows/rounds.csv"]) == []
    assert chosen.expected_cents is not None
    owed = f"= {money(chosen.expected_cents)} owed; deadline: "
    readme, page = files["README.txt"].decode(), files["evidence.html"].decode()
    assert owed in readme and chosen.line() in readme
    assert owed in page and "America/New_York" in page
    assert "=" not in "".join(line for line in readme.splitlines() if "VigDeferred" in line)


def test_no_such_exception(db: Path, tmp_path: Path) -> None:
    with Ledger(db, read_only=True) as ledger, pytest.raises(BundleError, match="no exception"):
        export_bundle(ledger, exception_id="nope", out=tmp_path)
