"""The cards handed to the players (Punto Banco 3.7(d), Minibaccarat 7.7(c)3), read from the pit
terminal's ``CardsHandedTo`` events: each hand to the highest wager on it, a third card to the
player who was handed the hand, and only at a table whose filed procedure hands them.

``pb-dragon`` files 3.7(d) and ``mb-tie-quarter`` files 7.7(c)3; ``pb-5-classic`` and
``mb-5-rounded`` file the procedures in which the dealer turns the cards up himself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from pipeline.replay.findings import Finding, Severity
from pipeline.replay.rows import ReplayResult
from tests.replay.builder import RoundHandle, table

PLAYER_DRAWS = ("2H 3C 4D", "TD 3S 5C")
"""Player 5 draws a 4 (9); Banker 3 draws on a 4 (Table 2) a 5: 8. Both hands take a third
card; the Player's Hand wins, no dragon 7."""
TWO_CARDS = ("9H TC", "3D 4S")
"""A natural 9 against 7: no third card."""


def deal(
    rules_id: str,
    wagers: Mapping[int, Mapping[str, int]],
    hands: tuple[str, str] = PLAYER_DRAWS,
    **round_options: Any,
) -> tuple[ReplayResult, RoundHandle]:
    b = table(rules_id)
    r = b.round(*hands, wagers=wagers, **round_options)
    b.end_shoe()
    b.close()
    return b.replay(), r


def found(result: ReplayResult) -> list[tuple[str, Severity, int | None]]:
    return [(f.code, f.severity, f.seat) for f in result.findings]


def one(result: ReplayResult) -> Finding:
    (finding,) = result.findings
    return finding


@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER", "PB-3.7d3-THIRD-CARD")
@pytest.mark.parametrize("rules_id", ["pb-dragon", "mb-tie-quarter"])
def test_each_hand_to_its_highest_wager_and_the_third_card_with_it(rules_id: str) -> None:
    """PB-3.7d-HIGHEST-WAGER, PB-3.7d3-THIRD-CARD, N.J.A.C. 19:47-3.7(d)1-4 (7.7(c)3i-ii): the
    Player's Hand to the player with the highest
    wager on it, the Banker's Hand likewise, each third card to the player who was handed that
    hand: nothing to report."""
    wagers = {2: {"PLAYER": 50_000}, 5: {"PLAYER": 10_000}, 7: {"BANKER": 20_000}}
    result, r = deal(rules_id, wagers, handed={"PLAYER": 2, "BANKER": 7})
    assert result.findings == []
    assert len(r.handed) == 4  # two hands, two third cards


@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER")
def test_the_players_hand_handed_to_a_lower_wager() -> None:
    """PB-3.7d-HIGHEST-WAGER, N.J.A.C. 19:47-3.7(d)1: seat 5 wagered $100 on the Player's Hand,
    seat 2 $500; the dealer handed the Player's Hand to seat 5. The finding names both wagers,
    the seat handed and the event; the third card that followed the hand to seat 5 is no
    second finding (3.7(d)3 sends it where the hand went)."""
    wagers = {2: {"PLAYER": 50_000}, 5: {"PLAYER": 10_000}, 7: {"BANKER": 20_000}}
    result, r = deal("pb-dragon", wagers, handed={"PLAYER": 5, "BANKER": 7})
    finding = one(result)
    assert (finding.code, finding.severity, finding.seat) == (
        "PB-3.7d-HIGHEST-WAGER",
        Severity.MEDIUM,
        5,
    )
    assert (finding.expected_cents, finding.actual_cents) == (50_000, 10_000)
    assert finding.event_ids == (r.handed[0],)
    assert finding.round_id == r.round_id and finding.section == "N.J.A.C. 19:47-3.7(d)1-2, (d)5-6"
    assert (
        "the Player's Hand's two cards were handed to seat 5 (wager $100.00 on the Player's "
        "Hand), but seat 2 had the highest wager on it ($500.00) (N.J.A.C. 19:47-3.7(d)1-2, "
        "(d)5-6)" in finding.message
    )


@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER")
@pytest.mark.parametrize(("handed_to", "wrong"), [(2, False), (6, True)])
def test_equal_wagers_go_to_the_closest_to_the_dealer(handed_to: int, wrong: bool) -> None:
    """PB-3.7d-HIGHEST-WAGER, N.J.A.C. 19:47-3.7(d)5: of equally high wagers on the Banker's Hand,
    the one closest to the dealer counterclockwise (the lower seat number) is handed it."""
    wagers = {2: {"BANKER": 30_000}, 6: {"BANKER": 30_000}, 4: {"PLAYER": 10_000}}
    result, _ = deal("pb-dragon", wagers, TWO_CARDS, handed={"PLAYER": 4, "BANKER": handed_to})
    assert found(result) == ([("PB-3.7d-HIGHEST-WAGER", Severity.MEDIUM, 6)] if wrong else [])
    if wrong:
        assert "seat 2 had the highest wager on it ($300.00)" in one(result).message


@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER")
def test_minibaccarat_names_no_tie_break_but_the_highest_wager_holds() -> None:
    """PB-3.7d-HIGHEST-WAGER, N.J.A.C. 19:47-7.7(c)3ii: the Banker's Hand to the highest wager on
    it. The given 7.7(c)3 stops at (c)3ii and has no tie-break, so either of two equal highest
    wagers may be handed it; a lower wager may not, and the finding cites the Minibaccarat
    section."""
    wagers = {2: {"BANKER": 30_000}, 6: {"BANKER": 30_000}, 4: {"BANKER": 10_000}}
    tied, _ = deal("mb-tie-quarter", wagers, TWO_CARDS, handed={"BANKER": 6})
    assert tied.findings == []
    lower, r = deal("mb-tie-quarter", wagers, TWO_CARDS, handed={"BANKER": 4})
    finding = one(lower)
    assert (finding.code, finding.seat, finding.event_ids) == (
        "PB-3.7d-HIGHEST-WAGER",
        4,
        (r.handed[0],),
    )
    assert finding.section == "N.J.A.C. 19:47-7.7(c)3i-ii (mirrors 3.7(d)1-2, (d)5-6)"
    assert "seats 2, 6 had the highest wagers on it ($300.00)" in finding.message
    assert finding.section in finding.message


@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER")
@pytest.mark.parametrize(("handed_to", "wrong"), [(3, False), (8, True)])
def test_a_hand_nobody_wagered_on_goes_to_a_player_of_the_other_hand(
    handed_to: int, wrong: bool
) -> None:
    """PB-3.7d-HIGHEST-WAGER, N.J.A.C. 19:47-3.7(d)6: with no wager on the Player's Hand, a player
    wagering on the Banker's Hand may turn it up; seat 8, with a tie bet only, may not."""
    wagers = {3: {"BANKER": 20_000}, 8: {"TIE": 5_000}}
    result, _ = deal("pb-dragon", wagers, TWO_CARDS, handed={"PLAYER": handed_to, "BANKER": 3})
    assert found(result) == ([("PB-3.7d-HIGHEST-WAGER", Severity.MEDIUM, 8)] if wrong else [])
    if wrong:
        assert "nobody wagered on the Player's Hand" in one(result).message
        assert "(seats 3)" in one(result).message


@pytest.mark.rule("PB-3.7d3-THIRD-CARD")
@pytest.mark.parametrize("rules_id", ["pb-dragon", "mb-tie-quarter"])
def test_a_third_card_handed_to_another_player(rules_id: str) -> None:
    """PB-3.7d3-THIRD-CARD, N.J.A.C. 19:47-3.7(d)3: the Player's third card goes to the player
    who was handed and returned the Player's Hand (seat 2), not seat 5. Minibaccarat cites the
    same section: the given 7.7(c)3 stops before the third card."""
    wagers = {2: {"PLAYER": 50_000}, 5: {"PLAYER": 10_000}, 7: {"BANKER": 20_000}}
    result, r = deal(
        rules_id, wagers, handed={"PLAYER": 2, "BANKER": 7}, third_handed={"PLAYER": 5}
    )
    finding = one(result)
    assert (finding.code, finding.seat, finding.section) == (
        "PB-3.7d3-THIRD-CARD",
        5,
        "N.J.A.C. 19:47-3.7(d)3-5",
    )
    first, _, third, _ = r.handed
    assert finding.event_ids == (first, third)
    assert "the Player's Hand's third card was handed to seat 5 (patron" in finding.message
    assert "but the Player's Hand's two cards were handed to seat 2" in finding.message


@pytest.mark.rule("PB-3.7d3-THIRD-CARD")
def test_a_third_card_handed_when_the_hand_was_not() -> None:
    """PB-3.7d3-THIRD-CARD, N.J.A.C. 19:47-3.7(d)3-4: the Banker's third card handed to seat 7 when
    nobody is on record as handed the Banker's Hand."""
    wagers = {2: {"PLAYER": 50_000}, 7: {"BANKER": 20_000}}
    result, r = deal("pb-dragon", wagers, handed={"PLAYER": 2}, third_handed={"BANKER": 7})
    finding = one(result)
    assert (finding.code, finding.seat) == ("PB-3.7d3-THIRD-CARD", 7)
    assert finding.event_ids == (r.handed[-1],)
    assert "the Banker's Hand's two cards were handed to nobody on record" in finding.message


@pytest.mark.rule("PB-3.7d-PROCEDURE")
@pytest.mark.parametrize(
    ("rules_id", "citation"),
    [
        ("pb-5-classic", "N.J.A.C. 19:47-3.7(c)-(d)"),
        ("mb-5-rounded", "N.J.A.C. 19:47-7.7(c) (mirrors 3.7(c)-(d))"),
    ],
)
def test_cards_handed_at_a_table_that_did_not_file_the_procedure(
    rules_id: str, citation: str
) -> None:
    """PB-3.7d-PROCEDURE, N.J.A.C. 19:47-3.7(c)-(d), 7.7(c): a table whose filed procedure
    keeps the cards with the dealer hands none to the players. One finding for the round,
    naming every handing; who had the highest wager is not judged there (seat 5 was not)."""
    wagers = {2: {"PLAYER": 50_000}, 5: {"PLAYER": 10_000}, 7: {"BANKER": 20_000}}
    result, r = deal(rules_id, wagers, TWO_CARDS, handed={"PLAYER": 5, "BANKER": 7})
    finding = one(result)
    assert (finding.code, finding.severity, finding.seat) == (
        "PB-3.7d-PROCEDURE",
        Severity.MEDIUM,
        5,
    )
    assert finding.event_ids == tuple(r.handed)
    assert (
        "the dealer handed the Player's Hand's two cards to seat 5; the Banker's Hand's two "
        f"cards to seat 7, but rules {rules_id!r} file" in finding.message
    )
    assert citation in finding.message


@pytest.mark.rule("PB-3.7d-HIGHEST-WAGER", "PB-3.2d-NO-MORE-BETS")
def test_the_hand_is_judged_by_the_wagers_standing_when_it_was_handed() -> None:
    """PB-3.7d-HIGHEST-WAGER with PB-3.2d-NO-MORE-BETS, N.J.A.C. 19:47-3.7(d)1 with 3.2(d): seat 2
    had the highest wager on the Player's Hand when it was handed; seat 5's chips added after "No
    More Bets" and the cards are late (3.2(d)), and do not make the handing to seat 2 wrong."""
    wagers = {2: {"PLAYER": 50_000}, 5: {"PLAYER": 10_000}}
    result, _ = deal(
        "pb-dragon",
        wagers,
        TWO_CARDS,
        handed={"PLAYER": 2, "BANKER": 5},
        after_cards=[(5, "PLAYER", 60_000)],
    )
    assert [f.code for f in result.findings] == ["PB-3.2d-NO-MORE-BETS"]
