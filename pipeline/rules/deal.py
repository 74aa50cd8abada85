"""The honest deal of one round from the front of a shoe.

The emulator's dealer, the odds oracle's cross-check and the replay's expectations all deal
through this one function, so the order of cards and draws is defined once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.rules.cards import Card, hand_points
from pipeline.rules.codes import code_for, rule
from pipeline.rules.draw import Draw, banker_rule, player_rule
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome, outcome_of

MOST_CARDS_IN_A_ROUND = 6
"""Two hands of two cards and at most one more each (3.7(c), 3.8(d)): six cards always
complete a round."""


FIRST_FOUR = ("PLAYER", "BANKER", "PLAYER", "BANKER")
"""The hands the first four cards go to: the first and third to the Player's Hand, the
second and fourth to the Banker's (3.7(c), 4.8(d))."""


def deal_order(player_cards: int, banker_cards: int) -> tuple[str, ...]:
    """The hands, in the order the cards of a round with ``player_cards`` and
    ``banker_cards`` are dealt: the first four (3.7(c), 4.8(d)), then a third card first to
    the Player's Hand and then to the Banker's (3.8(c))."""
    return FIRST_FOUR + ("PLAYER",) * (player_cards - 2) + ("BANKER",) * (banker_cards - 2)


def deal_order_problem(hands: Sequence[str]) -> str | None:
    """What is out of order in the hands the round's cards went to, as the subject of the
    rule broken: ``"deal_order"`` (the first four, 3.7(c), 4.8(d)), ``"third_order"`` (a
    Banker's third card before the Player's, 3.8(c)), or ``None``."""
    if tuple(hands[:4]) != FIRST_FOUR:
        return "deal_order"
    thirds = tuple(hands[4:])
    if thirds != deal_order(2 + thirds.count("PLAYER"), 2 + thirds.count("BANKER"))[4:]:
        return "third_order"
    return None


class InsufficientCardsError(Exception):
    """The shoe ran out mid-round: the round is void (N.J.A.C. 19:47-3.12(e), 4.12(k))."""


def void_for_insufficient_cards(cards_left: int) -> bool:
    """Whether a round may be void for want of cards, N.J.A.C. 19:47-3.12(e) (4.12(k)): "If
    there are insufficient cards remaining in the shoe to complete a round of play". Below six
    cards left a round may run out, so a void is justified; with six or more it never is."""
    return cards_left < MOST_CARDS_IN_A_ROUND


@dataclass(frozen=True, slots=True)
class Options:
    """The choices Chemin de Fer leaves to the hands (4.9(a)2 and the "Op." cells of Table 3).

    Punto Banco and Minibaccarat have no choices, so these are ignored there.
    """

    player_draws_on_5: bool = True
    banker_draws_on_option: bool = True


@dataclass(frozen=True, slots=True)
class Deal:
    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    options_taken: tuple[str, ...]
    """Which hand exercised which option, e.g. ``("PLAYER:STAY",)``; recorded, never an error."""

    @property
    def cards_used(self) -> int:
        return len(self.player) + len(self.banker)

    @property
    def outcome(self) -> RoundOutcome:
        return outcome_of(self.player, self.banker)


def _void_section(game: Game) -> str:
    return rule(code_for(game, "insufficient")).citation


def deal_round(game: Game, shoe: Sequence[Card], options: Options = Options()) -> Deal:
    """Deal one round from the front of ``shoe``.

    The first and third cards form the Player's Hand, the second and fourth the Banker's
    (N.J.A.C. 19:47-3.7(c), 4.8(d)); a third card goes first to the Player's Hand, then to the
    Banker's (3.8(c)) under :func:`player_rule` and :func:`banker_rule`.
    """
    if len(shoe) < 4:
        raise InsufficientCardsError(
            f"{len(shoe)} cards left, 4 needed to deal a round ({_void_section(game)})"
        )
    player = [shoe[0], shoe[2]]
    banker = [shoe[1], shoe[3]]
    next_card = 4
    taken: list[str] = []
    p_points, b_points = hand_points(player), hand_points(banker)

    def draw_for(hand: list[Card]) -> Card:
        nonlocal next_card
        if next_card >= len(shoe):
            raise InsufficientCardsError(
                f"the shoe ran out after {next_card} cards of the round ({_void_section(game)})"
            )
        card = shoe[next_card]
        next_card += 1
        hand.append(card)
        return card

    player_third: int | None = None
    rule = player_rule(game, p_points, b_points)
    if rule is Draw.OPTION:
        taken.append("PLAYER:DRAW" if options.player_draws_on_5 else "PLAYER:STAY")
    if rule is Draw.DRAW or (rule is Draw.OPTION and options.player_draws_on_5):
        player_third = draw_for(player).value

    rule = banker_rule(game, p_points, b_points, player_third)
    if rule is Draw.OPTION:
        taken.append("BANKER:DRAW" if options.banker_draws_on_option else "BANKER:STAY")
    if rule is Draw.DRAW or (rule is Draw.OPTION and options.banker_draws_on_option):
        draw_for(banker)
    return Deal(tuple(player), tuple(banker), tuple(taken))
