"""Each game is audited under its own subchapter: Chemin de Fer (N.J.A.C. 19:47-4) has no
"last hand" and cites 4.x sections; Minibaccarat (19:47-7) cites 7.2(b) for a wager its table
does not offer."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, only, table

CF_ROUND: dict[str, Any] = {
    "player": "TH 6C",
    "banker": "3D 4S",
    "bank": {"seat": 1, "amount": 100_000, "banco": [(5, "BANCO_SEUL", None)]},
}


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


@pytest.mark.parametrize("announced", [False, True])
@pytest.mark.rule("PB-3.8e-LAST-HAND", "CF-4.12g-CUT-CARD-HAND-LAST")
def test_chemin_de_fer_has_no_last_hand_announced(announced: bool) -> None:
    """PB-3.8e-LAST-HAND is a Punto Banco rule (N.J.A.C. 19:47-3.8(e)); Chemin de Fer announces
    no "last hand": the hand the cutting card appears in is the shoe's last (4.12(g), (j), (k),
    CF-4.12g-CUT-CARD-HAND-LAST). "Last hand" announced or not raises nothing of 3.8(e); each
    round dealt after that hand is one 4.12(g) finding."""
    b = cf()
    cut = b.round(**CF_ROUND, cut_card=True, last_hand=announced)
    after = [b.round(**CF_ROUND), b.round(**CF_ROUND)]
    b.end_shoe()
    assert (cut.cut_card is not None, cut.last_hand is not None) == (True, announced)
    assert [(f.code, f.round_id) for f in b.replay().findings] == [
        ("CF-4.12g-CUT-CARD-HAND-LAST", r.round_id) for r in after
    ]


@pytest.mark.rule("CF-4.10a-ANNOUNCE")
def test_chemin_de_fer_announcement_cites_4_10_a() -> None:
    """CF-4.10a-ANNOUNCE, N.J.A.C. 19:47-4.10(a): 'the dealer calling the game shall announce
    the Point Count of each hand indicating which hand has won the round'."""
    b = cf()
    r = b.round(**CF_ROUND, announce={"banker_points": 6})
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id) == ("CF-4.10a-ANNOUNCE", Severity.HIGH, r.round_id)
    assert (
        f.message == "The dealer announced Banker count 6 (cards show 7) (N.J.A.C. 19:47-4.10(a))."
    )


@pytest.mark.rule("CF-4.12k-INSUFFICIENT")
def test_chemin_de_fer_void_cites_4_12_k() -> None:
    """CF-4.12k-INSUFFICIENT, N.J.A.C. 19:47-4.12(k): a hand is void only when the shoe cannot
    complete it."""
    b = cf()
    b.round(**CF_ROUND)
    b.voided_round()
    b.end_shoe()
    f = only(b.replay())
    assert f.code == "CF-4.12k-INSUFFICIENT"
    assert f.message.endswith("six always complete a round (N.J.A.C. 19:47-4.12(k)).")


@pytest.mark.rule("CF-4.4e-BURN")
def test_chemin_de_fer_burn_cites_4_4() -> None:
    """CF-4.4e-BURN, N.J.A.C. 19:47-4.4(e): the first card and as many more as its count are
    burned; a shoe with none burned cites chapter 4, not 3.5(e)."""
    b = TableDayBuilder("T04", "cf-5")
    b.open()
    b.shoe(burn="")
    b.round(**CF_ROUND)
    f = only(b.replay())
    assert f.code == "CF-4.4e-BURN"
    assert f.message == "Shoe T04-S01: no card was burned before play (N.J.A.C. 19:47-4.4(d)-(e))."


@pytest.mark.rule("MB-7.2b-WAGER-OFFERED")
def test_minibaccarat_wager_not_offered_is_one_finding_under_7_2_b() -> None:
    """MB-7.2b-WAGER-OFFERED, N.J.A.C. 19:47-7.2(b): 'no casino licensee ... shall accept any
    wager at the game of minibaccarat other than those specified in (a)'. The bonus wager is a
    Punto Banco wager; settled by the pit, it is still one finding, naming the settlement, and
    not a second one for a settlement "without a wager on record"."""
    b = table("mb-5-rounded")
    r = b.round(
        player="9H KC",
        banker="2D 3S",
        wagers={3: {"PLAYER": 10_000, "PLAYER_BONUS": 2_500}},
        extra_settlements=[(3, "PLAYER_BONUS", "WIN", 2_500)],
    )
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.actual_cents) == (
        "MB-7.2b-WAGER-OFFERED",
        Severity.HIGH,
        3,
        2_500,
    )
    assert f.event_ids == (r.wagers[(3, "PLAYER_BONUS")], r.settled_id(3, "PLAYER_BONUS"))
    assert f.message == (
        "Seat 3 wagered $25.00 on PLAYER_BONUS, which rules 'mb-5-rounded' do not offer "
        "(N.J.A.C. 19:47-7.2(b)); it was settled paying $25.00."
    )


@pytest.mark.rule("CF-4.7a-WAGERS")
def test_chemin_de_fer_tie_bet_is_not_a_wager_there() -> None:
    """CF-4.7a-WAGERS, N.J.A.C. 19:47-4.6(a), 4.7(a): Chemin de Fer has only the Banker's wager
    and the wagers against it; a tie bet is not offered."""
    b = cf()
    b.round(**CF_ROUND, wagers={1: {"BANKER": 100_000}, 5: {"PLAYER": 100_000, "TIE": 10_000}})
    f = only(b.replay())
    assert f.code == "CF-4.7a-WAGERS"
    assert "(N.J.A.C. 19:47-4.6(a), 4.7(a))" in f.message


@pytest.mark.parametrize(
    ("kind", "code", "citation"),
    [
        ("CARD_DISCLOSED_IN_ERROR", "MB-7.11c-DISCLOSED", "N.J.A.C. 19:47-7.11(c)"),
        ("CARD_FACE_UP_IN_SHOE", "MB-7.11d-FACE-UP", "N.J.A.C. 19:47-7.11(d)"),
    ],
)
@pytest.mark.rule("MB-7.11c-DISCLOSED", "MB-7.11d-FACE-UP")
def test_minibaccarat_irregularities_cite_7_11(kind: str, code: str, citation: str) -> None:
    """MB-7.11c-DISCLOSED, MB-7.11d-FACE-UP, N.J.A.C. 19:47-7.11(c)1 and (d): a 7 disclosed in
    error or found face up goes to the discard rack with seven more cards; three more is a
    finding under Minibaccarat's own section."""
    b = table("mb-5-rounded")
    b.round(player="9H KC", banker="2D 3S", wagers={3: {"PLAYER": 10_000}})
    b.irregularity("7D", kind, extra=3)
    b.round(player="9C KC", banker="2D 3S", wagers={3: {"PLAYER": 10_000}})
    f = only(b.replay())
    assert (f.code, f.severity) == (code, Severity.MEDIUM)
    assert f.message.endswith(
        f"goes to the discard rack with 7 more cards ({citation}); 3 more were discarded."
    )


@pytest.mark.rule("CF-4.12j-FACE-UP")
def test_chemin_de_fer_card_face_up_in_the_shoe_cites_4_12_j() -> None:
    """CF-4.12j-FACE-UP, N.J.A.C. 19:47-4.12(j): a 7 found face up in the shoe goes to the
    discard rack with seven more cards; three more is a finding under Chemin de Fer's own
    section, not 3.12(d)."""
    b = cf()
    b.round(**CF_ROUND)
    b.irregularity("7D", "CARD_FACE_UP_IN_SHOE", extra=3)
    b.round(**CF_ROUND)
    f = only(b.replay())
    assert (f.code, f.severity) == ("CF-4.12j-FACE-UP", Severity.MEDIUM)
    citation = "N.J.A.C. 19:47-4.12(j)"
    assert f.message.endswith(
        f"goes to the discard rack with 7 more cards ({citation}); 3 more were discarded."
    )


@pytest.mark.rule("CF-4.10b-SETTLEMENT")
def test_chemin_de_fer_settlement_without_a_wager_cites_4_10_b() -> None:
    """CF-4.10b-SETTLEMENT, N.J.A.C. 19:47-4.10(b): wagers are collected and paid off after the
    result; a payment to a seat that wagered nothing is a finding under 4.10(b), not 3.10(b)."""
    b = cf()
    b.round(**CF_ROUND, extra_settlements=[(7, "PLAYER", "WIN", 10_000)])
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, f.actual_cents) == (
        "CF-4.10b-SETTLEMENT",
        Severity.CRITICAL,
        7,
        10_000,
    )


@pytest.mark.parametrize(
    ("hands", "due", "recorded", "moved"),
    [
        ({"player": "9H KC", "banker": "2D 3S"}, "LOSE", "VOID", (-100_000, 0)),
        ({"player": "4H 3C", "banker": "2D 5S"}, "VOID", "LOSE", (0, -100_000)),
    ],
)
@pytest.mark.rule("CF-4.6a-BANKER")
def test_chemin_de_fer_banker_wager_settled_wrongly_cites_4_6_a(
    hands: dict[str, Any], due: str, recorded: str, moved: tuple[int, int]
) -> None:
    """CF-4.6a-BANKER, N.J.A.C. 19:47-4.6(a): the Banker's wager loses on a lower Banker count
    and is void on equal counts; 4.10(b) settles it 1 to 1 against the wagers covering it. A
    Banker's wager settled wrongly is a finding under Chemin de Fer's own section, not
    Punto Banco's 3.2(a)1."""
    b = cf()
    r = b.round(**hands, bank=CF_ROUND["bank"], results={(1, "BANKER"): recorded})
    f = only(b.replay())
    assert (f.code, f.severity, f.seat, (f.expected_cents, f.actual_cents)) == (
        "CF-4.6a-BANKER",
        Severity.CRITICAL,
        1,
        moved,
    )
    assert f.section == "N.J.A.C. 19:47-4.6(a), 4.10(b)"
    assert f.message.startswith(
        f"Seat 1's BANKER wager of $1,000.00 should {due.lower()} and be paid $0.00 "
        "(N.J.A.C. 19:47-4.6(a), 4.10(b)); it was recorded "
    )
    assert r.round_id == f.round_id
