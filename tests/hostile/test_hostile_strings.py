"""A gaming day whose devices send hostile strings, end to end: replay, close, reports,
quality Data Docs, evidence bundles and every dashboard page under AppTest.

Every device string of the day (table, round, shoe and device ids, patron names and ids,
dealer ids, pits, locations, notes, signatures) is one of :data:`tests.hostile.corpus.CORPUS`.
The promises: the day replays and closes with its reports (no traceback), nothing is written
outside the output directories, no HTML written holds markup a device string brought, no CSV
cell starts a spreadsheet formula or hides a control or bidi character, and no Markdown the
dashboards render turns a device string into an image, a link or markup.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs

import duckdb
import pandas as pd
import pytest
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from dashboards import triage
from pipeline.bundle.export import verify_bundle
from pipeline.cli import main
from pipeline.ledger.store import Ledger
from pipeline.quality import docs
from pipeline.quality.docs import remote_references, unsafe_markup
from pipeline.quality.run import run_quality
from pipeline.reports.seals import ANCHOR_FILE
from pipeline.safe_text import FORMULA_LEADERS, file_stem, html_text, visible
from tests.dashboards.dashboard_data import (
    link_columns,
    request_from,
    shown_text,
    trust_localhost,
)
from tests.hostile.corpus import DAY, TABLE_IDS, hostile_events, write_events
from tests.tampering import rows_in_the_file

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboards" / "app.py"
PAGES = (
    "exception_queue",
    "investigator",
    "table_board",
    "round_reconstruction",
    "roads",
    "statistics",
    "close",
    "forms",
    "search",
    "trail",
)
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")
_RAW_TAGS = ("<script", "<img", "<iframe")
"""Tags of the corpus that would act if they reached HTML unescaped."""


@dataclass
class Run:
    """One ``baccarat-audit`` command run in-process: its exit code and what it printed."""

    argv: list[str]
    code: int
    out: str
    err: str


@dataclass
class HostileDay:
    root: Path
    db: Path
    reports: Path
    bundles: Path
    runs: dict[str, Run] = field(default_factory=dict)
    rounds: list[str] = field(default_factory=list)
    """The hostile round ids exported as bundles."""


def _run(argv: list[str]) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return Run(argv, code, out.getvalue(), err.getvalue())


# --dist loadgroup keeps the module on one worker; its day is session-scoped there, as a
# module-scoped one is built again whenever the worker runs another module's test between two
# of this one's
pytestmark = pytest.mark.xdist_group("hostile-day")


@pytest.fixture(scope="session")
def day(tmp_path_factory: pytest.TempPathFactory) -> HostileDay:
    root = tmp_path_factory.mktemp("hostile")
    found = HostileDay(root, root / "ledger.duckdb", root / "reports", root / "bundles")
    write_events(hostile_events(hours=1.5), root / "events" / "day.avro")
    found.runs["replay"] = _run(["replay", "--db", str(found.db), str(root / "events")])
    close = ["close", "--db", str(found.db), "--gaming-day", DAY.isoformat()]
    found.runs["close"] = _run([*close, "--out", str(found.reports), "--actor", "demo-controller"])
    with Ledger(found.db, read_only=True) as ledger:
        rounds = [r for (r,) in ledger.con.execute("SELECT round_id FROM rounds").fetchall()]
    by_attack: dict[str, str] = {}  # one round id per corpus string ("<attack>#<number>")
    for round_id in sorted(rounds):
        by_attack.setdefault(round_id.rsplit("#", 1)[0], round_id)
    found.rounds = list(by_attack.values())
    found.bundles.mkdir()
    bundle = ["bundle", "--db", str(found.db), "--out", f"{found.bundles}/"]
    for number, round_id in enumerate(found.rounds):
        found.runs[f"bundle round {number}"] = _run([*bundle, f"--round={round_id}"])
    for short, table_id in TABLE_IDS.items():
        found.runs[f"bundle table {short}"] = _run([*bundle, f"--table={table_id}"])
    found.runs["bundle table T02 day"] = _run(
        [*bundle, f"--table={TABLE_IDS['T02']}", f"--date={DAY.isoformat()}"]
    )
    return found


# ---------------------------------------------------------------------- replay, close, files
def test_the_hostile_day_replays_closes_and_exports(day: HostileDay) -> None:
    for name, run in day.runs.items():
        assert "Traceback" not in run.err, (name, run.err)
    assert day.runs["replay"].code == 0, day.runs["replay"].err
    close = day.runs["close"]
    assert close.code in (0, 1), close.err  # 1: closed, with critical exceptions to act on
    with Ledger(day.db, read_only=True) as ledger:
        status = ledger.con.execute(
            "SELECT status FROM gaming_days WHERE gaming_date = ?", [DAY]
        ).fetchone()
        tables = {t for (t,) in ledger.con.execute("SELECT table_id FROM rounds").fetchall()}
    assert status is not None and str(status[0]).startswith("CLOSED")
    assert tables == set(TABLE_IDS.values())  # the ids were kept as data, not cleaned up
    names = sorted(p.name for p in day.reports.iterdir())
    assert names == [
        *(
            f"{kind}-{DAY.isoformat()}.{suffix}"
            for kind, suffix in (
                ("close", "csv"),
                ("close", "html"),
                ("close", "json"),
                ("close", "r1.csv"),
                ("close", "r1.html"),
                ("close", "r1.json"),
                ("close", "r1.xlsx"),
                ("close", "xlsx"),
                ("quality", "html"),
                ("quality", "json"),
            )
        ),
        ANCHOR_FILE,
    ]
    assert len(day.rounds) >= 10, "the corpus gave too few hostile round ids to export"
    for name, run in day.runs.items():
        if name.startswith("bundle"):
            assert run.code == 0, (name, run.err)


def test_nothing_is_written_outside_the_output_directories(day: HostileDay) -> None:
    expected_dirs = {day.root / "events", day.reports, day.bundles, day.root / "archive"}
    archive = day.root / "archive"
    outside = {p for p in day.root.rglob("*") if p.is_dir() and archive not in p.parents}
    assert outside == expected_dirs
    # the Iceberg archive's folders are named by the pipeline (tables, partition dates), never
    # by a device string
    named = re.compile(r"warehouse|baccarat|[a-z_]+|data|metadata|gaming_date=\d{4}-\d{2}-\d{2}")
    assert all(named.fullmatch(p.name) for p in archive.rglob("*") if p.is_dir())
    bundles = sorted(day.bundles.iterdir())
    assert len(bundles) == len(day.rounds) + len(TABLE_IDS) + 1  # none overwrote another
    for path in bundles:
        assert path.name.startswith("evidence-") and path.suffix == ".zip"
        assert path.name.isascii() and path.name.isprintable(), path.name
        assert verify_bundle(path) == [], path.name
    for name, run in day.runs.items():
        if name.startswith("bundle"):
            (written,) = re.findall(r"^wrote (.+) \([\d,]+ bytes\)$", run.out, re.M)
            assert Path(written).parent == day.bundles
    for round_id in day.rounds:  # where the id, used as a path, would have led
        naive = os.path.normpath(day.bundles / f"evidence-round-{round_id}.zip")
        assert not os.path.exists(naive)  # False, not OSError, when too long
    strays = [p for p in day.root.parent.rglob("*evil*") if day.root not in p.parents]
    assert strays == []


# ---------------------------------------------------------------------- HTML
def _invisible(text: str) -> set[str]:
    """Raw control, bidi or other invisible characters in ``text`` (newlines and tabs lay
    out HTML and CSV and are allowed there)."""
    return {c for c in text if c not in "\n\t" and visible(c) != c}


HOSTILE_RULES_ID = TABLE_IDS["T01"] + "\u202e"
"""A rules id no catalog files: the device string GX's renderers draw as an offending value
(table ids no longer reach the Data Docs: the stake limits are described per rule set)."""


def _with_hostile_rules_id(day: HostileDay, db: Path) -> Path:
    """A copy of the day's ledger whose first TableOpened names :data:`HOSTILE_RULES_ID`: the
    expectation that a table-day's rules are in the catalog fails and quotes it."""
    shutil.copyfile(day.db, db)
    with Ledger(db) as ledger:  # the closed day's rows back in the file, to be edited there
        rows_in_the_file(ledger)
    con = duckdb.connect(str(db))
    try:
        source, position, text = con.execute(
            "SELECT source, position, fields_json FROM deliveries "
            "WHERE payload_type = 'TableOpened' ORDER BY source, position LIMIT 1"
        ).fetchall()[0]
        fields = {**json.loads(text), "rules_id": HOSTILE_RULES_ID}
        con.execute(
            "UPDATE deliveries SET fields_json = ? WHERE source = ? AND position = ?",
            [json.dumps(fields), source, position],
        )
    finally:
        con.close()
    return db


def test_data_docs_escape_every_device_string(day: HostileDay, tmp_path: Path) -> None:
    db = _with_hostile_rules_id(day, tmp_path / "ledger.duckdb")
    report = run_quality(db, DAY, tmp_path)
    assert any(HOSTILE_RULES_ID in f.unexpected_sample for f in report.failing())
    page = (tmp_path / f"quality-{DAY.isoformat()}.html").read_text()
    assert unsafe_markup(page) == [] and remote_references(page) == []
    assert not any(tag in page.lower() for tag in _RAW_TAGS)
    assert _invisible(page) == set()
    assert html_text(TABLE_IDS["T01"]) in page  # shown, as text
    assert "Great Expectations' rendering" not in page  # GX's own page, not the fallback


def test_close_report_html_holds_no_device_markup(day: HostileDay) -> None:
    page = (day.reports / f"close-{DAY.isoformat()}.html").read_text()
    assert unsafe_markup(page) == [] and remote_references(page) == []
    assert not any(tag in page.lower() for tag in _RAW_TAGS)


def test_bundle_evidence_pages_hold_no_device_markup(day: HostileDay) -> None:
    """Every bundle's evidence.html and README.txt tell the hostile ids and the evidence of
    its exceptions (N.J.A.C. 19:47 findings) as escaped, visible text."""
    pages = 0
    for path in sorted(day.bundles.glob("*.zip")):
        with zipfile.ZipFile(path) as zf:
            page, readme = zf.read("evidence.html").decode(), zf.read("README.txt").decode()
        assert unsafe_markup(page) == [] and remote_references(page) == [], path.name
        assert not any(tag in page.lower() for tag in _RAW_TAGS), path.name
        assert _invisible(page) == set() and _invisible(readme) == set(), path.name
        pages += "<li>" in page
    assert pages > 0, "no bundle listed an exception's evidence"


def test_close_report_html_shows_invisible_characters(day: HostileDay) -> None:
    page = (day.reports / f"close-{DAY.isoformat()}.html").read_text()
    assert _invisible(page) == set()


def test_a_data_docs_page_that_cannot_be_made_safe_does_not_block_the_close(
    day: HostileDay,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """If GX let a value through unescaped (here: the escaping is switched off), the page
    check catches it, the plain page is written instead, and the close goes ahead."""
    db = _with_hostile_rules_id(day, tmp_path / "ledger.duckdb")
    assert _run(["reopen", "--db", str(db), "--gaming-day", DAY.isoformat(), "--reason", "test",
                 "--actor", "demo-controller"]).code == 0  # fmt: skip
    monkeypatch.setattr(docs, "_escaped", lambda document: document)
    reports = tmp_path / "reports"
    close = _run(["close", "--db", str(db), "--gaming-day", DAY.isoformat(), "--out",
                  str(reports), "--actor", "demo-controller"])  # fmt: skip
    assert close.code in (0, 1) and "Traceback" not in close.err, close.err
    assert "Data Docs written as a plain page" in caplog.text
    page = (reports / f"quality-{DAY.isoformat()}.html").read_text()
    assert "Great Expectations' rendering of these results was replaced" in page
    assert unsafe_markup(page) == [] and _invisible(page) == set()
    assert not any(tag in page.lower() for tag in _RAW_TAGS)
    assert html_text(TABLE_IDS["T01"]) in page
    result = (reports / f"quality-{DAY.isoformat()}.json").read_text()
    assert "DocsRenderError" in result  # the problem is on record


# ---------------------------------------------------------------------- CSV
def _unsafe_cells(name: str, data: str) -> list[str]:
    problems = []
    for number, row in enumerate(csv.reader(io.StringIO(data)), start=1):
        for cell in row:
            if _invisible(cell) or "\n" in cell or "\t" in cell:
                problems.append(f"{name} row {number}: invisible character in {cell[:60]!r}")
            if cell.startswith(FORMULA_LEADERS) and not _PLAIN_NUMBER.fullmatch(cell):
                problems.append(f"{name} row {number}: formula {cell[:60]!r}")
    return problems


def test_bundle_csv_cells_are_neither_formulas_nor_hiding_characters(day: HostileDay) -> None:
    problems = []
    cells: list[str] = []
    for path in sorted(day.bundles.iterdir()):
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if name.endswith(".csv"):
                    data = zf.read(name).decode()
                    cells += [cell for row in csv.reader(io.StringIO(data)) for cell in row]
                    problems += _unsafe_cells(f"{path.name}/{name}", data)
    assert problems == []
    assert len(cells) > 10_000  # the check read real rows
    assert any(c.startswith("'=HYPERLINK") for c in cells)  # and formulas were neutralised


def test_close_csv_cells_are_neither_formulas_nor_hiding_characters(day: HostileDay) -> None:
    data = (day.reports / f"close-{DAY.isoformat()}.csv").read_text()
    assert _unsafe_cells("close csv", data) == []


def test_dashboard_csv_downloads_are_neutralised() -> None:
    from dashboards.ui import csv_download

    hostile = pd.DataFrame(
        {"table_id": [*TABLE_IDS.values(), "=1+1", "-2+3"], "win_cents": [-12_550, 0, 5, -1]}
    )
    data = csv_download(hostile)
    assert _unsafe_cells("download", data) == []
    assert [r[1] for r in csv.reader(io.StringIO(data))][1:] == ["-12550", "0", "5", "-1"]


# ---------------------------------------------------------------------- dashboards
_SAFE_TAGS = {"p", "strong", "em", "code", "br", "ul", "ol", "li", "h1", "h2", "h3", "hr"}
_MARKDOWN = MarkdownIt("commonmark")


def _markdown_problems(where: str, body: str) -> list[str]:
    rendered = _MARKDOWN.render(body)
    tags = set(re.findall(r"<([a-z0-9]+)", rendered))
    problems = [f"{where}: renders <{t}>: {body[:80]!r}" for t in tags - _SAFE_TAGS]
    if _invisible(body):
        problems.append(f"{where}: raw invisible character in {body[:80]!r}")
    return problems


def _page_problems(at: AppTest) -> list[str]:
    assert not at.exception, [e.value for e in at.exception]
    problems = []
    for element in at.markdown:
        if element.proto.allow_html:  # the page's own HTML (the roads), built escaped
            body = str(element.value)
            problems += [f"html: {tag}" for tag in _RAW_TAGS if tag in body.lower()]
            problems += ["html: raw invisible character" for _ in _invisible(body)]
        else:
            problems += _markdown_problems("markdown", str(element.value))
    for kind in ("title", "header", "subheader", "caption", "info", "warning"):
        for shown in getattr(at, kind):
            problems += _markdown_problems(kind, str(shown.value))
    for kind in ("error", "success", "expander"):
        for other in at.get(kind):
            text = getattr(other, "value", None) or getattr(other, "label", "")
            problems += _markdown_problems(kind, str(text))
    for link in at.get("page_link"):  # a label is Markdown; its id goes in the query string
        problems += _markdown_problems("page link", str(link.proto.label))
    for choice in [*at.selectbox, *at.multiselect]:  # plain text, but bidi would act there
        problems += [f"option {o[:60]!r} hides characters" for o in choice.options if _invisible(o)]
    for table in at.table:  # st.table renders its cells as Markdown
        frame = table.value
        for column in frame.columns:
            for cell in frame[column]:
                if isinstance(cell, str):
                    problems += _markdown_problems(f"table {column}", cell)
    return problems


@pytest.fixture
def dashboards(day: HostileDay, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = tmp_path / "ledger.duckdb"
    shutil.copyfile(day.db, db)
    monkeypatch.setenv("BACCARAT_DB", str(db))
    monkeypatch.delenv("BACCARAT_ACKS", raising=False)
    monkeypatch.delenv("BACCARAT_RULES", raising=False)
    yield db


def _page(name: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page(f"views/{name}.py").run()
    return at


def test_every_dashboard_page_shows_device_strings_as_text(
    day: HostileDay, dashboards: Path
) -> None:
    problems: list[str] = []
    shown = 0
    for name in PAGES:
        at = _page(name)
        problems += [f"{name}: {p}" for p in _page_problems(at)]
        shown += len(at.markdown) + len(at.caption) + len(at.table)
    assert problems == []
    assert shown > 20


def test_hostile_rounds_reconstruct_trail_and_bundle_as_text(
    day: HostileDay, dashboards: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bundles are exported by an investigator, signed in through a proxy on this machine,
    # which this test's installation trusts (the packaged example trusts none)
    trust_localhost()
    request_from(monkeypatch, "127.0.0.1", X_Forwarded_User="demo-investigator")
    with Ledger(dashboards, read_only=True) as ledger:
        # the first round with an exception whose id can be typed: the page strips the
        # whitespace around what is typed (a round id opening with a tab is looked up without it)
        (round_id,) = ledger.con.execute(
            "SELECT round_id FROM exceptions WHERE round_id IS NOT NULL "
            "AND round_id = trim(round_id, ' \t\n') ORDER BY round_id LIMIT 1"
        ).fetchone() or (None,)
    attacks = ("](", "<script", "\x1b", "\u202e", "=HYPERLINK")
    chosen_ids = [next(r for r in day.rounds if attack in r) for attack in attacks]
    for chosen in [r for r in (round_id, *chosen_ids) if r is not None]:
        at = _page("round_reconstruction")
        at.text_input(key="round_id_input").input(chosen).run()
        assert _page_problems(at) == [], chosen
        assert at.subheader[0].value != chosen or chosen.isalnum()  # escaped, not as given
        # cards and settlements, and the round's exceptions if it has any: the round was found
        assert len(at.table) in (2, 3)

        at = _page("trail")
        at.text_input(key="trail_value").input(chosen).run()
        at.button(key="t_build").click().run()
        assert _page_problems(at) == [], chosen
        name, _, _ = at.session_state["bundle"]
        assert "/" not in name and name.isascii() and name.isprintable()
        assert len(at.get("download_button")) == 1


def test_links_of_hostile_rounds_carry_their_ids_as_data(day: HostileDay, dashboards: Path) -> None:
    """Every id on a hostile round's page (its table, shoe, dealer, patrons, trail and
    exceptions) is a link whose label shows the id as text and whose query string gives the
    page it opens exactly that id (percent-encoded, so no quote, markup or control character
    reaches the URL as itself)."""
    with Ledger(dashboards, read_only=True) as ledger:
        known = {
            str(v)
            for column, table in (("table_id", "rounds"), ("shoe_id", "rounds"),
                                  ("dealer_id", "table_day_summary"), ("patron_id", "wagers"),
                                  ("exception_id", "exceptions"), ("round_id", "rounds"))
            for (v,) in ledger.con.execute(f"SELECT DISTINCT {column} FROM {table}").fetchall()
        }  # fmt: skip
    attacks = ("](", "<script", "\x1b", "\u202e", "=HYPERLINK", "\n")
    for chosen in [next(r for r in day.rounds if attack in r) for attack in attacks]:
        at = AppTest.from_file(str(APP), default_timeout=120)
        at.run()
        at.query_params.clear()
        at.query_params["round"] = chosen
        at.switch_page("views/round_reconstruction.py").run()
        assert _page_problems(at) == [], chosen
        carried = [parse_qs(link.proto.query_string) for link in at.get("page_link")]
        assert len(carried) >= 4, chosen  # table, shoe, dealer and trail at least
        for query in carried:
            ids = [v for param, values in query.items() if param != "day" for v in values]
            assert ids and set(ids) <= known, (chosen, query)
        assert {"round": [chosen], "day": [DAY.isoformat()]} in carried  # its trail


def test_exceptions_of_hostile_tables_show_as_text(day: HostileDay, dashboards: Path) -> None:
    at = _page("exception_queue")
    ids = at.selectbox(key="inspect").options
    assert ids, "the hostile day raised no exception to inspect"
    for option in ids[:5]:
        at.selectbox(key="inspect").set_value(option).run()
        assert _page_problems(at) == []
    for label in ids:
        assert visible(label) == label  # option labels show bidi overrides, not obey them


def test_ids_in_hostile_grids_are_links_that_carry_them_as_data(
    day: HostileDay, dashboards: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In every grid of the queue, the table board and the Form register, each id a hostile
    device sent (the table, round, shoe, dealer; N.J.A.C. 19:47-3.3(c)3's Form
    serial) is a link whose URL holds only encoded characters and gives its page exactly an
    id the ledger holds, the one the cell shows."""
    with Ledger(dashboards, read_only=True) as ledger:
        known = {
            str(v)
            for column, table in (("table_id", "rounds"), ("round_id", "rounds"),
                                  ("dealer_id", "table_day_summary"), ("serial", "comp_vig_forms"),
                                  ("exception_id", "exceptions"), ("shoe_id", "rounds"),
                                  ("patron_id", "wagers"))
            for (v,) in ledger.con.execute(f"SELECT DISTINCT {column} FROM {table}").fetchall()
        }  # fmt: skip
    safe = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~%=&?/")
    monkeypatch.setattr(triage, "PAGE_ROWS", 100_000)  # every row of the queue in one grid
    hostile = 0
    for name in ("exception_queue", "table_board", "forms"):
        at = _page(name)
        assert not at.exception, [e.value for e in at.exception]
        for grid in at.dataframe:
            for column, pattern in link_columns(grid).items():
                for url in grid.value[column].dropna():
                    assert set(url) <= safe, (name, column, url)
                    shown = shown_text(url, pattern)
                    param = re.search(r"\[\?&\](\w+)=", pattern)
                    assert param is not None
                    query = parse_qs(url.partition("?")[2], keep_blank_values=True)
                    assert query[param.group(1)] == [shown] and shown in known, (name, url)
                    hostile += re.fullmatch(r"[\w-]*", shown, re.ASCII) is None
    assert hostile > 0, "no hostile id reached a grid"


# ---------------------------------------------------------------------- refusals, SQL
def test_a_blocked_close_names_hostile_tables_without_obeying_them(tmp_path: Path) -> None:
    """A day the quality gate refuses (a hostile table without its TableOpened) is refused
    with a message whose ESC and bidi overrides are shown, not sent to the terminal."""
    opened = TABLE_IDS["T02"]
    events = [
        e
        for e in hostile_events(hours=0.5)
        if not (e.payload_type == "TableOpened" and e.table_id == opened)
    ]
    write_events(events, tmp_path / "events" / "day.avro")
    db = str(tmp_path / "ledger.duckdb")
    assert _run(["replay", "--db", db, str(tmp_path / "events")]).code == 0
    close = _run(["close", "--db", db, "--gaming-day", DAY.isoformat(), "--out",
                  str(tmp_path / "reports"), "--actor", "demo-controller"])  # fmt: skip
    assert close.code == 1 and "Traceback" not in close.err
    assert "is not closed" in close.err and "every table-day opens with a TableOpened" in close.err
    assert _invisible(close.err) == set()
    assert "'../T02\\x1b\\u202e=cmd'" in close.err  # the table is named, escaped


def test_the_exceptions_command_shows_control_characters_never_sends_them(
    day: HostileDay,
) -> None:
    """A terminal obeys ESC sequences and bidi overrides: the exception list prints them as
    visible symbols."""
    listed = _run(["exceptions", "--db", str(day.db), "--limit", "100000"])
    assert listed.code == 0, listed.err
    with Ledger(day.db, read_only=True) as ledger:
        printed = ledger.con.execute(
            "SELECT table_id, round_id, message FROM exceptions"
        ).fetchall()
    assert any(_invisible(str(value)) for row in printed for value in row)  # not vacuous
    assert _invisible(listed.out) == set()


def test_a_shard_path_is_an_sql_string_not_sql(tmp_path: Path) -> None:
    """``ATTACH`` takes no parameters: a shard directory named with a quote is quoted, a
    NUL is refused, and nothing else is executed."""
    directory = tmp_path / "o'brien'; DROP TABLE rounds; --"
    directory.mkdir()
    shard = directory / "table-events-p000.duckdb"
    Ledger(shard).close()
    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        merged = ledger.merge_shard(shard)
        assert (merged.touched, merged.new_deliveries) == (set(), 0)
        assert ledger.con.execute("SELECT count(*) FROM rounds").fetchone() == (0,)
        with pytest.raises(ValueError, match="NUL"):
            ledger.merge_shard(Path(f"{shard}\x00' AS x (READ_ONLY); DROP TABLE rounds; --"))
        assert ledger.con.execute("SELECT count(*) FROM rounds").fetchone() == (0,)


def test_a_bundle_name_planted_as_a_link_out_is_refused(day: HostileDay, tmp_path: Path) -> None:
    """The zip's name is checked where it resolves: a link planted under that name, pointing
    out of ``--out``, is refused (exit 2, a message), and nothing is written through it."""
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere.zip"
    out.mkdir()
    round_id = next(r for r in day.rounds if "<script" in r)
    (out / f"evidence-round-{file_stem(round_id)}.zip").symlink_to(elsewhere)
    run = _run(["bundle", "--db", str(day.db), f"--round={round_id}", "--out", str(out)])
    assert run.code == 2 and "would be written outside" in run.err
    assert not elsewhere.exists()
