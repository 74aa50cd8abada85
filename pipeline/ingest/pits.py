"""The pit judgement, a step of its own after table-day writes.

The rules that bind the tables of a pit together (:mod:`pipeline.replay.pit`) are judged from
every table-day's practice rows of a gaming day. Whoever writes table-days
(:meth:`~pipeline.ledger.store.Ledger.replace_table_day`,
:meth:`~pipeline.ledger.store.Ledger.update_table_days`,
:meth:`~pipeline.ledger.store.Ledger.merge_batch`) calls :func:`judge_pits` before its
transaction ends; the ledger refuses to commit a transaction that leaves a written day's pits
unjudged. The ledger stores rows and answers questions; it judges no rule.
"""

from __future__ import annotations

from pipeline.ledger.store import Ledger
from pipeline.replay.pit import PIT_CODES, pit_findings
from pipeline.replay.rows import PracticeRow


def judge_pits(ledger: Ledger) -> None:
    """Judge again the pits of every gaming day whose table-days ``ledger`` wrote since they
    were last judged: replace the day's findings under :data:`~pipeline.replay.pit.PIT_CODES`
    with those judged from every table-day's practice rows now. Whichever table-day was
    written (ingest, the live consumer, a shard merge, a replay of one table-day), its
    pit-mates are compared with its new rows, and no finding of the old ones is kept or
    repeated. Each table-day's summary then counts the exceptions the ledger holds for it, its
    pit's included. Call inside the writes' transaction."""
    for day in sorted(ledger.unjudged_days()):
        rows = [
            PracticeRow(t, pit, game, subject, practice, breaks, shoe, rnd, detail, tuple(ids))
            for t, pit, game, subject, practice, breaks, shoe, rnd, detail, ids in (
                ledger.practice_rows(day)
            )
        ]
        ledger.replace_pit_findings(day, PIT_CODES, pit_findings(rows))


__all__ = ["judge_pits"]
