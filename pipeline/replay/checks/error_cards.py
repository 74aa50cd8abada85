"""A card dealt in error during the round (3.12(a)-(b), 4.12(e)-(g), 7.11(a)-(b)): the round
is announced with the card where the regulation sends it, not where it was dealt."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.events.model import TableEvent
from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity
from pipeline.rules.irregularities import ErrorCardFate
from pipeline.rules.outcome import outcome_of

HAND_NAMES = {"PLAYER": "Player", "BANKER": "Banker"}

_GOES = {
    ErrorCardFate.BANKER_THIRD_CARD: "becomes the Banker's third card",
    ErrorCardFate.NEXT_HAND_FIRST_CARD: "opens the next hand",
    ErrorCardFate.DISCLOSED_PROCEDURE: "goes by the pre-selected disclosed-card procedure",
    ErrorCardFate.PLAYER_THIRD_CARD: "goes to the Dominant Player, who called for it",
}


def error_what(report: TableEvent) -> str:
    """How a message describes the card an ``IrregularityReported`` event reports."""
    kind = str(report.get("kind"))
    if kind == "PLAYER_THIRD_CARD_UNAUTHORIZED":
        return "dealt to the Player's Hand without authorization"
    if kind == "BANKER_EXTRA_CARD":
        return "dealt to the Banker's Hand in excess"
    if kind == "PLAYER_EXTRA_CARD":
        return "dealt to the Player's Hand in excess"
    return "drawn in error"


def kept_as_dealt(view: RoundView) -> tuple[int, int] | None:
    """The counts the round was announced with, when they are those of the hands as dealt,
    with the card dealt in error left in the hand it reached, and not those the rule gives;
    ``None`` otherwise (no such card, no announcement, or the rule applied)."""
    error, announced, outcome = view.round.error_card, view.round.announced, view.outcome
    if error is None or announced is None or outcome is None:
        return None
    player = tuple(c.card for c in error.as_dealt if c.hand == "PLAYER")
    banker = tuple(c.card for c in error.as_dealt if c.hand == "BANKER")
    if len(banker) > 3:
        return None
    as_dealt = outcome_of(player, banker)
    said = (announced.get("player_points"), announced.get("banker_points"))
    kept = (as_dealt.player_points, as_dealt.banker_points)
    if said != kept or kept == (outcome.player_points, outcome.banker_points):
        return None
    return kept


@round_check(when=Phase.SETTLED)
def error_card_not_kept(view: RoundView) -> Iterator[Flag]:
    """3.12(a)-(b), 4.12(e)-(g), (i), 7.11(a)-(b): the round was announced as if the card
    dealt in error had stayed in the hand it reached, so the dealer did not apply the rule."""
    said = kept_as_dealt(view)
    error, announced, outcome = view.round.error_card, view.round.announced, view.outcome
    if said is None or error is None or announced is None or outcome is None:
        return
    yield Flag(
        error.subject,
        Severity.HIGH,
        f"Round announced {said[0]}-{said[1]}, counting the card "
        f"{error_what(error.report)} ({error.card.card}, position "
        f"{error.card.position}) in the {HAND_NAMES[error.card.hand]}'s Hand; it "
        f"{_GOES[error.fate]} ({view.citation(error.subject)}), which "
        f"makes the round {outcome.player_points}-{outcome.banker_points} "
        f"{outcome.winner.value}.",
        event_ids=(error.report.event_id, error.card.event_id, announced.event_id),
    )
