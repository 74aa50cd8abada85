"""Real flow runs against the session's Prefect test server: the nightly audit of a small
emulated day (its runs named for the gaming day, its final state and the close's artifacts
as the UI shows them), the transient/terminal retry split, quality findings that do not fail the
quality run but refuse the close (terminal, never retried) until accepted, and a forced
replay of a gaming day."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from prefect import flow
from prefect.client.schemas.objects import FlowRun

from flows import audit, steps
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.ingest.errors import TerminalError, TransientError
from pipeline.ingest.sources import read_file
from pipeline.ingest.stage import load_batch
from pipeline.ledger.migrations import DERIVED_TABLES
from pipeline.ledger.store import Delivery, Ledger
from pipeline.replay.findings import money
from pipeline.reports.groundtruth import compare
from pipeline.safe_text import markdown_text, visible
from pipeline.stream.ledgers import shard_path
from pipeline.stream.verify import diff_ledgers, ledger_snapshot

pytestmark = [pytest.mark.xdist_group("prefect"), pytest.mark.slow]

GAMING_DATE = date(2026, 11, 24)
SUBFLOWS = {"ingest", "replay-gaming-day", "close-gaming-day", "quality"}


def _completed_flow_names() -> list[str]:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        names = {f.id: f.name for f in client.read_flows()}
        return [
            names[r.flow_id]
            for r in client.read_flow_runs()
            if r.state is not None and r.state.is_completed()
        ]


def test_nightly_audit_of_a_small_emulated_day(
    prefect_api: str, small_day: Path, tmp_path: Path
) -> None:
    db = tmp_path / "ledger.duckdb"
    reports = tmp_path / "reports"

    result = audit.close_outcome(
        audit.nightly_audit(small_day, db, GAMING_DATE, reports, return_state=True)
    )

    # the ledger
    with Ledger(db, read_only=True) as ledger:
        (rounds,) = ledger.con.execute("SELECT count(*) FROM rounds").fetchone() or (0,)
        (status,) = ledger.con.execute(
            "SELECT status FROM gaming_days WHERE gaming_date = ?", [GAMING_DATE]
        ).fetchone() or (None,)
        truth = compare(ledger, small_day.parent / "faults.jsonl")
    assert rounds > 100
    assert truth.exact, truth.summary()
    assert result.deliveries > 5000 and result.files == 2
    # the pattern stage's task ran between the replays and the close
    assert result.patterns is not None and result.patterns.shoes_searched > 0
    # the close report and its hash chain
    assert status == result.close.status
    close_json = json.loads((reports / "close-2026-11-24.json").read_text())
    assert close_json["seal"]["link"] == result.close.chain_sha256
    assert [t["table_id"] for t in result.close.report["tables"]] == ["T01", "T02"]
    assert (reports / "close-2026-11-24.html").exists()
    # the quality results, checked before the close and stated in its report
    quality = json.loads((reports / "quality-2026-11-24.json").read_text())
    assert quality["evaluated"] == result.quality.evaluated > 60
    assert [s["name"] for s in quality["suites"]] == ["raw_events", "ledger"]
    assert close_json["quality"]["verdict"] == result.quality.verdict != "BLOCKED"
    assert (reports / "quality-2026-11-24.html").exists()
    # the same work as plain functions gives the same close
    plain = steps.run_audit_plain(small_day, tmp_path / "plain.duckdb", GAMING_DATE, tmp_path)
    assert plain.close.report_sha256 == result.close.report_sha256
    assert plain.quality.failed == result.quality.failed
    # the runs the server recorded
    # (the two that closed the day with blocking exceptions end "Blocked", checked below)
    assert SUBFLOWS - {"close-gaming-day"} <= set(_completed_flow_names())
    # ... named for the gaming day, a day sealed with blocking exceptions not a plain green
    runs = _runs_on(db)
    assert sorted(runs) == sorted(f"{name} 2026-11-24" for name in ("nightly-audit", *SUBFLOWS))
    assert result.close.blocking > 0  # every fault kind at its default rate
    for name in ("nightly-audit 2026-11-24", "close-gaming-day 2026-11-24"):
        state = runs[name].state
        assert state is not None and state.is_failed()  # drawn red, not a green Completed
        assert state.name == audit.BLOCKED_STATE_NAME == "Blocked"
        assert state.message is not None and state.message.startswith(
            f"gaming day 2026-11-24 closed with {result.close.blocking} blocking exceptions "
            "(sealed, reports written)"
        )
    # ... and the close's artifacts: its own figures per table, the reports and Data Docs
    artifacts = _artifacts_of(runs["close-gaming-day 2026-11-24"].id)
    summary = json.loads(artifacts["close-summary-2026-11-24"])
    figures = {t["table_id"]: t for t in close_json["tables"]}
    assert [row["table"] for row in summary] == ["T01", "T02"]
    for row in summary:
        table = figures[row["table"]]
        assert row["handle"] == money(table["handle_cents"])
        assert row["win"] == money(table["win_cents"])
        assert row["vigorish collected"] == money(table["vig_collected_cents"])
        assert row["exceptions"] == table["exceptions"]
    assert sum(row["blocking exceptions"] for row in summary) == result.close.blocking
    # ... the paths as code text, unescaped inside: a browser opens no file:// link
    listed = artifacts["close-reports-2026-11-24"]
    for path in [*result.close.files, result.quality.docs_file]:
        assert path is not None and f"- `{path.resolve()}`" in listed.splitlines()
    assert "file://" not in listed and "close\\-" not in listed
    assert f"- `{reports.resolve()}/close-2026-11-24.r1.html`" in listed.splitlines()


def _runs_on(db: Path) -> dict[str, FlowRun]:
    """The flow runs that worked on the ledger ``db``, by run name."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return {r.name: r for r in client.read_flow_runs() if r.parameters.get("db") == str(db)}


def _artifacts_of(flow_run_id: UUID) -> dict[str, str]:
    """The data of the keyed artifacts a flow run created, by key."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

    only_this_run = ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id]))
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(artifact_filter=only_this_run)
    return {a.key: str(a.data) for a in artifacts if a.key}


def test_device_strings_in_the_close_artifacts_are_not_markup(
    prefect_api: str, tmp_path: Path
) -> None:
    """A table id is a device string: the close's artifacts show it, never render it."""
    hostile = "<img src=x onerror=alert(1)>[T01](javascript:x)\u202e"
    report = tmp_path / "close-2026-11-24.html"
    closed = steps.CloseSummary(
        GAMING_DATE,
        "CLOSED_WITH_BLOCKING_EXCEPTIONS",
        1,
        "0" * 64,
        "0" * 64,
        {"handle_cents": 12_345, "win_cents": -50, "vig_collected_cents": 5},
        [report],
        {
            "tables": [
                {
                    "table_id": hostile,
                    "rounds": 3,
                    "handle_cents": 12_345,
                    "win_cents": -50,
                    "vig_collected_cents": 5,
                    "exceptions": 2,
                }
            ],
            "blocking_exceptions": [{"table_id": hostile}],
        },
    )

    @flow
    def close_published() -> None:
        audit.publish_close(closed)

    state = close_published(return_state=True)

    run_id = state.state_details.flow_run_id
    assert state.is_completed() and run_id is not None
    artifacts = _artifacts_of(run_id)
    (row,) = json.loads(artifacts["close-summary-2026-11-24"])
    assert row["table"] == visible(hostile) and "\u202e" not in row["table"]
    assert (row["handle"], row["win"], row["vigorish collected"]) == ("$123.45", "-$0.50", "$0.05")
    markdown = artifacts["close-reports-2026-11-24"]
    (line,) = [x for x in markdown.splitlines() if x.startswith("1 blocking exceptions: ")]
    shown = line.removeprefix("1 blocking exceptions: ").removesuffix(" (1)")
    assert shown == markdown_text(hostile)
    assert not re.search(r"(?<!\\)[<>\[\]()]", shown)  # every markup character escaped


def test_the_writer_tag_has_a_concurrency_limit_of_one(prefect_api: str) -> None:
    from prefect.client.orchestration import get_client

    audit.ensure_writer_limit()  # idempotent
    with get_client(sync_client=True) as client:
        limit = client.read_concurrency_limit_by_tag(audit.WRITER_TAG)
    assert limit.concurrency_limit == 1


def test_transient_failure_is_retried_terminal_is_not(
    prefect_api: str, small_day: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = steps.load_files
    calls: list[str] = []
    raised: dict[str, Exception] = {}

    def flaky(db: Path, paths: list[Path], catalog_path: Path = DEFAULT_CATALOG) -> Any:
        calls.append(paths[0].name)
        if len(calls) == 1 and "first" in raised:
            raise raised.pop("first")
        if "always" in raised:
            raise raised["always"]
        return real(db, paths, catalog_path)

    monkeypatch.setattr(steps, "load_files", flaky)
    task = audit.ingest_files_task.with_options(retry_delay_seconds=0)
    path = steps.event_paths(small_day, GAMING_DATE)[0]

    @flow
    def load_one(db: Path) -> steps.IngestResult:
        return task(db, [path], DEFAULT_CATALOG)

    raised["first"] = TransientError("the ledger is busy")
    state = load_one(tmp_path / "a.duckdb", return_state=True)
    assert state.is_completed()
    assert calls == [path.name, path.name]  # failed once, retried once
    assert state.result().deliveries > 0

    calls.clear()
    raised["always"] = TerminalError("bad bytes")
    state = load_one(tmp_path / "b.duckdb", return_state=True)
    assert state.is_failed()
    assert calls == [path.name]  # never retried
    with pytest.raises(TerminalError, match="bad bytes"):
        state.result()


def test_quality_findings_do_not_fail_the_flow(
    prefect_api: str, faulty_day: Path, tmp_path: Path
) -> None:
    db = tmp_path / "ledger.duckdb"
    steps.load_files(db, steps.event_paths(faulty_day, GAMING_DATE))

    state = audit.quality(db, GAMING_DATE, tmp_path, return_state=True)

    assert state.is_completed()
    checked = state.result()
    assert checked.failed >= 1 and not checked.success
    assert any("once per status" in line for line in checked.failing)


def test_a_blocked_close_fails_at_once_and_closes_when_accepted(
    prefect_api: str, faulty_day: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "ledger.duckdb"
    steps.load_files(db, steps.event_paths(faulty_day, GAMING_DATE))
    real = steps.close_day
    calls: list[str | None] = []

    def counted(*args: Any, **kwargs: Any) -> steps.CloseSummary:
        calls.append(kwargs.get("accept_quality_failures"))
        return real(*args, **kwargs)

    monkeypatch.setattr(steps, "close_day", counted)

    state = audit.close_gaming_day(db, GAMING_DATE, tmp_path, return_state=True)

    assert state.is_failed()
    assert calls == [None]  # terminal: never retried
    with pytest.raises(TerminalError, match=r"ledger\.comp_vig_forms: a Form serial is used"):
        state.result()

    reason = "test: the reused serial was investigated"
    closed = audit.close_outcome(
        audit.close_gaming_day(
            db, GAMING_DATE, tmp_path, accept_quality_failures=reason, return_state=True
        )
    )

    assert calls == [None, reason]
    assert closed.quality is not None and closed.quality.verdict == "BLOCKED"
    assert closed.report["quality"]["accepted"].startswith(reason)
    with Ledger(db, read_only=True) as ledger:
        actions = ledger.con.execute(
            "SELECT action FROM gaming_day_audit ORDER BY acted_at"
        ).fetchall()
    assert actions == [("ACCEPT_QUALITY_FAILURES",), ("CLOSE",)]


def test_replay_gaming_day_rederives_every_table_day(
    prefect_api: str, small_day: Path, tmp_path: Path
) -> None:
    db = tmp_path / "ledger.duckdb"
    steps.load_files(db, steps.event_paths(small_day, GAMING_DATE))
    query = "SELECT * EXCLUDE (replayed_at) FROM table_day_summary ORDER BY ALL"
    with Ledger(db, read_only=True) as ledger:
        before = ledger.con.execute(query).fetchall()

    replayed = audit.replay_gaming_day(db, GAMING_DATE)
    skipped = audit.replay_gaming_day(db, GAMING_DATE, skip=["T01"])

    assert [r.table_id for r in replayed] == ["T01", "T02"]
    assert [r.table_id for r in skipped] == ["T02"]
    with Ledger(db, read_only=True) as ledger:
        assert ledger.con.execute(query).fetchall() == before


def _stream_workers_shards(
    events_dir: Path, shard_dir: Path, partitions: int = 2
) -> dict[int, int]:
    """The shards stream workers would leave for the day in ``events_dir``: each table's
    events in its partition's shard, keyed and offset as the consumer keys them, with the
    partition's next offset stored in the same transaction. Returns those offsets."""
    by_partition: dict[int, list[Delivery]] = {}
    tables: dict[str, int] = {}
    for path in steps.event_paths(events_dir):
        for item in read_file(path):
            if isinstance(item, Delivery):
                partition = tables.setdefault(item.event.table_id, len(tables) % partitions)
                batch = by_partition.setdefault(partition, [])
                batch.append(
                    Delivery(f"kafka:table-events:{partition}", len(batch), item.event, len(batch))
                )
    shard_dir.mkdir()
    for partition, batch in by_partition.items():
        offsets = {partition: len(batch)}

        def store_offsets(tx: Ledger, offsets: dict[int, int] = offsets) -> None:
            tx.store_offsets("auditors", "table-events", offsets)

        with Ledger(shard_path(shard_dir, "table-events", partition)) as shard:
            load_batch(
                shard, batch, [], load_catalog(DEFAULT_CATALOG), in_same_transaction=store_offsets
            )
    return {partition: len(batch) for partition, batch in by_partition.items()}


def test_nightly_audit_merges_the_stream_workers_shards_first(
    prefect_api: str, small_day: Path, tmp_path: Path
) -> None:
    """A deployment streaming into partition shards closes the day with the merged ledger:
    the same rows as the day loaded from its files."""
    shards = tmp_path / "shards"
    offsets = _stream_workers_shards(small_day, shards)
    no_files = tmp_path / "no-files"
    no_files.mkdir()
    db = tmp_path / "ledger.duckdb"

    result = audit.close_outcome(
        audit.nightly_audit(
            no_files, db, GAMING_DATE, tmp_path / "reports", shard_dir=shards, return_state=True
        )
    )

    (merged,) = result.ingested
    assert isinstance(merged, steps.ShardMergeResult)
    assert (merged.shards, merged.deliveries, merged.rederived) == (2, sum(offsets.values()), 0)
    assert len(merged.table_days) == 2 and result.replayed == []
    reference = steps.run_audit_plain(small_day, tmp_path / "files.duckdb", GAMING_DATE, tmp_path)
    assert result.close.status == reference.close.status
    mine, theirs = ledger_snapshot(db), ledger_snapshot(tmp_path / "files.duckdb")
    assert all(mine[table] == theirs[table] for table in DERIVED_TABLES), diff_ledgers(theirs, mine)
    with Ledger(db, read_only=True) as ledger:
        assert ledger.stored_offsets("auditors", "table-events") == offsets
