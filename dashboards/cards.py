"""Cards as cards: one way to write a card everywhere a person reads one (rank and suit
symbol, hearts and diamonds in red), and a round's two hands side by side."""

from __future__ import annotations

import html
from collections.abc import Iterable

from pipeline.rules.cards import Rank, Suit

SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
RED_SUITS = frozenset({Suit.DIAMONDS, Suit.HEARTS})
RANK_LABELS = {Rank.TEN: "10"}
"""Ranks written otherwise than by their one-character symbol (``T`` is ``10`` on a card)."""

_STYLE = """<style>
.hands{display:flex;gap:2.5em;margin:.4em 0 1em}
.hand .name{font:600 13px sans-serif;margin-bottom:4px}
.hand .row{display:flex;gap:6px}
.card{width:44px;height:62px;border:1px solid #9e9e9e;border-radius:6px;background:#fff;
      display:flex;flex-direction:column;align-items:center;justify-content:center;
      font:600 18px sans-serif;box-shadow:0 1px 2px rgba(0,0,0,.2)}
.card.red{color:#c62828}.card.black{color:#212121}
.card.third{transform:rotate(90deg);margin:0 10px}
.card small{font:11px sans-serif;color:#757575}
</style>"""


def card_text(rank: str, suit: str) -> str:
    """``("TEN", "HEARTS")`` -> ``10♥``; rank and suit are the ledger's enum names."""
    return f"{RANK_LABELS.get(Rank[rank], Rank[rank].value)}{SUIT_SYMBOLS[Suit[suit]]}"


def _card(rank: str, suit: str, position: int, third: bool) -> str:
    colour = "red" if Suit[suit] in RED_SUITS else "black"
    turned = " third" if third else ""
    return (
        f'<div class="card {colour}{turned}" title="shoe position {position}">'
        f"{html.escape(card_text(rank, suit))}<small>{position}</small></div>"
    )


def hands_html(cards: Iterable[tuple[int, str, str, str]], player: int, banker: int) -> str:
    """The Player's and the Banker's Hand side by side, each card as a card (a third card
    turned sideways, as dealt), with each hand's point count. ``cards`` are (shoe position,
    rank, suit, hand) in any order; cards of other hands (burns, discards) are left out."""
    dealt = sorted(cards)
    columns = []
    for hand, name, points in (("PLAYER", "Player", player), ("BANKER", "Banker", banker)):
        own = [(p, r, s) for p, r, s, h in dealt if h == hand]
        row = "".join(_card(r, s, p, third=i == 2) for i, (p, r, s) in enumerate(own))
        columns.append(
            f'<div class="hand"><div class="name">{name} · {points}</div>'
            f'<div class="row">{row}</div></div>'
        )
    return _STYLE + '<div class="hands">' + "".join(columns) + "</div>"
