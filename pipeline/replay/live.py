"""A table-day replayed as its events arrive (the live Kafka consumer): each new batch costs
about its own size, not the whole day's.

The definition stays :func:`~pipeline.replay.machine.replay_table` over everything delivered
so far, and :meth:`LiveReplay.result` gives exactly that. It keeps a
:class:`~pipeline.replay.sequencer.Sequencer` and one machine that has applied the day's
events, in the sequencer's order, up to the last batch. When the sequencer's order only grew
at its end and no round changed completeness, the machine applies only the new events.
Otherwise (an event that belongs before events already applied arrived late, or a gap
appeared or was filled) the machine goes back to the latest checkpoint still true: a copy
of itself taken between batches (and every :data:`CHECKPOINT_EVERY` events within a big
one), after events that are still the first ones of the order and that hold no event of a
round whose completeness changed. From there it applies the
rest, so a late event costs the events since it, not the day so far; without such a
checkpoint it starts over from the first event. The result comes from a copy of the
machine, ended as the day would end now; the machine itself stays open for the next batch.

What the live feed may announce (:attr:`LiveReplay.provisional` holds the rest back):

- while the table is open, nothing that only ending the day now produces: the round in play
  and an open irregularity (the next events complete them), and the Forms' day-end checks:
  a gap in a series (3.3(c)3ii) is certain only once no Form can be used at the table any
  more, since the missing serial may still be voided, which makes it a Form used out of
  order instead;
- what the deadline decides is final at the deadline and announced then, not at the close:
  deferred vigorish still owed when the shoe is completed, the patron leaves or the table
  closes (3.3(c)4), a Form used twice, out of order or outside a received series (3.3(c)3ii);
- once the table closed, a Form whose drop-box original or accounting duplicate has not
  arrived (3.3(c)3iii-iv) stays held back: the count room and accounting send those after
  the close, and no event says they are done, so the feed would announce every Form of the
  day and withdraw it an hour later. A Form whose two copies arrived and disagree is final.
  One whose copies never arrive is not announced live; it stays in the table-day's
  exceptions, and the gaming-day close reports it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Finding
from pipeline.replay.forms import MATCH, FormControl
from pipeline.replay.machine import TableReplay
from pipeline.replay.rows import APPENDED_ROWS, ReplayResult
from pipeline.replay.sequencer import Sequencer
from pipeline.rules.config import TableRules

CHECKPOINT_SPACING = 256
"""Events applied between two checkpoints at least: a live batch of a few events each does
not copy the machine each time, and the checkpoints kept reach further back."""
CHECKPOINT_EVERY = 2048
"""Events applied between two checkpoints taken inside one batch (:meth:`LiveReplay._feed`):
copying the machine costs far less than applying these events again."""
CHECKPOINTS_KEPT = 4
"""Checkpoints kept per table-day (the newest): a late event goes back at most a few
batches, and each checkpoint holds the machine's state (its rows shared, not copied)."""


@dataclass
class _Checkpoint:
    """The machine after applying the first ``applied`` events of the order, with the
    sequencer's incomplete rounds it applied them under."""

    applied: int
    incomplete: frozenset[str]
    machine: TableReplay

    def holds(
        self, before: list[TableEvent], order: list[TableEvent], incomplete: frozenset[str]
    ) -> bool:
        """Whether replaying ``order`` under ``incomplete`` from the first event passes
        through this state: its events are still the first of ``order`` (``before``: the
        order it was taken on), and none of them belongs to a round whose completeness
        changed (a machine asks only whether the round of the event or of the round in
        play is incomplete)."""
        applied = self.applied
        if applied > len(order) or order[:applied] != before[:applied]:
            return False
        changed = self.incomplete ^ incomplete
        return not changed or not any(e.round_id in changed for e in order[:applied])

    def resume(self, incomplete: frozenset[str]) -> TableReplay:
        """The machine, to apply the events after the checkpoint under ``incomplete``: the
        rounds it marked incomplete itself stay so."""
        machine = self.machine
        machine.incomplete = (machine.incomplete - self.incomplete) | incomplete
        return machine


class LiveReplay:
    """One table-day's events so far (in delivery order) and the machine replaying them."""

    def __init__(self, table_id: str, catalog: Mapping[str, TableRules]) -> None:
        self.table_id = table_id
        self.catalog = catalog
        self.arrived: list[TableEvent] = []
        self.restarts = 0
        """How often the machine had to go back (late events, gaps appearing or filled), to a
        checkpoint or to the first event."""
        self.reapplied = 0
        """Events applied again after going back."""
        self.settled: dict[str, int] | None = None
        """After :meth:`result`: how many rows at the start of each of the result's
        :data:`~pipeline.replay.rows.APPENDED_ROWS` lists are the machine's, final until it
        starts over; the rest come from ending the day now (the round in play). ``None``
        when the last result did not come from the machine."""
        self.provisional: tuple[Finding, ...] = ()
        """After :meth:`result`: its findings the next events may still change (see the
        module doc): while the table is open, those that come only from ending the day now
        (the round in play, an open irregularity, the Forms' day-end reconciliation); once
        it closed, the Forms still waiting for a copy from the count room or accounting."""
        self._opened = False
        self._closed = False
        self._sequencer = Sequencer()
        self._in_place = True
        """Whether the sequencer's order only grew at its end since the machine applied it."""
        self._machine: TableReplay | None = None
        self._applied = 0
        self._order: list[TableEvent] = []
        """The order the machine applied (the sequencer's list then: it replaces the list
        when it reorders, and only extends it otherwise)."""
        self._incomplete: frozenset[str] = frozenset()
        """The sequencer's incomplete rounds the machine applied its events under (the machine
        adds rounds of its own, such as one a card could not be attributed to)."""
        self._checkpoints: list[_Checkpoint] = []
        """Copies of the machine between batches, oldest first, each taken on the order the
        newer ones and the machine went on with."""

    def add(self, events: Iterable[TableEvent]) -> None:
        """Events delivered after every event added before."""
        added = list(events)
        self.arrived += added
        self._opened = self._opened or any(e.payload_type == "TableOpened" for e in added)
        self._closed = self._closed or any(e.payload_type == "TableClosed" for e in added)
        self._in_place = self._sequencer.add(added) and self._in_place

    def result(self) -> ReplayResult:
        """``replay_table(table_id, arrived, catalog)``, without replaying it all again.
        Raises :class:`~pipeline.replay.machine.UnknownRulesError` as it does."""
        self.settled = None
        self.provisional = ()
        if not self._opened:
            return TableReplay(self.table_id, self.catalog).withheld(self.arrived)
        sequenced = self._sequencer.sequenced()
        order, incomplete = sequenced.events, frozenset(sequenced.incomplete_rounds)
        machine, applied = self._machine, self._applied
        if machine is None:
            self._checkpoints.clear()
            machine, applied = self._new_machine(incomplete), 0
        elif not self._in_place or self._incomplete != incomplete:
            self.restarts += 1
            machine, back_to = self._go_back(order, incomplete)
            self.reapplied += applied - back_to
            applied = back_to
        elif applied - (self._checkpoints[-1].applied if self._checkpoints else 0) >= (
            CHECKPOINT_SPACING
        ):
            self._checkpoints.append(_Checkpoint(applied, incomplete, _copy(machine)))
            del self._checkpoints[:-CHECKPOINTS_KEPT]
        self._machine = None  # until it has applied the whole batch (it may raise)
        self._feed(machine, order, applied, incomplete)
        self._machine, self._applied, self._in_place = machine, len(order), True
        self._order, self._incomplete = order, incomplete
        self.settled = {name: len(getattr(machine.result, name)) for name in APPENDED_ROWS}
        ending = _copy(machine)
        final = len(ending.result.findings)
        result = ending.finish(sequenced)  # the sequencer's findings go first
        day_end = result.findings[len(sequenced.findings) + final :]
        if not self._closed:
            self.provisional = tuple(day_end)
        else:
            self.provisional = tuple(f for f in day_end if _awaits_a_copy(f, ending.forms))
        return result

    def _feed(
        self,
        machine: TableReplay,
        order: list[TableEvent],
        applied: int,
        incomplete: frozenset[str],
    ) -> None:
        """Apply ``order`` from its event ``applied`` on, taking a checkpoint every
        :data:`CHECKPOINT_EVERY` events on the way: a late event or a gap in a big batch
        then takes the machine back a few thousand events, not to the batch before (measured:
        13 to 43 % of a 24-hour day's events applied again, in batches of 50,000)."""
        last = self._checkpoints[-1].applied if self._checkpoints else 0
        for stop in range(max(last, applied) + CHECKPOINT_EVERY, len(order), CHECKPOINT_EVERY):
            machine.feed(order[applied:stop])
            applied = stop
            self._checkpoints.append(_Checkpoint(applied, incomplete, _copy(machine)))
            del self._checkpoints[:-CHECKPOINTS_KEPT]
        machine.feed(order[applied:])

    def _new_machine(self, incomplete: frozenset[str]) -> TableReplay:
        machine = TableReplay(self.table_id, self.catalog)
        machine.incomplete = set(incomplete)
        return machine

    def _go_back(
        self, order: list[TableEvent], incomplete: frozenset[str]
    ) -> tuple[TableReplay, int]:
        """The machine to apply ``order`` under ``incomplete`` with, and how many of its
        first events it has applied: the newest checkpoint that still holds (the newer ones
        never will again), else a new machine."""
        while self._checkpoints:
            point = self._checkpoints.pop()
            if point.holds(self._order, order, incomplete):
                return point.resume(incomplete), point.applied
        return self._new_machine(incomplete), 0


def _awaits_a_copy(finding: Finding, forms: FormControl) -> bool:
    """Whether ``finding`` is an original-against-duplicate mismatch (3.3(c)3iv) of a Form
    whose original or duplicate has not arrived yet (3.3(c)3iii: they come after the close)."""
    if finding.code != MATCH:
        return False
    serials = (
        {c.form.serial for c in forms.originals},
        {c.form.serial for c in forms.duplicates},
    )
    return not all(finding.serial in arrived for arrived in serials)


def _copy(machine: TableReplay) -> TableReplay:
    """A copy of ``machine``, to end the day on or to keep as a checkpoint. The rows and
    findings written so far are final, so the copy gets new lists holding the same rows
    rather than copies of each row (which is what keeps a batch's cost near its own
    size)."""
    done = machine.result
    memo: dict[int, object] = {id(machine.catalog): machine.catalog}
    for rows in [*(getattr(done, name) for name in APPENDED_ROWS), done.findings]:
        memo[id(rows)] = list(rows)
    return copy.deepcopy(machine, memo)


__all__ = ["LiveReplay"]
