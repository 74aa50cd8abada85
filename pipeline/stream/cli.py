"""``baccarat-audit stream``: consume table events from Kafka into the ledger, or into one
shard per partition (``--shard-dir``) that ``baccarat-audit merge-shards`` merges.

Wire into the main parser with :func:`add_stream_parser` and :func:`add_merge_shards_parser`;
also runnable on its own as ``python -m pipeline.stream.cli stream --bootstrap HOST:PORT
--db FILE ...``.

Every exception the stream raises or withdraws goes to the ``audit-exceptions`` topic
(:mod:`pipeline.stream.notices`) and, with ``--alert-webhook`` or ``--alert-smtp``, to people
(:mod:`pipeline.stream.alerts`). Connection settings come from ``BACCARAT_KAFKA_*`` variables
(:mod:`pipeline.stream.settings`); the options given here win over them.
Exit status: 0 done, 1 the broker's log is not the one the ledger's stored offsets were
read from (:mod:`pipeline.stream.resume`: a person must decide), 2 bad input or
configuration, 75 the broker or the ledger stayed unavailable after retries (try again
later).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from pipeline.config.catalog import DEFAULT_CATALOG, CatalogError, load_catalog
from pipeline.config.dashboard_links import DASHBOARD_URL_ENV, DASHBOARD_URL_OPTION, DashboardLinks
from pipeline.exits import EXIT_TEMPFAIL
from pipeline.ingest.errors import TransientError
from pipeline.stream.settings import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_COPY_EVERY,
    DEFAULT_MAX_BATCH,
    KafkaSettings,
    KafkaSettingsError,
    env_var,
)

if TYPE_CHECKING:
    from pipeline.stream.alerts import AlertDispatcher


def add_stream_parser(subparsers: argparse._SubParsersAction[Any]) -> argparse.ArgumentParser:
    """Register the ``stream`` command on the CLI's subparsers; returns its parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "stream",
        help="consume table events from Kafka into the ledger (exactly-once)",
        description=(
            "Consume the events topic in a consumer group, load and replay each batch into "
            "the ledger with its offsets in the same transaction, send undecodable "
            "messages to the dead-letter topic, and publish every exception raised or "
            "withdrawn to the exceptions topic (BACCARAT_KAFKA_EXCEPTIONS_TOPIC, default "
            "audit-exceptions). Settings not given as options come from "
            "BACCARAT_KAFKA_* environment variables."
        ),
    )
    p.add_argument(
        "--bootstrap",
        metavar="HOST:PORT[,...]",
        help=f"Kafka bootstrap servers (default: ${env_var('bootstrap_servers')})",
    )
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--db", type=Path, help="ledger file (DuckDB); one worker process")
    target.add_argument(
        "--shard-dir",
        type=Path,
        metavar="DIR",
        help="write each partition to its own ledger file DIR/<topic>-pNNN.duckdb, so that "
        "several worker processes (on machines sharing DIR) can share the group; "
        "`merge-shards DIR --db FILE` merges them into the ledger",
    )
    p.add_argument(
        "--group", help=f"consumer group (default: ${env_var('group_id')} or baccarat-audit)"
    )
    p.add_argument("--topic", help=f"events topic (default: ${env_var('topic')} or table-events)")
    p.add_argument(
        "--dlq-topic", help=f"dead-letter topic (default: ${env_var('dlq_topic')} or TOPIC.dlq)"
    )
    p.add_argument(
        "--until-idle",
        type=float,
        metavar="SECONDS",
        help="stop after this many seconds without new messages (default: run until Ctrl-C)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        default=DEFAULT_CONNECT_TIMEOUT,
        metavar="SECONDS",
        help="give up (exit 75) when no broker answers at the bootstrap address within this "
        "many seconds of the start (default %(default)g)",
    )
    p.add_argument(
        "--max-batch",
        type=int,
        default=DEFAULT_MAX_BATCH,
        help="most messages per ledger transaction (default %(default)s; larger catches up "
        "with less CPU per event: each batch has a fixed cost)",
    )
    p.add_argument(
        "--lend-every",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="with --db: let go of the ledger between batches, at most this often, so the "
        "dashboards can take a fresh snapshot while the stream runs (default 1; 0: never)",
    )
    p.add_argument(
        "--copy-every",
        type=float,
        default=DEFAULT_COPY_EVERY,
        metavar="SECONDS",
        help="with --db: while a close runs beside the batches (the ledger is lent to nobody "
        "then), write the dashboards' copy of it when one waits, at most this often "
        "(default %(default)g; 0: never)",
    )
    p.add_argument(
        "--rules",
        type=Path,
        default=DEFAULT_CATALOG,
        help="rule catalog (TOML) of the casino's filed configurations",
    )
    p.add_argument(
        "--reports",
        type=Path,
        default=Path("out/reports"),
        help="with --db: where the closes this stream runs for `baccarat-audit close` write "
        "their reports, beside the batches of the next day (default %(default)s)",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="log each batch")
    add_alert_options(p)
    p.set_defaults(func=cmd_stream)
    return p


def add_alert_options(p: argparse.ArgumentParser) -> None:
    """``--alert-*``: push exception notices to people (:mod:`pipeline.stream.alerts`)."""
    from pipeline.replay.findings import Severity

    alert = p.add_argument_group(
        "alerts", "push raised and withdrawn exceptions to people; a failing receiver is "
        "retried, then counted and logged, and never stops the stream"
    )  # fmt: skip
    alert.add_argument(
        "--alert-webhook", metavar="URL", help="POST each alert as JSON, signed with the "
        "audit key in header X-Baccarat-Signature: sha256=<HMAC of the body>"
    )  # fmt: skip
    alert.add_argument("--alert-smtp", metavar="HOST:PORT", help="e-mail alerts via this relay")
    alert.add_argument(
        "--alert-to", metavar="ADDRESS", action="append", default=[],
        help="e-mail recipient (repeatable; needed with --alert-smtp)",
    )  # fmt: skip
    alert.add_argument(
        "--alert-min-severity", choices=[s.name for s in Severity], default="HIGH",
        help="alert on exceptions of at least this severity (default: HIGH)",
    )  # fmt: skip
    alert.add_argument(
        "--alert-code", metavar="CODE", action="append", default=[],
        help="alert only on this rule code (repeatable; default: every code)",
    )  # fmt: skip
    alert.add_argument(
        DASHBOARD_URL_OPTION, metavar="URL",
        help="the dashboards' base URL (http or https): every alert, and every notice on the "
        "exceptions topic, links to its exception in the exception queue there (default: "
        f"${DASHBOARD_URL_ENV}; without either, alerts say they carry no link)",
    )  # fmt: skip


def dashboard_links(args: argparse.Namespace) -> DashboardLinks:
    """The dashboards' base URL of ``--dashboard-url``, else of its environment variable;
    raises :class:`~pipeline.config.dashboard_links.DashboardUrlError` naming the one to fix."""
    if args.dashboard_url is not None:
        return DashboardLinks.from_setting(args.dashboard_url)
    return DashboardLinks.from_environment()


def alert_dispatcher(args: argparse.Namespace) -> AlertDispatcher | None:
    """The :class:`~pipeline.stream.alerts.AlertDispatcher` the options ask for (``None``
    without a channel); raises ValueError naming the option to fix."""
    from pipeline.replay.findings import Severity
    from pipeline.rules.codes import RULE_CODES
    from pipeline.stream.alerts import AlertDispatcher, AlertFilter, EmailChannel, WebhookChannel

    unknown = [c for c in args.alert_code if c not in RULE_CODES]
    if unknown:
        raise ValueError(f"--alert-code {', '.join(unknown)}: no such rule code")
    if args.alert_to and not args.alert_smtp:
        raise ValueError("--alert-to needs --alert-smtp HOST:PORT (the relay to send through)")
    only = AlertFilter(Severity[args.alert_min_severity], frozenset(args.alert_code))
    dispatcher = AlertDispatcher(links=dashboard_links(args))
    if args.alert_webhook:
        dispatcher.add(WebhookChannel(args.alert_webhook), only)
    if args.alert_smtp:
        host, _, port = args.alert_smtp.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"--alert-smtp {args.alert_smtp!r}: give HOST:PORT")
        dispatcher.add(EmailChannel(host, int(port), args.alert_to), only)
    return dispatcher if dispatcher.routes else None


def cmd_stream(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import LedgerError
    from pipeline.stream.closes import CloseServer
    from pipeline.stream.consumer import BatchReport, run_consumer
    from pipeline.stream.ledgers import ShardDirectory
    from pipeline.stream.resume import ResumeRefusedError

    try:
        settings = KafkaSettings.from_env(
            bootstrap_servers=args.bootstrap,
            group_id=args.group,
            topic=args.topic,
            dlq_topic=args.dlq_topic,
        )
        catalog = load_catalog(args.rules)
        links = dashboard_links(args)
        alerts = alert_dispatcher(args)
    except (KafkaSettingsError, CatalogError, ValueError) as err:
        print(err, file=sys.stderr)
        return 2
    if (
        args.max_batch < 1
        or args.lend_every < 0
        or args.copy_every < 0
        or args.connect_timeout <= 0
    ):
        print(
            "--max-batch must be at least 1, --lend-every and --copy-every at least 0 and "
            "--connect-timeout more than 0",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("kafka").setLevel(logging.WARNING if args.verbose else logging.ERROR)

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)

    def on_batch(batch: BatchReport) -> None:
        if args.verbose:
            print(
                f"batch {batch.number}: {batch.messages} messages, {batch.events} events, "
                f"{batch.dead_letters} dead letters, {len(batch.table_days)} table-days "
                f"replayed, offsets {batch.next_offsets} ({batch.seconds:.2f} s)",
                flush=True,
            )

    def on_assignment(partitions: list[int]) -> None:
        if args.verbose:
            print(f"assigned partitions {partitions}", flush=True)

    target = args.db if args.shard_dir is None else ShardDirectory(args.shard_dir)
    closes = CloseServer(args.db, args.reports, catalog) if args.shard_dir is None else None
    where = args.db if args.shard_dir is None else f"partition shards in {args.shard_dir}"
    print(f"streaming {settings.describe()} into {where}", flush=True)
    try:
        report = run_consumer(
            settings,
            target,
            catalog,
            until_idle=args.until_idle,
            max_batch=args.max_batch,
            on_batch=on_batch,
            on_assignment=on_assignment,
            stop=stop,
            alerts=alerts,
            lend_every=args.lend_every,
            copy_every=args.copy_every,
            connect_timeout=args.connect_timeout,
            closes=closes,
            links=links,
        )
    except ResumeRefusedError as err:
        print(f"stopped: {err}", file=sys.stderr)
        return err.exit_code
    except (TransientError, LedgerError) as err:
        print(f"gave up: {err}", file=sys.stderr)
        return EXIT_TEMPFAIL
    finally:
        signal.signal(signal.SIGTERM, previous)
        if alerts is not None:
            alerts.close()
    print(report.summary())
    if alerts is not None:
        print(alerts.summary())
    return 0


def add_merge_shards_parser(
    subparsers: argparse._SubParsersAction[Any],
) -> argparse.ArgumentParser:
    """Register the ``merge-shards`` command on the CLI's subparsers; returns its parser."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "merge-shards",
        help="merge the partition shards of `stream --shard-dir` into the ledger",
        description=(
            "Merge every partition shard in DIR into the ledger, one transaction each. "
            "Idempotent: run it as often as you like while the workers stream; each run "
            "adds what the shards gained since. Workers let go of a shard while it merges."
        ),
    )
    p.add_argument("shard_dir", type=Path, metavar="DIR", help="the workers' --shard-dir")
    p.add_argument("--db", type=Path, required=True, help="ledger file (DuckDB) to merge into")
    p.add_argument(
        "--rules",
        type=Path,
        default=DEFAULT_CATALOG,
        help="rule catalog (TOML), to re-derive table-days that grew since the last merge",
    )
    p.set_defaults(func=cmd_merge_shards)
    return p


def cmd_merge_shards(args: argparse.Namespace) -> int:
    from pipeline.ledger.store import Ledger, LedgerError
    from pipeline.stream.shards import NoShardsError, merge_partition_shards

    if not args.shard_dir.is_dir():
        print(f"{args.shard_dir}: not a directory; give the workers' --shard-dir", file=sys.stderr)
        return 2
    try:
        catalog = load_catalog(args.rules)
        with Ledger(args.db) as ledger:
            report = merge_partition_shards(ledger, args.shard_dir, catalog)
    except (CatalogError, NoShardsError) as err:
        print(err, file=sys.stderr)
        return 2
    except (TransientError, LedgerError) as err:
        print(f"gave up: {err}", file=sys.stderr)
        return EXIT_TEMPFAIL
    print(f"{report.summary()} into {args.db}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the streaming commands (for ``python -m pipeline.stream.cli``)."""
    parser = argparse.ArgumentParser(prog="baccarat-audit")
    sub = parser.add_subparsers(dest="command", required=True)
    add_stream_parser(sub)
    add_merge_shards_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
