"""The two standard baccarat scoreboards ("roads") of a shoe, from its rounds' winners.

- Bead plate: one cell per round, ties included, filled top to bottom in columns of six,
  left to right.
- Big road: one cell per Banker or Player win. A run of the same winner goes down one column;
  a change of winner starts the next column at the top. A run longer than the column (or
  that meets a cell already used) turns right along its row (the "dragon tail") and carries
  on there. Ties take no cell: they are counted on the cell of the last win (ties before
  the first win are counted on the first cell).
- Derived roads (big eye boy, small road, cockroach pig): one red or blue mark per big-road
  entry from their starting point on, saying whether the big road repeats the pattern of
  the column 1, 2 or 3 to its left. For an entry in row ``r`` of streak ``c`` with offset
  ``k``: in the first row, red if streaks ``c-1`` and ``c-1-k`` have the same length; below
  it, red if streak ``c-k`` has cells in both rows ``r`` and ``r-1`` or in neither, blue if
  it ends exactly at ``r-1``. A road starts at row 1 of streak ``k`` (else row 0 of streak
  ``k+1``): the first entry with a column to compare. The marks are laid out like the big
  road, red and blue taking the places of Banker and Player. Red and blue say only "regular"
  and "irregular": they predict nothing.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

ROWS = 6
COLOURS = {"B": "#c62828", "P": "#1565c0", "T": "#2e7d32"}
_SHORT = {"BANKER": "B", "PLAYER": "P", "TIE": "T"}


def short(winner: str) -> str:
    """``BANKER``/``PLAYER``/``TIE`` (or ``B``/``P``/``T``) as one letter."""
    letter = _SHORT.get(winner.upper(), winner.upper()[:1])
    if letter not in COLOURS:
        raise ValueError(f"not a baccarat winner: {winner!r}")
    return letter


@dataclass(frozen=True, slots=True)
class BeadCell:
    row: int
    col: int
    winner: str  # B, P or T
    round_number: int
    natural: bool = False
    flagged: bool = False
    """The round has at least one exception."""


@dataclass(slots=True)
class BigRoadCell:
    row: int
    col: int
    winner: str  # B or P
    round_number: int
    ties: int = 0
    natural: bool = False


def bead_plate(
    winners: Sequence[str],
    round_numbers: Sequence[int] | None = None,
    naturals: Sequence[bool] | None = None,
    rows: int = ROWS,
    flagged: Sequence[bool] | None = None,
) -> list[BeadCell]:
    numbers = round_numbers or list(range(1, len(winners) + 1))
    nats = naturals or [False] * len(winners)
    flags = flagged or [False] * len(winners)
    return [
        BeadCell(i % rows, i // rows, short(w), numbers[i], bool(nats[i]), bool(flags[i]))
        for i, w in enumerate(winners)
    ]


def _place(symbols: Sequence[str], rows: int) -> list[tuple[int, int]]:
    """(row, col) of each symbol on a big-road grid: a run goes down its column, a change
    starts the next free column at the top, and a run that reaches the bottom or a used cell
    turns right along its row."""
    placed: list[tuple[int, int]] = []
    used: set[tuple[int, int]] = set()
    streak_col = -1
    turned = False
    for i, symbol in enumerate(symbols):
        if i == 0 or symbols[i - 1] != symbol:
            streak_col += 1
            while (0, streak_col) in used:
                streak_col += 1
            row, col = 0, streak_col
            turned = False
        else:
            last_row, last_col = placed[-1]
            if not turned and last_row + 1 < rows and (last_row + 1, last_col) not in used:
                row, col = last_row + 1, last_col
            else:
                turned = True
                row, col = last_row, last_col + 1
                while (row, col) in used:
                    col += 1
        used.add((row, col))
        placed.append((row, col))
    return placed


def big_road(
    winners: Sequence[str],
    round_numbers: Sequence[int] | None = None,
    naturals: Sequence[bool] | None = None,
    rows: int = ROWS,
) -> list[BigRoadCell]:
    numbers = round_numbers or list(range(1, len(winners) + 1))
    nats = naturals or [False] * len(winners)
    wins: list[tuple[str, int, bool]] = []
    ties_after: list[int] = []
    leading_ties = 0
    for i, raw in enumerate(winners):
        w = short(raw)
        if w == "T":
            if ties_after:
                ties_after[-1] += 1
            else:
                leading_ties += 1
            continue
        wins.append((w, numbers[i], bool(nats[i])))
        ties_after.append(0)
    if ties_after:
        ties_after[0] += leading_ties
    places = _place([w for w, _, _ in wins], rows)
    return [
        BigRoadCell(row, col, w, number, ties, natural)
        for (row, col), (w, number, natural), ties in zip(places, wins, ties_after, strict=True)
    ]


DERIVED_ROADS = {"Big eye boy": 1, "Small road": 2, "Cockroach pig": 3}
"""Each derived road and the offset of the streak it compares with."""

RED, BLUE = "R", "B"


@dataclass(frozen=True, slots=True)
class DerivedCell:
    row: int
    col: int
    colour: str  # RED or BLUE
    round_number: int


def derived_marks(big: Sequence[BigRoadCell], offset: int) -> list[tuple[str, int]]:
    """The red and blue marks of the derived road with ``offset`` (1 big eye boy, 2 small
    road, 3 cockroach pig), each with the round of the big-road entry it marks."""
    if offset < 1:
        raise ValueError(f"a derived road compares with a streak 1 or more to the left: {offset}")
    positions: list[tuple[int, int, int]] = []  # (streak, row in streak, round)
    for i, cell in enumerate(big):
        if i and cell.winner == big[i - 1].winner:
            streak, depth = positions[-1][0], positions[-1][1] + 1
        else:
            streak, depth = (positions[-1][0] + 1 if positions else 0), 0
        positions.append((streak, depth, cell.round_number))
    lengths: dict[int, int] = {}
    for streak, depth, _ in positions:
        lengths[streak] = depth + 1
    marks: list[tuple[str, int]] = []
    for streak, depth, number in positions:
        if depth == 0:
            if streak - 1 - offset < 0:
                continue
            same = lengths[streak - 1] == lengths[streak - 1 - offset]
        else:
            if streak - offset < 0:
                continue
            compared = lengths[streak - offset]
            same = (compared > depth) == (compared > depth - 1)
        marks.append((RED if same else BLUE, number))
    return marks


def derived_road(big: Sequence[BigRoadCell], offset: int, rows: int = ROWS) -> list[DerivedCell]:
    """The derived road with ``offset`` laid out like the big road."""
    marks = derived_marks(big, offset)
    places = _place([colour for colour, _ in marks], rows)
    return [
        DerivedCell(row, col, colour, number)
        for (row, col), (colour, number) in zip(places, marks, strict=True)
    ]


# ---------------------------------------------------------------------- HTML
_STYLE = """<style>
.road{display:grid;gap:2px;background:#f4f4f4;padding:4px;border:1px solid #ccc;
      width:max-content;margin-bottom:.5em}
.road div{width:24px;height:24px;box-sizing:border-box;border-radius:50%;font:11px sans-serif;
      display:flex;align-items:center;justify-content:center;position:relative}
.bead div.c{color:#fff;font-weight:bold}
.big div.c{border:3px solid;background:#fff;font-weight:bold}
.big div.c span{position:absolute;color:#2e7d32;font-size:10px;right:-2px;top:-4px}
.road div.nat::after{content:"";position:absolute;width:6px;height:6px;border-radius:50%;
      background:#ffd54f;bottom:0;right:0}
.road div.x{outline:3px solid #212121;outline-offset:-1px}
.derived div{width:14px;height:14px}
.derived.ring div.c{border:2px solid}
.derived.dot div.c{transform:scale(.7)}
.derived.slash div.c{border-radius:0;background:linear-gradient(135deg,transparent 42%,
      currentColor 42%,currentColor 58%,transparent 58%)}
</style>"""

DERIVED_COLOURS = {RED: "#c62828", BLUE: "#1565c0"}
DERIVED_STYLES = {1: "ring", 2: "dot", 3: "slash"}
"""How each derived road draws its marks, as on the tables' scoreboards: big eye boy hollow
rings, small road filled dots, cockroach pig slashes."""


class _Placed(Protocol):
    @property
    def row(self) -> int: ...

    @property
    def col(self) -> int: ...


Cell = TypeVar("Cell", bound=_Placed)


def _grid(
    kind: str,
    cells: Sequence[Cell],
    rows: int,
    draw: Callable[[Cell], str],
    size: int = 24,
) -> str:
    """The road's cells drawn by ``draw`` on a grid filled column by column, an empty
    ``<div>`` where no cell stands."""
    cols = max(max((c.col for c in cells), default=-1) + 1, 1)
    placed = {(c.row, c.col): c for c in cells}
    body = "".join(
        draw(cell) if (cell := placed.get((row, col))) is not None else "<div></div>"
        for col in range(cols)
        for row in range(rows)
    )
    return (
        f'{_STYLE}<div class="road {kind}" style="grid-template-columns:repeat({cols},{size}px);'
        f'grid-template-rows:repeat({rows},{size}px);grid-auto-flow:column">{body}</div>'
    )


def _bead(cell: BeadCell) -> str:
    nat = " nat" if cell.natural else ""
    flag = " x" if cell.flagged else ""
    note = ", with exceptions" if cell.flagged else ""
    return (
        f'<div class="c{nat}{flag}" style="background:{COLOURS[cell.winner]}" '
        f'title="round {cell.round_number}{note}">{html.escape(cell.winner)}</div>'
    )


def _big(cell: BigRoadCell) -> str:
    ties = f"<span>{cell.ties}</span>" if cell.ties else ""
    nat = " nat" if cell.natural else ""
    return (
        f'<div class="c{nat}" style="border-color:{COLOURS[cell.winner]};'
        f'color:{COLOURS[cell.winner]}" title="round {cell.round_number}">'
        f"{html.escape(cell.winner)}{ties}</div>"
    )


def bead_plate_html(cells: Sequence[BeadCell], rows: int = ROWS) -> str:
    return _grid("bead", cells, rows, _bead)


def big_road_html(cells: Sequence[BigRoadCell], rows: int = ROWS) -> str:
    return _grid("big", cells, rows, _big)


def derived_road_html(cells: Sequence[DerivedCell], offset: int, rows: int = ROWS) -> str:
    style = DERIVED_STYLES[offset]

    def draw(cell: DerivedCell) -> str:
        colour = DERIVED_COLOURS[cell.colour]
        fill = f"background:{colour};" if style == "dot" else ""
        return (
            f'<div class="c" style="{fill}border-color:{colour};color:{colour}" '
            f'title="round {cell.round_number}"></div>'
        )

    return _grid(f"derived {style}", cells, rows, draw, size=14)
