"""The new checks cite each game's own subchapter: Chemin de Fer (N.J.A.C. 19:47-4) and
Minibaccarat (19:47-7) are found under their own sections, raised from events."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pipeline.replay.machine import replay_table
from pipeline.rules.config import DisclosedCardProcedure
from tests.replay.builder import CATALOG, TableDayBuilder, codes, only, table

CF_ROUND: dict[str, Any] = {
    "player": "TH 6C",
    "banker": "3D 4S",
    "bank": {"seat": 1, "amount": 100_000, "banco": [(5, "BANCO_SEUL", None)]},
}
MB_ROUND: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S", "wagers": {3: {"BANKER": 10_000}}}


def with_rules(rules_id: str, new_id: str, **changes: Any) -> TableDayBuilder:
    """A builder for ``rules_id`` filed again as ``new_id`` with ``changes`` (a configuration
    the packaged catalog does not hold)."""
    b = TableDayBuilder("T05", rules_id)
    b.rules_id, b.rules = new_id, replace(CATALOG[rules_id], rules_id=new_id, **changes)
    return b


def replayed(b: TableDayBuilder) -> list[str]:
    catalog = {**CATALOG, b.rules_id: b.rules}
    return sorted(f.code for f in replay_table(b.table_id, b.events, catalog).findings)


@pytest.mark.rule("CF-4.8d-CARDS-CLOSE-BETS")
def test_chemin_de_fer_wager_after_the_cards() -> None:
    """CF-4.8d-CARDS-CLOSE-BETS, N.J.A.C. 19:47-4.7(e), 4.8(d): the Banker deals after "No More
    Bets" and "Cards"; a wager against the Banker added once the cards are out, with no
    "No More Bets" recorded, cites chapter 4."""
    b = table("cf-5", "T04")
    b.round(**CF_ROUND, after_cards=[(5, "PLAYER", 10_000)], betting_closed=None)
    f = only(b.replay(), "CF-4.8d-CARDS-CLOSE-BETS")
    assert "N.J.A.C. 19:47-4.7(e), 4.8(d)" in f.message


@pytest.mark.parametrize(
    ("rules_id", "rnd", "code"),
    [
        ("cf-5", CF_ROUND, "CF-4.4e-CUT-CARD-SEEN"),
        ("mb-5-rounded", MB_ROUND, "MB-7.5e-CUT-CARD-SEEN"),
    ],
)
@pytest.mark.rule("CF-4.4e-CUT-CARD-SEEN", "MB-7.5e-CUT-CARD-SEEN")
def test_cutting_card_recorded_before_its_place(
    rules_id: str, rnd: dict[str, Any], code: str
) -> None:
    """CF-4.4e-CUT-CARD-SEEN, MB-7.5e-CUT-CARD-SEEN, N.J.A.C. 19:47-4.4(e), 7.5(e): a cutting card
    70 cards from the back recorded in the first round is found under the game's section."""
    b = table(rules_id, cut_card_from_back=70)
    b.round(**rnd, cut_card=True)
    assert code in codes(b.replay())


@pytest.mark.parametrize(
    ("rules_id", "code"),
    [("cf-5", "CF-4.12h2-FACE-DOWN"), ("mb-5-rounded", "MB-7.11c2-FACE-DOWN")],
)
@pytest.mark.rule("CF-4.12h2-FACE-DOWN", "MB-7.11c2-FACE-DOWN")
def test_extra_card_disclosed_under_procedure_2(rules_id: str, code: str) -> None:
    """CF-4.12h2-FACE-DOWN, MB-7.11c2-FACE-DOWN, N.J.A.C. 19:47-4.12(h)2, 7.11(c)2: under the
    face-down procedure the additional card drawn face up is found under the game's section."""
    b = with_rules(
        rules_id,
        f"{rules_id}-h2",
        disclosed_card_procedure=DisclosedCardProcedure.DISCARD_ONE_FACE_DOWN,
    )
    b.open()
    b.shoe()
    b.irregularity("5D", extra_face_up=True)
    assert replayed(b) == [code]


@pytest.mark.parametrize(
    ("rules_id", "code"),
    [("cf-5", "CF-4.12h3-SIMULATED-FIRST"), ("mb-5-rounded", "MB-7.11c3-SIMULATED-FIRST")],
)
@pytest.mark.rule("CF-4.12h3-SIMULATED-FIRST", "MB-7.11c3-SIMULATED-FIRST")
def test_simulated_round_not_opened_by_the_disclosed_card(rules_id: str, code: str) -> None:
    """CF-4.12h3-SIMULATED-FIRST, MB-7.11c3-SIMULATED-FIRST, N.J.A.C. 19:47-4.12(h)3, 7.11(c)3:
    the simulated round opens with the disclosed card, under the game's own section."""
    b = with_rules(
        rules_id, f"{rules_id}-h3", disclosed_card_procedure=DisclosedCardProcedure.SIMULATED_ROUND
    )
    b.open()
    b.shoe()
    b.irregularity("5D")
    b.round(player="9C KC", banker="3H 3S", simulated=True, hand_options=False)
    assert replayed(b) == [code]


@pytest.mark.rule("CF-4.10d-VIG-ONE-RATE")
def test_chemin_de_fer_one_vigorish_per_table() -> None:
    """CF-4.10d-VIG-ONE-RATE, N.J.A.C. 19:47-4.10(d): a Chemin de Fer table reopened the same day
    under rules charging 4 % after 5 % is found under 4.10(d)."""
    b = with_rules("cf-5", "cf-4", vig_percent=4)
    b.open(rules_id="cf-5")
    b.open(series=())
    assert "CF-4.10d-VIG-ONE-RATE" in replayed(b)
