"""Third-card rules, every cell: N.J.A.C. 19:47-3.9 Tables 1 and 2, 4.9 Table 3 and 4.9(a).

The expectations are the golden tables in ``golden/``, transcribed from the regulation text.
"""

from __future__ import annotations

import pytest

from pipeline.rules import draw_tables
from pipeline.rules.cards import Rank, card_value
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game

from ._golden import (
    NO_THIRD,
    banker_table,
    banker_table_rows,
    comment_lines,
    player_table,
    source_header,
)

CELL = {"D": Draw.DRAW, "S": Draw.STAY, "Op.": Draw.OPTION}
TABLE_1 = player_table("table1.txt")
CF_PLAYER = player_table("chemin_de_fer_player.txt")
TABLE_2 = banker_table("table2.txt")
TABLE_3 = banker_table("table3.txt")
COLUMNS: list[int | None] = [None, *range(10)]  # None: "If No Third Card Drawn"
PUNTO_BANCO_GAMES = [Game.PUNTO_BANCO, Game.MINIBACCARAT]


def _golden_key(column: int | None) -> str | int:
    return NO_THIRD if column is None else column


@pytest.mark.rule("PB-3.9b-TABLE1", "PB-3.9c-TABLE2", "CF-4.9c-TABLE3", "CF-4.9a-PLAYER")
def test_golden_files_cite_their_source() -> None:
    """N.J.A.C. 19:47-3.9(b)-(c), 4.9(a), 4.9(c): each golden table names its section."""
    assert source_header("table1.txt").startswith("# Source: N.J.A.C. 19:47-3.9(b) Table 1")
    assert source_header("table2.txt").startswith("# Source: N.J.A.C. 19:47-3.9(c) Table 2")
    assert source_header("table3.txt").startswith("# Source: N.J.A.C. 19:47-4.9(c) Table 3")
    assert source_header("chemin_de_fer_player.txt").startswith("# Source: N.J.A.C. 19:47-4.9(a)")


# --- Table 1 ---------------------------------------------------------------------------------


@pytest.mark.rule("PB-3.9b-TABLE1", "PB-3.9a-NATURAL")
@pytest.mark.parametrize("game", PUNTO_BANCO_GAMES, ids=lambda g: g.name)
@pytest.mark.parametrize("banker", range(10))
@pytest.mark.parametrize("player", range(10))
def test_table_1_every_cell(game: Game, player: int, banker: int) -> None:
    """N.J.A.C. 19:47-3.9(b) Table 1 (7.9): with the Banker's Hand at 0-7 the Player's Hand
    draws on 0-5 and stays on 6-9; a natural in either hand (3.9(a)) means it stays
    (PB-3.9b-TABLE1, PB-3.9a-NATURAL)."""
    natural = player >= 8 or banker >= 8
    expected = Draw.STAY if natural else CELL[TABLE_1[player]]
    assert player_rule(game, player, banker) is expected


# --- Table 2 ---------------------------------------------------------------------------------


@pytest.mark.rule("PB-3.9c-TABLE2")
@pytest.mark.parametrize("game", PUNTO_BANCO_GAMES, ids=lambda g: g.name)
@pytest.mark.parametrize("column", COLUMNS, ids=lambda c: "no-third" if c is None else str(c))
@pytest.mark.parametrize("banker", range(10))
def test_table_2_every_cell(game: Game, banker: int, column: int | None) -> None:
    """N.J.A.C. 19:47-3.9(c)-(f) Table 2 (7.9): every one of the 110 cells, the "If No Third
    Card Drawn" column and the all-draw rows 0-2 / all-stay rows 7-9 included, for a Player's
    Hand that is not a natural (PB-3.9c-TABLE2)."""
    expected = CELL[TABLE_2[banker][_golden_key(column)]]
    if banker >= 8:
        expected = Draw.STAY  # a two-card 8 or 9 is a natural, 3.9(a)
    players = range(6, 8) if column is None else range(0, 6)  # who stays / who draws
    for player in players:
        assert banker_rule(game, player, banker, column) is expected, (player, banker, column)


@pytest.mark.rule("PB-3.9c-TABLE2")
def test_table_2_has_no_option_cells() -> None:
    """N.J.A.C. 19:47-3.9(f): Table 2 only has "D" and "S"; no cell is an option."""
    for game in PUNTO_BANCO_GAMES:
        for banker in range(10):
            for column in COLUMNS:
                assert banker_rule(game, 0, banker, column) is not Draw.OPTION


@pytest.mark.rule("PB-3.9c-TABLE2")
def test_example_of_3_9_g_banker_5_third_card_4_draws() -> None:
    """N.J.A.C. 19:47-3.9(g): "if the Point Count of the Banker's Hand after two cards is 5
    and the value of the third card drawn by the Player's Hand is 4, ... the Banker's Hand
    shall draw a third card" (PB-3.9c-TABLE2)."""
    assert TABLE_2[5][4] == "D"
    for player in range(6):
        assert banker_rule(Game.PUNTO_BANCO, player, 5, 4) is Draw.DRAW
        assert banker_rule(Game.MINIBACCARAT, player, 5, 4) is Draw.DRAW


@pytest.mark.rule("PB-3.9c-TABLE2", "PB-3.1b-VALUE")
@pytest.mark.parametrize("rank", [Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING])
def test_ten_value_third_card_is_column_0(rank: Rank) -> None:
    """N.J.A.C. 19:47-3.9(e) with 3.1(b): the column is the VALUE of the player's third card,
    so a ten or face card is column 0 (banker 4 stays, banker 3 draws), never "10"
    (PB-3.9c-TABLE2, PB-3.1b-VALUE)."""
    third = card_value(rank)
    assert third == 0
    assert banker_rule(Game.PUNTO_BANCO, 2, 4, third) is Draw.STAY
    assert banker_rule(Game.PUNTO_BANCO, 2, 3, third) is Draw.DRAW
    assert banker_rule(Game.PUNTO_BANCO, 2, 6, third) is Draw.STAY
    for banker in range(8):
        expected = CELL[TABLE_2[banker][0]]
        assert banker_rule(Game.PUNTO_BANCO, 0, banker, third) is expected


@pytest.mark.rule("PB-3.9a-NATURAL", "PB-3.9c-TABLE2", "CF-4.9c-TABLE3")
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.name)
def test_naturals_end_the_deal_for_both_hands(game: Game) -> None:
    """N.J.A.C. 19:47-3.9(a), 4.9(a)4, 4.9(b): a two-card 8 or 9 in either hand - no more
    cards to either hand, whatever the tables would say (PB-3.9a-NATURAL)."""
    for natural in (8, 9):
        for other in range(10):
            assert player_rule(game, natural, other) is Draw.STAY
            assert player_rule(game, other, natural) is Draw.STAY
            for column in COLUMNS:
                assert banker_rule(game, natural, other, column) is Draw.STAY
                assert banker_rule(game, other, natural, column) is Draw.STAY


# --- Chemin de Fer: 4.9(a) and Table 3 -----------------------------------------------------


@pytest.mark.rule("CF-4.9a-PLAYER")
@pytest.mark.parametrize("banker", range(8))
@pytest.mark.parametrize("player", range(10))
def test_chemin_de_fer_player_rule_every_count(player: int, banker: int) -> None:
    """N.J.A.C. 19:47-4.9(a): the Dominant Player draws on 0-4, has the option on 5, stays on
    6-7 and announces "Natural" (no card) on 8-9 (CF-4.9a-PLAYER)."""
    cell = CF_PLAYER[player]
    expected = Draw.STAY if cell == "N" else CELL[cell]
    assert player_rule(Game.CHEMIN_DE_FER, player, banker) is expected


@pytest.mark.rule("CF-4.9a-PLAYER")
def test_chemin_de_fer_five_is_the_only_player_option() -> None:
    """N.J.A.C. 19:47-4.9(a)2: five, and only five, is the Dominant Player's option; Punto
    Banco's Table 1 has no option (3.9(b)) (CF-4.9a-PLAYER)."""
    options = [p for p in range(10) if player_rule(Game.CHEMIN_DE_FER, p, 0) is Draw.OPTION]
    assert options == [5]
    assert player_rule(Game.PUNTO_BANCO, 5, 0) is Draw.DRAW


@pytest.mark.rule("CF-4.9c-TABLE3")
@pytest.mark.parametrize("column", COLUMNS, ids=lambda c: "no-third" if c is None else str(c))
@pytest.mark.parametrize("banker", range(10))
def test_table_3_every_cell(banker: int, column: int | None) -> None:
    """N.J.A.C. 19:47-4.9(c)-(f) Table 3: every one of the 110 cells; "Op." is the Banker's
    choice (CF-4.9c-TABLE3)."""
    expected = CELL[TABLE_3[banker][_golden_key(column)]]
    if banker >= 8:
        expected = Draw.STAY
    players = range(5, 8) if column is None else range(0, 6)
    for player in players:
        got = banker_rule(Game.CHEMIN_DE_FER, player, banker, column)
        assert got is expected, (player, banker, column)


@pytest.mark.rule("CF-4.9c-TABLE3")
def test_example_of_4_9_g_banker_3_third_card_9_is_an_option() -> None:
    """N.J.A.C. 19:47-4.9(g): "if the Point Count of the Banker's Hand after two cards is 3
    and the value of the third card ... is 9, Table 3 shows that the Banker has the option of
    drawing a third card or staying" (CF-4.9c-TABLE3)."""
    assert TABLE_3[3][9] == "Op."
    for player in range(6):
        assert banker_rule(Game.CHEMIN_DE_FER, player, 3, 9) is Draw.OPTION
    # The same cell of Table 2 (Punto Banco) is a must-draw.
    assert banker_rule(Game.PUNTO_BANCO, 0, 3, 9) is Draw.DRAW


@pytest.mark.rule("CF-4.9c-TABLE3", "PB-3.9c-TABLE2")
def test_table_3_differs_from_table_2_only_by_two_options() -> None:
    """N.J.A.C. 19:47-4.9(c) vs 3.9(c): Table 3 is Table 2 except the "Op." cells at
    banker 3 / third card 9 and banker 5 / third card 4 (CF-4.9c-TABLE3)."""
    differences = {
        (banker, column)
        for banker in range(10)
        for column in COLUMNS
        if banker_rule(Game.CHEMIN_DE_FER, 0, banker, column)
        is not banker_rule(Game.PUNTO_BANCO, 0, banker, column)
    }
    assert differences == {(3, 9), (5, 4)}
    assert banker_rule(Game.CHEMIN_DE_FER, 0, 5, 4) is Draw.OPTION


@pytest.mark.rule("CF-4.9c-TABLE3")
def test_golden_table_3_restores_one_cell_per_extracted_row() -> None:
    """N.J.A.C. 19:47-4.9(c): the extracted Table 3 rows have 10 of 11 cells. Each golden row
    must be its extracted row with exactly one cell restored, the first cell (no third card)
    and the last (third card 9) unchanged, and the restored cell repeats a neighbour
    (CF-4.9c-TABLE3)."""
    extracted = {
        int(line.split(":")[0]): line.split(":")[1].split()
        for line in comment_lines("table3.txt", "extracted row")
    }
    golden = banker_table_rows("table3.txt")
    assert sorted(extracted) == [3, 4, 5, 6]
    for banker, short in extracted.items():
        full = golden[banker]
        assert len(short) == 10 and len(full) == 11
        restorations = [i for i in range(11) if full[:i] + full[i + 1 :] == short]
        assert restorations, f"row {banker}: golden row is not the extracted row plus one cell"
        assert full[0] == short[0] and full[-1] == short[-1]
        inside = [i for i in restorations if 0 < i < 10]
        assert inside and all(full[i] in (full[i - 1], full[i + 1]) for i in inside)


@pytest.mark.rule("CF-4.9c-TABLE3", "PB-3.9c-TABLE2")
def test_draw_cell_permits() -> None:
    """N.J.A.C. 19:47-3.9(f), 4.9(f): "D" means must draw, "S" must stay, "Op." either
    (PB-3.9c-TABLE2, CF-4.9c-TABLE3)."""
    assert Draw.DRAW.permits(True) and not Draw.DRAW.permits(False)
    assert Draw.STAY.permits(False) and not Draw.STAY.permits(True)
    assert Draw.OPTION.permits(True) and Draw.OPTION.permits(False)


@pytest.mark.rule("PB-3.9c-TABLE2", "CF-4.9c-TABLE3", "PB-3.1b-VALUE")
def test_banker_tables_have_a_row_per_count_and_a_column_per_value() -> None:
    """N.J.A.C. 19:47-3.9(c), 4.9(c), 3.1(b): Tables 2 and 3 have a row for each two-card
    count 0-9 and a column for "If No Third Card Drawn" and each value 0-9; a count or value
    of 10 (a ten-value card not counted as 0) finds no cell instead of an answer
    (PB-3.9c-TABLE2, CF-4.9c-TABLE3, PB-3.1b-VALUE)."""
    for table in (draw_tables.TABLE_2, draw_tables.TABLE_3):
        assert sorted(table) == list(range(10))
        assert all(list(row) == COLUMNS for row in table.values())
    with pytest.raises(KeyError):
        banker_rule(Game.PUNTO_BANCO, 0, 0, 10)
