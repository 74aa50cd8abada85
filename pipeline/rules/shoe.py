"""Shoe procedure: decks, cut, cutting card, burn and the last hand.

N.J.A.C. 19:47-3.1(a), 3.5(a), 3.5(c)-(e), 3.8(e), 3.12(e); 4.1(a), 4.4(a), 4.4(c)-(e),
4.12(g); 7.1(a), 7.1(d), 7.5(b), 7.5(d)-(f).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.rules.cards import Rank, burn_value
from pipeline.rules.codes import code_for
from pipeline.rules.config import (
    MINIMUM_DECKS,
    MINIMUM_DECKS_TWO_BATCH,
    ShuffleMethod,
    TableRules,
)
from pipeline.rules.games import Game
from pipeline.rules.variants import variant

CARDS_PER_DECK = 52
MINIMUM_CUT = 10  # 3.5(d): at least 10 cards in from either end
MINIMUM_CUT_CARD_FROM_BACK = 14  # 3.5(e): second cutting card at least 14 from the back


@dataclass(frozen=True, slots=True)
class ShoeProblem:
    rule_code: str
    message: str


def shuffle_problems(
    rules: TableRules, method: str, batch: str | None, previous_batch: str | None
) -> list[ShoeProblem]:
    """A shoe shuffled by another option than the table's filed one (3.5(a), 4.4(a), 7.5(b));
    with the two-batch shuffler, a shoe dealt from the same batch as the one before it: one
    batch is dealt while the other is shuffled (7.1(d)4). ``previous_batch`` is the batch of
    the table's previous shoe that day, ``None`` for its first."""
    found: list[ShoeProblem] = []
    filed = rules.shuffle_method
    if method != filed.value:
        found.append(
            ShoeProblem(
                code_for(rules.game, "shuffle_filed"),
                f"shuffled {method}, but the table's rules {rules.rules_id!r} file {filed.value}",
            )
        )
    elif (
        filed is ShuffleMethod.AUTOMATED_BATCH
        and previous_batch is not None
        and batch in (None, previous_batch)
    ):
        found.append(
            ShoeProblem(
                "MB-7.1d4-BATCH-ALTERNATE",
                f"dealt from batch {batch or '(not recorded)'} after a shoe of batch "
                f"{previous_batch}; the batches alternate, one dealt while the other is "
                "shuffled",
            )
        )
    return found


def cut_card_problem(
    cards_in_shoe: int,
    cut_card_from_back: int,
    recorded_at: int | None,
    last_hand_position: int,
) -> str | None:
    """Whether the cutting card was recorded where it lies: ``cut_card_from_back`` cards from
    the back (3.5(e)), so it appears when the card at ``cards_in_shoe - cut_card_from_back``
    is next. ``recorded_at`` is the shoe position at which the cutting card was recorded
    (``None``: never, by the shoe's end); ``last_hand_position`` the furthest position dealt to
    a hand before then. Cards burned or discarded between hands may pass it: it is then seen
    at the next hand's first card."""
    lies_before = cards_in_shoe - cut_card_from_back
    if recorded_at is not None and recorded_at < lies_before:
        return (
            f"the cutting card was recorded at position {recorded_at}, but it was placed "
            f"{cut_card_from_back} cards from the back, before position {lies_before}"
        )
    if last_hand_position >= lies_before:
        when = "before it was recorded" if recorded_at is not None else "and it was never recorded"
        return (
            f"hands were dealt up to position {last_hand_position}, past the cutting card "
            f"placed {cut_card_from_back} cards from the back (before position {lies_before}), "
            f"{when}"
        )
    return None


def cut_offer_problem(cut_by_seat: int | None, seated: Iterable[int]) -> str | None:
    """Whether the seat recorded as cutting the cards could have been offered the cut. The
    dealer offers the stack "to the participants to be cut", beginning with the participant in
    the highest-numbered seat and working clockwise until one accepts; if none does, the
    dealer cuts (3.5(c), 4.4(c), 7.5(d)). ``seated`` are the seats occupied when the shoe was
    started; ``cut_by_seat`` ``None`` is a cut by the dealer. Which participants declined is
    not recorded, so any seated participant may have been the one who accepted."""
    if cut_by_seat is None:
        return None
    occupied = sorted(set(seated))
    if cut_by_seat in occupied:
        return None
    offered = (
        f"seats {', '.join(map(str, reversed(occupied)))} in that order"
        if occupied
        else "nobody: no participant was seated, so the dealer cuts"
    )
    return (
        f"the cards were recorded as cut from seat {cut_by_seat}, where no participant sat; "
        f"the stack could be offered to {offered}"
    )


def burned_cards(first_card: Rank) -> int:
    """Cards burned at the start of a shoe: the first card plus its burn count, where face
    cards and tens count ten and aces one, N.J.A.C. 19:47-3.5(e) (4.4(e), 7.5(f))."""
    return 1 + burn_value(first_card)


def shoe_problems(
    rules: TableRules, decks: int, cards_in_shoe: int, cut_position: int, cut_card_from_back: int
) -> list[ShoeProblem]:
    """Everything wrong with a shoe as started, all at once.

    ``cut_position`` is where the cutting card went, counted from the front of the stack;
    ``cut_card_from_back`` is the second cutting card's distance from the back.
    """
    found: list[ShoeProblem] = []
    game = rules.game
    two_batch = rules.shuffle_method is ShuffleMethod.AUTOMATED_BATCH
    minimum = MINIMUM_DECKS_TWO_BATCH if two_batch else MINIMUM_DECKS
    if decks < minimum:
        code = "MB-7.1d-TWO-BATCH" if two_batch else code_for(game, "decks")
        found.append(ShoeProblem(code, f"{decks} decks; at least {minimum} are required"))
    if decks != rules.decks:
        found.append(
            ShoeProblem(
                code_for(game, "decks"),
                f"{decks} decks but the table's rules {rules.rules_id!r} use {rules.decks}",
            )
        )
    # With two batches (7.1(d)2) the shoe in play holds one batch: half the decks.
    expected_cards = (decks // 2 if two_batch else decks) * CARDS_PER_DECK
    if cards_in_shoe != expected_cards:
        found.append(
            ShoeProblem(
                code_for(game, "decks"),
                f"{cards_in_shoe} cards in the shoe; {decks} decks "
                f"{'split in two batches ' if two_batch else ''}hold {expected_cards}",
            )
        )
    if not MINIMUM_CUT <= cut_position <= cards_in_shoe - MINIMUM_CUT:
        found.append(
            ShoeProblem(
                code_for(game, "cut"),
                f"cut at card {cut_position} of {cards_in_shoe}; the cutting card "
                f"goes at least {MINIMUM_CUT} cards in from either end",
            )
        )
    if cut_card_from_back < MINIMUM_CUT_CARD_FROM_BACK:
        found.append(
            ShoeProblem(
                code_for(game, "cut_card_14"),
                f"second cutting card {cut_card_from_back} cards from the "
                f"back; it must be at least {MINIMUM_CUT_CARD_FROM_BACK}",
            )
        )
    return found


def may_deal_another_round(game: Game, rounds_completed_since_cut_card: int | None) -> bool:
    """Whether another hand may be dealt from the shoe once the cutting card has appeared.

    N.J.A.C. 19:47-3.8(e): the hand in which it appears is completed, "last hand" is
    announced, and after one more hand no more cards are dealt until the reshuffle. Chemin de
    Fer deals none after that hand: once the cutting card is exposed no card is kept for "the
    next hand" (4.12(g)), and that hand is "the last hand of a shoe" (4.12(j), (k)).

    ``None`` means the cutting card has not appeared. The round in which it appeared counts as
    completed round 0 once it ends; the game's :attr:`Variant.hands_after_cut_card` follow it.
    """
    if rounds_completed_since_cut_card is None:
        return True
    return rounds_completed_since_cut_card < variant(game).hands_after_cut_card
