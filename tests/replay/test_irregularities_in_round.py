"""Every kind of irregularity reported during a round at a Punto Banco or Minibaccarat table:
N.J.A.C. 19:47-3.12(a)-(e) and 7.11(a)-(d) (its (e), insufficient cards, as 3.12(e)).

None of these rules ends a round early: the round goes on, rectified where the rule sends the
card, void only where 3.12(e) voids it, and is judged when it closes. So the legal handling of
each kind raises nothing (no "never settled", no "no result announced"), and the mishandled
one raises the irregularity's own code."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay.builder import DealtInError, Misdealt, codes, only, table

WAGERS: dict[int, dict[str, int]] = {3: {"BANKER": 10_000}, 5: {"PLAYER": 10_000}}
BANKER_MUST_STAY: dict[str, Any] = {"player": "TH 7C", "banker": "3D 4S", "wagers": WAGERS}
NEXT: dict[str, Any] = {"player": "9H KC", "banker": "2D 3S", "wagers": WAGERS}  # opens with 9H
SHORT_SHOE = 4 + 5  # 4 burned, 5 left: the shoe cannot complete a round

GAMES = ["pb-5-classic", "mb-5-rounded"]
SECTION = {"pb-5-classic": "3.12", "mb-5-rounded": "7.11"}
CODES = {
    "pb-5-classic": {
        "unauthorized_third": "PB-3.12a-UNAUTHORIZED-THIRD",
        "drawn_in_error": "PB-3.12b-DRAWN-IN-ERROR",
        "disclosed": "PB-3.12c-DISCLOSED",
        "face_up": "PB-3.12d-FACE-UP",
    },
    "mb-5-rounded": {
        "unauthorized_third": "MB-7.11a-UNAUTHORIZED-THIRD",
        "drawn_in_error": "MB-7.11b-DRAWN-IN-ERROR",
        "disclosed": "MB-7.11c-DISCLOSED",
        "face_up": "MB-7.11d-FACE-UP",
    },
}


def assert_played_out(result: Any) -> None:
    """The round was judged as a whole: one COMPLETE row, announced and settled."""
    statuses = [row.status for row in result.rounds]
    assert statuses and set(statuses) == {"COMPLETE"}, statuses
    assert not any("never settled" in f.message for f in result.findings)
    assert not any("No result was announced" in f.message for f in result.findings)


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD", "MB-7.11a-UNAUTHORIZED-THIRD")
def test_player_extra_card_becomes_the_bankers_third_card(rules_id: str) -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, MB-7.11a-UNAUTHORIZED-THIRD, N.J.A.C. 19:47-3.12(a),
    7.11(a): PLAYER_EXTRA_CARD where the dealer deals is a third card no rule authorized.
    Player 6 stays, Banker 5 must draw: the card is the Banker's third, so done, nothing is
    wrong and the round is played out (it used to be closed at the report)."""
    b = table(rules_id)
    b.round(
        player="TH 6C",
        banker="3D 2S 9H",
        wagers=WAGERS,
        in_error=DealtInError("9H", kind="PLAYER_EXTRA_CARD"),
    )
    b.end_shoe()
    result = b.replay()
    assert codes(result) == []
    assert_played_out(result)
    assert (result.rounds[0].banker_cards, result.rounds[0].winner) == ("3D 2S 9H", "PLAYER")


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD", "MB-7.11a-UNAUTHORIZED-THIRD")
def test_player_extra_card_kept_by_the_player(rules_id: str) -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, MB-7.11a-UNAUTHORIZED-THIRD, N.J.A.C. 19:47-3.12(a),
    7.11(a): the dealer left the extra card with the Player and announced a 5-5 tie."""
    b = table(rules_id)
    r = b.round(
        player="TH 6C 9H",
        banker="3D 2S",
        wagers=WAGERS,
        in_error=DealtInError("9H", kind="PLAYER_EXTRA_CARD"),
    )
    result = b.replay()
    f = only(result, CODES[rules_id]["unauthorized_third"])
    assert f.round_id == r.round_id
    assert f.message == (
        "Round announced 5-5, counting the card dealt to the Player's Hand in excess (9H, "
        "position 8) in the Player's Hand; it becomes the Banker's third card (N.J.A.C. "
        f"19:47-{SECTION[rules_id]}(a)), which makes the round 6-4 PLAYER."
    )
    assert_played_out(result)


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.parametrize("kind", ["CARD_DRAWN_IN_ERROR", "CARD_DISCLOSED_IN_ERROR"])
@pytest.mark.rule("PB-3.12b-DRAWN-IN-ERROR", "MB-7.11b-DRAWN-IN-ERROR")
def test_card_in_error_named_by_position_opens_the_next_hand(rules_id: str, kind: str) -> None:
    """PB-3.12b-DRAWN-IN-ERROR, MB-7.11b-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(b), 7.11(b): a
    report naming, by its position, an undisclosed card the Banker's Hand received in error;
    it opens the next hand, and the round goes on without it."""
    b = table(rules_id)
    b.round(
        **BANKER_MUST_STAY,
        in_error=DealtInError("9H", kind=kind, face_up=False, then="NEXT_HAND"),
    )
    b.round(**NEXT)
    b.end_shoe()
    result = b.replay()
    assert codes(result) == []
    assert_played_out(result)
    assert result.rounds[0].banker_cards == "3D 4S"


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.rule("PB-3.12b-DRAWN-IN-ERROR", "MB-7.11b-DRAWN-IN-ERROR")
def test_card_drawn_in_error_counted_in_the_bankers_hand(rules_id: str) -> None:
    """PB-3.12b-DRAWN-IN-ERROR, MB-7.11b-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(b), 7.11(b): the
    dealer counted the card drawn in error (Banker 6, Player wins) instead of keeping it for
    the next hand (7-7)."""
    b = table(rules_id)
    b.round(
        player="TH 7C",
        banker="3D 4S 9H",
        wagers=WAGERS,
        in_error=DealtInError("9H", kind="CARD_DRAWN_IN_ERROR", face_up=False, then="NEXT_HAND"),
    )
    b.round(**NEXT)
    result = b.replay()
    f = only(result, CODES[rules_id]["drawn_in_error"])
    assert f.message.endswith("which makes the round 7-7 TIE.")
    assert_played_out(result)


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.parametrize(("extra", "wrong"), [(None, False), (3, True)])
@pytest.mark.rule("PB-3.12c-DISCLOSED", "MB-7.11c-DISCLOSED")
def test_disclosed_card_named_by_position(rules_id: str, extra: int | None, wrong: bool) -> None:
    """PB-3.12c-DISCLOSED, MB-7.11c-DISCLOSED, N.J.A.C. 19:47-3.12(c)1, 7.11(c)1: a card
    disclosed in error to the Banker's Hand, which must stay, goes to the discard rack with
    as many more as its value (9H: nine); three more is the wrong count. Either way the
    round is played out."""
    b = table(rules_id)
    b.round(
        **BANKER_MUST_STAY,
        in_error=DealtInError("9H", kind="CARD_DISCLOSED_IN_ERROR", then="DISCARD", discards=extra),
    )
    b.round(player="9C KC", banker="2D 3S", wagers=WAGERS)
    b.end_shoe()
    result = b.replay()
    assert codes(result) == ([CODES[rules_id]["disclosed"]] if wrong else [])
    assert_played_out(result)


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.parametrize(
    ("kind", "subject"),
    [("CARD_FACE_UP_IN_SHOE", "face_up"), ("CARD_DISCLOSED_IN_ERROR", "disclosed")],
)
@pytest.mark.parametrize(("extra", "wrong"), [(None, False), (2, True)])
@pytest.mark.rule(
    "PB-3.12d-FACE-UP", "MB-7.11d-FACE-UP", "PB-3.12c-DISCLOSED", "MB-7.11c-DISCLOSED"
)
def test_card_discarded_in_the_middle_of_a_round(
    rules_id: str, kind: str, subject: str, extra: int | None, wrong: bool
) -> None:
    """PB-3.12d-FACE-UP, MB-7.11d-FACE-UP, PB-3.12c-DISCLOSED, MB-7.11c-DISCLOSED, N.J.A.C.
    19:47-3.12(c)1, (d), 7.11(c)1, (d): a card found face up in the shoe, or disclosed in
    error, after the first two cards of the round: it and as many more as its value (7D:
    seven) go to the discard rack, and the round goes on with the next cards. Two more is the
    wrong count."""
    b = table(rules_id)
    b.round(
        **BANKER_MUST_STAY,
        misdealt=Misdealt(kind, after=2, card="7D", discards=extra),
    )
    b.end_shoe()
    result = b.replay()
    assert codes(result) == ([CODES[rules_id][subject]] if wrong else [])
    assert_played_out(result)
    assert (result.rounds[0].player_cards, result.rounds[0].banker_cards) == ("TH 7C", "3D 4S")


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_round_reported_short_of_cards_and_voided(rules_id: str) -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12(e) (Minibaccarat by 7.11 as 3.12): the pit
    reports the shoe cannot complete the round and voids it, returning the wagers: legal."""
    b = table(rules_id, cards_in_shoe=SHORT_SHOE)
    void = b.voided_round(wagers=WAGERS, reported=True)
    result = b.replay()
    # The short shoe itself is judged by 3.1(a), 3.5(e); the round, by 3.12(e), is not.
    assert [f.render() for f in result.findings if f.round_id == void.round_id] == []
    assert "PB-3.12e-INSUFFICIENT" not in codes(result)
    assert [(row.round_id, row.status) for row in result.rounds] == [(void.round_id, "VOID")]


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_round_reported_short_of_cards_but_dealt_on(rules_id: str) -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12(e): the pit reported insufficient cards,
    then the dealer dealt the round to a result and settled it instead of voiding it."""
    b = table(rules_id)
    r = b.round(**BANKER_MUST_STAY, misdealt=Misdealt("INSUFFICIENT_CARDS", after=2, played=True))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.round_id) == ("PB-3.12e-INSUFFICIENT", r.round_id)
    assert f.event_ids == (r.misdeal_reported, r.started)
    assert "was dealt on instead of voided" in f.message
    assert "(N.J.A.C. 19:47-3.12(e))" in f.message


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.parametrize("kind", ["BANKER_WRONG_ORDER", "OTHER"])
@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_report_no_irregularity_rule_acts_on(rules_id: str, kind: str) -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12, 7.11: where the dealer deals, no rule voids a
    round for the order of the deal (that is 4.12(a), the Chemin de Fer Banker's), nor for an
    OTHER report. The round is played out from its cards and nothing is wrong."""
    b = table(rules_id)
    b.round(**BANKER_MUST_STAY, misdealt=Misdealt(kind, after=2, played=True))
    b.end_shoe()
    result = b.replay()
    assert codes(result) == []
    assert_played_out(result)


@pytest.mark.parametrize("rules_id", GAMES)
@pytest.mark.rule("PB-3.12e-INSUFFICIENT")
def test_round_voided_for_the_order_of_the_deal(rules_id: str) -> None:
    """PB-3.12e-INSUFFICIENT, N.J.A.C. 19:47-3.12(e): the dealer voided a round reported dealt
    in the wrong order, with the shoe far from empty; only insufficient cards void a round
    here (the annulment of 4.12(a) is Chemin de Fer's)."""
    b = table(rules_id)
    r = b.round(**BANKER_MUST_STAY, misdealt=Misdealt("BANKER_WRONG_ORDER"))
    b.end_shoe()
    f = only(b.replay())
    assert (f.code, f.round_id) == ("PB-3.12e-INSUFFICIENT", r.round_id)
    assert f.event_ids == (r.voided, *r.cards)
    assert f.message.startswith(
        f"Round {r.round_id} was voided (Banker took cards in the wrong order) after "
        f"{len(r.cards)} of its cards were dealt with "
    )
    assert f.message.endswith(
        "only a shoe that cannot complete the round voids it, and six always complete a round "
        "(N.J.A.C. 19:47-3.12(e))."
    )


@pytest.mark.parametrize(("simulated", "found"), [(True, []), (False, ["PB-3.12c-DISCLOSED"])])
@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_card_disclosed_in_a_round_opens_the_simulated_round_after_it(
    simulated: bool, found: list[str]
) -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(c)3 (pb-dragon's procedure): a card disclosed
    in the middle of a round is the first card of a simulated round, which can only follow
    the round in play; the round's own next cards do not count it as missing. Without the
    simulated round, the next real round raises the finding."""
    b = table("pb-dragon")
    b.round(**BANKER_MUST_STAY, misdealt=Misdealt("CARD_DISCLOSED_IN_ERROR", after=2, card="5D"))
    if simulated:
        b.round(player="5D 4C", banker="3H 3S", simulated=True)
    b.round(**NEXT)
    b.end_shoe()
    result = b.replay()
    assert codes(result) == found
    assert result.rounds[0].status == "COMPLETE"
    if found:
        assert "none was dealt" in only(result).message
