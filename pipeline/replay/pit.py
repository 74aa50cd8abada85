"""The rules that bind the tables of a pit together, judged from what their devices recorded:

- the shuffling option chosen is implemented at all tables within a pit (N.J.A.C.
  19:47-3.5(b), 4.4(b), 7.5(c)), read from the option each ``ShoeStarted`` records;
- the same settlement procedure (b)1-4 is used for all Punto Banco tables within a gaming pit
  (3.10(c)1), read from the order in which each round's settlement was recorded (3.10(b)).

Each table's replay notes its practice as it applies the events (:class:`PracticeRecorder`,
rows of ``table_practices``); once the table-days of a gaming day are replayed,
:func:`pit_findings` compares the tables of each pit (the ledger does so whenever a
table-day's rows are written, so a table-day replayed again re-judges its pit).

Precedence, so that one act is one finding: a shoe recorded against the table's own filed
option, or a round settled out of the table's filed procedure, is that table's finding
(3.5(a), 4.4(a), 7.5(b); 3.10(b)) and is not counted here. What is left is every table keeping
to its own filing; the pit finding is tables of one pit keeping to different ones. A
settlement procedure shows only in a round whose recorded order one procedure allows and the
other does not (vigorish taken, or two seats with winning wagers): when no round of either
table tells their procedures apart, the devices show no difference and nothing is raised.

"All tables within a pit" (3.5(b), 4.4(b), 7.5(c)) is read as written: tables of different
games in one pit share the shuffling option too. 3.10(c)1 binds Punto Banco tables only.

The pit's practice is the one most of its tables keep to (on a tie, the one kept by the
table whose id sorts first); each table keeping to another gets one finding, at that table,
with the events of both sides.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pipeline.replay.findings import Finding, Severity
from pipeline.replay.rows import PracticeRow
from pipeline.rules.codes import code_for, regulates, rule
from pipeline.rules.config import SettlementProcedure, TableRules
from pipeline.rules.games import Game
from pipeline.rules.settlement_order import settlement_order_problem

SHUFFLE = "SHUFFLE"
SETTLEMENT = "SETTLEMENT"
SUBJECTS = {SHUFFLE: "shuffle_pit", SETTLEMENT: "pit_procedure"}
"""Each practice compared across a pit, and its subject in the rule-code table."""

PIT_CODES: frozenset[str] = frozenset(
    code_for(game, subject)
    for subject in SUBJECTS.values()
    for game in Game
    if regulates(game, subject)
)
"""The codes only :func:`pit_findings` raises: a gaming day's findings under them are replaced
whole each time the day's pits are judged again."""


class PracticeRecorder:
    """One table-day's practice, noted as the replay applies its events: the first shoe
    shuffled by each option the table filed, and for settlement the first round under the
    filed procedure and the first that tells it apart from each other procedure."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.pit = ""
        self.opened: tuple[str, ...] = ()
        """The TableOpened event that names the table's pit and rules: evidence of both."""
        self.rows: list[PracticeRow] = []
        self._noted: set[tuple[str, str, str | None]] = set()

    def table_opened(self, event_id: str, pit: str) -> None:
        self.pit, self.opened = pit, (event_id,)

    def shoe_started(self, rules: TableRules, shoe_id: str, event_id: str, method: str) -> None:
        """A shoe recorded as shuffled by the table's filed option (another option is the
        table's own finding, 3.5(a))."""
        if method == rules.shuffle_method.value:
            self._note(rules, SHUFFLE, method, None, shoe_id, None, None, (event_id,))

    def round_settled(
        self,
        rules: TableRules,
        shoe_id: str,
        round_id: str,
        steps: Sequence[tuple[str, int, str]],
    ) -> None:
        """A round's settlement steps ("LOSE" | "PAY" | "VIG", seat, event id) in recorded
        order (:func:`pipeline.replay.checks.settlement.recorded_steps`). A round out of the
        filed procedure is the table's own finding (3.10(b)); one that keeps to it shows the
        procedure, against every other procedure whose order it breaks."""
        if not regulates(rules.game, SUBJECTS[SETTLEMENT]):
            return
        filed = rules.settlement_procedure.value
        if settlement_order_problem(filed, steps) is not None:
            return
        if not any(kind in ("PAY", "VIG") for kind, _, _ in steps):
            return  # only losing wagers: every procedure collects them the same way
        ids = tuple(event_id for _, _, event_id in steps)
        self._note(rules, SETTLEMENT, str(filed), None, shoe_id, round_id, None, ids)
        for other in SettlementProcedure:
            problem = settlement_order_problem(other.value, steps)
            if other.value != filed and problem is not None:
                self._note(
                    rules, SETTLEMENT, str(filed), str(other.value), shoe_id, round_id, problem, ids
                )

    def _note(
        self,
        rules: TableRules,
        subject: str,
        practice: str,
        breaks: str | None,
        shoe_id: str,
        round_id: str | None,
        detail: str | None,
        event_ids: tuple[str, ...],
    ) -> None:
        key = (subject, practice, breaks)
        if key in self._noted:
            return
        self._noted.add(key)
        self.rows.append(
            PracticeRow(
                self.table_id,
                self.pit,
                rules.game.value,
                subject,
                practice,
                breaks,
                shoe_id,
                round_id,
                detail,
                self.opened + event_ids,
            )
        )


def pit_findings(rows: Iterable[PracticeRow]) -> list[Finding]:
    """Every table of a gaming day that keeps to another shuffling option or settlement
    procedure than its pit (the rows of all the day's tables, in any order)."""
    by_pit: dict[tuple[str, str], list[PracticeRow]] = {}
    for row in rows:
        by_pit.setdefault((row.subject, row.pit), []).append(row)
    findings: list[Finding] = []
    for (subject, pit), group in sorted(by_pit.items()):
        findings += _compare(subject, pit, group)
    return findings


def _compare(subject: str, pit: str, rows: list[PracticeRow]) -> list[Finding]:
    keepers: dict[str, set[str]] = {}
    for row in rows:
        keepers.setdefault(row.practice, set()).add(row.table_id)
    if len(keepers) < 2:
        return []
    pit_practice = min(keepers, key=lambda p: (-len(keepers[p]), min(keepers[p])))
    found: dict[tuple[str, str, str | None], PracticeRow] = {}
    for row in rows:
        found.setdefault((row.table_id, row.practice, row.breaks), row)

    def shown(table: str, practice: str, breaks: str | None) -> PracticeRow | None:
        return found.get((table, practice, breaks))

    findings = []
    pit_tables = sorted(keepers[pit_practice])
    for practice, tables in sorted(keepers.items()):
        if practice == pit_practice:
            continue
        for table in sorted(tables):
            if subject == SHUFFLE:
                # Two options recorded by shoes that keep to their tables' filings.
                own = shown(table, practice, None)
                theirs = shown(pit_tables[0], pit_practice, None)
            else:
                # Either side's round must break the other side's procedure.
                own = shown(table, practice, pit_practice)
                theirs = next(
                    (r for t in pit_tables if (r := shown(t, pit_practice, practice))), None
                )
                if own is None and theirs is None:
                    continue
                own = own or shown(table, practice, None)
                theirs = theirs or shown(pit_tables[0], pit_practice, None)
            if own is not None and theirs is not None:
                findings.append(_finding(subject, own, theirs, len(pit_tables)))
    return findings


def _finding(subject: str, own: PracticeRow, theirs: PracticeRow, keeping: int) -> Finding:
    """``own``: the table off the pit's practice; ``theirs``: a table keeping to it, of
    ``keeping`` tables in all."""
    code = code_for(Game(own.game), SUBJECTS[subject])
    others = keeping - 1
    also = f" (and {others} other table{'s' if others > 1 else ''} of the pit)" if others else ""
    pit = own.pit
    if subject == SHUFFLE:
        message = (
            f"Pit {pit} shuffles by more than one option: table {own.table_id} recorded shoe "
            f"{own.shoe_id} as shuffled {own.practice}, its filed option, while table "
            f"{theirs.table_id}{also} recorded shoe {theirs.shoe_id} as shuffled "
            f"{theirs.practice}; the shuffling option chosen shall be implemented at all "
            f"tables within a pit ({rule(code).citation}). Shuffle every table of pit {pit} by "
            f"one option and file that option for each of them."
        )
    else:
        message = (
            f"Pit {pit} settles its Punto Banco tables by more than one procedure: table "
            f"{own.table_id} settles by procedure (b){own.practice}{_shown_by(own)}, while "
            f"table {theirs.table_id}{also} settles by (b){theirs.practice}{_shown_by(theirs)}; "
            f"the same procedure shall be used for all Punto Banco tables within a gaming pit "
            f"({rule(code).citation}). Settle every Punto Banco table of pit {pit} by one "
            f"procedure, notifying the Commission and surveillance in writing at least 30 "
            f"minutes before a table's procedure changes (3.10(c)2)."
        )
    return Finding(
        code,
        Severity.MEDIUM,
        own.table_id,
        message,
        shoe_id=own.shoe_id,
        round_id=own.round_id if subject == SETTLEMENT else None,
        event_ids=tuple(dict.fromkeys(own.event_ids + theirs.event_ids)),
    )


def _shown_by(row: PracticeRow) -> str:
    """Where the row's table showed its procedure: the round, and what the other procedure
    would not allow in it."""
    if row.breaks is None or row.detail is None:
        return f" (round {row.round_id})"
    return (
        f" (round {row.round_id}, recorded in an order (b){row.breaks} does not allow: "
        f"{row.detail[0].lower()}{row.detail[1:]})"
    )


__all__ = ["PIT_CODES", "SETTLEMENT", "SHUFFLE", "PracticeRecorder", "pit_findings"]
