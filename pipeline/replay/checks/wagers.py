"""The wagers of a round: only those the table offers (3.2(b), 4.6(a)-4.7(a), 7.2(b)), within
the table's limits (8.2), and a bonus wager only beside a Banker or Player wager where the
casino requires it (3.2(b)). None moves after "No More Bets" (3.2(d), 4.7(e), 7.2(d)): those
are late wagers (:mod:`~pipeline.replay.checks.late_wagers`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity, money
from pipeline.rules.codes import rule
from pipeline.rules.settlement import Wager, offered_wagers, within_table_limits


def _standing(view: RoundView) -> Iterator[tuple[int, Wager, int]]:
    """(seat, wager, amount) of every wager still standing when betting closed."""
    for (seat, wager), amount in view.round.wagers.items():
        if amount > 0:
            yield seat, wager, amount


@round_check(when=Phase.SETTLED)
def only_offered_wagers(view: RoundView) -> Iterator[Flag]:
    """3.2(b), 4.6(a)-4.7(a), 7.2(b): a wager the table does not offer. It is one finding,
    naming its settlement too, if the pit settled it: the settlement is not a second error
    "without a wager on record"."""
    offered = offered_wagers(view.rules)
    for seat, wager, amount in _standing(view):
        if wager in offered:
            continue
        settled = view.settled_on(seat, wager)
        paid = sum(int(e.get("paid_cents")) for e in settled)
        then = f"; it was settled paying {money(paid)}" if settled else ""
        yield Flag(
            "wager_offered",
            Severity.HIGH,
            f"Seat {seat} wagered {money(amount)} on {wager.value}, which rules "
            f"{view.rules.rules_id!r} do not offer ({view.citation('wager_offered')}){then}.",
            seat=seat,
            expected=0,  # a wager the table does not offer is not accepted
            actual=amount,
            event_ids=(
                *view.round.wager_events[(seat, wager)],
                *(e.event_id for e in settled),
            ),
        )


@round_check(when=Phase.SETTLED)
def wagers_within_table_limits(view: RoundView) -> Iterator[Flag]:
    """8.2: a wager under the table's minimum or over its maximum, as posted at the table
    (as filed where its device reports none; limits posted otherwise than filed are a finding
    of their own, NJ-8.2-POSTED-LIMITS). It is still settled (the patron's money was at
    risk), and its settlement is checked like any other."""
    rules = view.rules
    if view.posted_limits is not None:
        low_limit, high_limit = view.posted_limits
        rules = replace(rules, min_wager_cents=low_limit, max_wager_cents=high_limit)
    where = (
        "posted at the table"
        if view.posted_limits
        else f"that rules {rules.rules_id!r} set for the table"
    )
    offered = offered_wagers(rules)
    code = "NJ-8.2-TABLE-LIMITS"
    for seat, wager, amount in _standing(view):
        if wager not in offered or within_table_limits(rules, amount):
            continue
        low = amount < rules.min_wager_cents
        limit = rules.min_wager_cents if low else rules.max_wager_cents
        yield Flag(
            code,
            Severity.MEDIUM,
            f"Seat {seat} wagered {money(amount)} on {wager.value}, "
            f"{'under the minimum' if low else 'over the maximum'} of {money(limit)} "
            f"{where} ({rule(code).citation}). Refuse such a wager or correct the table's "
            "limits.",
            seat=seat,
            expected=limit,
            actual=amount,
            event_ids=tuple(view.round.wager_events[(seat, wager)]),
        )


@round_check(when=Phase.SETTLED)
def bonus_beside_a_base_wager(view: RoundView) -> Iterator[Flag]:
    """3.2(b): where the casino requires it, a bonus wager needs a Banker or Player wager."""
    if not view.rules.bonus_requires_base_wager:
        return
    code = "PB-3.2b-WAGER-OFFERED"
    for seat, settlements in view.due.items():
        stakes = {s.wager for s in settlements}
        bonus = [w for w in (Wager.BANKER_BONUS, Wager.PLAYER_BONUS) if w in stakes]
        if bonus and Wager.BANKER not in stakes and Wager.PLAYER not in stakes:
            yield Flag(
                code,
                Severity.HIGH,
                f"Seat {seat} made a {bonus[0].value} wager without a Banker or Player "
                f"wager, which this table requires ({rule(code).citation}).",
                seat=seat,
                event_ids=tuple(view.round.wager_events[(seat, bonus[0])]),
            )
