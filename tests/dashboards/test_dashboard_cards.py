"""Cards written one way everywhere: rank and suit symbol, red hearts and diamonds, the two
hands side by side."""

from __future__ import annotations

import re

import pytest

from dashboards.cards import card_text, hands_html
from dashboards.reconstruct import reconstruct
from pipeline.rules.games import Game

CARD = r'<div class="card [^"]*" title="shoe position \d+">([^<]+)<small>'


@pytest.mark.parametrize(
    ("rank", "suit", "text"),
    [
        ("TEN", "HEARTS", "10♥"),
        ("ACE", "SPADES", "A♠"),
        ("KING", "DIAMONDS", "K♦"),
        ("SEVEN", "CLUBS", "7♣"),
    ],
)
def test_card_text(rank: str, suit: str, text: str) -> None:
    assert card_text(rank, suit) == text


def test_card_text_refuses_what_is_not_a_card() -> None:
    with pytest.raises(KeyError):
        card_text("<b>", "HEARTS")


def test_hands_side_by_side_in_shoe_order_with_red_suits_and_third_card_turned() -> None:
    cards = [
        (12, "NINE", "CLUBS", "BANKER"),
        (10, "TWO", "HEARTS", "PLAYER"),
        (13, "ACE", "DIAMONDS", "PLAYER"),
        (11, "KING", "SPADES", "BANKER"),
        (14, "THREE", "HEARTS", "PLAYER"),
        (9, "FIVE", "CLUBS", "BURN"),
    ]
    html_text = hands_html(cards, 6, 9)
    player, banker = html_text.split('<div class="hand">')[1:]
    assert "Player · 6" in player and "Banker · 9" in banker
    assert re.findall(CARD, player) == ["2♥", "A♦", "3♥"]
    assert re.findall(CARD, banker) == ["K♠", "9♣"]
    assert player.count('class="card red') == 3 and banker.count('class="card black') == 2
    assert player.count(" third") == 1 and banker.count(" third") == 0
    assert "5♣" not in html_text  # a burn card is no hand's card


def test_reconstruction_writes_cards_the_same_way() -> None:
    rebuilt = reconstruct(
        Game.PUNTO_BANCO,
        [
            (1, "TEN", "HEARTS", "PLAYER"),
            (2, "ACE", "SPADES", "BANKER"),
            (3, "NINE", "CLUBS", "PLAYER"),
            (4, "TWO", "DIAMONDS", "BANKER"),
        ],
    )
    assert [c.label for c in rebuilt.cards] == ["10♥", "A♠", "9♣", "2♦"]
