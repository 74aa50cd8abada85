"""Third-card rules: Tables 1 and 2 (N.J.A.C. 19:47-3.9, 7.9) and Table 3 (4.9).

Precedence follows the regulation's order: a natural in either hand ends the deal (3.9(a));
otherwise the Player's Hand draws or stays by Table 1 (3.9(b)); then the Banker's Hand by
Table 2, indexed by the *value* of the player's third card, not the player's point count
(3.9(e)). Chemin de Fer replaces Table 2 with Table 3, whose "Op." cells are the Banker's
choice (4.9(f)), and gives the Dominant Player a choice on 5 (4.9(a)2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.rules.cards import is_natural
from pipeline.rules.draw_tables import Draw
from pipeline.rules.games import Game
from pipeline.rules.variants import variant


def naturals_end_deal(player_points: int, banker_points: int) -> bool:
    """N.J.A.C. 19:47-3.9(a) (and 4.9(a)4, 4.9(b)): a natural 8 or 9 in either two-card hand
    means no more cards are dealt to either hand."""
    return is_natural(player_points) or is_natural(banker_points)


def player_rule(game: Game, player_points: int, banker_points: int) -> Draw:
    """What the Player's Hand must do on its two-card count.

    Naturals first (3.9(a)); then Table 1 (3.9(b), 7.9) or, in Chemin de Fer, 4.9(a).
    """
    if naturals_end_deal(player_points, banker_points):
        return Draw.STAY
    return variant(game).player_draws[player_points]


def banker_rule(
    game: Game, player_points: int, banker_points: int, player_third_value: int | None
) -> Draw:
    """What the Banker's Hand must do, given the two-card counts and the *value* of the
    player's third card (``None`` when the player stayed), N.J.A.C. 19:47-3.9(c)-(g) Table 2,
    or 4.9(c)-(g) Table 3 in Chemin de Fer. A 10-value third card counts as 0 (3.1(b))."""
    if naturals_end_deal(player_points, banker_points):
        return Draw.STAY
    return variant(game).banker_draws[banker_points][player_third_value]


@dataclass(frozen=True, slots=True)
class DrawRuling:
    """Which rule decided whether one hand took a third card, and whether it was followed:
    the explanation of a draw that the replay's findings and the round reconstruction give."""

    hand: str
    """``"PLAYER"`` or ``"BANKER"``."""
    subject: str
    """The rule, as a subject of :func:`pipeline.rules.codes.code_for`: ``"natural"``
    (3.9(a), 4.9(a)4), ``"player_draw"`` (Table 1, 4.9(a)) or ``"banker_draw"`` (Table 2,
    Table 3)."""
    cell: Draw
    drew: bool
    player_points: int
    """The Player's two-card count."""
    banker_points: int
    """The Banker's two-card count."""
    player_third: int | None
    """The value of the Player's third card (``None`` when the Player's Hand stayed), which
    the Banker's table is read by."""

    @property
    def natural(self) -> bool:
        return self.subject == "natural"

    @property
    def agrees(self) -> bool:
        """Whether the hand drew or stayed as the rule allows."""
        return self.cell.permits(self.drew)


def draw_rulings(
    game: Game, player_values: Sequence[int], banker_values: Sequence[int]
) -> tuple[DrawRuling, DrawRuling]:
    """The rulings on the Player's and the Banker's draw of a round whose hands hold cards
    of ``player_values`` and ``banker_values`` (card values, in the order dealt; at least two
    each): a natural ends the deal (3.9(a)), else the Player's Hand by Table 1 (4.9(a)), then
    the Banker's by Table 2 (Table 3) against the Player's third card."""
    p2, b2 = sum(player_values[:2]) % 10, sum(banker_values[:2]) % 10
    player_drew, banker_drew = len(player_values) >= 3, len(banker_values) >= 3
    third = player_values[2] if player_drew else None
    natural = naturals_end_deal(p2, b2)
    return (
        DrawRuling(
            "PLAYER",
            "natural" if natural else "player_draw",
            player_rule(game, p2, b2),
            player_drew,
            p2,
            b2,
            None,
        ),
        DrawRuling(
            "BANKER",
            "natural" if natural else "banker_draw",
            banker_rule(game, p2, b2, third),
            banker_drew,
            p2,
            b2,
            third,
        ),
    )


__all__ = [
    "Draw",
    "DrawRuling",
    "banker_rule",
    "draw_rulings",
    "naturals_end_deal",
    "player_rule",
]
