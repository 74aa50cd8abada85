"""The order in which the pit settles a round, N.J.A.C. 19:47-3.10(b) (7.10 for
Minibaccarat): every losing wager is collected first; then, by the procedure the casino chose
for the pit, winning wagers are paid and vigorish collected or marked (b)1-4, seat by seat
from the highest numbered position down.

The emulator's dealer and the test builder settle in :func:`settlement_sequence`; the replay
judges the recorded order with :func:`settlement_order_problem`.

A step is ``"LOSE"`` (a losing wager collected), ``"VOID"`` (a void or pushed wager returned;
3.10(b) does not place it), ``"PAY"`` (a winning wager paid) or ``"VIG"`` (vigorish collected
or marked).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_PAY_FIRST = {1: True, 2: False, 3: True, 4: False}
"""Whether procedure (b)n pays winners before it takes vigorish: (b)1 and (b)3 do."""


def settlement_sequence(procedure: int, seats: Iterable[int]) -> list[tuple[str, int]]:
    """(step, seat) in the order the pit settles the round under procedure (b)``procedure``:
    losing wagers of every seat, void wagers, then (b)1 every payment then every vigorish,
    (b)2 the reverse, (b)3 payment then vigorish seat by seat, (b)4 the reverse; seats from
    the highest numbered position down."""
    order = sorted(set(seats), reverse=True)
    first, second = ("PAY", "VIG") if _PAY_FIRST[procedure] else ("VIG", "PAY")
    steps = [("LOSE", seat) for seat in order] + [("VOID", seat) for seat in order]
    if procedure in (1, 2):
        return steps + [(first, seat) for seat in order] + [(second, seat) for seat in order]
    return steps + [(step, seat) for seat in order for step in (first, second)]


def settlement_order_problem(procedure: int, steps: Sequence[tuple[str, int, str]]) -> str | None:
    """What is out of order in a round's settlement steps, or ``None``.

    ``steps`` are ("LOSE" | "PAY" | "VIG", seat, event id) in the order the pit recorded them.
    """
    kinds = [k for k, _, _ in steps]
    if "LOSE" in kinds and any(
        k != "LOSE" for k in kinds[: max(i for i, k in enumerate(kinds) if k == "LOSE")]
    ):
        return "A losing wager was collected after winners were paid or vigorish taken"
    rest = [(k, seat) for k, seat, _ in steps if k != "LOSE"]
    seats_desc = [seat for _, seat in rest]
    first, second = ("PAY", "VIG") if _PAY_FIRST[procedure] else ("VIG", "PAY")
    if procedure in (1, 2):
        block = [k for k, _ in rest]
        if (
            first in block
            and second in block
            and (
                max(i for i, k in enumerate(block) if k == first)
                > min(i for i, k in enumerate(block) if k == second)
            )
        ):
            return f"Every {first.lower()} step comes before any {second.lower()} step"
        for kind in (first, second):
            seats = [seat for k, seat in rest if k == kind]
            if seats != sorted(seats, reverse=True):
                return "Seats are settled from the highest numbered position down"
        return None
    if seats_desc != sorted(seats_desc, reverse=True):
        return "Seats are settled one by one from the highest numbered position down"
    by_seat: dict[int, list[str]] = {}
    for k, seat in rest:
        by_seat.setdefault(seat, []).append(k)
    for seat, ks in by_seat.items():
        if len(ks) > 1 and ks[0] != first and first in ks:
            return f"Seat {seat}: {first.lower()} comes first at each position"
    return None


__all__ = ["settlement_order_problem", "settlement_sequence"]
