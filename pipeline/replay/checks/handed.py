"""The cards handed to the players: Punto Banco 3.7(d), Minibaccarat 7.7(c)3.

Under this dealing procedure the dealer hands each hand's two cards face down to the player
with the highest wager on it, who views them and returns them face up, and hands any third
card to the player who was handed that hand. The pit terminal records each handing
(``CardsHandedTo``, schema id 5) with the seat and patron; the replay keeps the wagers on both
hands as they stood at that moment (:class:`~pipeline.replay.state.HandedCards`). A round
without such events is not judged: the cards may have been turned face up (3.7(d)6), or the
table's devices predate the event. Chemin de Fer has no such procedure: its Banker deals the
cards in front of the Dominant Player and himself (4.8(d)), and who decides the Player's Hand
is judged from ``HandOption`` (4.8(c)).

At a table whose filed procedure keeps the cards with the dealer (3.7(c), 7.7(c)1-2), a
handing is that rule's finding alone: who had the highest wager is not judged there.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity, money
from pipeline.replay.state import HandedCards
from pipeline.rules.roles import seats_to_hand
from pipeline.rules.variants import games_where

HANDING_GAMES = games_where(lambda v: v.cards_handed is not None)
"""The games whose subchapter offers the procedure that hands the cards to the players."""

HAND_NAMES = {"PLAYER": "Player's Hand", "BANKER": "Banker's Hand"}


def _what(handed: HandedCards) -> str:
    hand = HAND_NAMES.get(handed.hand, f"{handed.hand} hand")
    return f"the {hand}'s third card" if handed.third_card else f"the {hand}'s two cards"


def _seats(seats: tuple[int, ...]) -> str:
    return ", ".join(map(str, seats))


@round_check(when=Phase.SETTLED, games=HANDING_GAMES)
def cards_handed_only_under_the_filed_procedure(view: RoundView) -> Iterator[Flag]:
    """3.7(c)-(d), 7.7(c): the cards are handed to the players only at a table whose filed
    dealing procedure does so (``TableRules.cards_handed_to_players``)."""
    rnd = view.round
    if view.rules.cards_handed_to_players or not rnd.handed:
        return
    handings = "; ".join(f"{_what(h)} to seat {h.seat}" for h in rnd.handed)
    yield Flag(
        "cards_handed_procedure",
        Severity.MEDIUM,
        f"In round {rnd.round_id} the dealer handed {handings}, but rules "
        f"{view.rules.rules_id!r} file the procedure in which the dealer turns the cards face "
        f"up himself ({view.citation('cards_handed_procedure')}). Deal by the filed procedure, "
        "or file the one that hands the cards to the players.",
        event_ids=tuple(h.event_id for h in rnd.handed),
        seat=rnd.handed[0].seat,
    )


@round_check(when=Phase.SETTLED, games=HANDING_GAMES)
def hand_handed_to_the_highest_wager(view: RoundView) -> Iterator[Flag]:
    """3.7(d)1-2, (d)5-6 (7.7(c)3i-ii): each hand's two cards go to the player with the highest
    wager on that hand (:func:`~pipeline.rules.roles.seats_to_hand`)."""
    procedure = view.variant.cards_handed
    if procedure is None or not view.rules.cards_handed_to_players:
        return
    for handed in view.round.handed:
        if handed.third_card:
            continue
        entitled = seats_to_hand(procedure, handed.on_hand, handed.on_other_hand)
        if entitled is None or handed.seat in entitled:
            continue
        hand = HAND_NAMES.get(handed.hand, handed.hand)
        own = handed.on_hand.get(handed.seat, 0)
        highest = max(handed.on_hand.values(), default=0)
        if highest > 0:
            whom = (
                f"seat {entitled[0]} had the highest wager on it ({money(highest)})"
                if len(entitled) == 1
                else f"seats {_seats(entitled)} had the highest wagers on it ({money(highest)})"
            )
        elif entitled:
            whom = (
                f"nobody wagered on the {hand}, and only a player wagering on the other hand "
                f"may turn it up (seats {_seats(entitled)})"
            )
        else:
            whom = "nobody wagered on either hand"
        yield Flag(
            "cards_handed",
            Severity.MEDIUM,
            f"In round {view.round.round_id} {_what(handed)} were handed to seat {handed.seat} "
            f"(wager {money(own)} on the {hand}), but {whom} "
            f"({view.citation('cards_handed')}). Review the deal on the surveillance record.",
            event_ids=(handed.event_id,),
            seat=handed.seat,
            expected=highest,
            actual=own,
        )


@round_check(when=Phase.SETTLED, games=HANDING_GAMES)
def third_card_to_who_was_handed_the_hand(view: RoundView) -> Iterator[Flag]:
    """3.7(d)3-5: a third card is handed to the player who was handed and returned that hand's
    two cards: the same seat, and the same patron where the pit identified both."""
    if not view.rules.cards_handed_to_players:
        return
    rnd = view.round
    for third in (h for h in rnd.handed if h.third_card):
        first = next((h for h in rnd.handed if h.hand == third.hand and not h.third_card), None)
        if (
            first is not None
            and first.seat == third.seat
            and (None in (first.patron_id, third.patron_id) or first.patron_id == third.patron_id)
        ):
            continue
        hand = HAND_NAMES.get(third.hand, third.hand)
        to = f"seat {third.seat}" + (f" (patron {third.patron_id})" if third.patron_id else "")
        if first is None:
            before = f"the {hand}'s two cards were handed to nobody on record"
        else:
            before = f"the {hand}'s two cards were handed to seat {first.seat}" + (
                f" (patron {first.patron_id})" if first.patron_id else ""
            )
        yield Flag(
            "third_card_handed",
            Severity.MEDIUM,
            f"In round {rnd.round_id} {_what(third)} was handed to {to}, but {before} "
            f"({view.citation('third_card_handed')}): the third card goes to the player who was "
            "handed and returned the hand. Review the deal on the surveillance record.",
            event_ids=(*(() if first is None else (first.event_id,)), third.event_id),
            seat=third.seat,
        )
