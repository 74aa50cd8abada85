"""Evidence bundles and the acknowledgement journal.

- :func:`export_bundle` / :func:`verify_bundle`: a round's, a Form's or a table's raw events,
  derived rows, acknowledgements and rule citations in a zip with a SHA-256 manifest;
- :class:`AckJournal`: the append-only, hash-chained record of who acknowledged or escalated
  which exception (written by the dashboards, which read the ledger read-only);
- :func:`add_bundle_parser`: the ``bundle`` and ``verify-bundle`` commands.
"""

from pipeline.bundle.acks import ACKNOWLEDGE, ACTIONS, ESCALATE, AckJournal, AckRecord, JournalError
from pipeline.bundle.cli import add_bundle_parser
from pipeline.bundle.export import BundleError, export_bundle, file_sha256, verify_bundle

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
