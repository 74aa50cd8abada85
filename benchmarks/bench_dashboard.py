"""Dashboard page load times on a 24-table gaming day, against the raw DuckDB queries for the
same data measured in the same run (issue "dashboards and reports": under 2 s per page).

    python benchmarks/bench_dashboard.py [--tables 24] [--hours 24] [--faults SPEC]
                                         [--db LEDGER] [--repeat 5] [--no-browser]
                                         [--pages close,round_reconstruction]
    python benchmarks/bench_dashboard.py --smoke   # 1 table, 1 hour, no browser, no file

For each page:

- ``baseline``: the page's own read queries (``dashboards.queries`` and the statistics'
  model), run directly on a read-only DuckDB connection to the same snapshot, no Streamlit;
- ``apptest``: the whole page through ``streamlit.testing`` AppTest (script run, every query,
  every element built): the first run of the page (``cold``) and the median of ``--repeat``
  reruns (``warm``);
- ``browser`` (when /usr/bin/chromium exists): ``python -m dashboards.server`` serving the
  app to headless Chromium. ``first_load``: opening the page's URL in a fresh Chromium (a
  new profile: nothing cached, as a person's first visit of the day), so the whole Streamlit
  front end loads, connects and runs the page; ``over_text_page`` is its ratio to the first
  load, in a fresh Chromium too, of a Streamlit page that renders only text
  (``benchmarks/text_page.py``, served the same way in the same run): what Streamlit itself
  costs. ``returning_load``: the same URL opened in a new session of a Chromium that opened
  it once before, as on every shift after a person's first (Streamlit marks its hashed
  scripts immutable, so they come from the browser's cache; the session, the page's run and
  its drawing are new). ``in_app``: following the sidebar link from another page, as an
  analyst does, median of ``--repeat``. All wait until the page's title shows, Streamlit
  reports the run finished and the text is unchanged between two polls 0.1 s apart, so they
  include up to about 0.2 s of polling. The fresh server warms up before the first page
  (:mod:`dashboards.warm`), as a deployed one does before its first visitor.

Without ``--db`` the gaming day is emulated first (``--faults``, by default every kind but
``forms``, whose injected re-used serials the quality gate blocks by design), replayed into a
fresh ledger and closed, as ``baccarat-audit demo`` does; that setup time is reported
separately. A page is under target when its cold, warm, in-app and browser first-load times
all are. Writes ``benchmarks/results/dashboard.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks", ROOT / "tests" / "dashboards"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from _common import SMOKE_HELP, demo_installation, save, scratch_folder, summary, timed  # noqa: E402

from dashboards import alarms, profiles  # noqa: E402
from dashboards import queries as q  # noqa: E402
from dashboards.server import running_dashboard  # noqa: E402
from dashboards.slugs import slug_exceptions  # noqa: E402
from dashboards.source import reader, snapshot  # noqa: E402
from pipeline.bundle.acks import AckJournal  # noqa: E402
from pipeline.ledger import exceptions as ledger_exceptions  # noqa: E402
from pipeline.ledger import history, stream_state  # noqa: E402
from pipeline.ledger.store import Ledger  # noqa: E402
from pipeline.reports.close import day_report  # noqa: E402

APP = ROOT / "dashboards" / "app.py"
DAY = date(2026, 11, 24)
TARGET_SECONDS = 2.0
PAGES = (
    ("exception_queue", "exceptions", "Exception queue"),
    ("table_board", "tables", "Table board"),
    ("round_reconstruction", "round", "Round reconstruction"),
    ("roads", "roads", "Roads"),
    ("statistics", "statistics", "Statistical alarms"),
    ("slugs", "slugs", "False shuffles"),
    ("close", "close", "Gaming-day close"),
    ("forms", "forms", "Form register"),
    ("search", "search", "Search"),
    ("investigator", "people", "Patrons and dealers"),
    ("trail", "trail", "Trail and evidence bundle"),
)
RETURN_AFTER_SECONDS = 1.0
"""How long a returning visit waits after leaving the page before opening it again."""
TEXT_PAGE = ROOT / "benchmarks" / "text_page.py"
TEXT_TITLE = "Text only"


PASSING_FAULTS = (
    "payout,vigorish,third_card,late_wager,deferred_vig,announcement,shoe,irregularity,device"
)
"""Every fault kind but ``forms``: a Form serial used twice is a BLOCK expectation of the
quality gate (the Form register, 3.3(c)3ii), so a day with them cannot be closed without an
accepted reason; the other kinds are findings the pages show."""


def build(tables: int, hours: float, faults: str, out: Path) -> tuple[Path, float]:
    from pipeline.cli import ingest_paths, write_simulation
    from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
    from pipeline.reports.close import close_gaming_day
    from pipeline.simulate.faults import parse_faults
    from pipeline.simulate.run import simulate

    started = time.perf_counter()
    result = simulate(tables, hours, 1, parse_faults(faults), DAY, load_catalog())
    paths = write_simulation(result, out, DAY)
    db = out / "ledger.duckdb"
    with Ledger(db) as ledger:
        ingest_paths(ledger, paths, DEFAULT_CATALOG)
        close_gaming_day(
            ledger, DAY, out / "reports", actor="benchmark", actor_source="benchmark script"
        )
    return db, time.perf_counter() - started


def baselines(db: Path, journal: AckJournal, round_id: str) -> dict[str, Callable[[], Any]]:
    """Per page, the raw reads it makes, on one read-only connection to the snapshot."""
    snap = snapshot(db)
    catalog = alarms.rules_catalog()

    def run(fn: Callable[[Ledger], Any]) -> Callable[[], Any]:
        def go() -> Any:
            with reader(snap) as ledger:
                q.gaming_dates(ledger)
                return fn(ledger)

        return go

    first_table = "T01"
    return {
        "exception_queue": run(
            lambda lg: (
                q.exceptions(lg, DAY, journal),
                q.evidence(lg, first_table, []),
                q.ack_history(lg, journal, []),
            )
        ),
        "table_board": run(lambda lg: q.table_board(lg, DAY, journal)),
        "round_reconstruction": run(
            lambda lg: (
                q.table_days(lg, DAY),
                q.round_row(lg, round_id),
                q.round_cards(lg, first_table, round_id),
                q.round_settlements(lg, first_table, round_id),
                q.round_exceptions(lg, first_table, round_id),
                q.round_events(lg, first_table, round_id),
            )
        ),
        "roads": run(
            lambda lg: (
                q.table_days(lg, DAY),
                q.rounds(lg, DAY, first_table, q.shoes(lg, DAY, first_table)[0]),
            )
        ),
        "statistics": run(
            lambda lg: (
                alarms.outcome_alarms(q.outcome_counts(lg, DAY), catalog, "shoe"),
                alarms.hold_alarms(alarms.round_moments(q.round_results(lg, DAY), catalog)),
            )
        ),
        "close": run(
            lambda lg: (
                day_report(lg, DAY),
                q.gaming_day_status(lg, DAY),
                q.win_by_wager(lg, DAY),
                q.ack_history(lg, journal, []),
            )
        ),
        "slugs": run(lambda lg: slug_exceptions(lg, DAY)),
        "forms": run(lambda lg: (q.table_days(lg, DAY), q.form_register(lg, DAY))),
        "search": run(lambda lg: q.table_days(lg, DAY)),
        "investigator": run(
            lambda lg: (
                history.patrons(lg),
                history.dealers(lg),
                profiles.unresolved_across_days(lg, journal),
            )
        ),
        "trail": run(lambda lg: None),
    }


Page = tuple[str, str, str]
"""A page's script name, its address and its title."""


def apptest(repeat: int, pages: tuple[Page, ...]) -> dict[str, dict[str, Any]]:
    from streamlit.testing.v1 import AppTest

    out: dict[str, dict[str, Any]] = {}
    at = AppTest.from_file(str(APP), default_timeout=300)
    for page, _, _ in pages:
        if page != "exception_queue":
            at.switch_page(f"views/{page}.py")
        started = time.perf_counter()
        at.run()
        cold = time.perf_counter() - started
        if at.exception:
            raise RuntimeError(f"{page}: {[e.value for e in at.exception]}")
        warm, _ = timed(at.run, repeat)
        out[page] = {"cold_s": cold, **{f"warm_{k}": v for k, v in summary(warm).items()}}
    return out


def until(b: Any, title: str) -> None:
    """Wait until the page titled ``title`` has finished its run and painted its text."""
    deadline = time.monotonic() + 120
    while b.heading() != title and time.monotonic() < deadline:
        time.sleep(0.02)
    b.wait_for(title, timeout=120, poll=0.1)


def first_load(url: str, title: str, *, returning: bool = False) -> float:
    """Seconds from asking a Chromium of its own (a new profile) for ``url`` until the page
    titled ``title`` has run and painted; the browser's own start is not counted.

    ``returning``: a browser that has opened the page before (on an earlier shift) opens it
    in a new session: its hashed scripts come from the browser's cache, as Streamlit marks
    them immutable; the page's run, its data and its drawing are all new."""
    from _chromium import chromium

    with chromium() as b:
        if returning:
            b.navigate(url)
            until(b, title)
            b.navigate("about:blank")  # leaving the page ends its session
            while b.heading():
                time.sleep(0.02)
            # and whatever that session's last run still does ends too: a person comes back
            # the next shift, not at once (the statistics page's second run went on for
            # about 0.5 s)
            time.sleep(RETURN_AFTER_SECONDS)
        started = time.perf_counter()
        b.navigate(url)
        until(b, title)
        return time.perf_counter() - started


def browser(db: Path, repeat: int, pages: tuple[Page, ...]) -> dict[str, Any] | str:
    try:
        from _chromium import CHROMIUM, chromium, free_port
    except ImportError as err:  # websockets missing
        return f"skipped: {err}"
    if not CHROMIUM.exists():
        return f"skipped: {CHROMIUM} not found (apt-get install -y chromium)"
    out: dict[str, Any] = {}
    with running_dashboard(db, free_port(), script=TEXT_PAGE) as base:
        first_load(base, TEXT_TITLE)  # the server's own first run is not the page's
        text_s = statistics.median(first_load(base, TEXT_TITLE) for _ in range(3))
        text_returning_s = statistics.median(
            first_load(base, TEXT_TITLE, returning=True) for _ in range(3)
        )
    out["text_page_first_load_s"] = text_s
    out["text_page_returning_load_s"] = text_returning_s
    acks = Path(os.environ["BACCARAT_ACKS"])
    with running_dashboard(db, free_port(), acks=acks) as base:
        for page, url, title in pages:
            first = first_load(f"{base}/{url}", title)
            returning = first_load(f"{base}/{url}", title, returning=True)
            out[page] = {
                "first_load_s": first,
                "over_text_page": first / text_s,
                "returning_load_s": returning,
            }
        if "exception_queue" in out:
            # the root serves the queue too (a hidden twin of the page): its own first load
            out["exception_queue"]["root_first_load_s"] = first_load(f"{base}/", "Exception queue")
            out["exception_queue"]["root_returning_load_s"] = first_load(
                f"{base}/", "Exception queue", returning=True
            )
        with chromium() as b:
            b.navigate(f"{base}/search")
            until(b, "Search")
            for page, _, title in pages:
                other = "Search" if title != "Search" else "Form register"
                samples = []
                for _ in range(repeat):
                    b.click_nav(other)
                    until(b, other)
                    started = time.perf_counter()
                    b.click_nav(title)
                    until(b, title)
                    samples.append(time.perf_counter() - started)
                out[page].update({f"in_app_{k}": v for k, v in summary(samples).items()})
    return out


def main() -> int:
    demo_installation()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--db", type=Path, help="use this ledger instead of emulating one")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--faults", default=PASSING_FAULTS, help="the emulated day's faults")
    parser.add_argument("--smoke", action="store_true", help=SMOKE_HELP)
    parser.add_argument(
        "--pages",
        type=lambda names: names.split(","),
        default=[page for page, _, _ in PAGES],
        help="measure only these pages (comma-separated script names, as in the table); "
        "the results file is then not written",
    )
    args = parser.parse_args()
    unknown = set(args.pages) - {page for page, _, _ in PAGES}
    if unknown:
        parser.error(f"no page(s) {sorted(unknown)}; the pages: {[p for p, _, _ in PAGES]}")
    pages = tuple(p for p in PAGES if p[0] in args.pages)
    partial = len(pages) < len(PAGES)
    if args.smoke:
        args.tables, args.hours, args.repeat, args.no_browser = 1, 1.0, 1, True

    load_at_start = os.getloadavg()[0]  # the machine is shared: how busy it was is part of it
    work = scratch_folder("bench-dashboard-")
    setup_s = None
    if args.db:
        db = args.db
    else:
        print(f"emulating {args.tables} tables x {args.hours:g} h into {work} ...", flush=True)
        db, setup_s = build(args.tables, args.hours, args.faults, work)
        print(f"  built and closed in {setup_s:.1f} s", flush=True)
    os.environ["BACCARAT_DB"] = str(db)
    os.environ["BACCARAT_ACKS"] = str(work / "acks.jsonl")
    journal = AckJournal(work / "acks.jsonl")

    with Ledger(db, read_only=True) as ledger:
        size = {
            name: stream_state.row_count(ledger, name)
            for name in ("deliveries", "rounds", "cards", "settlements", "exceptions")
        }
        size["tables"] = len(ledger.tables_of_day(DAY))
        first = ledger_exceptions.first_round_of_table(ledger, "T01")
    round_id = first or ""
    size["ledger_bytes"] = db.stat().st_size

    started = time.perf_counter()
    snapshot(db)
    snapshot_s = time.perf_counter() - started
    print(f"snapshot copy of {size['ledger_bytes'] / 1e6:.0f} MB: {snapshot_s:.2f} s", flush=True)

    base = {}
    for page, fn in baselines(db, journal, round_id).items():
        if page not in args.pages:
            continue
        fn()  # warm the odds models and DuckDB's caches like the pages' first runs do
        times, _ = timed(fn, args.repeat)
        base[page] = summary(times)
    measured_pages = apptest(args.repeat, pages)
    web = "skipped: --no-browser" if args.no_browser else browser(db, args.repeat, pages)

    results: dict[str, Any] = {}
    print(
        f"\n{'page':<22}{'baseline':>10}{'cold':>9}{'warm':>9}{'ratio':>8}"
        f"{'browser 1st':>13}{'/text':>7}{'returning':>11}{'in app':>9}"
    )
    for page, _, _ in pages:
        warm = measured_pages[page]["warm_median_s"]
        first_s = web[page]["first_load_s"] if isinstance(web, dict) else None
        over_text = web[page]["over_text_page"] if isinstance(web, dict) else None
        web_s = web[page]["in_app_median_s"] if isinstance(web, dict) else None
        back_s = web[page]["returning_load_s"] if isinstance(web, dict) else None
        root_s = web[page].get("root_first_load_s") if isinstance(web, dict) else None
        slowest = max(
            measured_pages[page]["cold_s"], warm, web_s or 0.0, first_s or 0.0, root_s or 0.0
        )
        results[page] = {
            "baseline_queries": base[page],
            "apptest": measured_pages[page],
            "browser": web[page] if isinstance(web, dict) else web,
            "warm_over_baseline": warm / base[page]["median_s"] if base[page]["median_s"] else None,
            "under_target": slowest < TARGET_SECONDS,
        }
        print(
            f"{page:<22}{base[page]['median_s']:>9.3f}s{measured_pages[page]['cold_s']:>8.3f}s"
            f"{warm:>8.3f}s{results[page]['warm_over_baseline'] or 0:>7.1f}x"
            f"{(f'{first_s:.3f}s' if first_s is not None else '-'):>13}"
            f"{(f'{over_text:.1f}x' if over_text is not None else '-'):>7}"
            f"{(f'{back_s:.3f}s' if back_s is not None else '-'):>11}"
            f"{(f'{web_s:.3f}s' if web_s is not None else '-'):>9}"
        )
    if isinstance(web, dict) and "exception_queue" in web:
        root = web["exception_queue"]
        print(
            f"{'/ (opens the queue)':<22}{root['root_first_load_s']:>52.3f}s"
            f"{root['root_returning_load_s']:>17.3f}s"
        )
    if isinstance(web, dict):
        print(
            f"{'text-only page':<22}{web['text_page_first_load_s']:>52.3f}s"
            f"{web['text_page_returning_load_s']:>17.3f}s"
        )
    ok = all(r["under_target"] for r in results.values())
    load_at_end = os.getloadavg()[0]
    measured = {
        "target_seconds_per_page": TARGET_SECONDS,
        "all_pages_under_target": ok,
        "dataset": {
            "tables_requested": args.tables,
            "hours": args.hours,
            "faults": None if args.db else args.faults,
            **size,
        },
        "setup_seconds": setup_s,
        "load_average_1m": {"start": load_at_start, "end": load_at_end},
        "text_page_first_load_s": web.get("text_page_first_load_s")
        if isinstance(web, dict)
        else None,
        "snapshot_copy_seconds": snapshot_s,
        "repeat": args.repeat,
        "median_of_warm": statistics.median(
            p["apptest"]["warm_median_s"] for p in results.values()
        ),
        "pages": results,
    }
    if args.smoke or partial:
        path = f"not saved ({'--smoke' if args.smoke else '--pages'})"
    else:
        path = str(save("dashboard", measured))
    print(f"load average (1 min): {load_at_start:.1f} at the start, {load_at_end:.1f} at the end")
    print(f"\n{'every page under' if ok else 'NOT every page under'} {TARGET_SECONDS} s; {path}")
    return 0 if ok or args.smoke else 1  # a smoke run proves it runs, not how fast


if __name__ == "__main__":
    sys.exit(main())
