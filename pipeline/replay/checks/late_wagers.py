"""Wagers moved once betting closed, as one mechanism over a table of rules: a wager made,
increased or withdrawn after "No More Bets" (3.2(d), 4.7(e), 7.2(d)) or after the round's first
card (3.2(d) with 3.7(b), 4.7(e) with 4.8(d), 7.2(d) with 7.7(b)), a Chemin de Fer Banker's
wager recorded once the cards are dealt (4.6(a)) and a wager against the Banker accepted after
"No More Bets" (4.7(e)).

Each rule names the round's records it reads, the event that closed betting for them, its code
and its wording (:data:`LATE_WAGERS`); each is a check of the registry under its own name, and
every late record is a HIGH finding whose amount is not honoured: expected 0, actual the amount
moved, citing the record and the moment it came after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pipeline.events.model import TableEvent
from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.checks.chemin_de_fer_money import (
    BANK_GAMES,
    accepted_offers,
    banker_wager,
)
from pipeline.replay.findings import Severity, money
from pipeline.replay.state import RoundState
from pipeline.rules.games import Game


@dataclass(frozen=True, slots=True)
class LateWagers:
    """One rule on wagers recorded too late, and the registered check that enforces it."""

    check: str
    """The check's name in the registry."""
    rule: str
    """The check's docstring: the requirement, citing its sections."""
    code: str
    """The finding's rule code, or the subject the game's subchapter regulates."""
    late: Callable[[RoundState], Sequence[TableEvent]]
    """The round's records made after the moment."""
    moment: Callable[[RoundState], str | None]
    """The event that closed betting for them (``None``: not on record)."""
    message: Callable[[RoundView, TableEvent], str]
    games: tuple[Game, ...] = tuple(Game)
    phases: tuple[Phase, ...] = (Phase.SETTLED,)
    record_first: bool = False
    """The finding's evidence lists the late record before the moment (the Banker's own wager,
    whose record is the finding's subject) rather than after it."""


def _seat(e: TableEvent) -> int:
    return int(e.get("seat"))


def _amount(e: TableEvent) -> int:
    return int(e.get("amount_cents"))


def _after_the_first_card(view: RoundView, e: TableEvent) -> str:
    rnd = view.round
    closed = (
        'no "No More Bets" was recorded'
        if rnd.betting_closed is None
        else f'"No More Bets" was recorded only after it (event {rnd.betting_closed})'
    )
    verb = "withdrew" if e.payload_type == "WagerWithdrawn" else "wagered"
    return (
        f"Seat {_seat(e)} {verb} {money(_amount(e))} on {e.get('wager')} in "
        f"round {rnd.round_id} after the round's first card was dealt (event "
        f"{rnd.first_card}); {closed}. Betting closes before the cards "
        f"({view.citation('bets_after_cards')}): the late amount is not honoured, and the "
        'pit terminal records "No More Bets" before the deal.'
    )


def _after_no_more_bets(view: RoundView, e: TableEvent) -> str:
    return (
        f"Seat {_seat(e)} {e.payload_type.replace('Wager', 'wager ').lower()} "
        f'{money(_amount(e))} on {e.get("wager")} after "No More '
        f'Bets" ({view.cite("no_more_bets")}).'
    )


def _banker_after_the_cards(view: RoundView, e: TableEvent) -> str:
    rnd = view.round
    return (
        f"The Banker at seat {_seat(e)} recorded a wager of {money(_amount(e))} "
        f"in round {rnd.round_id} (event {e.event_id}) after the round's first card was "
        f"dealt (event {rnd.first_card}); the Banker wagers immediately before the cards "
        f"({view.citation('CF-4.6a-BANKER-BEFORE-CARDS')}). Check with surveillance when "
        "the bank was put up, and the pit terminal's record of it."
    )


def _accepted_after_no_more_bets(view: RoundView, e: TableEvent) -> str:
    banker = banker_wager(view)
    covered = sum(o.amount_cents for o in accepted_offers(view))
    bank = f" of the {money(_amount(banker))} bank" if banker else ""
    return (
        f"Seat {_seat(e)}'s {str(e.get('action')).replace('_', ' ').lower()} wager of "
        f'{money(_amount(e))} against the Banker was accepted after "No More Bets" '
        f"({view.citation('no_more_bets')}); it covers nothing: {money(covered)}{bank} was "
        "covered in time. Return it, and settle the round on the wagers accepted before."
    )


LATE_WAGERS: tuple[LateWagers, ...] = (
    LateWagers(
        check="no_wager_after_the_first_card",
        rule="""3.2(d)/3.7(b), 4.7(e)/4.8(d), 7.2(d)/7.7(b): the first card closes betting. A
        wager event the replay applied after the round's first card (in the devices' own
        sequence, merged by time) and not after a recorded "No More Bets" (those are
        ``nothing_wagered_after_no_more_bets``'s).""",
        code="bets_after_cards",
        late=lambda rnd: rnd.after_first_card,
        moment=lambda rnd: rnd.first_card,
        message=_after_the_first_card,
    ),
    LateWagers(
        check="nothing_wagered_after_no_more_bets",
        rule="""3.2(d), 4.7(e), 7.2(d): no wager is made, increased or withdrawn after "No More
        Bets".""",
        code="no_more_bets",
        late=lambda rnd: rnd.late,
        moment=lambda rnd: rnd.betting_closed,
        message=_after_no_more_bets,
    ),
    LateWagers(
        check="banker_wager_placed_before_the_cards",
        rule="""4.6(a): "Immediately prior to dealing the cards, the Banker shall place a wager
        in support of the Banker's Hand": a Banker's wager recorded after the round's first
        card (in the devices' own sequence, merged by time) was made on a hand already being
        dealt, whether the round is then settled, voided or misdealt.""",
        code="CF-4.6a-BANKER-BEFORE-CARDS",
        late=lambda rnd: rnd.banker_wagers_after_cards,
        moment=lambda rnd: rnd.first_card,
        message=_banker_after_the_cards,
        games=BANK_GAMES,
        phases=(Phase.SETTLED, Phase.VOIDED, Phase.MISDEALT),
        record_first=True,
    ),
    LateWagers(
        check="the_bank_is_covered_before_no_more_bets",
        rule="""4.7(e): wagers against the Banker are accepted before "No More Bets"; one
        accepted after it (or after the first card) covers nothing: not the Banker's stake,
        not the part withdrawn.""",
        code="no_more_bets",
        late=lambda rnd: rnd.late_acceptances,
        moment=lambda rnd: rnd.betting_closed or rnd.first_card,
        message=_accepted_after_no_more_bets,
        games=BANK_GAMES,
    ),
)
"""Which records are late, after which moment, under which code: the table of contents of
the late-wager checks, in registration order."""


def late_wager_flags(rule: LateWagers, view: RoundView) -> Iterator[Flag]:
    """A HIGH flag per record ``rule`` finds late in ``view``'s round: the amount moved is not
    honoured (expected 0)."""
    moment = rule.moment(view.round)
    for e in rule.late(view.round):
        evidence = (e.event_id, moment) if rule.record_first else (moment, e.event_id)
        yield Flag(
            rule.code,
            Severity.HIGH,
            rule.message(view, e),
            seat=_seat(e),
            expected=0,
            actual=_amount(e),
            event_ids=tuple(x for x in evidence if x),
        )


def _register(rule: LateWagers) -> None:
    def check(view: RoundView) -> Iterator[Flag]:
        return late_wager_flags(rule, view)

    check.__name__ = check.__qualname__ = rule.check
    check.__doc__ = rule.rule
    for phase in rule.phases:
        round_check(when=phase, games=rule.games)(check)


for _rule in LATE_WAGERS:
    _register(_rule)
