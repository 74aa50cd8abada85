"""The betting tests' false-alarm rates on clean floors, by betting progression: what the
calibration table of docs/patterns.md gives.

Every table of a :func:`~tests.patterns.floors.clean_floor` seats one patron of each
progression (flat, martingale, paroli, trend-following, whale), the same patrons every day.
For each progression it measures:

* the day's informed-betting test (:mod:`pipeline.patterns.informed`): the share of
  patron-sessions with p <= ``NOMINAL``, against ``NOMINAL``;
* each accumulated test (:mod:`pipeline.patterns.evidence`): the share of daily looks (a
  patron's window, each day they play) whose running evidence reaches ``1 / NOMINAL``,
  against ``NOMINAL`` (Ville's inequality bounds it by ``NOMINAL`` for every look), and the
  alarms at the configured rate.

``python -m tests.patterns.calibration --days 100`` prints the table (markdown).
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from pipeline.patterns.chance import EVIDENCE_FALSE_ALARM_RATE
from pipeline.patterns.evidence import PatronRound, alarm_log_wealth, patron_evidence
from pipeline.patterns.informed import SettledWager, session_p_values
from tests.patterns.floors import RULES, STYLES, clean_floor

NOMINAL = 0.01
WINDOW_DAYS = 7


@dataclass
class Rates:
    """Counts of tests and of tests at or past the nominal level, per progression."""

    sessions: int = 0
    sessions_past: int = 0
    looks: int = 0
    informed_past: int = 0
    preview_past: int = 0
    alarms: int = 0

    def row(self, style: str) -> str:
        return (
            f"| {style} | {self.sessions_past}/{self.sessions} "
            f"({self.sessions_past / max(1, self.sessions):.1%}) | "
            f"{self.informed_past}/{self.looks} ({self.informed_past / max(1, self.looks):.1%}) "
            f"| {self.preview_past}/{self.looks} ({self.preview_past / max(1, self.looks):.1%}) "
            f"| {self.alarms} |"
        )


def style_of(patron_id: str) -> str:
    """The progression a clean floor's patron id names (``PAT-01MAR``: martingale)."""
    return {style[:3].upper(): style for style, _ in STYLES}[patron_id[-3:]]


def settled_of(rounds: Sequence[PatronRound]) -> list[SettledWager]:
    """The day's test's records of floor rounds."""
    return [
        SettledWager(
            r.table_id,
            r.gaming_date,
            r.round_id,
            r.patron_id,
            r.seat,
            r.wager,
            r.stake_cents,
            r.result,
            r.event_ids,
        )
        for r in rounds
    ]


def measure(seed: int, days: int, tables: int, rounds_a_day: int) -> Mapping[str, Rates]:
    """Every test's counts on a clean floor of ``days`` gaming days."""
    rounds = clean_floor(seed, days, tables, rounds_a_day)
    by_day: dict[date, list[PatronRound]] = defaultdict(list)
    for r in rounds:
        by_day[r.gaming_date].append(r)
    played = sorted(by_day)
    rates: dict[str, Rates] = defaultdict(Rates)
    nominal_bar = math.log(1 / NOMINAL)
    alarm_bar = alarm_log_wealth(EVIDENCE_FALSE_ALARM_RATE)
    for i, day in enumerate(played):
        today = by_day[day]
        rules = {(t, day): RULES for t in {r.table_id for r in today}}
        for patron, _, p_value in session_p_values(settled_of(today), rules):
            rates[style_of(patron)].sessions += 1
            rates[style_of(patron)].sessions_past += p_value <= NOMINAL
        window = [r for d in played[max(0, i - WINDOW_DAYS) : i + 1] for r in by_day[d]]
        for e in patron_evidence(window, day):
            counts = rates[style_of(e.patron_id)]
            preview = e.preview.log_peak if e.preview is not None else 0.0
            counts.looks += 1
            counts.informed_past += e.informed.log_peak >= nominal_bar
            counts.preview_past += preview >= nominal_bar
            counts.alarms += max(e.informed.log_peak, preview) >= alarm_bar
    return rates


def table(rates: Mapping[str, Rates], days: int, tables: int, rounds_a_day: int) -> str:
    header = (
        f"Clean floors: {days} gaming days x {tables} tables x {rounds_a_day} rounds, one "
        f"patron of each progression a table, the same patrons every day.\n\n"
        f"| progression | day's test, sessions at p <= {NOMINAL} | accumulated "
        f"informed, looks reaching {1 / NOMINAL:.0f} | card preview, looks reaching "
        f"{1 / NOMINAL:.0f} | alarms at {EVIDENCE_FALSE_ALARM_RATE} per patron-year |\n"
        "|---|---|---|---|---|"
    )
    return "\n".join([header, *(rates[style].row(style) for style, _ in STYLES)])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=100)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=200, help="rounds a table a day")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rates = measure(args.seed, args.days, args.tables, args.rounds)
    print(table(rates, args.days, args.tables, args.rounds))


if __name__ == "__main__":
    main()
