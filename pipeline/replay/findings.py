"""Exceptions found by the replay: one immutable record per difference, with its evidence.

("Finding" in code, because Python already owns the word "exception"; reports and the ledger
call them exceptions.) Every finding carries a rule code from :mod:`pipeline.rules.codes`, so
its section, statement and severity come from one table, and a one-sentence explanation a
surveillance analyst can act on.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass

from pipeline.ledger.exceptions import exception_line, exception_place
from pipeline.rules.codes import rule, rule_in
from pipeline.rules.config import money as money  # the replay's messages say dollars too
from pipeline.rules.games import Game


class Severity(enum.IntEnum):
    """How urgently a finding needs a person. Money and dealing come first."""

    INFO = 0  # the data was repaired (duplicate dropped, order restored)
    LOW = 1
    MEDIUM = 2  # procedure: shoe, cut, burn, irregularity handling
    HIGH = 3  # the game itself: draws, announcements, late wagers, data gaps
    CRITICAL = 4  # money: payouts, vigorish, deferred vigorish, forms


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    table_id: str
    message: str
    shoe_id: str | None = None
    round_id: str | None = None
    seat: int | None = None
    patron_id: str | None = None
    serial: int | None = None
    expected_cents: int | None = None
    actual_cents: int | None = None
    event_ids: tuple[str, ...] = ()
    game: Game | None = None
    """The game of the table whose rules the replay applied; ``None`` where no table's rules
    were applied (the sequencer's data findings, a withheld day, patterns across tables),
    which cite their code's own section."""

    @property
    def section(self) -> str:
        """The citation of the finding's rule as its table's game has it: a Minibaccarat
        finding under a Punto Banco code cites the 7.x section that code mirrors
        (:func:`pipeline.rules.codes.rule_in`)."""
        ruled = rule(self.code) if self.game is None else rule_in(self.game, self.code)
        return ruled.citation

    @property
    def finding_id(self) -> str:
        """Stable across re-runs of the same input: the ledger's idempotence key."""
        key = "|".join(
            str(part)
            for part in (
                self.code,
                self.table_id,
                self.shoe_id,
                self.round_id,
                self.seat,
                self.serial,
                ",".join(sorted(self.event_ids)),
                self.message,
            )
        )
        return hashlib.sha256(key.encode()).hexdigest()[:24]

    def render(self) -> str:
        """The finding's line, by the one formatter of an exception line
        (:func:`pipeline.ledger.exceptions.exception_line`)."""
        place = exception_place(self.table_id, self.round_id, self.seat, self.serial)
        return exception_line(self.severity.name, self.code, place, self.message)
