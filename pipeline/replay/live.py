"""A table-day replayed as its events arrive (the live Kafka consumer): each new batch costs
about its own size, not the whole day's.

The definition stays :func:`~pipeline.replay.machine.replay_table` over everything delivered
so far, and :meth:`LiveReplay.result` gives exactly that. It keeps a
:class:`~pipeline.replay.sequencer.Sequencer` and one machine that has applied the day's
events, in the sequencer's order, up to the last batch. When the sequencer's order only grew
at its end and no round changed completeness, the machine applies only the new events.
Otherwise (an event that belongs before events already applied arrived late, or a gap
appeared) the machine starts over from the first event. The result comes from a copy of
the machine, ended as the day would end now; the machine itself stays open for the next
batch.

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

from pipeline.events.model import TableEvent
from pipeline.replay.findings import Finding
from pipeline.replay.forms import MATCH, FormControl
from pipeline.replay.machine import TableReplay
from pipeline.replay.rows import APPENDED_ROWS, ReplayResult
from pipeline.replay.sequencer import Sequencer
from pipeline.rules.config import TableRules


class LiveReplay:
    """One table-day's events so far (in delivery order) and the machine replaying them."""

    def __init__(self, table_id: str, catalog: Mapping[str, TableRules]) -> None:
        self.table_id = table_id
        self.catalog = catalog
        self.arrived: list[TableEvent] = []
        self.restarts = 0
        """How often the machine had to start over (late events, new gaps)."""
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
        self._incomplete: frozenset[str] = frozenset()
        """The sequencer's incomplete rounds when the machine started (the machine adds
        rounds of its own, such as one a card could not be attributed to)."""

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
        machine, applied = self._machine, self._applied
        if machine is None or not self._in_place or self._incomplete != sequenced.incomplete_rounds:
            self.restarts += machine is not None
            machine = TableReplay(self.table_id, self.catalog)
            machine.incomplete = set(sequenced.incomplete_rounds)
            self._incomplete = frozenset(sequenced.incomplete_rounds)
            applied = 0
        self._machine = None  # until it has applied the whole batch (it may raise)
        machine.feed(sequenced.events[applied:])
        self._machine, self._applied, self._in_place = machine, len(sequenced.events), True
        self.settled = {name: len(getattr(machine.result, name)) for name in APPENDED_ROWS}
        ending = _copy_to_end(machine)
        final = len(ending.result.findings)
        result = ending.finish(sequenced)  # the sequencer's findings go first
        day_end = result.findings[len(sequenced.findings) + final :]
        if not self._closed:
            self.provisional = tuple(day_end)
        else:
            self.provisional = tuple(f for f in day_end if _awaits_a_copy(f, ending.forms))
        return result


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


def _copy_to_end(machine: TableReplay) -> TableReplay:
    """A copy of ``machine`` to end the day on. The rows and findings written so far are
    final, so the copy gets new lists holding the same rows rather than copies of each row
    (which is what keeps a batch's cost near its own size)."""
    done = machine.result
    memo: dict[int, object] = {id(machine.catalog): machine.catalog}
    for rows in [*(getattr(done, name) for name in APPENDED_ROWS), done.findings]:
        memo[id(rows)] = list(rows)
    return copy.deepcopy(machine, memo)


__all__ = ["LiveReplay"]
