"""Voided rounds (3.12(e), 4.12(k))."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity
from pipeline.rules.deal import void_for_insufficient_cards


@round_check(when=Phase.VOIDED)
def void_only_when_the_shoe_cannot_complete(view: RoundView) -> Iterator[Flag]:
    """3.12(e), 4.12(k): a round is void for insufficient cards only if the shoe cannot
    complete it. A hand annulled under 4.12(a), or a Chemin de Fer last hand with a card found
    face up (4.12(j)), is void by its own rule and not judged here."""
    voided = view.round.voided
    left = _left_when_the_round_began(view)
    if voided is None or left is None:
        return
    if view.round.annulled is not None:
        return  # 4.12(a) annuls the hand whatever the shoe holds (checks.banker_deal)
    if view.last_hand_face_up is not None:
        return  # 4.12(j) voids it whatever the shoe holds (checks.last_hand)
    if not void_for_insufficient_cards(left):
        own = len(view.round.cards)
        seen = f" after {own} of its cards were dealt" if own else ""
        yield Flag(
            "insufficient",
            Severity.HIGH,
            f"Round {view.round.round_id} was voided ({voided.get('reason') or 'no reason'})"
            f"{seen} with {left} cards left in the shoe when it began; only a shoe that "
            "cannot complete the round voids it, and six always complete a round "
            f"({view.citation('insufficient')}).",
            event_ids=(voided.event_id, *(c.event_id for c in view.round.cards)),
        )


def _left_when_the_round_began(view: RoundView) -> int | None:
    """The cards left in the shoe before the round's first card: the round's own cards are
    no want of cards, so a round voided once they were seen is judged by the count it began
    with (3.12(e): "insufficient cards remaining in the shoe to complete a round")."""
    if view.shoe is None or view.cards_left is None:
        return None
    if not view.round.cards:
        return view.cards_left
    return view.shoe.cards_in_shoe - min(c.position for c in view.round.cards)


@round_check(when=Phase.SETTLED)
@round_check(when=Phase.MISDEALT)
def round_reported_short_of_cards_is_void(view: RoundView) -> Iterator[Flag]:
    """3.12(e), 4.12(k) (Minibaccarat by 7.11 as 3.12): a round the pit reported the shoe could
    not complete "shall be void"; dealing it on to a result and settling it is against the rule
    whatever the cards then gave."""
    report = view.round.insufficient_reported
    if report is None:
        return
    yield Flag(
        "insufficient",
        Severity.HIGH,
        f"Round {view.round.round_id} was reported short of cards (event {report.event_id}) "
        "but was dealt on instead of voided; a round the shoe cannot complete is void "
        f"({view.citation('insufficient')}). Void it, return its wagers and any payments, and "
        "reshuffle before the next round.",
        event_ids=(report.event_id, view.round.started_event),
    )
