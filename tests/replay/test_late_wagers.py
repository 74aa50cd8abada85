"""The late-wager checks are one mechanism over a table (:data:`LATE_WAGERS`): each row is a
check of the registry, under its own name, for its own games and phases."""

from __future__ import annotations

import pytest

from pipeline.replay.checks import REGISTRY, late_wagers
from pipeline.replay.checks.late_wagers import LATE_WAGERS


@pytest.mark.rule(
    "PB-3.2d-NO-MORE-BETS",
    "PB-3.7b-CARDS-CLOSE-BETS",
    "CF-4.6a-BANKER-BEFORE-CARDS",
    "CF-4.7e-NO-MORE-BETS",
)
def test_each_row_of_the_table_is_a_registered_check() -> None:
    """PB-3.2d-NO-MORE-BETS, PB-3.7b-CARDS-CLOSE-BETS, CF-4.6a-BANKER-BEFORE-CARDS,
    CF-4.7e-NO-MORE-BETS (N.J.A.C. 19:47-3.2(d), 3.7(b), 4.6(a), 4.7(e)): the registry holds
    the table's rows and nothing else of the module: a Banker's wager after the cards is
    judged in settled, voided and misdealt Chemin de Fer rounds, a wager after "No More Bets"
    or the first card in every game's settled rounds."""
    registered = {
        (entry.check.__name__, entry.when, entry.games)
        for entry in REGISTRY
        if entry.check.__module__ == late_wagers.__name__
    }
    assert registered == {
        (row.check, phase, frozenset(row.games)) for row in LATE_WAGERS for phase in row.phases
    }
    assert len(registered) == 6
    assert all(entry.check.__doc__ for entry in REGISTRY)
