"""Evidence bundles and the acknowledgement journal.

- :func:`export_bundle` / :func:`verify_bundle`: a round's, a Form's or a table's raw events,
  derived rows, acknowledgements and rule citations in a zip with a SHA-256 manifest;
- :class:`AckJournal`: the append-only, hash-chained record of who acknowledged or escalated
  which exception (written by the dashboards, which read the ledger read-only);
- :func:`add_bundle_parser`: the ``bundle`` and ``verify-bundle`` commands.
"""

from typing import TYPE_CHECKING, Any

from pipeline.bundle.acks import ACKNOWLEDGE, ACTIONS, ESCALATE, AckJournal, AckRecord, JournalError
from pipeline.bundle.cli import add_bundle_parser

if TYPE_CHECKING:
    from pipeline.bundle.export import BundleError, export_bundle, file_sha256, verify_bundle

_EXPORT_NAMES = frozenset({"BundleError", "export_bundle", "file_sha256", "verify_bundle"})


def __getattr__(name: str) -> Any:
    """The export (DuckDB, pyarrow) loads on first use: the CLI imports this package to build
    its parser, and ``--help`` should not pay for a ledger it does not open."""
    if name in _EXPORT_NAMES:
        from pipeline.bundle import export

        return getattr(export, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ACKNOWLEDGE",
    "ACTIONS",
    "ESCALATE",
    "AckJournal",
    "AckRecord",
    "BundleError",
    "JournalError",
    "add_bundle_parser",
    "export_bundle",
    "file_sha256",
    "verify_bundle",
]
