"""Patrons' requests about the cards or the shoe (``PatronRequest``, schema id 6), read by the
pattern stage: a granted request to turn cards is NJ-PATTERN-CARD-TURN-REQUEST on its day
(N.J.A.C. 19:47-3.5(a), 3.6(a)), and a card-preview alarm (NJ-PATTERN-CARD-PREVIEW, 3.2(d),
3.7(b)-(c)) names the patron's requests of its window without changing its bar."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest

from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.events.model import TableEvent
from pipeline.ingest.files import ingest_files
from pipeline.ledger import pattern_inputs
from pipeline.ledger.store import Ledger
from pipeline.patterns.evidence import PREVIEW_CODE, accumulated_evidence
from pipeline.patterns.requests import (
    REQUESTS_NAMED,
    TURN_REQUEST_CODE,
    RecordedRequest,
    requests_text,
    turn_request_findings,
)
from pipeline.patterns.stage import find_patterns, recorded_requests
from pipeline.replay.findings import Severity
from pipeline.reports.groundtruth import ExceptionKey, corroborates
from pipeline.rules.codes import PATTERN_CODES, rule
from pipeline.simulate.faults import FaultKind, InjectedFault
from pipeline.simulate.run import simulate
from tests.patterns.floors import FIRST_DAY, edge_sorter, flat, play_floor
from tests.patterns.test_slug_stage import SETTINGS

RATE = 0.001
WINDOW = 7
DAYS = [FIRST_DAY + timedelta(days=i) for i in range(3)]
HOSTILE = "turn the 7s\u202e<script>alert(1)</script>'; DROP TABLE deliveries; --\x1b[2J"


def request(
    kind: str = "TURN_CARDS",
    *,
    granted: bool = True,
    day: date = DAYS[2],
    patron: str | None = "PAT-EDGE",
    detail: str | None = "turn the 7s, 8s and 9s",
    n: int = 1,
) -> RecordedRequest:
    return RecordedRequest(
        table_id="T01",
        gaming_date=day,
        event_id=f"00000000-0000-4000-8000-{n:012d}",
        occurred_at=1_790_000_000_000_000 + n,
        seat=5,
        patron_id=patron,
        round_id=None,
        request=kind,
        detail=detail,
        granted=granted,
    )


@pytest.mark.rule(TURN_REQUEST_CODE)
def test_a_granted_request_to_turn_cards_is_an_exception_of_its_day() -> None:
    """NJ-PATTERN-CARD-TURN-REQUEST (N.J.A.C. 19:47-3.5(a), 3.6(a)): the dealer granted a
    request to turn cards: one low-severity exception on that day, naming the patron, the
    seat, what was typed and the sections, citing the request's event."""
    granted = request()
    (finding,) = turn_request_findings([granted], DAYS[2])
    assert finding.code == TURN_REQUEST_CODE and TURN_REQUEST_CODE in PATTERN_CODES
    assert finding.severity is Severity.LOW
    assert (finding.table_id, finding.seat, finding.patron_id) == ("T01", 5, "PAT-EDGE")
    assert finding.event_ids == (granted.event_id,) and finding.round_id is None
    assert '"turn the 7s, 8s and 9s"' in finding.message and "between rounds" in finding.message
    assert "N.J.A.C. 19:47-3.6(a)" in finding.message and "3.5(a)" in finding.message
    assert finding.section == "N.J.A.C. 19:47-3.5(a), 3.6(a)"
    assert rule(TURN_REQUEST_CODE).statement.startswith("Surveillance pattern")


@pytest.mark.rule(TURN_REQUEST_CODE)
def test_no_granted_request_to_turn_cards_no_exception() -> None:
    """NJ-PATTERN-CARD-TURN-REQUEST (3.5(a), 3.6(a)): a refused request, a request of another
    kind, or one granted on another day raises nothing on the day; no request, nothing."""
    others = [
        request(granted=False, n=1),
        *(request(kind, n=i) for i, kind in enumerate(("KEEP_CARDS", "CHANGE_SHOE"), 2)),
        request("AUTOMATIC_SHUFFLER", n=4),
        request("OTHER", n=5),
        request(day=DAYS[1], n=6),
    ]
    assert turn_request_findings(others, DAYS[2]) == []
    assert turn_request_findings([], DAYS[2]) == []


@pytest.mark.rule(TURN_REQUEST_CODE)
def test_the_typed_detail_stays_text() -> None:
    """NJ-PATTERN-CARD-TURN-REQUEST (3.6(a)): what the pit typed is quoted with its invisible
    characters shown (a bidi override, an escape); an unidentified patron is said to be one."""
    (finding,) = turn_request_findings([request(patron=None, detail=HOSTILE)], DAYS[2])
    assert "\u202e" not in finding.message and "\x1b" not in finding.message
    assert "[U+202E]" in finding.message and "\u241b[2J" in finding.message
    assert finding.message.startswith("A patron the pit did not identify at seat 5")
    assert finding.patron_id is None


def test_the_requests_are_named_up_to_a_limit() -> None:
    """A sentence names the kind, answer, day, table and seat of each request; past
    REQUESTS_NAMED it counts the rest, which the evidence still cites."""
    one = requests_text([request("KEEP_CARDS", granted=False, detail=None)])
    assert one == (
        "Requests the pit terminals recorded of the patron in the window: KEEP_CARDS refused "
        f"on {DAYS[2]} at T01, seat 5."
    )
    many = requests_text([request(n=i) for i in range(REQUESTS_NAMED + 3)])
    assert many.count("TURN_CARDS granted") == REQUESTS_NAMED and "and 3 more" in many
    assert "no request" in requests_text([])


@pytest.mark.rule(PREVIEW_CODE)
@pytest.mark.parametrize("seed", [1, 2])
def test_a_preview_alarm_names_the_patrons_requests_at_the_same_bar(seed: int) -> None:
    """NJ-PATTERN-CARD-PREVIEW (3.2(d), 3.7(b)-(c)): the edge sorter's alarm on day three
    names the requests the patron made in the window (kind, answer, day, table) and cites
    their events; the alarms raised are the same with or without them (a flat bettor with a
    granted request to turn cards is not named), and another patron's requests are not named.
    """
    rounds = play_floor(seed, 3, 1, 100, [[("PAT-EDGE", edge_sorter), ("PAT-FLAT", flat)]])
    asked = [
        request(day=DAYS[0], n=1),
        request("KEEP_CARDS", day=DAYS[1], n=2),
        request("AUTOMATIC_SHUFFLER", granted=False, day=DAYS[1], n=3),
        request(patron="PAT-FLAT", n=4),
    ]
    plain = accumulated_evidence(rounds, DAYS[2], RATE, WINDOW)
    named = accumulated_evidence(rounds, DAYS[2], RATE, WINDOW, asked)
    assert [(f.code, f.patron_id) for f in named] == [(f.code, f.patron_id) for f in plain]
    assert (PREVIEW_CODE, "PAT-EDGE") in {(f.code, f.patron_id) for f in named}
    assert all(f.patron_id != "PAT-FLAT" for f in named)
    preview = next(f for f in named if f.code == PREVIEW_CODE)
    before = next(f for f in plain if f.code == PREVIEW_CODE)
    assert f"TURN_CARDS granted on {DAYS[0]} at T01, seat 5" in preview.message
    assert f"KEEP_CARDS granted on {DAYS[1]} at T01" in preview.message
    assert f"AUTOMATIC_SHUFFLER refused on {DAYS[1]} at T01" in preview.message
    assert asked[3].event_id not in preview.event_ids
    assert set(preview.event_ids) == set(before.event_ids) | {r.event_id for r in asked[:3]}
    assert "no request of the patron" in before.message
    assert (preview.expected_cents, preview.actual_cents) == (
        before.expected_cents,
        before.actual_cents,
    )


def test_an_edge_sorters_fault_explains_the_request_exception() -> None:
    """The ground truth: an ``edge_sorter`` line (found as NJ-PATTERN-CARD-PREVIEW) explains a
    NJ-PATTERN-CARD-TURN-REQUEST about its patron, and not about anyone else."""
    line = InjectedFault(
        FaultKind.EDGE_SORTER.value, "edge sorter", PREVIEW_CODE, "T01", patron_id="PAT-EDGE"
    )
    key = ExceptionKey("x1", TURN_REQUEST_CODE, "T01", None, 5, None, ("e",), "PAT-EDGE")
    assert corroborates(line, key)
    assert not corroborates(line, dataclasses.replace(key, patron_id="PAT-OTHER"))


# ---------------------------------------------------------------------- through the ledger
GAMING_DATE = date(2026, 11, 24)


def pit_request(after: TableEvent, n: int, **fields: object) -> TableEvent:
    """A PatronRequest from the pit terminal ``n`` events after ``after`` (one of its own)."""
    return TableEvent(
        f"11111111-1111-4111-8111-{n:012d}",
        after.table_id,
        after.device_id,
        after.seq + n,
        after.occurred_at + n,
        "PatronRequest",
        {"round_id": None, "seat": 2, "patron_id": "PAT-000123", "detail": None, **fields},
    )


def write(path: Path, events: list[TableEvent]) -> Path:
    codec = default_codec()
    path.parent.mkdir(parents=True, exist_ok=True)
    codec.write_events(path, (to_record(codec, e) for e in events))
    return path


@pytest.fixture(scope="module")
def requested(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """One table-hour whose pit terminal recorded, after its last event, a granted request to
    turn cards (delivered twice), a refused one, a granted KEEP_CARDS and a granted request
    whose second copy says it was refused (a conflict)."""
    root = tmp_path_factory.mktemp("requests")
    events = simulate(1, 1, 11, {}, GAMING_DATE, load_catalog()).events_by_table["T01"]
    last = [e for e in events if e.device_id.endswith("-pit")][-1]
    made = {
        "turn": pit_request(
            last, 1, request="TURN_CARDS", granted=True, detail="turn the 7s <b>please</b>"
        ),
        "refused": pit_request(last, 2, request="TURN_CARDS", granted=False),
        "keep": pit_request(last, 3, request="KEEP_CARDS", granted=True),
        "conflict": pit_request(last, 4, request="TURN_CARDS", granted=True),
    }
    contradicted = dataclasses.replace(
        made["conflict"], fields={**made["conflict"].fields, "granted": False}
    )
    db = root / "ledger.duckdb"
    with Ledger(db) as ledger:
        for path in (
            write(root / "device" / "T01.avro", [*events, *made.values()]),
            write(root / "resent" / "T01.avro", [made["turn"], contradicted]),
        ):
            ingest_files(ledger, [path], DEFAULT_CATALOG, workers=1)
        find_patterns(ledger, GAMING_DATE, SETTINGS, load_catalog(DEFAULT_CATALOG))
    yield db, {name: e.event_id for name, e in made.items()}


def test_the_ledger_reads_each_request_once_and_no_conflicting_one(
    requested: tuple[Path, dict[str, str]],
) -> None:
    """The named question :func:`pipeline.ledger.pattern_inputs.patron_requests`: each request
    of the window once in the order made, a duplicate delivery read once, and an event id
    whose copies disagree (NJ-DATA-CONFLICT) read from neither copy; nothing outside the
    window."""
    db, ids = requested
    with Ledger(db, read_only=True) as ledger:
        rows = pattern_inputs.patron_requests(ledger, GAMING_DATE, GAMING_DATE)
        later = GAMING_DATE + timedelta(days=1)
        assert pattern_inputs.patron_requests(ledger, later, later + timedelta(days=7)) == []
        read = recorded_requests(ledger, GAMING_DATE - timedelta(days=7), GAMING_DATE)
    assert [r[2] for r in rows] == [ids["turn"], ids["refused"], ids["keep"]]
    assert [(r.request, r.granted, r.seat, r.patron_id) for r in read] == [
        ("TURN_CARDS", True, 2, "PAT-000123"),
        ("TURN_CARDS", False, 2, "PAT-000123"),
        ("KEEP_CARDS", True, 2, "PAT-000123"),
    ]
    assert read[0].detail == "turn the 7s <b>please</b>" and read[1].detail is None
    assert all(r.table_id == "T01" and r.gaming_date == GAMING_DATE for r in read)


@pytest.mark.rule(TURN_REQUEST_CODE)
def test_the_stage_raises_the_granted_request_to_turn_cards(
    requested: tuple[Path, dict[str, str]],
) -> None:
    """NJ-PATTERN-CARD-TURN-REQUEST (3.5(a), 3.6(a)) through the ledger: the pattern stage
    raises the one granted request to turn cards that is read, on its day, at LOW; the refused
    one, the KEEP_CARDS and the conflicting one raise nothing; the patron's honest play raises
    no card-preview alarm."""
    db, ids = requested
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(
            "SELECT code, severity, gaming_date, seat, patron_id, source_event_ids, message "
            "FROM exceptions WHERE list_contains(?::VARCHAR[], code) ORDER BY ALL",
            [sorted(PATTERN_CODES)],
        ).fetchall()
    assert [row[:6] for row in rows] == [
        (TURN_REQUEST_CODE, "LOW", GAMING_DATE, 2, "PAT-000123", [ids["turn"]])
    ]
    assert '"turn the 7s <b>please</b>"' in rows[0][6]
