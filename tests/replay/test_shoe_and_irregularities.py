"""Shoe procedure (3.1(a), 3.5(d)-(e), 3.8(e), 3.12(e); 7.1(d)) and irregularities (3.12(c)-(d),
as amended by the temporary amendments in 002_...; 7.11)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import RoundHandle, TableDayBuilder, codes, only, table

ROUND: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S", "wagers": {3: {"BANKER": 10_000}}}


def shoe_started(b: TableDayBuilder) -> str:
    return next(e.event_id for e in b.events if e.payload_type == "ShoeStarted")


@pytest.mark.parametrize(
    ("rules_id", "shoe", "code", "message"),
    [
        (
            "pb-5-classic",
            {"cards_in_shoe": 415},
            "PB-3.1a-DECKS",
            "415 cards in the shoe; 8 decks hold 416",
        ),
        (
            "pb-5-classic",
            {"decks": 6, "cards_in_shoe": 312},
            "PB-3.1a-DECKS",
            "6 decks but the table's rules 'pb-5-classic' use 8",
        ),
        (
            "pb-5-classic",
            {"cut_position": 5},
            "PB-3.5d-CUT",
            "cut at card 5 of 416; the cutting card goes at least 10 cards in from either end",
        ),
        (
            "pb-5-classic",
            {"cut_position": 410},
            "PB-3.5d-CUT",
            "cut at card 410 of 416; the cutting card goes at least 10 cards in from either end",
        ),
        (
            "pb-5-classic",
            {"cut_card_from_back": 13},
            "PB-3.5e-CUT-CARD-14",
            "second cutting card 13 cards from the back; it must be at least 14",
        ),
        (
            "mb-tie-quarter",
            {"cards_in_shoe": 624},
            "MB-7.1a-DECKS",
            "624 cards in the shoe; 12 decks split in two batches hold 312",
        ),
        (
            "mb-5-rounded",
            {"cut_card_from_back": 10},
            "MB-7.5f-BURN",
            "second cutting card 10 cards from the back; it must be at least 14",
        ),
        (
            "cf-5",
            {"cut_position": 3},
            "CF-4.4e-BURN",
            "cut at card 3 of 312; the cutting card goes at least 10 cards in from either end",
        ),
        (
            "cf-5",
            {"cards_in_shoe": 311},
            "CF-4.1a-DECKS",
            "311 cards in the shoe; 6 decks hold 312",
        ),
    ],
)
@pytest.mark.rule(
    "PB-3.1a-DECKS",
    "PB-3.5d-CUT",
    "PB-3.5e-CUT-CARD-14",
    "MB-7.1a-DECKS",
    "MB-7.5f-BURN",
    "CF-4.4e-BURN",
    "CF-4.1a-DECKS",
)
def test_shoe_started_wrongly(rules_id: str, shoe: dict[str, Any], code: str, message: str) -> None:
    """PB-3.1a-DECKS: N.J.A.C. 19:47-3.1(a) (decks and cards), 3.5(d) (cut at least 10 cards in from
    either end), 3.5(e) (second cutting card at least 14 from the back); 7.1(d) (a two-batch shoe
    holds one batch); 4.4(d)-(e), 7.5(e)-(f) for Chemin de Fer and Minibaccarat. One MEDIUM finding
    per problem, evidence the ShoeStarted event."""
    b = table(rules_id, **shoe)
    if rules_id != "cf-5":  # (a Chemin de Fer round needs a bank; the shoe alone suffices)
        b.round(**ROUND)
    result = b.replay()
    f = only(result)
    assert (f.code, f.severity, f.shoe_id, f.round_id, f.event_ids) == (
        code,
        Severity.MEDIUM,
        "T01-S01",
        None,
        (shoe_started(b),),
    )
    assert f.message == f"Shoe T01-S01: {message}."


@pytest.mark.parametrize(
    ("burn", "expected", "actual"),
    [
        ("5H 2C 3D 4S 5S", 6, 5),  # the first card is a 5: it and 5 more
        ("5H 2C 3D 4S 5S 6S 7S", 6, 7),
        ("KH 2C", 11, 2),  # a king counts ten for the burn (not zero)
        ("AH", 2, 1),  # an ace counts one
    ],
)
@pytest.mark.rule("PB-3.5e-BURN")
def test_wrong_number_of_cards_burned(burn: str, expected: int, actual: int) -> None:
    """PB-3.5e-BURN, N.J.A.C. 19:47-3.5(e): the first card and as many more as its count ('Face
    cards and tens count as tens. Aces count as one.') go to the discards."""
    b = table(burn=burn)
    b.round(**ROUND)
    burned = [e.event_id for e in b.events if e.get("hand") == "BURN"]
    f = only(b.replay())
    assert (f.code, f.severity, f.shoe_id, f.event_ids) == (
        "PB-3.5e-BURN",
        Severity.MEDIUM,
        "T01-S01",
        tuple(burned),
    )
    first = burn.split()[0]
    assert f.message == (
        f"Shoe T01-S01: the first card was {first}, so {expected} cards are burned (it and "
        f"{expected - 1} more, tens and faces count ten, N.J.A.C. 19:47-3.5(e)); {actual} were "
        "burned."
    )


@pytest.mark.rule("PB-3.5e-BURN")
def test_ten_value_burn_and_nothing_burned() -> None:
    """PB-3.5e-BURN, N.J.A.C. 19:47-3.5(e): a ten burns itself and ten more (clean); a shoe with
    no burn at all is one finding on the ShoeStarted event."""
    ok = table(burn="TH 2C 3D 4S 5S 6S 7S 8S 9S 2H 3H")
    ok.round(**ROUND)
    assert ok.replay().findings == []
    none = table(burn="")
    none.round(**ROUND)
    f = only(none.replay())
    assert (f.code, f.event_ids) == ("PB-3.5e-BURN", (shoe_started(none),))
    assert f.message == "Shoe T01-S01: no card was burned before play (N.J.A.C. 19:47-3.5(e))."


# ---------------------------------------------------------------------- 3.8(e) the last hand
@pytest.mark.rule("PB-3.8e-LAST-HAND")
def test_cutting_card_then_last_hand_then_reshuffle_is_clean() -> None:
    """PB-3.8e-LAST-HAND, N.J.A.C. 19:47-3.8(e): the hand with the cutting card is completed,
    'last hand' is announced, one more hand is played, then the shoe ends."""
    b = table()
    b.round(**ROUND)
    cut = b.round(**ROUND, cut_card=True)
    b.round(**ROUND)
    b.end_shoe()
    assert cut.cut_card is not None and cut.last_hand is not None
    assert b.replay().findings == []


@pytest.mark.rule("PB-3.8e-LAST-HAND")
def test_second_extra_round_after_the_cutting_card() -> None:
    """PB-3.8e-LAST-HAND, N.J.A.C. 19:47-3.8(e): 'At the completion of one more hand, no more
    cards will be dealt until the reshuffle'; a second extra round is one finding on its
    RoundStarted."""
    b = table()
    cut = b.round(**ROUND, cut_card=True)
    b.round(**ROUND)
    extra = b.round(**ROUND)
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.8e-LAST-HAND",
        Severity.MEDIUM,
        extra.round_id,
        (extra.started,),
    )
    assert f.message == (
        f'Round {extra.round_id} was dealt from shoe {extra.shoe_id} after the "last hand" that '
        f"followed the cutting card in {cut.round_id} (N.J.A.C. 19:47-3.8(e)). No hand follows "
        "the shoe's last until the cards are reshuffled: review the shoe's end with "
        "surveillance and the wagers settled on the hands dealt after it."
    )


@pytest.mark.rule("PB-3.8e-LAST-HAND")
def test_last_hand_announced_without_the_cutting_card() -> None:
    """PB-3.8e-LAST-HAND, N.J.A.C. 19:47-3.8(e): 'last hand' follows the hand in which the
    cutting card appeared."""
    b = table()
    r = b.round(**ROUND)
    announced = b.emit("pit", "LastHandAnnounced", shoe_id=b.shoe_id, round_id=r.round_id)
    b.round(**ROUND)
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.event_ids) == ("PB-3.8e-LAST-HAND", (announced,))
    assert f.message == (
        f'"Last hand" was announced after round {r.round_id} but the cutting card appeared in '
        "no round (N.J.A.C. 19:47-3.8(e))."
    )


@pytest.mark.rule("PB-3.8e-LAST-HAND")
def test_last_hand_never_announced() -> None:
    """PB-3.8e-LAST-HAND, N.J.A.C. 19:47-3.8(e): 'Upon completion of that hand, the dealer
    calling the game shall announce "last hand."'"""
    b = table()
    cut = b.round(**ROUND, cut_card=True, last_hand=False)
    b.round(**ROUND)
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.round_id) == ("PB-3.8e-LAST-HAND", cut.round_id)


@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_round_voided_with_plenty_of_cards() -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12(e): a round is void only if the cards left
    cannot complete it; six cards always can."""
    b = table()
    b.round(**ROUND)
    void = b.voided_round()
    b.end_shoe()
    result = b.replay()
    f = only(result)
    voided = next(e.event_id for e in b.events if e.payload_type == "RoundVoided")
    assert (f.code, f.severity, f.round_id, f.event_ids) == (
        "PB-3.12e-INSUFFICIENT",
        Severity.HIGH,
        void.round_id,
        (voided,),
    )
    assert f"with {416 - 4 - 4} cards left in the shoe" in f.message  # 4 burned, 4 dealt
    assert [r.status for r in result.rounds] == ["COMPLETE", "VOID"]


@pytest.mark.parametrize(
    ("cards_left", "found"),
    [(5, []), (6, ["PB-3.12e-INSUFFICIENT"]), (7, ["PB-3.12e-INSUFFICIENT"])],
)
@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_void_threshold_is_six_cards_left(cards_left: int, found: list[str]) -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12(e): 'If there are insufficient cards remaining
    in the shoe to complete a round of play, that round shall be void'. A shoe left with five
    cards (4 burned and 4 dealt of a short shoe) may not complete a round: the void is right;
    with six or seven it is a finding. Only the void's code is read: the short shoe itself is a
    3.1(a) finding of its own."""
    b = table(cards_in_shoe=8 + cards_left)
    b.round(**ROUND)
    b.voided_round()
    b.end_shoe()
    voids = [c for c in codes(b.replay()) if c == "PB-3.12e-INSUFFICIENT"]
    assert voids == found


@pytest.mark.parametrize(("cards_left", "found"), [(5, []), (9, ["PB-3.12e-INSUFFICIENT"])])
@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_a_void_after_the_deal_is_judged_by_the_cards_the_round_began_with(
    cards_left: int, found: list[str]
) -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12(e): a round is void for "insufficient
    cards remaining in the shoe to complete a round". Its own cards are no want of cards: a
    round that began with nine cards left and was voided once its four cards were seen (five
    left) had enough, and is a finding naming the void and the cards; one that began with five
    may have run out, and raises nothing."""
    b = table(cards_in_shoe=8 + cards_left)
    b.round(**ROUND)
    void = b.voided_round(dealt="TH 6C 3D 4S")
    b.end_shoe()
    result = b.replay()
    assert [c for c in codes(result) if c == "PB-3.12e-INSUFFICIENT"] == found
    if found:
        f = only(result, "PB-3.12e-INSUFFICIENT")
        assert f.round_id == void.round_id
        assert f.event_ids == (void.voided, *void.cards)
        assert f"after 4 of its cards were dealt with {cards_left} cards left" in f.message


# ---------------------------------------------------------------------- 3.12(c) and (d)
def around(b: TableDayBuilder) -> RoundHandle:
    """A round before the irregularity (the one after is dealt by each test)."""
    return b.round(**ROUND)


@pytest.mark.parametrize(
    ("rules_id", "card"),
    [
        ("pb-5-classic", "TD"),  # (c)1, ten-value pre-selected as ten more
        ("pb-5-classic", "7D"),  # (c)1, seven more
        ("pb-4-banker6", "TD"),  # (c)2, one more face down
        ("pb-4-banker6", "3C"),
        ("mb-5-rounded", "KD"),  # 7.11(c)1 'value': a king is worth zero
        ("cf-5", "5H"),  # 4.12(h)1
    ],
)
@pytest.mark.rule("PB-3.12c-DISCLOSED", "MB-7.11c-DISCLOSED", "CF-4.12h-DISCLOSED")
def test_disclosed_card_handled_by_the_preselected_procedure(rules_id: str, card: str) -> None:
    """PB-3.12c-DISCLOSED: N.J.A.C. 19:47-3.12(c)1 (the card and as many more as its value, a
    ten-value card one or ten more as pre-selected), (c)2 (the card and one more face down),
    7.11(c)1 and 4.12(h): the procedure the casino pre-selected finds nothing."""
    b = table(rules_id)
    if rules_id != "cf-5":
        around(b)
    b.irregularity(card)
    if rules_id != "cf-5":
        around(b)
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.parametrize(
    ("rules_id", "card", "extra", "expected", "rank"),
    [
        ("pb-5-classic", "TD", 1, 10, "TEN"),  # pb-5-classic pre-selected ten, not one
        ("pb-5-classic", "5D", 4, 5, "FIVE"),
        ("pb-4-banker6", "TD", 10, 1, "TEN"),  # (c)2: one card face down
    ],
)
@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_disclosed_card_wrong_discard_count(
    rules_id: str, card: str, extra: int, expected: int, rank: str
) -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(c)1-2: the discards after a disclosed card follow
    the pre-selected procedure; evidence is the report and every discarded card."""
    b = table(rules_id)
    around(b)
    irr = b.irregularity(card, extra=extra)
    around(b)
    f = only(b.replay())
    assert (f.code, f.severity, f.shoe_id, f.event_ids) == (
        "PB-3.12c-DISCLOSED",
        Severity.MEDIUM,
        "T01-S01",
        (irr.reported, *irr.discards),
    )
    assert f.round_id is None
    assert f.message == (
        f"A card disclosed in error ({rank}) goes to the discard rack with {expected} more "
        f"cards (N.J.A.C. 19:47-3.12(c)); {extra} more were discarded."
    )


@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_disclosed_card_opens_a_simulated_round() -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(c)3 (pb-dragon's pre-selected procedure): the
    disclosed card is the first card of a simulated round without wagers, dealt by the rules;
    the round is recorded as simulated and not counted as play."""
    b = table("pb-dragon")
    around(b)
    b.irregularity("5D")
    sim = b.round(player="5D 4C", banker="3H 3S", simulated=True)
    around(b)
    b.end_shoe()
    result = b.replay()
    assert result.findings == []
    row = next(r for r in result.rounds if r.round_id == sim.round_id)
    assert (row.simulated, row.round_number, row.player_cards, row.status) == (
        True,
        0,
        "5D 4C",
        "COMPLETE",
    )
    assert result.summary is not None and result.summary.rounds == 2


@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_simulated_round_dealt_against_the_rules() -> None:
    """PB-3.12c-DISCLOSED with PB-3.9b-TABLE1, N.J.A.C. 19:47-3.12(c)3: the simulated round is
    'dealt in accordance with the rules of this subchapter'; a Player 5 that stays is found."""
    b = table("pb-dragon")
    around(b)
    b.irregularity("5D")
    sim = b.round(player="5D KC", banker="3H 4S", simulated=True)
    around(b)
    f = only(b.replay())
    assert (f.code, f.round_id) == ("PB-3.9b-TABLE1", sim.round_id)


@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_simulated_round_missing() -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(c)3: pb-dragon pre-selected a simulated round,
    but play resumed without one."""
    b = table("pb-dragon")
    around(b)
    irr = b.irregularity("5D")
    around(b)
    f = only(b.replay())
    assert (f.code, f.severity, f.event_ids) == (
        "PB-3.12c-DISCLOSED",
        Severity.MEDIUM,
        (irr.reported,),
    )
    assert f.message == (
        "The pre-selected procedure is a simulated round with the disclosed card "
        "(N.J.A.C. 19:47-3.12(c)3); none was dealt."
    )


@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_dealer_followed_another_procedure() -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(c): the dealer performs the procedure 'that has
    been pre-selected by the casino licensee'; pb-5-classic chose (c)1, the dealer did (c)2.
    The wrong procedure and the resulting wrong discard count are both reported."""
    b = table()
    around(b)
    irr = b.irregularity("TD", procedure="DISCARD_ONE_FACE_DOWN", extra=1)
    around(b)
    result = b.replay()
    assert codes(result) == ["PB-3.12c-DISCLOSED", "PB-3.12c-DISCLOSED"]
    which, count = result.findings
    assert which.event_ids == (irr.reported,)
    assert which.message == (
        "The dealer followed DISCARD_ONE_FACE_DOWN but the casino pre-selected DISCARD_BY_VALUE "
        "for a disclosed card."
    )
    assert (
        "goes to the discard rack with 10 more cards (N.J.A.C. 19:47-3.12(c)); 1 more were "
        "discarded" in count.message
    )


@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_wager_on_a_simulated_round() -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(c)3: a simulated round 'in which no wagers shall
    be accepted'."""
    b = table("pb-dragon")
    around(b)
    b.irregularity("5D")
    sim = b.round(player="5D 4C", banker="3H 3S", simulated=True)
    wager = b.emit(
        "bets",
        "WagerPlaced",
        round_id=sim.round_id,
        seat=3,
        patron_id="PAT-03",
        wager="BANKER",
        amount_cents=10_000,
    )
    around(b)
    f = only(b.replay())
    assert (f.code, f.round_id) == ("PB-3.12c-DISCLOSED", sim.round_id)
    assert wager in f.event_ids


@pytest.mark.parametrize(
    ("card", "extra", "expected", "rank"),
    [
        ("7D", 8, 7, "SEVEN"),
        ("7D", 6, 7, "SEVEN"),
        (
            "KD",
            1,
            0,
            "KING",
        ),  # (d) says 'value': a king is worth zero, the (c)1 choice is not repeated
    ],
)
@pytest.mark.rule("PB-3.12d-FACE-UP")
def test_card_face_up_in_the_shoe(card: str, extra: int, expected: int, rank: str) -> None:
    """PB-3.12d-FACE-UP, N.J.A.C. 19:47-3.12(d): a card found face up in the shoe is discarded
    'along with an additional number of cards ... equal to the value of the card'."""
    b = table()
    around(b)
    irr = b.irregularity(card, kind="CARD_FACE_UP_IN_SHOE", extra=extra)
    around(b)
    f = only(b.replay())
    assert (f.code, f.severity, f.event_ids) == (
        "PB-3.12d-FACE-UP",
        Severity.MEDIUM,
        (irr.reported, *irr.discards),
    )
    assert f.message == (
        f"A card face up in shoe ({rank}) goes to the discard rack with {expected} more cards "
        f"(N.J.A.C. 19:47-3.12(d)); {extra} more were discarded."
    )


@pytest.mark.rule("PB-3.12d-FACE-UP")
def test_card_face_up_in_the_shoe_handled_correctly() -> None:
    """PB-3.12d-FACE-UP, N.J.A.C. 19:47-3.12(d): a seven and seven more; a king and none."""
    b = table()
    around(b)
    b.irregularity("7D", kind="CARD_FACE_UP_IN_SHOE")
    around(b)
    b.irregularity("KD", kind="CARD_FACE_UP_IN_SHOE")
    around(b)
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.parametrize("discarded", [False, True])
@pytest.mark.rule("PB-3.12b-DRAWN-IN-ERROR")
def test_undisclosed_card_drawn_in_error_opens_the_next_hand(discarded: bool) -> None:
    """PB-3.12b-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(b): 'A card drawn in error from the shoe
    shall be used as the first card of the next hand of play'; discarding it instead is
    found."""
    b = table("pb-5-classic")
    around(b)
    position = b.position
    report = b.emit(
        "pit",
        "IrregularityReported",
        round_id=None,
        kind="CARD_DRAWN_IN_ERROR",
        procedure=None,
        card_rank=None,
        card_suit=None,
        note=None,
        shoe_id=b.shoe_id,
        position=position,
        reported_by="DLR-1",
    )
    if discarded:
        b.emit(
            "shoe",
            "CardDealt",
            shoe_id=b.shoe_id,
            round_id=None,
            position=position,
            rank="NINE",
            suit="CLUBS",
            hand="DISCARD",
            face_up=False,
        )
        b.position += 1
    nxt = b.round(**ROUND)
    result = b.replay()
    if not discarded:
        assert codes(result) == []
        return
    f = only(result, "PB-3.12b-DRAWN-IN-ERROR")
    assert (f.severity, f.round_id) == (Severity.MEDIUM, nxt.round_id)
    assert f.event_ids[0] == report
    assert f"position {position} was not the first card of the next hand" in f.message
