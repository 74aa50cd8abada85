"""The nightly audit's steps as plain functions over paths: what each Prefect task runs.

Every step opens the ledger itself and closes it before returning, so steps can run in any
process and the single DuckDB writer is held only while a step writes. Steps take batches (a
file, a Kafka poll, a table-day), never single events. Errors leave a step as
:class:`~pipeline.ingest.errors.TransientError` (worth retrying: a locked ledger, a broker
timeout) or :class:`~pipeline.ingest.errors.TerminalError` (retrying cannot help, such as a
close refused by the quality gate); see :func:`classify`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from pipeline.config.catalog import DEFAULT_CATALOG, CatalogError, load_catalog
from pipeline.config.roles import Action, Actor, authorize, load_roles, scheduled_actor
from pipeline.ingest.errors import PipelineError, TerminalError, TransientError
from pipeline.ingest.files import ingest_files
from pipeline.ingest.pits import judge_pits
from pipeline.ingest.sources import event_files
from pipeline.ingest.stage import replay_or_explain
from pipeline.ledger.store import Ledger, LedgerError, LedgerIOError
from pipeline.patterns.stage import PatternRun
from pipeline.progress import stage
from pipeline.quality.gate import QualityBlockedError
from pipeline.quality.run import QualityReport
from pipeline.rules.gaming_day import GamingDay, micros_of

T = TypeVar("T")

DEFAULT_TOPIC = "table-events"
DEFAULT_GROUP = "baccarat-audit"
"""The defaults of :mod:`pipeline.stream.settings`."""


# ---------------------------------------------------------------------- error taxonomy
def classify(exc: BaseException) -> PipelineError:
    """The pipeline error an exception stands for: transient when the same call may succeed
    later (the ledger file is locked by another writer, the broker is unreachable or slow),
    terminal otherwise (bad configuration, a missing file, a ledger newer than this code, a
    day whose data fails a BLOCK expectation: the same data fails again)."""
    if isinstance(exc, PipelineError):
        return exc
    if isinstance(exc, LedgerIOError) or (
        isinstance(exc, LedgerError) and isinstance(exc.__cause__, LedgerIOError)
    ):
        return TransientError(f"the ledger is busy: {exc}")
    if _is_kafka_transient(exc):
        return TransientError(f"the broker did not answer in time: {exc}")
    if isinstance(exc, TimeoutError | ConnectionError):
        return TransientError(str(exc))
    if isinstance(
        exc, CatalogError | FileNotFoundError | LedgerError | QualityBlockedError | ValueError
    ):
        return TerminalError(str(exc))
    return TerminalError(f"{type(exc).__name__}: {exc}")


def _is_kafka_transient(exc: BaseException) -> bool:
    """kafka-python marks the errors worth retrying ``retriable``: timeouts (an unreachable
    bootstrap server is a KafkaTimeoutError), lost connections, leader elections."""
    try:
        from kafka.errors import KafkaError
    except ImportError:  # pragma: no cover - kafka-python is a dependency
        return False
    return isinstance(exc, KafkaError) and bool(getattr(exc, "retriable", False))


@contextmanager
def classified() -> Iterator[None]:
    """Re-raise any exception as its :func:`classify` pipeline error (chained)."""
    try:
        yield
    except PipelineError:
        raise
    except Exception as exc:
        raise classify(exc) from exc


def with_ledger(db: Path, work: Callable[[Ledger], T]) -> T:
    with classified(), Ledger(db) as ledger:
        return work(ledger)


# ---------------------------------------------------------------------- ingest
@dataclass
class IngestResult:
    """What loading one batch did; ``table_days`` were replayed in the same transaction."""

    source: str
    deliveries: int = 0
    dead_letters: int = 0
    exceptions: int = 0
    rounds: int = 0
    table_days: list[tuple[str, date]] = field(default_factory=list)
    seconds: float = 0.0
    files: int = 0


def event_paths(events_dir: Path, gaming_date: date | None = None) -> list[Path]:
    """The event files of a gaming date: ``events_dir/<date>/*.avro`` when that directory
    exists (the layout ``baccarat-audit simulate`` writes), else every file under
    ``events_dir``."""
    if gaming_date is not None and (events_dir / gaming_date.isoformat()).is_dir():
        return event_files(events_dir / gaming_date.isoformat())
    with classified():
        return event_files(events_dir)


def load_files(
    db: Path,
    paths: Sequence[Path],
    catalog_path: Path = DEFAULT_CATALOG,
) -> IngestResult:
    """Load a batch of Avro container files and replay every table-day they touched, through
    :func:`pipeline.ingest.files.ingest_files`, one transaction per file (its digest recorded
    in it, a file already loaded skipped); gaming days as the catalog's ``[gaming_day]``
    draws them."""
    started = time.perf_counter()
    names = [p.name for p in paths]
    source = names[0] if len(names) == 1 else f"{len(names)} files ({names[0]} .. {names[-1]})"
    stage(f"ingest and replay {source}")
    # One process: a Prefect task runs beside the engine's threads, which a fork would copy
    # mid-lock; Prefect scales out with more task runs and workers instead.
    report = with_ledger(db, lambda ledger: ingest_files(ledger, paths, catalog_path, 1))
    return IngestResult(
        source,
        report.deliveries,
        report.dead_letters,
        report.exceptions,
        report.rounds,
        list(report.table_days),
        time.perf_counter() - started,
        len(paths),
    )


@dataclass
class KafkaIngestResult(IngestResult):
    messages: int = 0
    batches: int = 0
    next_offsets: dict[int, int] = field(default_factory=dict)
    stopped: str = ""


def ingest_kafka(
    db: Path,
    bootstrap: str,
    topic: str = DEFAULT_TOPIC,
    group: str = DEFAULT_GROUP,
    catalog_path: Path = DEFAULT_CATALOG,
    *,
    until_idle: float = 5.0,
    max_batch: int = 5_000,
    max_batches: int | None = None,
) -> KafkaIngestResult:
    """Consume ``topic`` into the ledger with :func:`pipeline.stream.consumer.run_consumer`
    until no message arrives for ``until_idle`` seconds: batches of up to ``max_batch``
    records, each stored with its replayed table-days and its offsets in one transaction.
    Other connection settings (TLS, SASL) come from ``BACCARAT_KAFKA_*``."""
    from pipeline.stream.consumer import run_consumer
    from pipeline.stream.settings import KafkaSettings

    stage(f"ingest and replay {topic} at {bootstrap}")
    with classified():
        settings = KafkaSettings.from_env(bootstrap_servers=bootstrap, topic=topic, group_id=group)
        report = run_consumer(
            settings,
            db,
            load_catalog(catalog_path),
            until_idle=until_idle,
            max_batch=max_batch,
            max_batches=max_batches,
        )
    return KafkaIngestResult(
        source=f"kafka:{topic}",
        deliveries=report.events,
        dead_letters=report.dead_letters,
        exceptions=report.exceptions,
        table_days=sorted(report.table_days),
        seconds=report.elapsed,
        messages=report.messages,
        batches=report.batches,
        next_offsets=dict(report.next_offsets),
        stopped=report.stopped,
    )


@dataclass
class ShardMergeResult(IngestResult):
    shards: int = 0
    rederived: int = 0


def merge_shards(
    db: Path, shard_dir: Path, catalog_path: Path = DEFAULT_CATALOG
) -> ShardMergeResult:
    """Merge the partition shards the stream workers keep in ``shard_dir`` (``baccarat-audit
    stream --shard-dir``) into the ledger with
    :func:`pipeline.stream.shards.merge_partition_shards`: idempotent, and safe while the
    workers keep streaming. A shard that stays locked is a transient error."""
    from pipeline.stream.shards import merge_partition_shards

    started = time.perf_counter()
    stage(f"merge the shards of {shard_dir}")
    catalog = load_catalog(catalog_path)
    report = with_ledger(db, lambda ledger: merge_partition_shards(ledger, shard_dir, catalog))
    return ShardMergeResult(
        source=f"shards:{shard_dir}",
        deliveries=report.deliveries,
        table_days=sorted(report.copied | report.rederived),
        seconds=time.perf_counter() - started,
        shards=report.shards,
        rederived=len(report.rederived),
    )


# ---------------------------------------------------------------------- replay
@dataclass
class ReplayCounts:
    table_id: str
    gaming_date: date
    events: int
    rounds: int
    exceptions: int


def gaming_day_tables(db: Path, gaming_date: date) -> list[str]:
    """The tables with stored deliveries on ``gaming_date``."""

    with classified(), Ledger(db, read_only=True) as ledger:
        return ledger.tables_of_day(gaming_date)


def replay_table_day(
    db: Path, table_id: str, gaming_date: date, catalog_path: Path = DEFAULT_CATALOG
) -> ReplayCounts:
    """Re-derive one table-day from its stored deliveries, in one transaction (what
    :func:`pipeline.ingest.stage.load_batch` does for the table-days a batch touched)."""
    stage(f"replay {table_id}")
    with classified():
        catalog = load_catalog(catalog_path)

    def replay(ledger: Ledger) -> ReplayCounts:
        with ledger.transaction():
            events = ledger.events_for(table_id, gaming_date)
            result = replay_or_explain(table_id, events, catalog)
            ledger.replace_table_day(table_id, gaming_date, result)
            judge_pits(ledger)
        return ReplayCounts(
            table_id, gaming_date, len(events), len(result.rounds), len(result.findings)
        )

    return with_ledger(db, replay)


# ---------------------------------------------------------------------- patterns
def find_patterns(db: Path, gaming_date: date, catalog_path: Path = DEFAULT_CATALOG) -> PatternRun:
    """The pattern stage (:mod:`pipeline.patterns.stage`): after the day's replays, before
    its close, search the day's shoes against the catalog's window of earlier days and
    replace the day's pattern exceptions, in one transaction."""
    from pipeline.patterns.stage import find_patterns as run_stage

    stage(f"patterns {gaming_date}")
    with classified():
        catalog = load_catalog(catalog_path)
    return with_ledger(db, lambda ledger: run_stage(ledger, gaming_date, catalog.patterns, catalog))


# ---------------------------------------------------------------------- close
@dataclass
class CloseSummary:
    gaming_date: date
    status: str
    blocking: int
    report_sha256: str
    chain_sha256: str
    totals: dict[str, Any]
    files: list[Path]
    report: dict[str, Any] = field(default_factory=dict)
    """Everything the close states (pipeline.reports.close.day_report): tables, win by
    wager, Forms, exceptions by code, blocking exceptions, dead letters, quality verdict."""
    quality: QualitySummary | None = None
    """The validation the close relied on, when the close flow ran it."""
    compaction_failed: str | None = None
    """What its operator is told when the ledger file's compaction after the close went wrong
    (:attr:`pipeline.ledger.working_store.Compaction.notice`); the day is closed either way."""


def reopen_day(
    db: Path, gaming_date: date, reopen_reason: str | None, *, actor: Actor | None = None
) -> bool:
    """Reopen the gaming day when it is closed and ``reopen_reason`` says why (kept in the
    audit trail with the REOPEN seal event); whether it was reopened. The first step of a run
    that closes a day again: a closed day's rows are sealed and read from the archive, so
    nothing replays, searches or validates it until it is a draft again. ``actor`` (default:
    the roles file's ``scheduled_actor``) must be allowed to reopen."""
    from pipeline.reports.close import is_closed, reopen_gaming_day

    if not reopen_reason:
        return False
    with classified():
        who = actor if actor is not None else scheduled_actor(load_roles())
        authorize(who, Action.REOPEN, load_roles())

    def reopen(ledger: Ledger) -> bool:
        if not is_closed(ledger, gaming_date):
            return False
        reopen_gaming_day(
            ledger, gaming_date, reopen_reason, actor=who.name, actor_source=who.source
        )
        return True

    return with_ledger(db, reopen)


def close_day(
    db: Path,
    gaming_date: date,
    reports_dir: Path,
    *,
    actor: Actor | None = None,
    quality: QualityReport | None = None,
    accept_quality_failures: str | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
) -> CloseSummary:
    """Close the gaming day: the quality gate, figures, Form register, blocking exceptions, row
    seals and the hash chain. A day already closed is refused (a terminal error): a run that
    closes it again reopens it first (:func:`reopen_day`). ``quality`` is the validation
    :func:`quality_check` just ran (validated again if the ledger changed since); a failed
    BLOCK expectation refuses the close (a terminal error naming the failures) unless
    ``accept_quality_failures`` says why to close anyway, which is audited. The close is made
    by ``actor``, by default the installation roles file's ``scheduled_actor``
    (:mod:`pipeline.config.roles`; the operating-system account running the flow must be
    allowed to act as it under ``[accounts]``), who must be allowed to close (and to accept
    quality failures, when asked to): a terminal error otherwise."""
    from pipeline.ledger.working_store import compact
    from pipeline.reports.close import close_gaming_day

    stage(f"close {gaming_date}")
    with classified():
        catalog = load_catalog(catalog_path)
        roles = load_roles()
        who = actor if actor is not None else scheduled_actor(roles)
        authorize(who, Action.CLOSE, roles)
        if accept_quality_failures:
            authorize(who, Action.ACCEPT_QUALITY_FAILURES, roles)

    def close(ledger: Ledger) -> CloseSummary:
        closed = close_gaming_day(
            ledger,
            gaming_date,
            reports_dir,
            actor=who.name,
            actor_source=who.source,
            quality=quality,
            accept_quality_failures=accept_quality_failures,
            catalog=catalog,
        )
        return CloseSummary(
            gaming_date,
            closed.status,
            closed.blocking,
            closed.report_sha256,
            closed.chain_sha256,
            dict(closed.report["totals"]),
            list(closed.files),
            closed.report,
        )

    closed = with_ledger(db, close)
    closed.compaction_failed = compact(db).notice  # the day's rows left the file
    return closed


# ---------------------------------------------------------------------- quality
@dataclass
class QualitySummary:
    gaming_date: date
    verdict: str
    """PASSED, WARNINGS (reported, the close goes ahead) or BLOCKED (the close is refused)."""
    evaluated: int
    failed: int
    suites: dict[str, dict[str, Any]]
    failing: list[str]
    """Headlines of the failed expectations, blocking ones first."""
    result_file: Path | None
    docs_file: Path | None
    seconds: float
    report: QualityReport = field(repr=False)
    """The whole validation, which the close relies on instead of validating again."""

    @property
    def success(self) -> bool:
        return self.failed == 0


def quality_check(
    db: Path, gaming_date: date, reports_dir: Path, catalog_path: Path = DEFAULT_CATALOG
) -> QualitySummary:
    """Run the Great Expectations suites (read-only) and write their JSON and Data Docs;
    failing expectations are reported here, and judged by the close's quality gate."""
    from pipeline.quality.run import run_quality

    stage(f"quality {gaming_date}")
    with classified():
        report = run_quality(db, gaming_date, reports_dir, catalog_path=catalog_path)
    return QualitySummary(
        gaming_date,
        report.verdict,
        report.evaluated,
        report.failed,
        {
            s.name: {"success": s.success, "evaluated": s.evaluated, "failed": s.failed}
            for s in report.suites
        },
        [f.headline() for f in report.blocking() + report.warnings()],
        report.result_file,
        report.docs_file,
        report.seconds,
        report,
    )


# ---------------------------------------------------------------------- the whole job
@dataclass
class AuditResult:
    """What a nightly audit did, step by step, with wall times in seconds."""

    gaming_date: date
    files: int
    ingested: list[IngestResult]
    replayed: list[ReplayCounts]
    close: CloseSummary
    quality: QualitySummary
    seconds: dict[str, float] = field(default_factory=dict)
    patterns: PatternRun | None = None
    """The pattern stage's run over the day (None: the audit did not run it)."""

    @property
    def deliveries(self) -> int:
        return sum(i.deliveries for i in self.ingested)

    @property
    def dead_letters(self) -> int:
        return sum(i.dead_letters for i in self.ingested)


def last_closed_gaming_date(gaming_day: GamingDay, now: datetime | None = None) -> date:
    """The gaming date that ended at the most recent boundary before ``now`` (the casino's
    local day start, daylight saving included)."""
    return gaming_day.date_of(micros_of(now or datetime.now(UTC))) - timedelta(days=1)


def to_replay(
    tables: Sequence[str], gaming_date: date, ingested: Sequence[IngestResult], force: bool
) -> list[str]:
    """The tables of the date that ingest did not just replay (all of them with ``force``)."""
    done = {t for i in ingested for t, d in i.table_days if d == gaming_date}
    return [t for t in tables if force or t not in done]


def run_audit_plain(
    events_dir: Path,
    db: Path,
    gaming_date: date,
    reports_dir: Path | None = None,
    catalog_path: Path = DEFAULT_CATALOG,
    *,
    force_replay: bool = False,
    reopen_reason: str | None = None,
    accept_quality_failures: str | None = None,
    shard_dir: Path | None = None,
) -> AuditResult:
    """The nightly audit without an orchestrator, step for step what ``nightly_audit`` runs
    (the reference for measuring the orchestration overhead)."""
    reports_dir = reports_dir if reports_dir is not None else db.parent / "reports"
    seconds: dict[str, float] = {}
    mark = time.perf_counter()
    reopen_day(db, gaming_date, reopen_reason)
    paths = event_paths(events_dir, gaming_date)
    ingested: list[IngestResult] = [merge_shards(db, shard_dir, catalog_path)] if shard_dir else []
    ingested += [load_files(db, paths, catalog_path)] if paths else []
    seconds["ingest"] = time.perf_counter() - mark
    mark = time.perf_counter()
    tables = to_replay(gaming_day_tables(db, gaming_date), gaming_date, ingested, force_replay)
    replayed = [replay_table_day(db, t, gaming_date, catalog_path) for t in tables]
    seconds["replay"] = time.perf_counter() - mark
    mark = time.perf_counter()
    patterns = find_patterns(db, gaming_date, catalog_path)
    seconds["patterns"] = time.perf_counter() - mark
    mark = time.perf_counter()
    checked = quality_check(db, gaming_date, reports_dir, catalog_path)
    seconds["quality"] = time.perf_counter() - mark
    mark = time.perf_counter()
    closed = close_day(
        db,
        gaming_date,
        reports_dir,
        quality=checked.report,
        accept_quality_failures=accept_quality_failures,
        catalog_path=catalog_path,
    )
    seconds["close"] = time.perf_counter() - mark
    return AuditResult(
        gaming_date, len(paths), ingested, replayed, closed, checked, seconds, patterns
    )
