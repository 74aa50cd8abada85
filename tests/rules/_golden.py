"""Readers for the golden data under ``tests/rules/golden/``.

The golden files are transcribed by hand from the regulation text in ``shared/regulations``,
not generated from ``pipeline.rules``, so the tests compare the implementation with an
independent reading of N.J.A.C. 19:47.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"

NO_THIRD = "N"
"""Column key for "If No Third Card Drawn" in Tables 2 and 3."""


def _rows(name: str) -> list[list[str]]:
    rows = []
    for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            rows.append(line.split())
    return rows


def source_header(name: str) -> str:
    """The ``# Source:`` line every golden file starts with."""
    first = (GOLDEN / name).read_text(encoding="utf-8").splitlines()[0]
    return first


def comment_lines(name: str, prefix: str) -> list[str]:
    """Comment lines starting with ``# <prefix>``, prefix removed."""
    out = []
    for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines():
        if line.startswith(f"# {prefix}"):
            out.append(line[len(f"# {prefix}") :].strip())
    return out


def player_table(name: str) -> dict[int, str]:
    """``table1.txt`` / ``chemin_de_fer_player.txt``: point count -> cell."""
    table = {int(points): cell for points, cell in _rows(name)}
    assert sorted(table) == list(range(10)), f"{name}: rows 0-9 expected"
    return table


def banker_table(name: str) -> dict[int, dict[str | int, str]]:
    """``table2.txt`` / ``table3.txt``: banker count -> {"N" | third-card value -> cell}."""
    table: dict[int, dict[str | int, str]] = {}
    for row in _rows(name):
        banker, cells = int(row[0]), row[1:]
        assert len(cells) == 11, f"{name} row {banker}: 11 cells expected, got {len(cells)}"
        keys: list[str | int] = [NO_THIRD, *range(10)]
        table[banker] = dict(zip(keys, cells, strict=True))
    assert sorted(table) == list(range(10)), f"{name}: rows 0-9 expected"
    return table


def banker_table_rows(name: str) -> dict[int, list[str]]:
    """The raw cells of each row, "If No Third Card" first."""
    return {int(row[0]): row[1:] for row in _rows(name)}


def card_values() -> dict[str, tuple[int, int]]:
    """rank symbol -> (value 3.1(b), burn count 3.5(e))."""
    return {rank: (int(value), int(burn)) for rank, value, burn in _rows("card_values.txt")}


def _odds(text: str) -> Fraction:
    to_win, stake = text.split(":")
    return Fraction(int(to_win), int(stake))


def paytables() -> dict[str, dict[int | str, Fraction]]:
    """paytable letter -> {margin 4..9 | "natural" -> odds as a Fraction}."""
    out: dict[str, dict[int | str, Fraction]] = {"A": {}, "B": {}, "C": {}}
    for line, a, b, c in _rows("paytables.txt"):
        key: int | str = line if line == "natural" else int(line)
        for letter, odds in zip("ABC", (a, b, c), strict=True):
            out[letter][key] = _odds(odds)
    return out
