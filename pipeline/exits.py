"""What a command's failure means to the person or script that ran it: one line (or one
message) saying what was wrong, where, and what to do, and an exit code.

The command line maps exceptions to exit codes in one place (:func:`explain`, called at the top
of :func:`pipeline.cli.main`), as dlt maps terminal and transient errors to retry or fail: the
commands raise, they do not print and return. An exception not named here is a bug in the
program and keeps its traceback.

The exception classes are named by module and name, not imported: most of them live beside
DuckDB, pandas or Great Expectations, which ``--help`` must not load. An error can only be an
instance of a class whose module is already imported, so looking in ``sys.modules`` is exact.
"""

from __future__ import annotations

import errno
import sys

EXIT_OK = 0
EXIT_NEEDS_PERSON = 1
"""Something needs a person: blocking findings, a broken seal, a journal that does not verify,
a data-quality gate that refused the close."""
EXIT_BAD_INPUT = 2
"""Bad input or configuration: a missing file, an unknown code, a refused actor, a locked or
missing ledger, a file that cannot be written. Nothing was changed."""
EXIT_TEMPFAIL = 75
"""Try again later (sysexits' EX_TEMPFAIL): no broker answered, or a stream that holds the
ledger did not answer a close in time, or stopped before answering it (the message says
whether the day was sealed)."""
EXIT_SOFTWARE = 70
"""A failure :func:`explain` does not know (sysexits' EX_SOFTWARE): a bug in the program,
said as such where no traceback reaches the person (a close a stream ran for them)."""
EXIT_BROKEN_PIPE = 128 + 13
"""What a Unix tool exits with when its reader went away (SIGPIPE): ``... | head -1``."""
EXIT_INTERRUPTED = 128 + 2
"""Ctrl-C (SIGINT), as a shell reports it."""


class CommandError(Exception):
    """A command refusing its input; the message says what, where and what to do."""

    def __init__(self, message: str, exit_code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.exit_code = exit_code


NEEDS_PERSON: tuple[tuple[str, str], ...] = (
    ("pipeline.quality.gate", "QualityBlockedError"),
    ("pipeline.bundle.acks", "JournalError"),
    ("pipeline.reports.close", "SealBrokenError"),
    ("pipeline.witness.record", "NotWitnessedError"),
    ("pipeline.witness.store", "CheckpointRefusedError"),
)
"""Errors that ask a person to look (exit 1), checked before :data:`BAD_INPUT`."""

BAD_INPUT: tuple[tuple[str, str], ...] = (
    ("pipeline.config.catalog", "CatalogError"),
    ("pipeline.config.roles", "RolesError"),
    ("pipeline.config.roles", "ActorMissingError"),
    ("pipeline.config.roles", "NotAuthorizedError"),
    ("pipeline.config.installation", "InstallationError"),
    ("pipeline.rules.gaming_day", "GamingDayError"),
    ("pipeline.ledger.store", "LedgerError"),
    ("pipeline.ingest.errors", "ClosedGamingDayError"),
    ("pipeline.reports.close", "DayClosedError"),
    ("pipeline.reports.close", "EmptyDayError"),
    ("pipeline.reports.close", "NotClosedError"),
    ("pipeline.reports.close", "ReportsNotWrittenError"),
    ("pipeline.bundle.export", "BundleError"),
    ("pipeline.stream.settings", "KafkaSettingsError"),
    ("pipeline.stream.shards", "NoShardsError"),
    ("pipeline.stream.broker", "TansuNotFoundError"),
    ("duckdb", "IOException"),
)
"""Errors of input or configuration (exit 2)."""

_OS_HINTS = {
    errno.ENOSPC: "free space on that disk (or choose another --out), then run the command again",
    errno.EDQUOT: "free space within your disk quota, then run the command again",
    errno.EACCES: "check the file's and its directory's permissions, or choose another path",
    errno.EPERM: "check the file's and its directory's permissions, or choose another path",
    errno.EROFS: "the file system is read-only: choose another path",
    errno.ENOENT: "check the path (a directory that does not exist is not created for you)",
    errno.ENOTDIR: "a part of the path is a file, not a directory: check the path",
    errno.EISDIR: "the path is a directory: name a file",
}


def _is_a(err: BaseException, named: tuple[tuple[str, str], ...]) -> bool:
    for module, name in named:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(err, cls):
            return True
    return False


def explain(err: BaseException) -> tuple[int, str] | None:
    """The exit code and message for an error a person or a script caused, or None for a bug
    (which keeps its traceback)."""
    if isinstance(err, CommandError):
        return err.exit_code, str(err)
    if _is_a(err, NEEDS_PERSON):
        return EXIT_NEEDS_PERSON, str(err)
    if _is_a(err, BAD_INPUT):
        return EXIT_BAD_INPUT, str(err)
    if isinstance(err, OSError) and not isinstance(err, BrokenPipeError):
        return EXIT_BAD_INPUT, explain_os(err)
    return None


def explain_os(err: OSError) -> str:
    """A failed read or write as one line: the file, what the system said, what to do."""
    where = f"{err.filename}: " if err.filename is not None else ""
    what = err.strerror or str(err)
    hint = _OS_HINTS.get(err.errno or 0, "check the path and run the command again")
    return f"{where}{what}; {hint}"
