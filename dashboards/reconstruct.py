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
from pipeline.rules.deal import FIRST_FOUR
from pipeline.rules.draw import Draw, DrawRuling, draw_rulings
from pipeline.rules.games import Game
from pipeline.rules.variants import variant


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


def _explain(ruling: DrawRuling, player_table: str, banker_table: str) -> str:
    """One line saying which rule decided the hand's draw, e.g. "Table 2: Banker 5 vs player
    third card 4 → D"."""
    p2, b2 = ruling.player_points, ruling.banker_points
    if ruling.natural and ruling.hand == "PLAYER":
        return f"Natural: Player {p2} vs Banker {b2} → no third card"
    if ruling.natural:
        return f"Natural: Banker {b2} vs Player {p2} → no third card"
    if ruling.hand == "PLAYER":
        return f"{player_table}: Player {p2} → {ruling.cell.value}"
    third = ruling.player_third
    against = f"vs player third card {third}" if third is not None else "(player stood)"
    return f"{banker_table}: Banker {b2} {against} → {ruling.cell.value}"


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
    if tuple(first_four) != FIRST_FOUR:
        notes.append(
            f"first four cards went {', '.join(first_four)}; 3.7(c) deals Player, Banker, "
            "Player, Banker"
        )
    prefix = f"{table_label}: " if table_label else ""
    rules = variant(game)
    # Chemin de Fer's Dominant Player follows the text of 4.9(a), not a table.
    player_table = rules.player_table or rule(code_for(game, "player_draw")).section
    decisions = tuple(
        DrawDecision(
            ruling.hand,
            prefix + _explain(ruling, player_table, rules.banker_table),
            ruling.cell,
            ruling.drew,
            ruling.agrees,
            code_for(game, ruling.subject),
        )
        for ruling in draw_rulings(game, player, banker)
    )
    if len(player) > 3 or len(banker) > 3:
        notes.append("more than three cards in a hand (3.8(d) allows one more card per hand)")
    return Reconstruction(tuple(dealt), p_total, b_total, decisions, tuple(notes))
