"""The deal: order of the cards (3.7(c), 3.8(c)-(d)), naturals (3.9(a)), Table 1 (3.9(b)),
Table 2 (3.9(c)-(g)), Chemin de Fer's Table 3 and options (4.9), Minibaccarat (7.9)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import only, table

BANK: dict[str, Any] = {
    "seat": 1,
    "amount": 100_000,
    "bids": {1: 100_000},
    "banco": [(5, "BANCO_SEUL", None)],
}


def banker_wager() -> dict[int, dict[str, int]]:
    return {3: {"BANKER": 10_000}, 4: {"PLAYER": 10_000}}


@pytest.mark.rule("PB-3.9c-TABLE2")
def test_banker_five_stood_against_a_four() -> None:
    """PB-3.9c-TABLE2, N.J.A.C. 19:47-3.9(c) Table 2 (the example of 3.9(g)): a Banker's Hand
    of 5 draws when the Player's third card is 4; the dealer stood."""
    b = table()
    r = b.round(player="2H 3C 4D", banker="5D KS", wagers=banker_wager())
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.table_id, f.round_id, f.shoe_id) == (
        "PB-3.9c-TABLE2",
        Severity.HIGH,
        "T01",
        r.round_id,
        "T01-S01",
    )
    assert (f.seat, f.expected_cents, f.actual_cents) == (None, None, None)
    assert f.event_ids == tuple(r.cards)
    assert f.message.startswith("Banker with 5 must draw when the Player's third card is 4: ")
    assert "Table 2" in f.message
    assert f.message.endswith("; the dealer stood.")
    assert f.section == "N.J.A.C. 19:47-3.9(c)-(g)"


@pytest.mark.rule("PB-3.9c-TABLE2")
def test_banker_draw_message_is_the_exact_analyst_sentence() -> None:
    """PB-3.9c-TABLE2, N.J.A.C. 19:47-3.9(c): the analyst reads the exact sentence."""
    b = table()
    b.round(player="2H 3C 4D", banker="5D KS", wagers=banker_wager())
    assert only(b.replay()).message == (
        "Banker with 5 must draw when the Player's third card is 4: N.J.A.C. 19:47-3.9(c) "
        "Table 2; the dealer stood."
    )


@pytest.mark.parametrize(
    ("player", "banker", "sentence", "did"),
    [
        (
            "2H 3C 8D",
            "5D KS 9C",
            "Banker with 5 must stay when the Player's third card is 8",
            "the dealer let the Banker draw",
        ),
        (
            "2H 3C 9D",
            "AD 2S",
            "Banker with 3 must draw when the Player's third card is 9",
            "the dealer stood",
        ),
        (
            "2H 3C 8D",
            "AD 2S 5C",
            "Banker with 3 must stay when the Player's third card is 8",
            "the dealer let the Banker draw",
        ),
        (
            "2H 3C AD",
            "4D KS 2C",
            "Banker with 4 must stay when the Player's third card is 1",
            "the dealer let the Banker draw",
        ),
        (
            "2H 3C 7D",
            "6D KS",
            "Banker with 6 must draw when the Player's third card is 7",
            "the dealer stood",
        ),
        (
            "TH 7C",
            "KD 3S",
            "Banker with 3 must draw when the Player's Hand stays",
            "the dealer stood",
        ),
        (
            "TH 6C",
            "4D 2S 5C",
            "Banker with 6 must stay when the Player's Hand stays",
            "the dealer let the Banker draw",
        ),
    ],
)
@pytest.mark.rule("PB-3.9c-TABLE2")
def test_table_2_cells(player: str, banker: str, sentence: str, did: str) -> None:
    """PB-3.9c-TABLE2, N.J.A.C. 19:47-3.9(c)-(g): the Banker's Hand draws or stays by its
    two-card count and the *value* of the Player's third card (3.9(e)), or the "If No Third
    Card Drawn" column; each wrong cell is one finding."""
    b = table()
    r = b.round(player=player, banker=banker, wagers=banker_wager())
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.9c-TABLE2",
        Severity.HIGH,
        r.round_id,
        tuple(r.cards),
    )
    assert f.message.startswith(sentence + ": ")
    assert f.message.endswith(f"; {did}.")


@pytest.mark.parametrize(
    ("player", "sentence", "did"),
    [
        ("TH 6C 2D", "The Player's Hand with 6 must stay", "drew"),
        ("TH 7C 2D", "The Player's Hand with 7 must stay", "drew"),
        ("TH 5C", "The Player's Hand with 5 must draw", "stayed"),
        ("KH QC", "The Player's Hand with 0 must draw", "stayed"),
    ],
)
@pytest.mark.rule("PB-3.9b-TABLE1")
def test_table_1(player: str, sentence: str, did: str) -> None:
    """PB-3.9b-TABLE1, N.J.A.C. 19:47-3.9(b) Table 1: the Player's Hand draws on 0 to 5 and
    stays on 6 to 9."""
    b = table()
    r = b.round(player=player, banker="KD 7S", wagers=banker_wager())
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.9b-TABLE1",
        Severity.HIGH,
        r.round_id,
        tuple(r.cards),
    )
    assert f.message == f"{sentence}: N.J.A.C. 19:47-3.9(b) Table 1; the Player's Hand {did}."


@pytest.mark.parametrize(
    ("player", "banker", "message"),
    [
        (
            "TH 8C 2D",
            "3D 4S",
            "With a natural (Player 8) no more cards are dealt: N.J.A.C. 19:47-3.9(a); the "
            "Player's Hand drew.",
        ),
        (
            "TH 3C 2D",
            "5D 4S",
            "With a natural (Banker 9) no more cards are dealt: N.J.A.C. 19:47-3.9(a); the "
            "Player's Hand drew.",
        ),
        (
            "TH 6C",
            "4D 4S 3C",
            "With a natural no more cards are dealt: N.J.A.C. 19:47-3.9(a); the Banker's Hand "
            "drew.",
        ),
        (
            "4H 5C",
            "2D 3S 4C",
            "With a natural no more cards are dealt: N.J.A.C. 19:47-3.9(a); the Banker's Hand "
            "drew.",
        ),
    ],
)
@pytest.mark.rule("PB-3.9a-NATURAL")
def test_drawing_on_a_natural(player: str, banker: str, message: str) -> None:
    """PB-3.9a-NATURAL, N.J.A.C. 19:47-3.9(a): a two-card 8 or 9 in either hand ends the deal;
    a card drawn after it is one finding, whichever hand drew."""
    b = table()
    r = b.round(player=player, banker=banker, wagers=banker_wager())
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.9a-NATURAL",
        Severity.HIGH,
        r.round_id,
        tuple(r.cards),
    )
    assert f.message == message


@pytest.mark.rule("PB-3.9a-NATURAL")
def test_naturals_stand_without_finding() -> None:
    """PB-3.9a-NATURAL, N.J.A.C. 19:47-3.9(a): a Player 5 against a Banker natural 8 stays, and
    the round is marked as a natural."""
    b = table()
    b.round(player="TH 5C", banker="4D 4S", wagers=banker_wager())
    result = b.replay()
    assert result.findings == []
    assert (result.rounds[0].natural, result.rounds[0].winner) == (True, "BANKER")


@pytest.mark.rule("PB-3.7c-DEAL-ORDER")
def test_initial_cards_in_the_wrong_order() -> None:
    """PB-3.7c-DEAL-ORDER, N.J.A.C. 19:47-3.7(c): the first and third cards form the Player's
    Hand, the second and fourth the Banker's; a deal P-P-B-B is one finding and the draw
    checks are not attempted on it."""
    b = table()
    r = b.round(player="2H 3C 4D", banker="5D KS 9C", order="PPBBPB", wagers=banker_wager())
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.7c-DEAL-ORDER",
        Severity.HIGH,
        r.round_id,
        tuple(r.cards),
    )
    assert f.message.startswith("Cards went to P-P-B-B-P-B; the first and third go to the Player's")
    assert "N.J.A.C. 19:47-3.7(c)" in f.message
    assert result.rounds[0].status == "COMPLETE"


@pytest.mark.rule("PB-3.8c-THIRD-ORDER", "PB-3.7c-DEAL-ORDER")
def test_banker_third_card_before_players_is_found() -> None:
    """PB-3.8c-THIRD-ORDER: N.J.A.C. 19:47-3.8(c): a third card goes first to the Player's Hand,
    then to the Banker's; the reverse is one HIGH finding with the round's cards as evidence."""
    b = table()
    r = b.round(player="2H 3C 4D", banker="5D KS 9C", order="PBPBBP", wagers=banker_wager())
    f = only(b.replay())
    assert (f.severity, f.round_id, f.event_ids) == (Severity.HIGH, r.round_id, tuple(r.cards))
    assert "Cards went to P-B-P-B-B-P" in f.message
    assert "a third card goes first to the Player's Hand, then to the Banker's" in f.message
    assert "3.8(c)" in f.message


@pytest.mark.parametrize(
    ("player", "banker", "order", "code"),
    [
        ("2H 3C 4D", "5D KS 9C", "PBPBBP", "PB-3.8c-THIRD-ORDER"),
        ("2H 3C 4D 5H", "5D KS", "PBPBPP", "PB-3.8d-ONE-MORE"),
    ],
)
@pytest.mark.rule("PB-3.8c-THIRD-ORDER", "PB-3.8d-ONE-MORE")
def test_third_card_errors_carry_their_own_codes(
    player: str, banker: str, order: str, code: str
) -> None:
    """PB-3.8c-THIRD-ORDER, N.J.A.C. 19:47-3.8(c) (Player's third card first) and
    PB-3.8d-ONE-MORE, 3.8(d) (no more than one additional card per hand)."""
    b = table()
    b.round(player=player, banker=banker, order=order, wagers=banker_wager())
    assert only(b.replay()).code == code


@pytest.mark.rule("PB-3.8d-ONE-MORE")
def test_fourth_card_to_a_hand_makes_the_round_incomplete() -> None:
    """PB-3.8d-ONE-MORE: N.J.A.C. 19:47-3.8(d): no more than one additional card per hand; a
    four-card Player's Hand cannot be scored, so the round is INCOMPLETE and one HIGH finding names
    its cards."""
    b = table()
    r = b.round(player="2H 3C 4D 5H", banker="5D KS", order="PBPBPP", wagers=banker_wager())
    result = b.replay()
    f = only(result)
    assert (f.severity, f.round_id, f.event_ids) == (Severity.HIGH, r.round_id, tuple(r.cards))
    assert f.message == (
        f"Round {r.round_id} has 4 Player and 2 Banker cards; each hand has two cards and at "
        "most one more (N.J.A.C. 19:47-3.8(d))."
    )
    assert result.rounds[0].status == "INCOMPLETE"
    assert result.settlements == []


# ---------------------------------------------------------------------- Chemin de Fer, 4.9
@pytest.mark.parametrize(
    ("player", "banker", "options"),
    [
        ("TH 2C 9D", "AH 2S", "BANKER:STAY"),  # Banker 3 v 9: Op. (the example of 4.9(g))
        ("TH 2C 9D", "AH 2S 4C", "BANKER:DRAW"),
        ("TH 2C 4D", "3D 2S", "BANKER:STAY"),  # Banker 5 v 4: Op.
        ("TH 2C 4D", "3D 2S 4C", "BANKER:DRAW"),
        ("TH 5C", "KD 7S", "PLAYER:STAY"),  # Dominant Player 5: option (4.9(a)2)
        ("TH 5C 3D", "KD 7S", "PLAYER:DRAW"),
        ("TH 5C 9D", "AH 2S", "PLAYER:DRAW,BANKER:STAY"),
    ],
)
@pytest.mark.rule("CF-4.9a-PLAYER", "CF-4.9c-TABLE3")
def test_chemin_de_fer_options_are_accepted_either_way_and_recorded(
    player: str, banker: str, options: str
) -> None:
    """CF-4.9c-TABLE3, N.J.A.C. 19:47-4.9(c)-(g) Table 3: "Op." means the Banker may draw or
    stay (4.9(f)); CF-4.9a-PLAYER, 4.9(a)2: the Dominant Player chooses on 5. Neither choice is
    a finding; the choice is recorded in the round's options_taken."""
    b = table("cf-5", "T04")
    r = b.round(player=player, banker=banker, bank=BANK)
    result = b.replay()
    assert result.findings == []
    assert result.rounds[0].options_taken == options
    assert len(r.options) == options.count(":")


@pytest.mark.parametrize(
    ("player", "banker", "code", "message"),
    [
        (
            "TH 2C 5D",
            "3D 2S",
            "CF-4.9c-TABLE3",
            "Banker with 5 must draw when the Player's third card is 5: N.J.A.C. 19:47-4.9(c) "
            "Table 3; the dealer stood.",
        ),
        (
            "TH 2C 8D",
            "AH 2S 4C",
            "CF-4.9c-TABLE3",
            "Banker with 3 must stay when the Player's third card is 8: N.J.A.C. 19:47-4.9(c) "
            "Table 3; the dealer let the Banker draw.",
        ),
        (
            "TH 4C",
            "KD 7S",
            "CF-4.9a-PLAYER",
            "The Player's Hand with 4 must draw: N.J.A.C. 19:47-4.9(a); the Player's Hand stayed.",
        ),
        (
            "TH 6C 2D",
            "KD 7S",
            "CF-4.9a-PLAYER",
            "The Player's Hand with 6 must stay: N.J.A.C. 19:47-4.9(a); the Player's Hand drew.",
        ),
    ],
)
@pytest.mark.rule("CF-4.9a-PLAYER", "CF-4.9c-TABLE3")
def test_chemin_de_fer_draw_errors(player: str, banker: str, code: str, message: str) -> None:
    """CF-4.9c-TABLE3 (N.J.A.C. 19:47-4.9(c)-(g), cells "D" and "S" of Table 3) and
    CF-4.9a-PLAYER (4.9(a)1 draws on 0-4, 4.9(a)3 stays on 6-7)."""
    b = table("cf-5", "T04")
    r = b.round(player=player, banker=banker, bank=BANK)
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        code,
        Severity.HIGH,
        r.round_id,
        tuple(r.cards),
    )
    assert f.message == message


@pytest.mark.rule("CF-4.8d-DEAL-ORDER")
def test_chemin_de_fer_deal_order() -> None:
    """CF-4.8d-DEAL-ORDER, N.J.A.C. 19:47-4.8(d): cards 1 and 3 to the Player's Hand, 2 and 4 to
    the Banker's."""
    b = table("cf-5", "T04")
    r = b.round(player="TH 6C", banker="3D 4S", order="BPBP", bank=BANK)
    f = only(b.replay())
    assert (f.code, f.round_id, f.event_ids) == ("CF-4.8d-DEAL-ORDER", r.round_id, tuple(r.cards))
    assert f.message.startswith("Cards went to B-P-B-P;")


# ---------------------------------------------------------------------- Minibaccarat
@pytest.mark.rule("PB-3.9c-TABLE2")
def test_minibaccarat_uses_table_2() -> None:
    """PB-3.9c-TABLE2 (Minibaccarat repeats Table 2, N.J.A.C. 19:47-7.9 and 3.9(c)): in
    mb-5-rounded a Banker 5 against a third card 4 must draw; the legal rounds around it are
    clean."""
    b = table("mb-5-rounded", "T02")
    b.round(player="TH 6C", banker="3D 4S", wagers=banker_wager())
    bad = b.round(player="2H 3C 4D", banker="5D KS", wagers=banker_wager())
    b.round(player="2H 3C 4D", banker="5D KS 9C", wagers=banker_wager())
    f = only(b.replay())
    assert (f.code, f.table_id, f.round_id, f.event_ids) == (
        "PB-3.9c-TABLE2",
        "T02",
        bad.round_id,
        tuple(bad.cards),
    )
    assert f.message.startswith("Banker with 5 must draw when the Player's third card is 4: ")
