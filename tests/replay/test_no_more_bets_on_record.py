""" "No More Bets" on record (N.J.A.C. 19:47-3.7(b), 4.7(d)-(e) with 4.8(d), 7.7(b)): the dealer
announces it at the commencement of each round. A device that sends no BettingClosed cannot be
told from a dealer who did not announce, so only at a table whose rule catalog entry says its
pit terminal records the announcement in every round (``records_no_more_bets = true``) is a
round without the record a finding."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.replay.findings import Severity
from pipeline.replay.machine import replay_table
from pipeline.replay.rows import ReplayResult
from tests.replay.builder import CATALOG, RoundHandle, TableDayBuilder

GAMES = [
    ("pb-5-classic", "PB-3.7b-NO-MORE-BETS-CALLED", "N.J.A.C. 19:47-3.7(b)"),
    ("cf-5", "CF-4.7d-NO-MORE-BETS-CALLED", "N.J.A.C. 19:47-4.7(d)-(e), 4.8(d)"),
    ("mb-5-rounded", "MB-7.7b-NO-MORE-BETS-CALLED", "N.J.A.C. 19:47-7.7(b)"),
]


def round_of(rules_id: str) -> dict[str, Any]:
    """A legal Banker win with one wager each side (for Chemin de Fer, the bank and its cover)."""
    if rules_id.startswith("cf"):
        return {
            "player": "TH 6C",
            "banker": "3D 4S",
            "bank": {"seat": 1, "amount": 100_000, "banco": [(5, "BANCO_SEUL", None)]},
        }
    return {
        "player": "TH 6C",
        "banker": "3D 4S",
        "wagers": {3: {"BANKER": 10_000}, 5: {"PLAYER": 10_000}},
    }


def day(
    rules_id: str, *, recorded: bool, betting_closed: str | None
) -> tuple[TableDayBuilder, RoundHandle]:
    """A table filed as ``rules_id`` with ``records_no_more_bets = recorded``: one round whose
    "No More Bets" the pit terminal records ``betting_closed`` ("before cards" or ``None``)."""
    b = TableDayBuilder("T06", rules_id)
    b.rules_id = f"{rules_id}-nmb" if recorded else rules_id
    b.rules = replace(CATALOG[rules_id], rules_id=b.rules_id, records_no_more_bets=recorded)
    b.open()
    b.shoe()
    r = b.round(**round_of(rules_id), betting_closed=betting_closed)
    b.end_shoe()
    return b, r


def replayed(b: TableDayBuilder) -> ReplayResult:
    return replay_table(b.table_id, b.events, {**CATALOG, b.rules_id: b.rules})


@pytest.mark.rule(
    "PB-3.7b-NO-MORE-BETS-CALLED", "CF-4.7d-NO-MORE-BETS-CALLED", "MB-7.7b-NO-MORE-BETS-CALLED"
)
@pytest.mark.parametrize(("rules_id", "code", "cited"), GAMES)
@pytest.mark.parametrize(
    ("recorded", "betting_closed"), [(True, "before cards"), (False, None), (False, "before cards")]
)
def test_no_finding_where_recorded_or_not_promised(
    rules_id: str, code: str, cited: str, recorded: bool, betting_closed: str | None
) -> None:
    """PB-3.7b-NO-MORE-BETS-CALLED, CF-4.7d-NO-MORE-BETS-CALLED, MB-7.7b-NO-MORE-BETS-CALLED
    (N.J.A.C. 19:47-3.7(b), 4.7(d)-(e), 7.7(b)): "No More Bets" on record is legal; a table
    whose terminal is not filed as recording it (the default) raises nothing without it."""
    b, _ = day(rules_id, recorded=recorded, betting_closed=betting_closed)
    assert replayed(b).findings == []


@pytest.mark.rule(
    "PB-3.7b-NO-MORE-BETS-CALLED", "CF-4.7d-NO-MORE-BETS-CALLED", "MB-7.7b-NO-MORE-BETS-CALLED"
)
@pytest.mark.parametrize(("rules_id", "code", "cited"), GAMES)
def test_a_round_without_no_more_bets_where_the_terminal_records_it(
    rules_id: str, code: str, cited: str
) -> None:
    """PB-3.7b-NO-MORE-BETS-CALLED, CF-4.7d-NO-MORE-BETS-CALLED, MB-7.7b-NO-MORE-BETS-CALLED
    (N.J.A.C. 19:47-3.7(b), 4.7(d)-(e), 7.7(b)): at a table filed with
    ``records_no_more_bets = true``, a round dealt and settled with no BettingClosed, though no
    wager moved after the cards, is one finding naming the round's start and first card."""
    b, r = day(rules_id, recorded=True, betting_closed=None)
    (f,) = replayed(b).findings
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        code,
        Severity.MEDIUM,
        r.round_id,
        (r.started, r.cards[0]),
    )
    assert f.message == (
        f'Round {r.round_id} was dealt (first card event {r.cards[0]}) with no "No More Bets" '
        f"on record, though the pit terminal of rules {b.rules_id!r} records it in every round; "
        f"the dealer announces it before the cards ({cited}). No wager moved after the cards; "
        "review the dealer's procedure with surveillance, or set records_no_more_bets = false "
        "in the rule catalog if the terminal does not record every announcement."
    )


@pytest.mark.rule("PB-3.7b-CARDS-CLOSE-BETS", "PB-3.7b-NO-MORE-BETS-CALLED")
def test_a_wager_after_the_cards_is_one_finding_not_two() -> None:
    """PB-3.7b-CARDS-CLOSE-BETS, PB-3.7b-NO-MORE-BETS-CALLED, N.J.A.C. 19:47-3.2(d), 3.7(b): a
    wager moved after the cards with no "No More Bets" on record is the late wager's finding,
    which names the missing record; the missing record is not found a second time."""
    b = TableDayBuilder("T06", "pb-5-classic")
    b.rules_id = "pb-5-classic-nmb"
    b.rules = replace(CATALOG["pb-5-classic"], rules_id=b.rules_id, records_no_more_bets=True)
    b.open()
    b.shoe()
    b.round(**round_of("pb-5-classic"), betting_closed=None, after_cards=[(5, "PLAYER", 5_000)])
    b.end_shoe()
    assert [f.code for f in replayed(b).findings] == ["PB-3.7b-CARDS-CLOSE-BETS"]
