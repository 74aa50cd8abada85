"""The two standard baccarat scoreboards ("roads") of a shoe, from its rounds' winners.

- Bead plate: one cell per round, ties included, filled top to bottom in columns of six,
  left to right.
- Big road: one cell per Banker or Player win. A run of the same winner goes down one column;
  a change of winner starts the next column at the top. A run longer than the column (or
  that meets a cell already used) turns right along its row (the "dragon tail") and carries
  on there. Ties take no cell: they are counted on the cell of the last win (ties before
  the first win are counted on the first cell).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

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
) -> list[BeadCell]:
    numbers = round_numbers or list(range(1, len(winners) + 1))
    nats = naturals or [False] * len(winners)
    return [
        BeadCell(i % rows, i // rows, short(w), numbers[i], bool(nats[i]))
        for i, w in enumerate(winners)
    ]


def big_road(
    winners: Sequence[str],
    round_numbers: Sequence[int] | None = None,
    naturals: Sequence[bool] | None = None,
    rows: int = ROWS,
) -> list[BigRoadCell]:
    numbers = round_numbers or list(range(1, len(winners) + 1))
    nats = naturals or [False] * len(winners)
    cells: list[BigRoadCell] = []
    used: set[tuple[int, int]] = set()
    leading_ties = 0
    streak_col = -1
    turned = False
    for i, raw in enumerate(winners):
        w = short(raw)
        if w == "T":
            if cells:
                cells[-1].ties += 1
            else:
                leading_ties += 1
            continue
        if not cells or cells[-1].winner != w:
            streak_col += 1
            while (0, streak_col) in used:
                streak_col += 1
            row, col = 0, streak_col
            turned = False
        else:
            last = cells[-1]
            if not turned and last.row + 1 < rows and (last.row + 1, last.col) not in used:
                row, col = last.row + 1, last.col
            else:
                turned = True
                row, col = last.row, last.col + 1
                while (row, col) in used:
                    col += 1
        used.add((row, col))
        cells.append(BigRoadCell(row, col, w, numbers[i], 0, bool(nats[i])))
        if len(cells) == 1:
            cells[0].ties += leading_ties
    return cells


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
</style>"""


def _grid(kind: str, cols: int, rows: int, body: list[str]) -> str:
    return (
        f'<div class="road {kind}" style="grid-template-columns:repeat({max(cols, 1)},24px);'
        f'grid-template-rows:repeat({rows},24px);grid-auto-flow:column">' + "".join(body) + "</div>"
    )


def bead_plate_html(cells: Sequence[BeadCell], rows: int = ROWS) -> str:
    cols = max((c.col for c in cells), default=-1) + 1
    grid: dict[tuple[int, int], BeadCell] = {(c.row, c.col): c for c in cells}
    body = []
    for col in range(max(cols, 1)):
        for row in range(rows):
            cell = grid.get((row, col))
            if cell is None:
                body.append("<div></div>")
                continue
            nat = " nat" if cell.natural else ""
            body.append(
                f'<div class="c{nat}" style="background:{COLOURS[cell.winner]}" '
                f'title="round {cell.round_number}">{html.escape(cell.winner)}</div>'
            )
    return _STYLE + _grid("bead", cols, rows, body)


def big_road_html(cells: Sequence[BigRoadCell], rows: int = ROWS) -> str:
    cols = max((c.col for c in cells), default=-1) + 1
    grid: dict[tuple[int, int], BigRoadCell] = {(c.row, c.col): c for c in cells}
    body = []
    for col in range(max(cols, 1)):
        for row in range(rows):
            cell = grid.get((row, col))
            if cell is None:
                body.append("<div></div>")
                continue
            ties = f"<span>{cell.ties}</span>" if cell.ties else ""
            nat = " nat" if cell.natural else ""
            body.append(
                f'<div class="c{nat}" style="border-color:{COLOURS[cell.winner]};'
                f'color:{COLOURS[cell.winner]}" title="round {cell.round_number}">'
                f"{html.escape(cell.winner)}{ties}</div>"
            )
    return _STYLE + _grid("big", cols, rows, body)
