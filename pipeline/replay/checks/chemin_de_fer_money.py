"""Chemin de Fer money and control of the hands: the Banker withdraws and stakes exactly what
the wagers accepted against the bank leave (4.7(e)), and the Dominant Player controls the
Player's Hand (4.8(c)). A Banker's wager after the cards (4.6(a)) and a wager against the Banker
accepted after "No More Bets" (4.7(e)) are late wagers
(:mod:`~pipeline.replay.checks.late_wagers`)."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.events.model import TableEvent
from pipeline.replay.checks import (
    BANCO_ACTIONS,
    Flag,
    Phase,
    RoundView,
    round_check,
    standing_acceptances,
)
from pipeline.replay.findings import Severity, money
from pipeline.rules.roles import BancoOffer, dominant_player
from pipeline.rules.settlement import Wager, settle_seat
from pipeline.rules.variants import games_where

BANK_GAMES = games_where(lambda v: v.participant_bank)
"""The games where a participant holds the bank (4.5-4.8, 4.11)."""

UNCOVERED_WITHDRAWN = "BANK_UNCOVERED_WITHDRAWN"
WITHDRAWN = "CF-4.7e-WITHDRAWN"


def banker_wager(view: RoundView) -> TableEvent | None:
    """The round's Banker's wager (the bank put up, 4.6(a)), if one is on record."""
    return next((e for e in view.round.bank if e.payload_type == "BankerWager"), None)


def accepted_offers(view: RoundView) -> list[BancoOffer]:
    """The wagers against the Banker recorded for the round, in the order recorded."""
    return [
        BancoOffer(
            int(e.get("seat")), BANCO_ACTIONS[str(e.get("action"))], int(e.get("amount_cents"))
        )
        for e in standing_acceptances(view.round)
    ]


@round_check(when=Phase.SETTLED, games=BANK_GAMES)
def banker_stake_is_the_covered_bank(view: RoundView) -> Iterator[Flag]:
    """4.7(e): the Banker withdraws what nobody covered, so the Banker's wager that wins, loses
    and owes vigorish is the bank less its uncovered part. A $1,000 bank covered for $400 is a
    $400 Banker wager: it wins $400 and owes vigorish on $400, not on $1,000."""
    banker = banker_wager(view)
    outcome = view.outcome
    if banker is None or outcome is None:
        return
    seat, bank = int(banker.get("seat")), int(banker.get("amount_cents"))
    covered = _covered(view, bank)
    stake = view.round.wagers.get((seat, Wager.BANKER))
    if stake is None or stake == covered:
        return
    withdrawn = _withdrawn(view)
    (due,) = settle_seat(view.rules, outcome, {Wager.BANKER: covered})
    paid = sum(
        int(e.get("paid_cents"))
        for e in view.round.settled
        if int(e.get("seat")) == seat and e.get("wager") == Wager.BANKER.value
    )
    vig = sum(int(e.get("amount_cents")) for e in view.round.vig if int(e.get("seat")) == seat)
    ids = view.round.wager_events.get((seat, Wager.BANKER), [])
    yield Flag(
        "CF-4.7e-UNCOVERED",
        Severity.CRITICAL,
        f"The Banker at seat {seat} wagered a bank of {money(bank)} of which {money(covered)} "
        f"was covered, so {money(bank - covered)} is withdrawn and the Banker's wager is "
        f"{money(covered)} ({view.citation('CF-4.7e-UNCOVERED')}); it was recorded as "
        f"{money(stake)}. On {money(covered)} the Banker's wager should "
        f"{due.result.value.lower()} paying {money(due.paid_cents)} with {money(due.vig_cents)} "
        f"vigorish; {money(paid)} was paid and {money(vig)} vigorish charged. Correct the "
        "Banker's wager and its settlement.",
        seat=seat,
        expected=covered,
        actual=stake,
        event_ids=(banker.event_id, *(e.event_id for e in withdrawn), *ids),
    )


def _covered(view: RoundView, bank: int) -> int:
    """4.7(a), (e): the part of a ``bank`` the wagers accepted before "No More Bets" cover."""
    return min(bank, sum(o.amount_cents for o in accepted_offers(view)))


def _withdrawn(view: RoundView) -> list[TableEvent]:
    return [
        e
        for e in view.round.bank
        if e.payload_type == "PlayerBancoWager" and e.get("action") == UNCOVERED_WITHDRAWN
    ]


@round_check(when=Phase.SETTLED, games=BANK_GAMES)
def the_uncovered_part_is_withdrawn(view: RoundView) -> Iterator[Flag]:
    """4.7(e): the Banker withdraws the part of the bank not covered before "No More Bets":
    the amount recorded as withdrawn is the bank less the wagers accepted in time."""
    banker, withdrawn = banker_wager(view), _withdrawn(view)
    if banker is None or not withdrawn:
        return
    seat, bank = int(banker.get("seat")), int(banker.get("amount_cents"))
    due = bank - _covered(view, bank)
    recorded = sum(int(e.get("amount_cents")) for e in withdrawn)
    if recorded == due:
        return
    yield Flag(
        WITHDRAWN,
        Severity.HIGH,
        f"The Banker at seat {seat} withdrew {money(recorded)} of a {money(bank)} bank, but "
        f'{money(bank - due)} was covered before "No More Bets", so {money(due)} is '
        f"withdrawn ({view.citation(WITHDRAWN)}).",
        seat=seat,
        expected=due,
        actual=recorded,
        event_ids=(banker.event_id, *(e.event_id for e in withdrawn)),
    )


@round_check(when=Phase.SETTLED, games=BANK_GAMES)
def dominant_player_controls_the_players_hand(view: RoundView) -> Iterator[Flag]:
    """4.8(c): the Player's Hand's choices are the Dominant Player's: the banco suivi or banco
    seul wagerer, else the highest wager against the Banker, nearest the Banker
    counterclockwise on equal ones."""
    banker = banker_wager(view)
    if banker is None:
        return
    dominant = dominant_player(int(banker.get("seat")), accepted_offers(view))
    for option in view.round.options:
        chooser = option.get("seat")
        if option.get("hand") != "PLAYER" or chooser is None or int(chooser) == dominant:
            continue
        yield Flag(
            "CF-4.8c-DOMINANT",
            Severity.HIGH,
            f"Seat {chooser} made the Player's Hand's choice to "
            f"{'draw' if option.get('drew') else 'stay'}, but the Dominant Player, who alone "
            f"controls that hand, was seat {dominant} ({view.citation('CF-4.8c-DOMINANT')}). "
            "The dealer takes the Player's Hand's decisions from the Dominant Player only.",
            seat=int(chooser),
            event_ids=(option.event_id, banker.event_id),
        )
