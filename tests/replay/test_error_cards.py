"""A card dealt in error during a round, reported there: N.J.A.C. 19:47-3.12(a)-(c), 4.12(e)-(h)
and 7.11(a)-(c). The round goes on with the card where the regulation sends it; its
announcement and settlements are checked against the corrected hands, and the irregularity's
own code is raised only when the dealer did not follow the procedure."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import DealtInError, codes, only, table

WAGERS: dict[int, dict[str, int]] = {3: {"BANKER": 10_000}, 5: {"PLAYER": 10_000}}

# Player 7 and Banker 7 both stay: the card dealt in error cannot be used in this round.
BANKER_MUST_STAY: dict[str, Any] = {"player": "TH 7C", "banker": "3D 4S", "wagers": WAGERS}
NEXT: dict[str, Any] = {"player": "9H KC", "banker": "2D 3S", "wagers": WAGERS}  # opens with 9H


def cf_bank() -> dict[str, Any]:
    return {"seat": 1, "amount": 10_000, "banco": [(5, "BANCO_SEUL", None)]}


@pytest.mark.parametrize(
    ("rules_id", "stakes"),
    [
        ("pb-5-classic", {"wagers": WAGERS}),
        ("mb-5-rounded", {"wagers": WAGERS}),
        ("cf-5", {"bank": cf_bank()}),
    ],
)
@pytest.mark.rule(
    "PB-3.12a-UNAUTHORIZED-THIRD", "MB-7.11a-UNAUTHORIZED-THIRD", "CF-4.12e-CARD-AFTER-STAY"
)
def test_card_that_becomes_the_bankers_third_card_raises_nothing(
    rules_id: str, stakes: dict[str, Any]
) -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, MB-7.11a-UNAUTHORIZED-THIRD, CF-4.12e-CARD-AFTER-STAY,
    N.J.A.C. 19:47-3.12(a), 7.11(a), 4.12(e): Player 6 stays and Banker 5 must draw (Table 2, no
    Player third card), so a 9H dealt to the Player's Hand (the Dominant Player after "Stay")
    when the Banker's Hand must draw is the Banker's third card; the round is announced and
    settled with it there, and nothing is wrong."""
    b = table(rules_id)
    b.round(player="TH 6C", banker="3D 2S 9H", **stakes, in_error=DealtInError("9H"))
    b.end_shoe()
    result = b.replay()
    assert codes(result) == []  # a 5-5 tie had the Player kept it; Player wins 6-4
    (row,) = result.rounds
    assert (row.status, row.player_cards, row.banker_cards, row.winner) == (
        "COMPLETE",
        "TH 6C",
        "3D 2S 9H",
        "PLAYER",
    )


@pytest.mark.parametrize(
    ("rules_id", "code", "section"),
    [
        ("pb-5-classic", "PB-3.12a-UNAUTHORIZED-THIRD", "3.12(a)"),
        ("mb-5-rounded", "MB-7.11a-UNAUTHORIZED-THIRD", "7.11(a)"),
    ],
)
@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD", "MB-7.11a-UNAUTHORIZED-THIRD")
def test_banker_given_another_card_instead(rules_id: str, code: str, section: str) -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, MB-7.11a-UNAUTHORIZED-THIRD, N.J.A.C. 19:47-3.12(a),
    7.11(a): the card in error is the Banker's third card; the dealer gave the
    Banker a fresh card from the shoe instead (of the same value, so only the procedure is
    wrong)."""
    b = table(rules_id)
    r = b.round(player="TH 6C", banker="3D 2S 9C", wagers=WAGERS, in_error=DealtInError("9H"))
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id) == (code, Severity.HIGH, r.round_id)
    assert f.message == (
        "The card dealt to the Player's Hand without authorization (9H, position 8) becomes "
        f"the Banker's third card, because the Banker's Hand must draw (N.J.A.C. 19:47-{section}"
        "); the Banker's Hand took another card (9C) instead."
    )
    assert f.event_ids[1:] == (r.cards[4], r.cards[5])


@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD")
def test_card_left_with_the_player_is_announced_and_settled_wrongly() -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, N.J.A.C. 19:47-3.12(a): the dealer let the Player's Hand
    keep the card and settled a 5-5 tie; by the
    rule the Banker drew it and the Player won 6-4. The procedure finding names the cause;
    the announcement and both settlements are wrong against the corrected hands."""
    b = table()
    r = b.round(player="TH 6C 9H", banker="3D 2S", wagers=WAGERS, in_error=DealtInError("9H"))
    result = b.replay()
    assert codes(result) == sorted(
        ["PB-3.12a-UNAUTHORIZED-THIRD", "PB-3.10a-ANNOUNCE", "PB-3.2a1-BANKER", "PB-3.3a-PLAYER"]
    )
    f = only(result, "PB-3.12a-UNAUTHORIZED-THIRD")
    assert f.severity is Severity.HIGH
    assert f.message == (
        "Round announced 5-5, counting the card dealt to the Player's Hand without "
        "authorization (9H, position 8) in the Player's Hand; it becomes the Banker's third "
        "card (N.J.A.C. 19:47-3.12(a)), which makes the round 6-4 PLAYER."
    )
    assert f.event_ids[-1] == r.announced
    paid = {(s.seat, s.wager): (s.expected_result, s.recorded_result) for s in result.settlements}
    assert paid == {(3, "BANKER"): ("LOSE", "VOID"), (5, "PLAYER"): ("WIN", "VOID")}


@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD")
def test_card_discarded_instead_of_going_to_the_banker() -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, N.J.A.C. 19:47-3.12(a): the card the Banker's Hand had to
    take went to the discard rack."""
    b = table()
    b.round(
        player="TH 6C",
        banker="3D 2S",
        wagers=WAGERS,
        in_error=DealtInError("9H", then="DISCARD", discards=9),
    )
    result = b.replay()
    f = only(result, "PB-3.12a-UNAUTHORIZED-THIRD")
    assert f.message.endswith("; it was discarded instead.")
    # The dealer announced Banker 5, the corrected Banker's Hand counts 4.
    assert "Banker count 5 (cards show 4)" in only(result, "PB-3.10a-ANNOUNCE").message


@pytest.mark.parametrize("kind", ["PLAYER_THIRD_CARD_UNAUTHORIZED", "BANKER_EXTRA_CARD"])
@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD", "PB-3.12b-DRAWN-IN-ERROR")
def test_undisclosed_card_opens_the_next_hand(kind: str) -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, PB-3.12b-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(a)-(b): when
    the Banker's Hand stays, the undisclosed card dealt in error is the first card of the next
    hand; done so, nothing is wrong."""
    b = table()
    b.round(
        **BANKER_MUST_STAY, in_error=DealtInError("9H", kind=kind, face_up=False, then="NEXT_HAND")
    )
    nxt = b.round(**NEXT)
    b.end_shoe()
    result = b.replay()
    assert codes(result) == []
    assert result.rounds[0].player_cards == "TH 7C"
    assert result.rounds[0].banker_cards == "3D 4S"
    assert b.by_id(nxt.cards[0]).fields["position"] == 8


PLAYER_THIRD = (
    "PLAYER_THIRD_CARD_UNAUTHORIZED",
    "dealt to the Player's Hand without authorization",
)
BANKER_EXTRA = ("BANKER_EXTRA_CARD", "dealt to the Banker's Hand in excess")


@pytest.mark.parametrize(
    ("rules_id", "error", "code", "section"),
    [
        ("pb-5-classic", PLAYER_THIRD, "PB-3.12a-UNAUTHORIZED-THIRD", "3.12(a)"),
        ("pb-5-classic", BANKER_EXTRA, "PB-3.12b-DRAWN-IN-ERROR", "3.12(b)"),
        ("mb-5-rounded", PLAYER_THIRD, "MB-7.11a-UNAUTHORIZED-THIRD", "7.11(a)"),
        ("mb-5-rounded", BANKER_EXTRA, "MB-7.11b-DRAWN-IN-ERROR", "7.11(b)"),
        ("cf-5", BANKER_EXTRA, "CF-4.12g-DRAWN-IN-ERROR", "4.12(g)"),
    ],
)
@pytest.mark.rule(
    "PB-3.12a-UNAUTHORIZED-THIRD",
    "PB-3.12b-DRAWN-IN-ERROR",
    "MB-7.11a-UNAUTHORIZED-THIRD",
    "MB-7.11b-DRAWN-IN-ERROR",
    "CF-4.12g-DRAWN-IN-ERROR",
)
def test_undisclosed_card_set_aside_instead_of_opening_the_next_hand(
    rules_id: str, error: tuple[str, str], code: str, section: str
) -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, PB-3.12b-DRAWN-IN-ERROR, MB-7.11a-UNAUTHORIZED-THIRD,
    MB-7.11b-DRAWN-IN-ERROR, CF-4.12g-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(a)-(b), 7.11(a)-(b),
    4.12(g): the next hand began with a fresh card; the
    undisclosed card in error was set aside."""
    kind, what = error
    b = table(rules_id)
    stakes: dict[str, Any] = {"bank": cf_bank()} if rules_id == "cf-5" else {"wagers": WAGERS}
    b.round(
        player="TH 7C", banker="3D 4S", **stakes, in_error=DealtInError("9H", kind, face_up=False)
    )
    nxt = b.round(player="9H KC", banker="2D 3S", **stakes)
    f = only(b.replay())
    assert (f.code, f.round_id) == (code, nxt.round_id)
    assert f.message == (
        f"The card {what} at shoe position 8 was not the first card of the next hand (it "
        f"began at position 9); N.J.A.C. 19:47-{section}."
    )


@pytest.mark.rule("PB-3.12b-DRAWN-IN-ERROR")
def test_extra_banker_card_counted_in_the_bankers_hand() -> None:
    """PB-3.12b-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(b): a card the Banker's Hand was not
    entitled to is a card drawn in error; the
    dealer counted it (Banker 6, Player wins) instead of setting it for the next hand (7-7)."""
    b = table()
    b.round(
        player="TH 7C",
        banker="3D 4S 9H",
        wagers=WAGERS,
        in_error=DealtInError("9H", kind="BANKER_EXTRA_CARD", face_up=False, then="NEXT_HAND"),
    )
    b.round(**NEXT)
    result = b.replay()
    f = only(result, "PB-3.12b-DRAWN-IN-ERROR")
    assert "counting the card dealt to the Banker's Hand in excess (9H, position 8) in the " in (
        f.message
    )
    assert f.message.endswith("which makes the round 7-7 TIE.")
    assert "PB-3.10a-ANNOUNCE" in codes(result)


@pytest.mark.parametrize(("extra", "found"), [(None, []), (3, ["PB-3.12c-DISCLOSED"])])
@pytest.mark.rule("PB-3.12c-DISCLOSED")
def test_disclosed_card_goes_by_the_preselected_procedure(
    extra: int | None, found: list[str]
) -> None:
    """PB-3.12c-DISCLOSED, N.J.A.C. 19:47-3.12(a), (c)1: a disclosed card the Banker's Hand
    cannot use is discarded with as many more cards as its value (9H: nine more); three more is
    the wrong count."""
    b = table()
    b.round(**BANKER_MUST_STAY, in_error=DealtInError("9H", then="DISCARD", discards=extra))
    b.round(player="9C KC", banker="2D 3S", wagers=WAGERS)
    assert codes(b.replay()) == found


@pytest.mark.rule("CF-4.12e-CARD-AFTER-STAY")
def test_chemin_de_fer_card_after_stay_that_the_banker_may_not_take() -> None:
    """CF-4.12e-CARD-AFTER-STAY, N.J.A.C. 19:47-4.12(e), (h)1: a card dealt face up to the
    Dominant Player after "Stay" when the Banker must stay goes by the pre-selected procedure;
    left with the Player, the round is announced wrongly."""
    b = table("cf-5", "T04")
    b.round(player="TH 7C 9H", banker="3D 4S", bank=cf_bank(), in_error=DealtInError("9H"))
    f = only(b.replay(), "CF-4.12e-CARD-AFTER-STAY")
    assert "(N.J.A.C. 19:47-4.12(e)-(f))" in f.message
    assert "goes by the pre-selected disclosed-card procedure" in f.message


@pytest.mark.rule("PB-3.12a-UNAUTHORIZED-THIRD")
def test_report_of_a_card_the_player_was_entitled_to() -> None:
    """PB-3.12a-UNAUTHORIZED-THIRD, N.J.A.C. 19:47-3.12(a) applies only when no third card is
    authorized: a Player's Hand of 3 draws by Table 1, so the report is wrong and the card stays
    the Player's."""
    b = table()
    b.round(player="TH 3C 5H", banker="3D 4S", wagers=WAGERS, in_error=DealtInError("5H"))
    f = only(b.replay())
    assert f.code == "PB-3.12a-UNAUTHORIZED-THIRD"
    assert "was entitled to the card at position 8" in f.message


@pytest.mark.parametrize("rules_id", ["pb-5-classic", "cf-5"])
@pytest.mark.rule("PB-3.12b-DRAWN-IN-ERROR", "CF-4.12g-DRAWN-IN-ERROR")
def test_card_kept_for_the_next_hand_goes_into_the_reshuffle(rules_id: str) -> None:
    """PB-3.12b-DRAWN-IN-ERROR, CF-4.12g-DRAWN-IN-ERROR, N.J.A.C. 19:47-3.12(b), 4.12(g): when
    the shoe ends after the round with the card kept for the next hand (4.12(g): "providing
    that the cutting card has not been exposed"), that card is reshuffled; the next shoe's
    first round is not expected to begin with it."""
    b = table(rules_id)
    stakes: dict[str, Any] = {"bank": cf_bank()} if rules_id == "cf-5" else {"wagers": WAGERS}
    b.round(
        player="TH 7C",
        banker="3D 4S",
        **stakes,
        in_error=DealtInError("9H", "BANKER_EXTRA_CARD", face_up=False),
    )
    b.end_shoe()
    b.shoe()
    b.round(player="9H KC", banker="2D 3S", **stakes)
    b.end_shoe()
    assert b.replay().findings == []
