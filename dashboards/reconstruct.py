"""A round card by card: which card went to which hand, the running counts, and which rule of
Tables 1-3 decided each draw, recomputed with :mod:`pipeline.rules.draw` (not read back from
the replay), so a reader can check the replay's verdict by hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from dashboards.cards import card_text
from pipeline.rules.cards import Rank, Suit, card_value
from pipeline.rules.codes import code_for, rule
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game


@dataclass(frozen=True, slots=True)
class DealtCard:
    position: int
    hand: str
    rank: str
    suit: str
    value: int
    player_points: int  # the hand counts after this card
    banker_points: int

    @property
    def label(self) -> str:
        return card_text(self.rank, self.suit)

    @property
    def short(self) -> str:
        """The ledger's notation, e.g. ``TH`` or ``7S``."""
        return f"{Rank[self.rank].value}{Suit[self.suit].value}"


@dataclass(frozen=True, slots=True)
class DrawDecision:
    hand: str  # PLAYER or BANKER
    text: str  # e.g. "Table 2: Banker 5 vs player third card 4 → D"
    cell: Draw
    drew: bool
    agrees: bool
    code: str

    @property
    def citation(self) -> str:
        return rule(self.code).citation

    @property
    def verdict(self) -> str:
        taken = "drew" if self.drew else "stood"
        if self.cell is Draw.OPTION:
            return f"{taken} (the hand's option)"
        return f"{taken}: {'as the rule requires' if self.agrees else 'AGAINST the rule'}"


@dataclass(frozen=True, slots=True)
class Reconstruction:
    cards: tuple[DealtCard, ...]
    player_points: int
    banker_points: int
    decisions: tuple[DrawDecision, ...]
    notes: tuple[str, ...]

    @property
    def winner(self) -> str:
        if self.banker_points > self.player_points:
            return "BANKER"
        if self.player_points > self.banker_points:
            return "PLAYER"
        return "TIE"


def _tables(game: Game) -> tuple[str, str]:
    if game is Game.CHEMIN_DE_FER:
        return "4.9(a)", "Table 3"
    return "Table 1", "Table 2"


def reconstruct(
    game: Game, cards: Iterable[tuple[int, str, str, str]], table_label: str = ""
) -> Reconstruction:
    """Rebuild a round from its cards ``(position, rank name, suit name, hand)``.

    ``table_label`` ("Table 2: ...") may be prefixed to every decision, e.g. the table id.
    """
    ordered = sorted(cards, key=lambda c: c[0])
    dealt: list[DealtCard] = []
    hands: dict[str, list[int]] = {"PLAYER": [], "BANKER": []}
    notes: list[str] = []
    for position, rank, suit, hand in ordered:
        if hand not in hands:
            notes.append(f"card at position {position} went to {hand!r}, not a hand")
            continue
        value = card_value(Rank[rank])
        hands[hand].append(value)
        dealt.append(
            DealtCard(
                position,
                hand,
                rank,
                suit,
                value,
                sum(hands["PLAYER"]) % 10,
                sum(hands["BANKER"]) % 10,
            )
        )
    player, banker = hands["PLAYER"], hands["BANKER"]
    p_total, b_total = sum(player) % 10, sum(banker) % 10
    if len(player) < 2 or len(banker) < 2:
        notes.append("fewer than two cards in a hand: the round is incomplete, no draw check")
        return Reconstruction(tuple(dealt), p_total, b_total, (), tuple(notes))
    first_four = [c.hand for c in dealt[:4]]
    if first_four != ["PLAYER", "BANKER", "PLAYER", "BANKER"]:
        notes.append(
            f"first four cards went {', '.join(first_four)}; 3.7(c) deals Player, Banker, "
            "Player, Banker"
        )
    p2, b2 = sum(player[:2]) % 10, sum(banker[:2]) % 10
    prefix = f"{table_label}: " if table_label else ""
    player_table, banker_table = _tables(game)
    decisions: list[DrawDecision] = []

    p_cell = player_rule(game, p2, b2)
    p_drew = len(player) >= 3
    if p2 >= 8 or b2 >= 8:
        decisions.append(
            DrawDecision(
                "PLAYER",
                f"{prefix}Natural: Player {p2} vs Banker {b2} → no third card",
                Draw.STAY,
                p_drew,
                not p_drew,
                code_for(game, "natural"),
            )
        )
        b_drew = len(banker) >= 3
        decisions.append(
            DrawDecision(
                "BANKER",
                f"{prefix}Natural: Banker {b2} vs Player {p2} → no third card",
                Draw.STAY,
                b_drew,
                not b_drew,
                code_for(game, "natural"),
            )
        )
    else:
        decisions.append(
            DrawDecision(
                "PLAYER",
                f"{prefix}{player_table}: Player {p2} → {p_cell.value}",
                p_cell,
                p_drew,
                p_cell.permits(p_drew),
                code_for(game, "player_draw"),
            )
        )
        third = player[2] if p_drew else None
        b_cell = banker_rule(game, p2, b2, third)
        against = f"vs player third card {third}" if third is not None else "(player stood)"
        b_drew = len(banker) >= 3
        decisions.append(
            DrawDecision(
                "BANKER",
                f"{prefix}{banker_table}: Banker {b2} {against} → {b_cell.value}",
                b_cell,
                b_drew,
                b_cell.permits(b_drew),
                code_for(game, "banker_draw"),
            )
        )
    if len(player) > 3 or len(banker) > 3:
        notes.append("more than three cards in a hand (3.8(d) allows one more card per hand)")
    return Reconstruction(tuple(dealt), p_total, b_total, tuple(decisions), tuple(notes))
