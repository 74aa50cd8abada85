"""The announcement of a round's result (3.10(a), 4.10(a), 4.12(b)-(d))."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity


@round_check(when=Phase.SETTLED)
def announcement_matches_cards(view: RoundView) -> Iterator[Flag]:
    """3.10(a), 4.10(a): a result is announced, and its counts, winner and total cards (and
    "dragon 7" in the 3.3(h) variation) match the cards, or in Chemin de Fer the counts
    4.12(b)-(d) give a deal the Banker could not rectify."""
    rnd, outcome, a = view.round, view.outcome, view.round.announced
    if outcome is None:
        return
    if a is None:
        yield Flag(
            "announce",
            Severity.HIGH,
            f"No result was announced for round {rnd.round_id} ({view.citation('announce')}).",
            event_ids=(rnd.started_event,),
        )
        return
    checks: list[tuple[str, object, object]] = [
        ("Player count", a.get("player_points"), outcome.player_points),
        ("Banker count", a.get("banker_points"), outcome.banker_points),
        ("winner", a.get("winner"), outcome.winner.value),
        ("total cards", a.get("total_cards"), outcome.total_cards),
    ]
    if view.rules.dragon_7:
        # 3.10(a): in the 3.3(h) variation the dealer announces "dragon 7".
        checks.append(("dragon 7", bool(a.get("dragon_7")), outcome.dragon_7))
    # 4.12(b)-(d): a Chemin de Fer deal the Banker could not rectify counts by that rule.
    subject, counted, why = "announce", "cards show", ""
    if rnd.unrectified is not None:
        subject, counted = rnd.unrectified.deal.value, "the rule counts"
        why = (
            f"; the Banker's deal, reported by event {rnd.unrectified.report.event_id} without "
            "naming the excess card, cannot be rectified and counts by the rule, not as the "
            "cards lie"
        )
    wrong = [
        f"{name} {recorded} ({counted} {actual})"
        for name, recorded, actual in checks
        if recorded != actual
    ]
    if wrong:
        report = () if rnd.unrectified is None else (rnd.unrectified.report.event_id,)
        yield Flag(
            subject,
            Severity.HIGH,
            f"The dealer announced {'; '.join(wrong)} ({view.citation(subject)}){why}.",
            event_ids=(a.event_id, *report, *(c.event_id for c in rnd.cards)),
        )
