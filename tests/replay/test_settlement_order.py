"""Settlement order, N.J.A.C. 19:47-3.10(b): losing wagers first, then procedure (b)1-(b)4."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pipeline.replay.findings import Severity
from pipeline.rules.settlement_order import settlement_order_problem
from tests.replay.builder import Step, only, table


def steps(text: str) -> list[tuple[str, int, str]]:
    """ "LOSE 9, PAY 7, VIG 7" -> [("LOSE", 9, "e1"), ("PAY", 7, "e2"), ("VIG", 7, "e3")]."""
    out = []
    for i, item in enumerate(text.split(","), start=1):
        kind, seat = item.split()
        out.append((kind, int(seat), f"e{i}"))
    return out


LOSE_FIRST = "A losing wager was collected after winners were paid or vigorish taken"


@pytest.mark.parametrize(
    ("procedure", "order", "problem"),
    [
        # (b)1: every winner paid from the highest seat down, then every vigorish likewise
        (1, "LOSE 9, LOSE 2, PAY 7, PAY 5, PAY 3, VIG 7, VIG 3", None),
        (1, "PAY 7, PAY 7, PAY 3, VIG 7", None),  # two winning wagers at one seat
        (1, "PAY 7, VIG 7, PAY 3, VIG 3", "Every pay step comes before any vig step"),
        (
            1,
            "PAY 3, PAY 7, VIG 7, VIG 3",
            "Seats are settled from the highest numbered position down",
        ),
        (
            1,
            "PAY 7, PAY 3, VIG 3, VIG 7",
            "Seats are settled from the highest numbered position down",
        ),
        (1, "PAY 7, LOSE 9, PAY 3", LOSE_FIRST),
        # (b)2: every vigorish first, then every winner, each pass from the highest seat down
        (2, "LOSE 1, VIG 7, VIG 3, PAY 7, PAY 5, PAY 3", None),
        (2, "PAY 7, PAY 3, VIG 7, VIG 3", "Every vig step comes before any pay step"),
        (
            2,
            "VIG 3, VIG 7, PAY 7, PAY 3",
            "Seats are settled from the highest numbered position down",
        ),
        (2, "VIG 7, LOSE 2, PAY 7", LOSE_FIRST),
        # (b)3: at each seat from the highest down, pay then immediately mark or collect
        (3, "LOSE 8, PAY 7, VIG 7, PAY 5, PAY 3, VIG 3", None),
        (3, "VIG 7, PAY 7, PAY 3, VIG 3", "Seat 7: pay comes first at each position"),
        (
            3,
            "PAY 7, PAY 3, VIG 7, VIG 3",
            "Seats are settled one by one from the highest numbered position down",
        ),
        (
            3,
            "PAY 3, VIG 3, PAY 7, VIG 7",
            "Seats are settled one by one from the highest numbered position down",
        ),
        # (b)4: at each seat from the highest down, vigorish then pay
        (4, "LOSE 8, VIG 7, PAY 7, PAY 5, VIG 3, PAY 3", None),
        (4, "PAY 7, VIG 7", "Seat 7: vig comes first at each position"),
        (
            4,
            "VIG 7, VIG 3, PAY 7, PAY 3",
            "Seats are settled one by one from the highest numbered position down",
        ),
        (4, "VIG 7, PAY 7, LOSE 3", LOSE_FIRST),
    ],
)
@pytest.mark.rule("PB-3.10b-SETTLEMENT")
def test_settlement_order_problem(procedure: int, order: str, problem: str | None) -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b): 'shall first collect each losing wager',
    then (b)1 pay all then vigorish, (b)2 vigorish all then pay, (b)3 pay then vigorish seat by
    seat, (b)4 vigorish then pay seat by seat, always from the highest numbered position."""
    assert settlement_order_problem(procedure, steps(order)) == problem


@pytest.mark.parametrize("procedure", [1, 2, 3, 4])
@pytest.mark.rule("PB-3.10b-SETTLEMENT")
def test_nothing_or_only_losers_is_in_order(procedure: int) -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b): a round with nothing to pay is in order."""
    assert settlement_order_problem(procedure, []) is None
    assert settlement_order_problem(procedure, steps("LOSE 1, LOSE 9, LOSE 4")) is None


def losers_last(recorded: list[Step]) -> list[Step]:
    return [s for s in recorded if s.kind != "LOSE"] + [s for s in recorded if s.kind == "LOSE"]


def ascending(recorded: list[Step]) -> list[Step]:
    losers = [s for s in recorded if s.kind == "LOSE"]
    rest = sorted((s for s in recorded if s.kind != "LOSE"), key=lambda s: s.seat)
    return losers + rest


WAGERS: dict[int, dict[str, int]] = {
    2: {"PLAYER": 10_000},
    3: {"BANKER": 10_000},
    7: {"BANKER": 20_000},
}


@pytest.mark.parametrize(
    ("rules_id", "reorder", "problem", "procedure"),
    [
        ("pb-5-classic", losers_last, LOSE_FIRST, 1),
        ("pb-5-classic", ascending, "Every pay step comes before any vig step", 1),
        (
            "mb-5-rounded",
            ascending,
            "Seats are settled one by one from the highest numbered position down",
            3,
        ),
        ("mb-tie-quarter", losers_last, LOSE_FIRST, 4),
    ],
)
@pytest.mark.rule("PB-3.10b-SETTLEMENT")
def test_pit_settled_out_of_order(
    rules_id: str, reorder: Callable[[list[Step]], list[Step]], problem: str, procedure: int
) -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b): the replay orders the pit's settlement events
    and flags the first departure from the table's procedure, with every step as evidence. The
    amounts are right, so it is the only finding."""
    b = table(rules_id)
    r = b.round(player="TH 6C", banker="3D 4S", wagers=WAGERS, settlement_order=reorder)
    f = only(b.replay())
    assert (f.code, f.severity, f.round_id, f.seat) == (
        "PB-3.10b-SETTLEMENT",
        Severity.MEDIUM,
        r.round_id,
        None,
    )
    recorded = {i for ids in r.settled.values() for i in ids} | set(r.vig.values())
    assert set(f.event_ids) == recorded
    assert f.message == (
        f"{problem} (procedure (b){procedure} of N.J.A.C. 19:47-3.10(b) applies in this pit)."
    )


@pytest.mark.parametrize("rules_id", ["pb-5-classic", "mb-5-rounded", "mb-tie-quarter"])
@pytest.mark.rule("PB-3.10b-SETTLEMENT")
def test_procedure_followed_is_clean(rules_id: str) -> None:
    """PB-3.10b-SETTLEMENT, N.J.A.C. 19:47-3.10(b)1, (b)3 and (b)4 as each table filed."""
    b = table(rules_id)
    b.round(player="TH 6C", banker="3D 4S", wagers={**WAGERS, 9: {"BANKER": 10_000}})
    assert b.replay().findings == []
