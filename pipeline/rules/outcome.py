"""The result of a round from the cards in each hand.

Punto Banco wagers are decided by point counts (N.J.A.C. 19:47-3.2(a)); the optional wagers
add the number of cards dealt (3.2(a)4), the dragon 7 (3.3(h)) and the bonus margin (3.2(a)5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.rules.cards import Card, Point, is_natural, point_count
from pipeline.rules.symbol import Symbol


class Winner(Symbol):
    PLAYER = "PLAYER"
    BANKER = "BANKER"
    TIE = "TIE"


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """Everything a wager can depend on, computed once from the final hands."""

    player_points: Point
    banker_points: Point
    player_cards: int
    banker_cards: int

    @property
    def winner(self) -> Winner:
        """N.J.A.C. 19:47-3.2(a)1-3: the higher point count wins; equal counts are a tie."""
        if self.banker_points > self.player_points:
            return Winner.BANKER
        if self.player_points > self.banker_points:
            return Winner.PLAYER
        return Winner.TIE

    @property
    def total_cards(self) -> int:
        """Cards dealt in the round, 4, 5 or 6, for the total-card wagers (3.2(a)4)."""
        return self.player_cards + self.banker_cards

    @property
    def player_natural(self) -> bool:
        """N.J.A.C. 19:47-3.9(a)."""
        return is_natural(self.player_points, self.player_cards)

    @property
    def banker_natural(self) -> bool:
        """N.J.A.C. 19:47-3.9(a)."""
        return is_natural(self.banker_points, self.banker_cards)

    @property
    def dragon_7(self) -> bool:
        """A three-card Banker's Hand with a point count of seven that wins, 19:47-3.3(h)."""
        return self.banker_cards == 3 and self.banker_points == 7 and self.winner is Winner.BANKER

    @property
    def banker_wins_with_6(self) -> bool:
        """A winning Banker's Hand with a point count of six, paid 1 to 2 under 3.3(e)1."""
        return self.winner is Winner.BANKER and self.banker_points == 6

    def margin(self, side: Winner) -> int:
        """Points by which ``side`` beats the other hand (negative when it loses), 3.2(a)5."""
        if side is Winner.PLAYER:
            return self.player_points - self.banker_points
        if side is Winner.BANKER:
            return self.banker_points - self.player_points
        raise ValueError("a margin is measured for the PLAYER or BANKER hand, not TIE")

    def natural(self, side: Winner) -> bool:
        return self.player_natural if side is Winner.PLAYER else self.banker_natural


def outcome_of(player: Sequence[Card], banker: Sequence[Card]) -> RoundOutcome:
    """The outcome of final hands of two or three cards each (3.7(c), 3.8(d))."""
    for name, hand in (("Player's", player), ("Banker's", banker)):
        if not 2 <= len(hand) <= 3:
            raise ValueError(
                f"the {name} Hand has {len(hand)} cards; a hand has two cards plus at most one "
                "more (N.J.A.C. 19:47-3.7(c), 3.8(d))"
            )
    return RoundOutcome(
        player_points=point_count(c.value for c in player),
        banker_points=point_count(c.value for c in banker),
        player_cards=len(player),
        banker_cards=len(banker),
    )
