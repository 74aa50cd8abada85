"""Cards, their values and the point count of a hand.

N.J.A.C. 19:47-3.1 (Punto Banco), 4.1 (Chemin de Fer) and 7.1 (Minibaccarat) define the
same values; 3.5(e), 4.4(e) and 7.5(f) define a different count for the burn.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NewType

from pipeline.rules.symbol import Symbol

Point = NewType("Point", int)
"""A point count, 0 to 9 inclusive (N.J.A.C. 19:47-3.1(c))."""


class Suit(Symbol):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"


class Rank(Symbol):
    """A card's rank. The enum value is the conventional one-character symbol."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"


RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = tuple(Suit)
TEN_VALUE_RANKS: frozenset[Rank] = frozenset({Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING})

_POINT_VALUE: dict[Rank, int] = {
    Rank.ACE: 1,
    Rank.TWO: 2,
    Rank.THREE: 3,
    Rank.FOUR: 4,
    Rank.FIVE: 5,
    Rank.SIX: 6,
    Rank.SEVEN: 7,
    Rank.EIGHT: 8,
    Rank.NINE: 9,
    Rank.TEN: 0,
    Rank.JACK: 0,
    Rank.QUEEN: 0,
    Rank.KING: 0,
}


def card_value(rank: Rank) -> int:
    """The "Value" of a card, N.J.A.C. 19:47-3.1(b) (also 4.1(b), 7.1(b)).

    2 to 9 have face value; ten, jack, queen and king are zero; an ace is one.
    """
    return _POINT_VALUE[rank]


def burn_value(rank: Rank) -> int:
    """How many further cards the first card of a shoe burns, N.J.A.C. 19:47-3.5(e).

    Unlike the point value, "face cards and tens count as tens. Aces count as one."
    (also 4.4(e) and 7.5(f)).
    """
    return 10 if rank in TEN_VALUE_RANKS else _POINT_VALUE[rank]


@dataclass(frozen=True, slots=True)
class Card:
    rank: Rank
    suit: Suit

    @property
    def value(self) -> int:
        return card_value(self.rank)

    def __str__(self) -> str:
        return f"{self.rank.value}{self.suit.value}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the two-character notation used in tests and logs, e.g. ``"9H"`` or ``"TS"``."""
        if len(text) != 2:
            raise ValueError(f"card {text!r}: expected rank and suit, e.g. '9H' or 'TS'")
        try:
            return cls(Rank(text[0].upper()), Suit(text[1].upper()))
        except ValueError:
            raise ValueError(
                f"card {text!r}: rank must be one of A23456789TJQK and suit one of CDHS"
            ) from None


def cards(text: str) -> tuple[Card, ...]:
    """Parse a space-separated card list such as ``"AH 2C 4D"``."""
    return tuple(Card.parse(token) for token in text.split())


def point_count(values: Iterable[int]) -> Point:
    """The point count of a hand from its card values, N.J.A.C. 19:47-3.1(c).

    The total's left digit is discarded: ace, 2 and 9 total 12, a point count of 2.
    """
    return Point(sum(values) % 10)


def hand_points(hand: Iterable[Card]) -> Point:
    """The point count of a hand of cards, N.J.A.C. 19:47-3.1(c)."""
    return point_count(card.value for card in hand)


def is_natural(points: int, cards_in_hand: int = 2) -> bool:
    """A two-card point count of 8 or 9 is a "natural", N.J.A.C. 19:47-3.9(a)."""
    return cards_in_hand == 2 and points >= 8
