"""Voided rounds (3.12(e), 4.12(k))."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity
from pipeline.rules.deal import void_for_insufficient_cards


@round_check(when=Phase.VOIDED)
def void_only_when_the_shoe_cannot_complete(view: RoundView) -> Iterator[Flag]:
    """3.12(e), 4.12(k): a round is void for insufficient cards only if the shoe cannot
    complete it. A hand annulled under 4.12(a) is not judged here."""
    voided = view.round.voided
    if voided is None or view.cards_left is None:
        return
    if view.round.annulled is not None:
        return  # 4.12(a) annuls the hand whatever the shoe holds (checks.banker_deal)
    if not void_for_insufficient_cards(view.cards_left):
        yield Flag(
            "insufficient",
            Severity.HIGH,
            f"Round {view.round.round_id} was voided for insufficient cards with "
            f"{view.cards_left} cards left in the shoe; six always complete a round "
            f"({view.citation('insufficient')}).",
            event_ids=(voided.event_id,),
        )
