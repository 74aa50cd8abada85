"""The draw tables of N.J.A.C. 19:47 as data: Table 1 (3.9(b), 7.9), Table 2 (3.9(c)-(g),
7.9), Table 3 (4.9(c)-(g)) and the Dominant Player's rule (4.9(a)). Each game's variant
(:mod:`pipeline.rules.variants`) names the two it plays by; :mod:`pipeline.rules.draw` reads
them with the naturals first.
"""

from __future__ import annotations

from collections.abc import Mapping

from pipeline.rules.symbol import Symbol


class Draw(Symbol):
    """A cell of a draw table: must draw, must stay, or the hand's option (4.9(f))."""

    DRAW = "D"
    STAY = "S"
    OPTION = "Op."

    def permits(self, drew: bool) -> bool:
        """Whether drawing (or staying) is allowed by this cell."""
        return self is Draw.OPTION or (self is Draw.DRAW) == drew


NO_THIRD_CARD = None
"""Column key for "If No Third Card Drawn" by the Player's Hand."""

DrawTable = Mapping[int, Mapping[int | None, Draw]]


def _table(rows: Mapping[int, str]) -> DrawTable:
    """Build a banker table from rows written like the regulation: "nothird|0123456789"."""
    table: dict[int, dict[int | None, Draw]] = {}
    for banker_points in range(10):
        if banker_points in rows:
            no_third, by_value = rows[banker_points].split("|")
            cells = [Draw("Op." if c == "O" else c) for c in no_third + by_value]
        else:
            # Rows 0-2 are "BANKER'S HAND DRAWS"; rows 7-9 are "BANKER'S HAND STAYS".
            cells = [Draw.DRAW if banker_points <= 2 else Draw.STAY] * 11
        table[banker_points] = {NO_THIRD_CARD: cells[0]} | dict(enumerate(cells[1:]))
    return table


TABLE_1: Mapping[int, Draw] = {p: Draw.DRAW if p <= 5 else Draw.STAY for p in range(10)}
"""N.J.A.C. 19:47-3.9(b) Table 1: the Player's Hand draws on 0 to 5 and stays on 6 to 9."""

TABLE_2: DrawTable = _table(
    {
        3: "D|DDDDDDDDSD",
        4: "D|SSDDDDDDSS",
        5: "D|SSSSDDDDSS",
        6: "S|SSSSSSDDSS",
    }
)
"""N.J.A.C. 19:47-3.9(c) Table 2 (also 7.9): the Banker's Hand by its two-card point count
(row) and the value of the Player's third card (column)."""

TABLE_3: DrawTable = _table(
    {
        3: "D|DDDDDDDDSO",
        4: "D|SSDDDDDDSS",
        5: "D|SSSSODDDSS",
        6: "S|SSSSSSDDSS",
    }
)
"""N.J.A.C. 19:47-4.9(c) Table 3: Table 2 with the Banker's option ("Op.") on 3 against a
third card of 9 and on 5 against a third card of 4 (4.9(f), example in 4.9(g)).

The source text lost one repeated cell per row in extraction (rows have 10 of 11 cells); the
reading here restores the dropped cell inside the run of equal cells, which is the only
reading consistent with every row and with the example in 4.9(g)."""

CHEMIN_DE_FER_PLAYER: Mapping[int, Draw] = {
    p: Draw.DRAW if p <= 4 else Draw.OPTION if p == 5 else Draw.STAY for p in range(10)
}
"""N.J.A.C. 19:47-4.9(a): the Dominant Player draws on 0-4, has the option on 5, stays on 6-7
and announces "Natural" on 8-9."""
