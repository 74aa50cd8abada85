"""Prefect 3 flows of the nightly audit: ingest, replay_gaming_day, the pattern stage (one
task: the day's shoes against its window of earlier days), quality, close_gaming_day (which
runs quality as its first step: the day's data passes the quality gate before it is sealed),
and ``nightly_audit`` running them in that order.

Tasks are thin wrappers over :mod:`flows.steps` and take batches: a file, a table-day, or a
Kafka consumer run (transactional batches until the topic is idle). Retries follow the
pipeline's error taxonomy: a task that raises :class:`~pipeline.ingest.errors.TransientError`
is retried, any other failure is final (:func:`retry_transient` is every task's
``retry_condition_fn``): a close refused by the quality gate fails at once, since the same
data fails the same expectations again. Tasks that open the ledger for writing carry the tag
:data:`WRITER_TAG`, guarded by a tag concurrency limit of 1 (:func:`ensure_writer_limit`, or
``prefect concurrency-limit create duckdb-writer 1``), so concurrent flow runs queue for the
single DuckDB writer instead of failing on its file lock.

What the UI shows: runs are named for their gaming day (``nightly-audit 2026-11-24``); the
close publishes its summary per table and the paths of its reports and Data Docs as
artifacts (paths as code text: a browser opens no local file from the UI); a day sealed with
blocking exceptions ends in a Failed state named "Blocked" (red in the UI: a state's colour is
its type's, whatever its name), its data and reports written all the same
(:func:`closed_state`, :func:`close_outcome`).
"""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path
from typing import Any, TypeVar, cast

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.client.schemas.objects import State, TaskRun
from prefect.states import Completed, Failed

from flows import steps
from flows.steps import (
    DEFAULT_GROUP,
    DEFAULT_TOPIC,
    AuditResult,
    CloseSummary,
    IngestResult,
    KafkaIngestResult,
    QualitySummary,
    ReplayCounts,
    ShardMergeResult,
)
from pipeline.config.catalog import DEFAULT_CATALOG, gaming_day_of, load_catalog
from pipeline.ingest.errors import TransientError
from pipeline.patterns.stage import PatternRun
from pipeline.quality.run import QualityReport
from pipeline.replay.findings import money
from pipeline.safe_text import markdown_code, markdown_text, visible

WRITER_TAG = "duckdb-writer"
"""Tag of every task that writes the ledger; its concurrency limit must be 1."""

RETRIES = 3
RETRY_DELAYS_S = [2, 10, 30]

R = TypeVar("R")


def retry_transient(task: Any, task_run: TaskRun, state: State[Any]) -> bool:
    """``retry_condition_fn``: retry a failed task run only when it raised a TransientError."""
    try:
        outcome = state.result(raise_on_failure=False)
    except Exception:  # the failure cannot be read back: do not guess
        return False
    return isinstance(outcome, TransientError)


def ensure_writer_limit(limit: int = 1, tag: str = WRITER_TAG) -> None:
    """Create (or correct) the tag concurrency limit that guards the single DuckDB writer, on
    the API the current settings point at. Idempotent; same as
    ``prefect concurrency-limit create duckdb-writer 1``."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            if client.read_concurrency_limit_by_tag(tag).concurrency_limit == limit:
                return
            client.delete_concurrency_limit_by_tag(tag)
        except ObjectNotFound:
            pass
        client.create_concurrency_limit(tag=tag, concurrency_limit=limit)


_retrying: dict[str, Any] = {
    "retries": RETRIES,
    "retry_delay_seconds": RETRY_DELAYS_S,
    "retry_condition_fn": retry_transient,
    "cache_policy": NO_CACHE,
}


# ---------------------------------------------------------------------- tasks
FILES_PER_TASK = 64
"""Files per ingest task: a task is a batch (a Prefect task run costs about 0.1 s)."""


@task(
    name="ingest-files",
    task_run_name="ingest {paths[0].name} and the next files",
    tags=[WRITER_TAG],
    **_retrying,
)
def ingest_files_task(db: Path, paths: list[Path], catalog_path: Path) -> IngestResult:
    return steps.load_files(db, paths, catalog_path)


@task(name="ingest-kafka", task_run_name="consume {topic}", tags=[WRITER_TAG], **_retrying)
def ingest_kafka_task(
    db: Path,
    bootstrap: str,
    topic: str,
    group: str,
    catalog_path: Path,
    until_idle: float,
    max_batch: int,
) -> KafkaIngestResult:
    return steps.ingest_kafka(
        db, bootstrap, topic, group, catalog_path, until_idle=until_idle, max_batch=max_batch
    )


@task(name="merge-shards", task_run_name="merge {shard_dir.name}", tags=[WRITER_TAG], **_retrying)
def merge_shards_task(db: Path, shard_dir: Path, catalog_path: Path) -> ShardMergeResult:
    return steps.merge_shards(db, shard_dir, catalog_path)


@task(name="list-tables", **_retrying)
def list_tables_task(db: Path, gaming_date: date) -> list[str]:
    return steps.gaming_day_tables(db, gaming_date)


@task(
    name="replay-table-day",
    task_run_name="replay {table_id} {gaming_date}",
    tags=[WRITER_TAG],
    **_retrying,
)
def replay_table_day_task(
    db: Path, table_id: str, gaming_date: date, catalog_path: Path
) -> ReplayCounts:
    return steps.replay_table_day(db, table_id, gaming_date, catalog_path)


@task(name="find-patterns", task_run_name="patterns {gaming_date}", tags=[WRITER_TAG], **_retrying)
def find_patterns_task(db: Path, gaming_date: date, catalog_path: Path) -> PatternRun:
    return steps.find_patterns(db, gaming_date, catalog_path)


@task(name="reopen-day", tags=[WRITER_TAG], **_retrying)
def reopen_day_task(db: Path, gaming_date: date, reopen_reason: str | None) -> bool:
    return steps.reopen_day(db, gaming_date, reopen_reason)


@task(name="close-day", tags=[WRITER_TAG], **_retrying)
def close_day_task(
    db: Path,
    gaming_date: date,
    reports_dir: Path,
    quality: QualityReport,
    accept_quality_failures: str | None,
    catalog_path: Path,
) -> CloseSummary:
    return steps.close_day(
        db,
        gaming_date,
        reports_dir,
        quality=quality,
        accept_quality_failures=accept_quality_failures,
        catalog_path=catalog_path,
    )


@task(name="quality-suites", **_retrying)
def quality_task(
    db: Path, gaming_date: date, reports_dir: Path, catalog_path: Path
) -> QualitySummary:
    return steps.quality_check(db, gaming_date, reports_dir, catalog_path)


# ---------------------------------------------------------------------- what the UI shows
BLOCKED_STATE_NAME = "Blocked"
"""The name of the Failed state of a run whose day was sealed with blocking exceptions."""


def audited_day(gaming_date: date | str | None, catalog_path: Path | str = DEFAULT_CATALOG) -> date:
    """The gaming day a nightly audit works on: ``gaming_date`` (a deployment run may give
    it as ISO text), else the one that ended at the last boundary (the catalog's
    ``[gaming_day]``: local start and time zone)."""
    if gaming_date is None:
        return steps.last_closed_gaming_date(gaming_day_of(load_catalog(Path(catalog_path))))
    return gaming_date if isinstance(gaming_date, date) else date.fromisoformat(gaming_date)


def nightly_audit_run_name() -> str:
    """``nightly-audit <gaming day>``, the day worked out as the flow works it out when the
    run does not give one (Prefect calls this with the run's parameters in context)."""
    from prefect.runtime import flow_run

    parameters = flow_run.parameters
    day = audited_day(
        parameters.get("gaming_date"), parameters.get("catalog_path", DEFAULT_CATALOG)
    )
    return f"nightly-audit {day}"


def ingest_run_name() -> str:
    """``ingest <gaming day>``, or ``ingest`` for a run that loads every file it is given."""
    from prefect.runtime import flow_run

    day = flow_run.parameters.get("gaming_date")
    return f"ingest {day}" if day else "ingest"


def closed_state(closed: CloseSummary, data: R) -> State[R]:
    """The final state of a run that closed a day, carrying ``data``: Completed when nothing
    blocked the day at its seal; else Failed, named :data:`BLOCKED_STATE_NAME`, so the UI
    shows the run red, not green (Prefect colours a state by its type, so a Completed state
    of another name is still drawn as a success). The seal and the reports are written
    either way; the message says how many exceptions block and what to do."""
    day = closed.gaming_date
    if closed.blocking:
        return Failed(
            name=BLOCKED_STATE_NAME,
            message=(
                f"gaming day {day} closed with {closed.blocking} blocking exceptions (sealed, "
                "reports written): acknowledge or resolve them, then reopen and close the day"
            ),
            data=data,
        )
    return Completed(message=f"gaming day {day} closed, no blocking exceptions", data=data)


def close_outcome(state: State[R]) -> R:
    """The data of a close run's final state (:func:`closed_state`), blocked or not; any
    other failure raises its exception. Call the close flows with ``return_state=True``:
    calling one plainly raises when the day was blocked."""
    if state.is_failed() and state.name == BLOCKED_STATE_NAME:
        return cast(R, state.result(raise_on_failure=False))
    return state.result()


def final(state: State[R]) -> R:
    """``state`` as a flow's return value: Prefect makes a returned state the run's final
    state and gives the flow's callers its data (and ``return_state=True`` callers the
    state), so the flow is typed by that data."""
    return cast(R, state)


def publish_close(closed: CloseSummary) -> None:
    """Publish the close as artifacts of the current flow run, keyed by gaming day so the UI
    keeps every version: ``close-summary-<date>``, the close's own figures per table (cents
    shown as dollars), and ``close-reports-<date>``, its status and the paths of its report
    files and of the quality Data Docs, as code text (the dashboards serve no report by URL,
    and a browser opens no ``file://`` link from the UI). Table ids come from devices: made
    visible in table cells, escaped in Markdown, never markup."""
    day = closed.gaming_date.isoformat()
    blocking_by_table: dict[str, int] = {}
    for exception in closed.report["blocking_exceptions"]:
        table_id = str(exception["table_id"])
        blocking_by_table[table_id] = blocking_by_table.get(table_id, 0) + 1
    totals = closed.totals
    create_table_artifact(
        [
            {
                "table": visible(str(t["table_id"])),
                "rounds": t["rounds"],
                "handle": money(t["handle_cents"]),
                "win": money(t["win_cents"]),
                "vigorish collected": money(t["vig_collected_cents"]),
                "exceptions": t["exceptions"],
                "blocking exceptions": blocking_by_table.get(str(t["table_id"]), 0),
            }
            for t in closed.report["tables"]
        ],
        key=f"close-summary-{day}",
        description=(
            f"Gaming day {day}, {closed.status}: handle {money(totals['handle_cents'])}, "
            f"win {money(totals['win_cents'])}, vigorish collected "
            f"{money(totals['vig_collected_cents'])}"
        ),
    )
    lines = [f"### Gaming day {day}: {closed.status}", ""]
    if blocking_by_table:
        by_table = ", ".join(f"{markdown_text(t)} ({n})" for t, n in blocking_by_table.items())
        lines += [f"{closed.blocking} blocking exceptions: {by_table}", ""]
    lines += ["Reports:", *(_file_item(path) for path in closed.files)]
    checked = closed.quality
    if checked is not None:
        lines += [
            "",
            f"Data quality: {checked.verdict}, {checked.failed} of {checked.evaluated} "
            "expectations failed",
            *(_file_item(path) for path in (checked.docs_file, checked.result_file) if path),
        ]
    create_markdown_artifact(
        "\n".join(lines) + "\n",
        key=f"close-reports-{day}",
        description=f"Reports of the close of gaming day {day}",
    )


def _file_item(path: Path) -> str:
    """A Markdown list item stating a local file's path as code text."""
    return f"- {markdown_code(path.resolve())}"


# ---------------------------------------------------------------------- flows
@flow(name="ingest", flow_run_name=ingest_run_name)
def ingest(
    db: Path,
    sources: list[Path] | None = None,
    gaming_date: date | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    kafka: str | None = None,
    topic: str = DEFAULT_TOPIC,
    group: str = DEFAULT_GROUP,
    until_idle: float = 5.0,
    max_batch: int = 5_000,
    shard_dir: Path | None = None,
) -> list[IngestResult]:
    """Load event files (one task per ``FILES_PER_TASK`` files; a directory means its
    ``<gaming_date>`` subdirectory when there is one, else every file under it) and/or
    consume a Kafka topic until idle (one task; batches of up to ``max_batch`` records, each
    its own ledger transaction) into the ledger. Every batch replays the table-days it
    touched. With ``shard_dir``, the partition shards of stream workers
    (``baccarat-audit stream --shard-dir``) are merged first (one task)."""
    logger = get_run_logger()
    results: list[IngestResult] = []
    if shard_dir is not None:
        merged = merge_shards_task(db, shard_dir, catalog_path)
        logger.info(
            "%s: %d shards, %d new deliveries, %d table-days (%d re-derived) (%.1f s)",
            merged.source,
            merged.shards,
            merged.deliveries,
            len(merged.table_days),
            merged.rederived,
            merged.seconds,
        )
        results.append(merged)
    paths = [p for s in sources or [] for p in steps.event_paths(s, gaming_date)]
    for first in range(0, len(paths), FILES_PER_TASK):
        r = ingest_files_task(db, paths[first : first + FILES_PER_TASK], catalog_path)
        logger.info(
            "%s: %d events, %d dead letters, %d table-days replayed (%.1f s)",
            r.source,
            r.deliveries,
            r.dead_letters,
            len(r.table_days),
            r.seconds,
        )
        results.append(r)
    if kafka:
        k = ingest_kafka_task(db, kafka, topic, group, catalog_path, until_idle, max_batch)
        logger.info(
            "%s: %d messages in %d batches, %d events, %d dead letters, offsets %s (%s)",
            k.source,
            k.messages,
            k.batches,
            k.deliveries,
            k.dead_letters,
            k.next_offsets,
            k.stopped,
        )
        results.append(k)
    return results


@flow(name="replay-gaming-day", flow_run_name="replay-gaming-day {gaming_date}")
def replay_gaming_day(
    db: Path,
    gaming_date: date,
    catalog_path: Path = DEFAULT_CATALOG,
    skip: list[str] | None = None,
) -> list[ReplayCounts]:
    """Re-derive every table-day of ``gaming_date`` from its stored deliveries (one task per
    table-day), except the tables in ``skip`` (already replayed by this run's ingest)."""
    skipped = set(skip or ())
    tables = [t for t in list_tables_task(db, gaming_date) if t not in skipped]
    return [replay_table_day_task(db, t, gaming_date, catalog_path) for t in tables]


@flow(name="close-gaming-day", flow_run_name="close-gaming-day {gaming_date}")
def close_gaming_day(
    db: Path,
    gaming_date: date,
    reports_dir: Path,
    reopen_reason: str | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    accept_quality_failures: str | None = None,
) -> CloseSummary:
    """Validate the day (the ``quality`` flow), then close it (pipeline.reports.close):
    quality gate, reports, row seals and the hash chain; the summary carries the validation.

    A failed BLOCK expectation fails the close task at once (a terminal error naming the
    failing expectations, frames and rows; not retried) unless ``accept_quality_failures``
    gives the reason to close anyway (kept in the audit trail). A closed day is closed again
    only with a ``reopen_reason`` (kept in the audit trail too): it is reopened first."""
    reopen_day_task(db, gaming_date, reopen_reason)
    checked = quality(db, gaming_date, reports_dir, catalog_path)
    closed = close_day_task(
        db,
        gaming_date,
        reports_dir,
        checked.report,
        accept_quality_failures,
        catalog_path,
    )
    closed.quality = checked
    get_run_logger().info(
        "closed %s: %s, %d blocking exceptions, chain %s",
        gaming_date,
        closed.status,
        closed.blocking,
        closed.chain_sha256[:16],
    )
    if closed.compaction_failed:
        get_run_logger().warning("closed %s, but %s", gaming_date, closed.compaction_failed)
    publish_close(closed)
    return final(closed_state(closed, closed))


@flow(name="quality", flow_run_name="quality {gaming_date}")
def quality(
    db: Path, gaming_date: date, reports_dir: Path, catalog_path: Path = DEFAULT_CATALOG
) -> QualitySummary:
    """Run the Great Expectations suites. Failing expectations are data findings: they are
    logged and written to ``quality-<date>.json`` and the Data Docs ``quality-<date>.html``,
    and the flow run still completes; the close decides what a BLOCK failure means."""
    checked = quality_task(db, gaming_date, reports_dir, catalog_path)
    logger = get_run_logger()
    logger.info(
        "quality %s: %s, %d of %d expectations failed (%.1f s) -> %s",
        gaming_date,
        checked.verdict,
        checked.failed,
        checked.evaluated,
        checked.seconds,
        checked.docs_file,
    )
    for line in checked.failing:
        logger.warning(line)
    return checked


@flow(name="nightly-audit", flow_run_name=nightly_audit_run_name)
def nightly_audit(
    events_dir: Path,
    db: Path,
    gaming_date: date | None = None,
    reports_dir: Path | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    force_replay: bool = False,
    reopen_reason: str | None = None,
    kafka: str | None = None,
    topic: str = DEFAULT_TOPIC,
    group: str = DEFAULT_GROUP,
    accept_quality_failures: str | None = None,
    shard_dir: Path | None = None,
) -> AuditResult:
    """Ingest the gaming day's events (and merge the stream workers' partition shards in
    ``shard_dir`` first), replay every table-day ingest did not just replay (all of them with
    ``force_replay``), run the quality suites and close the day.

    ``gaming_date`` defaults to the gaming day that ended at the last boundary (the catalog's
    ``[gaming_day]``: local start and time zone);
    ``reports_dir`` to ``reports`` next to the ledger. A day already closed fails the close
    (terminal, not retried) unless ``reopen_reason`` says why it is closed again; so does a
    failed BLOCK expectation unless ``accept_quality_failures`` says why to close anyway.
    """
    day = audited_day(gaming_date, catalog_path)
    reports = reports_dir if reports_dir is not None else db.parent / "reports"
    seconds: dict[str, float] = {}
    mark = time.perf_counter()
    reopen_day_task(db, day, reopen_reason)  # a closed day's rows are sealed until then
    ingested = ingest(db, [events_dir], day, catalog_path, kafka, topic, group, shard_dir=shard_dir)
    seconds["ingest"] = time.perf_counter() - mark
    mark = time.perf_counter()
    done = (
        [] if force_replay else sorted({t for i in ingested for t, d in i.table_days if d == day})
    )
    replayed = replay_gaming_day(db, day, catalog_path, done)
    seconds["replay"] = time.perf_counter() - mark
    mark = time.perf_counter()
    patterns = find_patterns_task(db, day, catalog_path)
    get_run_logger().info(patterns.summary())
    seconds["patterns"] = time.perf_counter() - mark
    mark = time.perf_counter()
    closed = close_outcome(
        close_gaming_day(
            db,
            day,
            reports,
            reopen_reason,
            catalog_path,
            accept_quality_failures,
            return_state=True,
        )
    )
    checked = closed.quality
    assert checked is not None, "close_gaming_day returns the validation it relied on"
    seconds["quality"] = checked.seconds
    seconds["close"] = time.perf_counter() - mark - checked.seconds
    files = sum(i.files for i in ingested)
    audited = AuditResult(day, files, ingested, replayed, closed, checked, seconds, patterns)
    return final(closed_state(closed, audited))
