"""Chemin de Fer: "The last hand of a shoe shall be void when a card of that hand is found face
upwards in the shoe", N.J.A.C. 19:47-4.12(j), second sentence, raised from the pit's
IrregularityReported (CARD_FACE_UP_IN_SHOE) during the round in which the cutting card came
out (CutCardReached): the shoe's last hand, since none is dealt after it (4.12(g), (k))."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import Misdealt, RoundHandle, TableDayBuilder, codes, only, table

CODE = "CF-4.12j-LAST-HAND-VOID"
BANK: dict[str, Any] = {
    "seat": 1,
    "amount": 10_000,
    "bids": {1: 10_000},
    "banco": [(2, "BANCO_SEUL", None)],
}
FOUND_FACE_UP = Misdealt("CARD_FACE_UP_IN_SHOE", after=2, card="7D")
"""The 7D found face up in the shoe after the first two cards of the deal: it and seven more go
to the discard bucket (4.12(j), first sentence)."""
VOID_REASON = "a card of the shoe's last hand was found face up in the shoe"


def cf() -> TableDayBuilder:
    return table("cf-5", "T04")


def voided_last_hand(void_code: str | None) -> tuple[TableDayBuilder, RoundHandle]:
    """A shoe whose last hand had its 7D found face up, voided by the dealer (its wagers
    returned) with ``void_code`` as the void's rule, and the shoe ended."""
    b = cf()
    r = b.round(
        player="TH",
        banker="3D",
        bank=BANK,
        order="PB",
        cut_card=True,
        hand_options=False,
        misdealt=Misdealt(
            "CARD_FACE_UP_IN_SHOE", card="7D", voided=VOID_REASON, void_code=void_code
        ),
    )
    b.end_shoe()
    return b, r


@pytest.mark.rule("CF-4.12j-LAST-HAND-VOID")
def test_last_hand_settled_though_a_card_was_found_face_up() -> None:
    """CF-4.12j-LAST-HAND-VOID, N.J.A.C. 19:47-4.12(j): the cutting card came out in the hand
    and one of its cards was found face up in the shoe; the dealer discarded it with seven
    more (as the first sentence requires), dealt on and settled the hand as a normal coup. The
    hand is void: one finding, with the report, the cutting card and the settlements."""
    b = cf()
    r = b.round(player="TH 6C", banker="3D 4S", bank=BANK, cut_card=True, misdealt=FOUND_FACE_UP)
    b.end_shoe()
    f = only(b.replay())
    settled = {i for ids in r.settled.values() for i in ids} | set(r.vig.values())
    assert (f.code, f.severity, f.round_id) == (CODE, Severity.HIGH, r.round_id)
    assert f.event_ids[:2] == (r.misdeal_reported, r.cut_card)
    assert set(f.event_ids[2:]) == settled
    assert "so it is the shoe's last hand, which is void (N.J.A.C. 19:47-4.12(j))" in f.message
    assert "2 wager(s) settled instead, $100.00 paid and $5.00 of vigorish charged" in f.message


@pytest.mark.rule("CF-4.12j-LAST-HAND-VOID")
@pytest.mark.parametrize("void_code", [CODE, None])
def test_last_hand_voided_with_its_wagers_returned_finds_nothing(void_code: str | None) -> None:
    """CF-4.12j-LAST-HAND-VOID, N.J.A.C. 19:47-4.12(j): the card behind the cutting card was
    found face up; it went to the discard bucket with seven more, the hand was voided and its
    wagers returned. Legal: nothing to find, and the void, with the shoe far from empty, is no
    void for insufficient cards (4.12(k)) whether or not it names its rule."""
    b, r = voided_last_hand(void_code)
    result = b.replay()
    assert result.findings == []
    assert [row.status for row in result.rounds] == ["VOID"]
    assert r.voided is not None


@pytest.mark.rule("CF-4.12j-LAST-HAND-VOID")
def test_void_last_hand_paid_as_a_win_cites_4_12_j() -> None:
    """CF-4.12j-LAST-HAND-VOID, N.J.A.C. 19:47-4.12(j): the last hand was voided, but the
    wager against the Banker was paid as a win: the money moved on a hand the rule voids, cited
    under that rule (not 4.12(k))."""
    b, r = voided_last_hand(CODE)
    paid_id = r.settled_id(2, "PLAYER")
    events = [
        replace(e, fields={**e.fields, "outcome": "WIN", "paid_cents": 10_000})
        if e.event_id == paid_id
        else e
        for e in b.events
    ]
    f = only(b.replay(events))
    assert (f.code, f.severity, f.seat, f.actual_cents) == (CODE, Severity.CRITICAL, 2, 10_000)
    assert f.event_ids == (r.voided, paid_id)


@pytest.mark.rule("CF-4.12j-LAST-HAND-VOID", "CF-4.12j-FACE-UP")
def test_face_up_card_before_the_last_hand_only_discards() -> None:
    """CF-4.12j-LAST-HAND-VOID, CF-4.12j-FACE-UP, N.J.A.C. 19:47-4.12(j): a hand in which the
    cutting card does not come out is not the shoe's last; a card of it found face up is
    discarded with as many more as its value and the hand goes on (the first sentence only):
    nothing to find."""
    b = cf()
    b.round(player="TH 6C", banker="3D 4S", bank=BANK, misdealt=FOUND_FACE_UP)
    b.end_shoe()
    assert b.replay().findings == []


@pytest.mark.rule("CF-4.12j-LAST-HAND-VOID", "PB-3.12d-FACE-UP")
def test_punto_banco_has_no_such_void() -> None:
    """CF-4.12j-LAST-HAND-VOID, PB-3.12d-FACE-UP, N.J.A.C. 19:47-3.12(d), 4.12(j): only the
    Chemin de Fer text voids the last hand; at a Punto Banco table the card found face up in
    the hand the cutting card came out in is discarded and the hand settled: nothing to find."""
    b = table("pb-5-classic")
    b.round(
        player="TH 6C",
        banker="3D 4S",
        wagers={3: {"BANKER": 10_000}},
        cut_card=True,
        misdealt=FOUND_FACE_UP,
    )
    b.round(player="TH 6C", banker="3D 4S", wagers={3: {"BANKER": 10_000}})
    b.end_shoe()
    assert codes(b.replay()) == []
