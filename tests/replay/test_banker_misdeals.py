"""Chemin de Fer: the Banker's own dealing errors, N.J.A.C. 19:47-4.12(a)-(d) and (i), raised
from the pit's IrregularityReported events and the cards.

A report that names no card (no shoe position) says the excess card cannot be told, so the
deal cannot be rectified: 4.12(b)-(d) then count the hands. A report naming the card the
Banker took for his hand when the Dominant Player had called for it is 4.12(i)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import DealtInError, Misdealt, TableDayBuilder, codes, only, table

BANK: dict[str, Any] = {
    "seat": 1,
    "amount": 10_000,
    "bids": {1: 10_000},
    "banco": [(2, "BANCO_SEUL", None)],
}
AGAIN: dict[str, Any] = {"seat": 1, "amount": 10_000, "banco": [(2, "BANCO_SEUL", None)]}
"""The same Banker's next hand (no new bids)."""


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


# --- 4.12(a): cards taken in the wrong order in the initial deal --------------------------------


@pytest.mark.rule("CF-4.12a-WRONG-ORDER")
def test_annulled_hand_voided_and_returned_finds_nothing() -> None:
    """CF-4.12a-WRONG-ORDER, N.J.A.C. 19:47-4.12(a): the Banker took the third card of the
    initial deal for his hand (P-B-B-P) and could not rectify it; the hand is annulled, voided
    with its wagers returned, and play goes on from the same shoe (it is no void for
    insufficient cards, 4.12(k)): nothing to find."""
    b = cf()
    r = b.round(
        player="TH 6C",
        banker="3D 4S",
        bank=BANK,
        order="PBBP",
        misdealt=Misdealt("BANKER_WRONG_ORDER"),
    )
    b.round(player="TH 6C", banker="3D 4S", bank=AGAIN)
    result = b.replay()
    assert result.findings == []
    assert [row.status for row in result.rounds] == ["VOID", "COMPLETE"]
    assert r.voided is not None


@pytest.mark.rule("CF-4.12a-WRONG-ORDER")
def test_annulled_hand_played_and_settled() -> None:
    """CF-4.12a-WRONG-ORDER, N.J.A.C. 19:47-4.12(a): "the hand shall be annulled"; the dealer
    announced and settled it from the cards as the Banker took them. One finding, citing
    4.12(a), not the deal order of 4.8(d) the report already explains."""
    b = cf()
    r = b.round(
        player="TH 6C",
        banker="3D 4S",
        bank=BANK,
        order="PBBP",
        misdealt=Misdealt("BANKER_WRONG_ORDER", played=True),
    )
    f = only(b.replay())
    settled = tuple(i for ids in r.settled.values() for i in ids)
    assert (f.code, f.severity, f.round_id) == ("CF-4.12a-WRONG-ORDER", Severity.HIGH, r.round_id)
    assert f.event_ids[0] == r.misdeal_reported and set(f.event_ids[1:]) == set(settled)
    assert "(P-B-B-P, reported by event" in f.message
    assert "the hand is annulled (N.J.A.C. 19:47-4.12(a))" in f.message
    assert "2 wager(s) settled instead" in f.message


@pytest.mark.rule("CF-4.12a-WRONG-ORDER")
def test_annulled_hand_paid_as_a_win_cites_4_12_a() -> None:
    """CF-4.12a-WRONG-ORDER, N.J.A.C. 19:47-4.12(a): the annulled hand was voided, but the
    wager against the Banker was paid as a win: the money moved on a hand that does not
    count, under the rule that annulled it (not 4.12(k))."""
    b = cf()
    r = b.round(
        player="TH 6C",
        banker="3D 4S",
        bank=BANK,
        order="PBBP",
        misdealt=Misdealt("BANKER_WRONG_ORDER"),
    )
    paid_id = r.settled_id(2, "PLAYER")
    events = [
        replace(e, fields={**e.fields, "outcome": "WIN", "paid_cents": 10_000})
        if e.event_id == paid_id
        else e
        for e in b.events
    ]
    f = only(b.replay(events))
    assert (f.code, f.severity, f.seat, f.actual_cents) == (
        "CF-4.12a-WRONG-ORDER",
        Severity.CRITICAL,
        2,
        10_000,
    )
    assert f.event_ids == (r.voided, paid_id)


@pytest.mark.rule("CF-4.12a-WRONG-ORDER", "CF-4.8d-DEAL-ORDER")
def test_wrong_order_without_a_report_is_the_deal_order() -> None:
    """CF-4.8d-DEAL-ORDER, N.J.A.C. 19:47-4.8(d), 4.12(a): without the pit's report the
    replay cannot know the error could not be rectified; the cards out of order are a 4.8(d)
    finding, and 4.12(a) is not guessed."""
    b = cf()
    b.round(player="TH 6C", banker="3D 4S", bank=BANK, order="PBBP")
    assert codes(b.replay()) == ["CF-4.8d-DEAL-ORDER"]


# --- 4.12(b)-(d): counts the regulation gives a deal that cannot be rectified -------------------

CASES = [
    # (code, hands as dealt, order, legal announcement, as-dealt announcement)
    (
        "CF-4.12b-BANKER-EXTRA",
        {"player": "TH 6C", "banker": "3D 4S 2H", "kind": "BANKER_EXTRA_CARD"},
        None,  # P-B-P-B-B: the third Banker card in the initial deal
        (6, 0, "PLAYER"),
        (6, 9, "BANKER"),
    ),
    (
        "CF-4.12c-PLAYER-EXTRA",
        {"player": "4H 4C 9D", "banker": "3D 3S", "kind": "PLAYER_EXTRA_CARD"},
        "PBPPB",
        (8, 6, "PLAYER"),  # 4+4, the highest of two or three cards
        (7, 6, "PLAYER"),
    ),
    (
        "CF-4.12d-BANKER-TWO",
        {"player": "7H KC", "banker": "2D 3S 4H 9C", "kind": "BANKER_EXTRA_CARD"},
        "PBPBBB",  # the Player stayed; the Banker took two cards instead of one
        (7, 4, "PLAYER"),  # 5+9, the lowest two-card hand completed by either extra card
        (7, 8, "BANKER"),
    ),
]


@pytest.mark.parametrize(("code", "dealt", "order", "legal", "_as_dealt"), CASES)
@pytest.mark.rule("CF-4.12b-BANKER-EXTRA", "CF-4.12c-PLAYER-EXTRA", "CF-4.12d-BANKER-TWO")
def test_unrectified_deal_counted_by_the_rule_finds_nothing(
    code: str,
    dealt: dict[str, str],
    order: str | None,
    legal: tuple[int, int, str],
    _as_dealt: tuple[int, int, str],
) -> None:
    """CF-4.12b-BANKER-EXTRA, CF-4.12c-PLAYER-EXTRA, CF-4.12d-BANKER-TWO, N.J.A.C.
    19:47-4.12(b)-(d): the extra card reported without naming it; the round announced and
    settled by the count the rule gives is legal, whatever the cards add up to."""
    b = cf()
    b.round(
        player=dealt["player"],
        banker=dealt["banker"],
        bank=BANK,
        order=order,
        misdealt=Misdealt(dealt["kind"]),
    )
    result = b.replay()
    assert result.findings == []
    row = result.rounds[0]
    assert (row.player_points, row.banker_points, row.winner) == legal


NAMES = ("Player count", "Banker count", "winner")
"""What an announcement states, in the order of the cases' counts."""


@pytest.mark.parametrize(("code", "dealt", "order", "legal", "as_dealt"), CASES)
@pytest.mark.rule("CF-4.12b-BANKER-EXTRA", "CF-4.12c-PLAYER-EXTRA", "CF-4.12d-BANKER-TWO")
def test_unrectified_deal_announced_from_the_cards(
    code: str,
    dealt: dict[str, str],
    order: str | None,
    legal: tuple[int, int, str],
    as_dealt: tuple[int, int, str],
) -> None:
    """CF-4.12b-BANKER-EXTRA, CF-4.12c-PLAYER-EXTRA, CF-4.12d-BANKER-TWO, N.J.A.C.
    19:47-4.12(b)-(d): the dealer announced the hands as the cards add up, not as the rule
    counts them: one finding citing the subsection, none for the deal order or Table 3, which
    do not judge such a deal."""
    b = cf()
    p, bk, winner = as_dealt
    r = b.round(
        player=dealt["player"],
        banker=dealt["banker"],
        bank=BANK,
        order=order,
        misdealt=Misdealt(dealt["kind"]),
        announce={"player_points": p, "banker_points": bk, "winner": winner},
    )
    f = only(b.replay())
    section = code.split("-")[1]
    assert (f.code, f.severity, f.round_id) == (code, Severity.HIGH, r.round_id)
    assert f.event_ids[:2] == (r.announced, r.misdeal_reported)
    citation = f"N.J.A.C. 19:47-{section[:4]}({section[4]})"
    wrong = [
        f"{name} {said} (the rule counts {counted})"
        for name, said, counted in zip(NAMES, as_dealt, legal, strict=True)
        if said != counted
    ]
    assert f.message == (
        f"The dealer announced {'; '.join(wrong)} ({citation}); the Banker's deal, reported by "
        f"event {r.misdeal_reported} without naming the excess card, cannot be rectified and "
        "counts by the rule, not as the cards lie."
    )


@pytest.mark.rule("CF-4.12b-BANKER-EXTRA")
def test_banker_regarded_as_zero_draws_on() -> None:
    """CF-4.12b-BANKER-EXTRA, N.J.A.C. 19:47-4.12(b): "the Point Count of his hand shall be
    regarded as zero and the play shall proceed in accordance with section 9": the card the
    Banker draws after it counts on top of zero (5), not on top of his three cards (9+5=4)."""
    b = cf()
    b.round(
        player="TH 6C",
        banker="3D 4S 2H 5C",
        bank=BANK,
        order="PBPBBB",
        misdealt=Misdealt("BANKER_EXTRA_CARD", after=5),
    )
    result = b.replay()
    assert result.findings == []
    assert (result.rounds[0].banker_points, result.rounds[0].winner) == (5, "PLAYER")
    wrong = cf()
    wrong.round(
        player="TH 6C",
        banker="3D 4S 2H 5C",
        bank=BANK,
        order="PBPBBB",
        misdealt=Misdealt("BANKER_EXTRA_CARD", after=5),
        announce={"banker_points": 4},
    )
    assert codes(wrong.replay()) == ["CF-4.12b-BANKER-EXTRA"]


@pytest.mark.rule("CF-4.12b-BANKER-EXTRA")
def test_extra_card_report_that_fits_no_rule() -> None:
    """CF-4.12b-BANKER-EXTRA, N.J.A.C. 19:47-4.12(b)-(d): an extra Banker card reported
    while each hand holds two cards describes no deal of (b) or (d); the report cannot be
    applied and says so, and the round counts its cards."""
    b = cf()
    b.round(
        player="TH 6C",
        banker="3D 4S",
        bank=BANK,
        misdealt=Misdealt("BANKER_EXTRA_CARD", after=4),
    )
    f = only(b.replay())
    assert (f.code, f.severity, f.event_ids) == (
        "CF-4.12b-BANKER-EXTRA",
        Severity.MEDIUM,
        (next(e.event_id for e in b.events if e.payload_type == "IrregularityReported"),),
    )
    assert "held 2 cards and the Banker's 2" in f.message


# --- 4.12(i): the card the Dominant Player called for, taken by the Banker ------------------------

CALLED = DealtInError("9D", kind="BANKER_EXTRA_CARD", face_up=False, at=4)
"""The fifth card, which the Dominant Player holding 3 called for, taken by the Banker."""


@pytest.mark.rule("CF-4.12i-CARD-TO-PLAYER")
def test_card_given_to_the_dominant_player_finds_nothing() -> None:
    """CF-4.12i-CARD-TO-PLAYER, N.J.A.C. 19:47-4.12(i): the Banker gave the card to the
    Dominant Player (Player 3+9=2) and stayed by Table 3 on his 7: nothing to find."""
    b = cf()
    b.round(player="TH 3C 9D", banker="4D 3S", bank=BANK, in_error=CALLED)
    result = b.replay()
    assert result.findings == []
    row = result.rounds[0]
    assert (row.player_cards, row.banker_cards, row.player_points) == ("TH 3C 9D", "4D 3S", 2)


@pytest.mark.rule("CF-4.12i-CARD-TO-PLAYER", "CF-4.9c-TABLE3")
def test_banker_draws_by_table_3_against_the_card_he_gave() -> None:
    """CF-4.12i-CARD-TO-PLAYER, CF-4.9c-TABLE3, N.J.A.C. 19:47-4.12(i): "thereafter either
    draw or not draw a third card for his hand as may be required": the Banker with 2 must
    draw (Table 3) whatever the Player's third card; a Banker who then stays is a Table 3
    finding, judged against the card he gave."""
    b = cf()
    b.round(player="TH 3C 9D", banker="2D KS 5C", bank=BANK, in_error=CALLED)
    assert b.replay().findings == []
    stays = cf()
    stays.round(player="TH 3C 9D", banker="2D KS", bank=BANK, in_error=CALLED)
    assert codes(stays.replay()) == ["CF-4.9c-TABLE3"]


@pytest.mark.rule("CF-4.12i-CARD-TO-PLAYER", "CF-4.10a-ANNOUNCE")
def test_banker_kept_the_card_the_player_called_for() -> None:
    """CF-4.12i-CARD-TO-PLAYER, CF-4.10a-ANNOUNCE, N.J.A.C. 19:47-4.12(i): the Banker kept the
    card and the hands were announced as dealt (Player 3, Banker 4+3+9=6) instead of Player
    2, Banker 7: the 4.12(i) finding, and the announcement that disagrees with the hands; no
    Table 3 finding for a Banker who, holding the card, drew nothing more."""
    b = cf()
    r = b.round(
        player="TH 3C 9D",
        banker="4D 3S",
        bank=BANK,
        in_error=CALLED,
        announce={"player_points": 3, "banker_points": 6},
    )
    result = b.replay()
    assert codes(result) == ["CF-4.10a-ANNOUNCE", "CF-4.12i-CARD-TO-PLAYER"]
    f = only(result, "CF-4.12i-CARD-TO-PLAYER")
    assert f.round_id == r.round_id
    assert "it goes to the Dominant Player, who called for it (N.J.A.C. 19:47-4.12(i))" in (
        f.message
    )


@pytest.mark.rule("CF-4.12i-CARD-TO-PLAYER", "CF-4.12g-DRAWN-IN-ERROR")
def test_player_who_stayed_called_for_nothing() -> None:
    """CF-4.12g-DRAWN-IN-ERROR, N.J.A.C. 19:47-4.12(g), (i): with 7 the Dominant Player stays,
    so an extra card the Banker took is no card called for: it is a card drawn in error, the
    next hand's first card (4.12(g)), and the next hand opening with it finds nothing."""
    b = cf()
    b.round(
        player="TH 7C",
        banker="3D 4S",
        bank=BANK,
        in_error=DealtInError("9D", kind="BANKER_EXTRA_CARD", face_up=False, then="NEXT_HAND"),
    )
    b.round(player="9D KC", banker="2D 3S", bank=AGAIN)
    assert b.replay().findings == []


@pytest.mark.parametrize(
    ("then", "found"), [("NEXT_HAND", []), ("NOTHING", ["CF-4.12g-DRAWN-IN-ERROR"])]
)
@pytest.mark.rule("CF-4.12c-PLAYER-EXTRA", "CF-4.12g-DRAWN-IN-ERROR")
def test_named_extra_player_card_is_rectified(then: str, found: list[str]) -> None:
    """CF-4.12g-DRAWN-IN-ERROR, N.J.A.C. 19:47-4.12(c), (g): a third card to the Dominant Player
    that the report names can be told from the others, so (c) does not count the hand: the
    card is one drawn in error, undisclosed, and opens the next hand; set aside instead, the
    next hand opening with a fresh card is the (g) finding. The round itself counts its two
    cards either way."""
    b = cf()
    r = b.round(
        player="TH 6C",
        banker="3D 4S",
        bank=BANK,
        in_error=DealtInError("9D", kind="PLAYER_EXTRA_CARD", face_up=False, then=then),
    )
    b.round(player="9D KC" if then == "NEXT_HAND" else "8D KC", banker="2D 3S", bank=AGAIN)
    result = b.replay()
    assert codes(result) == found
    assert (result.rounds[0].player_points, result.rounds[0].round_id) == (6, r.round_id)


@pytest.mark.rule("CF-4.12b-BANKER-EXTRA", "NJ-DATA-GAP")
def test_extra_card_report_in_a_round_that_lost_a_card_is_not_judged() -> None:
    """CF-4.12b-BANKER-EXTRA, NJ-DATA-GAP, N.J.A.C. 19:47-4.12(b): the Banker's extra card is
    reported after the initial deal (P-B-P-B-B), but the shoe's reading of the fifth card never
    arrived. The report looks as if made on two cards each, which none of 4.12(b)-(d)
    describes; the round is incomplete and its cards unknown, so only the gap is reported."""
    b = cf()
    r = b.round(
        player="TH 6C", banker="3D 4S 2H", bank=BANK, misdealt=Misdealt("BANKER_EXTRA_CARD")
    )
    b.end_shoe()
    lost = r.cards[4]
    assert codes(b.replay(e for e in b.events if e.event_id != lost)) == ["NJ-DATA-GAP"]
