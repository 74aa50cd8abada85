"""How the tamper tests reach a closed day's rows in the ledger file.

A closed day's rows live in the archive's Parquet files, read through views
(:mod:`pipeline.ledger.working_store`), and the archive keeps no row digests. An attacker who
holds the ledger file and this code edits them with SQL by first moving them back into the
file, as a reopen does but without its seal event, and digesting them again as the close did,
so the day reads as one closed before it was archived; that is where the tests that edit,
insert or delete a sealed row start. (An edit of the archive's files instead is named by
their SHA-256 against the seal: ``tests/ledger/test_archive.py``,
``tests/ledger/test_working_store.py``.)
"""

from __future__ import annotations

from pipeline.ledger.seal_record import last_entries, recorded_columns, seal_log, seal_rows
from pipeline.ledger.store import Ledger
from pipeline.ledger.working_store import archived_days, move_in


def rows_in_the_file(ledger: Ledger) -> Ledger:
    """``ledger`` with every archived day's rows moved back into its file and digested again
    as its last close did, no seal event."""
    last = last_entries(seal_log(ledger))
    for day in sorted(archived_days(ledger)):
        move_in(ledger, day)
        entry = last[day]
        seal_rows(ledger, day, entry.sealed_at, entry.row_text, recorded_columns(entry))
    return ledger
