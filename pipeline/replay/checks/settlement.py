"""Settlement: every wager's result and payout (3.3, 4.10(b), 7.3), the vigorish on winning
Banker wagers (3.3(c), 4.10(c), 7.3(c)-(d)), nothing settled or charged without a wager, and
the pit's settlement order (3.10(b))."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.events.model import TableEvent
from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity, money
from pipeline.replay.state import RoundState
from pipeline.rules.codes import rule
from pipeline.rules.config import TableRules
from pipeline.rules.settlement import Result, Settlement, Wager, moved_to_patron
from pipeline.rules.settlement_order import settlement_order_problem
from pipeline.rules.variants import variant
from pipeline.rules.vigorish import rounding_error

TIE_VIG = "MB-7.3d-TIE-VIG"


def _vig_events(view: RoundView, seat: int) -> list[TableEvent]:
    return [e for e in view.round.vig if int(e.get("seat")) == seat]


@round_check(when=Phase.SETTLED)
def every_wager_settled_as_due(view: RoundView) -> Iterator[Flag]:
    """3.3, 4.10(b), 7.3: each wager is settled once, with the result and payout its rule
    gives (the settlement's own rule code, e.g. 3.3(b) for a tie bet)."""
    rnd = view.round
    for seat, settlements in view.due.items():
        for s in settlements:
            events = view.settled_on(seat, s.wager)
            ids = tuple(rnd.wager_events.get((seat, s.wager), ()))
            yield from _compare_settlement(seat, s, events, ids, view.citation(s.rule_code))


def _compare_settlement(
    seat: int, s: Settlement, events: list[TableEvent], ids: tuple[str, ...], why: str
) -> Iterator[Flag]:
    """A finding's amounts are what settling the wager moves to the patron
    (:func:`~pipeline.rules.settlement.moved_to_patron`): due, and as recorded; ``why`` cites
    the settlement's rule."""
    recorded_paid = sum(int(x.get("paid_cents")) for x in events)
    if len(events) > 1:
        yield Flag(
            s.rule_code,
            Severity.CRITICAL,
            f"Seat {seat}'s {s.wager.value} wager of {money(s.stake_cents)} was settled "
            f"{len(events)} times, paying {money(recorded_paid)} in all; it is "
            f"settled once and pays {money(s.paid_cents)} ({why}).",
            seat=seat,
            expected=s.moved_cents,
            actual=sum(
                moved_to_patron(Result(x.get("outcome")), s.stake_cents, int(x.get("paid_cents")))
                for x in events
            ),
            event_ids=(*ids, *(x.event_id for x in events)),
        )
        return
    if not events:
        yield Flag(
            s.rule_code,
            Severity.CRITICAL,
            f"Seat {seat}'s {s.wager.value} wager of {money(s.stake_cents)} was never "
            f"settled; it should {s.result.value.lower()}"
            f"{' ' + money(s.paid_cents) if s.paid_cents else ''}.",
            seat=seat,
            expected=s.moved_cents,
            actual=None,
            event_ids=ids,
        )
        return
    e = events[0]
    recorded_result = Result(e.get("outcome"))
    if recorded_result is s.result and recorded_paid == s.paid_cents:
        return
    moved = moved_to_patron(recorded_result, s.stake_cents, recorded_paid)
    yield Flag(
        s.rule_code,
        Severity.CRITICAL,
        f"Seat {seat}'s {s.wager.value} wager of {money(s.stake_cents)} should "
        f"{s.result.value.lower()} and be paid {money(s.paid_cents)} ({why}); it was "
        f"recorded {recorded_result.value} paying {money(recorded_paid)}: "
        f"{_what_moved(s, recorded_result, moved)}.",
        seat=seat,
        expected=s.moved_cents,
        actual=moved,
        event_ids=(*ids, e.event_id),
    )


def _what_moved(s: Settlement, recorded: Result, moved: int) -> str:
    """How a wrong settlement moved money: the patron's difference, and the stake when it
    went the wrong way (returned though lost, or collected though returned)."""
    diff = moved - s.moved_cents
    how = (
        f"overpaid by {money(diff)}"
        if diff > 0
        else f"underpaid by {money(-diff)}"
        if diff < 0
        else "settled wrongly"
    )
    if s.result is Result.LOSE and recorded is not Result.LOSE:
        how += f" (the {money(s.stake_cents)} stake the house wins was returned)"
    elif s.result is not Result.LOSE and recorded is Result.LOSE:
        how += f" (the {money(s.stake_cents)} stake was collected, not returned)"
    return how


@round_check(when=Phase.SETTLED)
def vigorish_as_due(view: RoundView) -> Iterator[Flag]:
    """3.3(c), 3.3(c)1, 4.10(c), 7.3(c)-(d): the vigorish of each seat is its percentage of
    the winning Banker wager (rounded where the table rounds), collected at once unless the
    table defers it; Minibaccarat's 25 percent tie vigorish is never deferred; a variation
    that waives vigorish charges none (3.10(b)5, 7.3(f))."""
    for seat, settlements in view.due.items():
        yield from _compare_vig(view, seat, settlements, _vig_events(view, seat))


def _compare_vig(
    view: RoundView, seat: int, settlements: tuple[Settlement, ...], recorded: list[TableEvent]
) -> Iterator[Flag]:
    rules = view.rules
    due = sum(s.vig_cents for s in settlements)
    charged = sum(int(e.get("amount_cents")) for e in recorded)
    ids = tuple(e.event_id for e in recorded)
    tie_vig = any(s.rule_code == TIE_VIG and s.vig_cents for s in settlements)
    deferred = [e for e in recorded if e.payload_type == "VigDeferred"]
    if tie_vig and deferred:
        yield Flag(
            TIE_VIG,
            Severity.CRITICAL,
            f"Seat {seat}'s 25 percent tie vigorish was deferred; it is collected "
            f"before the next round's first card ({rule(TIE_VIG).citation}).",
            seat=seat,
            expected=due,
            actual=0,
            event_ids=ids,
        )
    if deferred and not rules.vig_deferral and not tie_vig:
        yield Flag(
            "vig",
            Severity.CRITICAL,
            f"Seat {seat}'s vigorish of {money(charged)} was deferred, but at this table "
            f"it is collected immediately ({view.cite('vig')}).",
            seat=seat,
            expected=due,
            actual=0,
            event_ids=tuple(e.event_id for e in deferred),
        )
    if due == charged:
        return
    evidence = tuple(view.round.wager_events.get((seat, Wager.BANKER), ())) + ids
    if due == 0:
        banker_won = any(s.wager is Wager.BANKER and s.result is Result.WIN for s in settlements)
        if banker_won:  # a winning Banker wager owes nothing only under a variation
            code, why = _no_vig_rule(rules)
        else:
            code, why = view.code("vig"), "no Banker wager won this round"
        yield Flag(
            code,
            Severity.CRITICAL,
            f"Seat {seat} was charged {money(charged)} of vigorish, but {why} "
            f"({rule(code).citation}).",
            seat=seat,
            expected=0,
            actual=charged,
            event_ids=evidence,
        )
        return
    stake = next((s.stake_cents for s in settlements if s.wager is Wager.BANKER), 0)
    if tie_vig:
        code = TIE_VIG
    elif rounding_error(rules, stake, charged):
        code = view.code("vig_rounding")
    else:
        code = view.code("vig")
    what = "collected or marked" if charged else "neither collected nor marked"
    short = due - charged
    yield Flag(
        code,
        Severity.CRITICAL,
        f"Vigorish {'short' if short > 0 else 'over'} by {money(abs(short))} on seat "
        f"{seat}: expected {_vig_basis(view, stake, due, tie_vig)}, {what} {money(charged)}.",
        seat=seat,
        expected=due,
        actual=charged,
        event_ids=evidence,
    )


def _no_vig_rule(rules: TableRules) -> tuple[str, str]:
    """Which variation waives the Banker's vigorish at this table, and why."""
    if rules.tie_vig_quarter:
        return TIE_VIG, "the 25 percent tie vigorish replaces it at this table"
    game = variant(rules.game)
    return game.no_vig_code, f"this table's no-vigorish {game.no_vig_term} waives it"


def _vig_basis(view: RoundView, stake: int, due: int, tie_vig: bool) -> str:
    rules = view.rules
    if tie_vig:
        return (
            f"{money(due)} (25 % of the {money(stake)} Banker wager on a tie, "
            f"{rule(TIE_VIG).citation})"
        )
    rounding = f" rounded up to {rules.vig_increment_cents}c" if rules.vig_rounding else ""
    cite = view.citation("vig_rounding" if rules.vig_rounding else "vig")
    return f"{money(due)} ({rules.vig_percent} % of {money(stake)}{rounding}, {cite})"


@round_check(when=Phase.SETTLED)
def nothing_settled_without_a_wager(view: RoundView) -> Iterator[Flag]:
    """3.10(b), 4.10(b): a settlement is the settlement of a wager on record (a wager the
    table does not offer is :func:`~pipeline.replay.checks.wagers.only_offered_wagers`'s
    finding, with its settlement)."""
    standing = {key for key, amount in view.round.wagers.items() if amount > 0}
    last: dict[tuple[int, Wager], TableEvent] = {}
    for e in view.round.settled:
        key = (int(e.get("seat")), Wager[str(e.get("wager"))])
        if key not in standing:
            last[key] = e
    for (seat, wager), e in last.items():
        yield Flag(
            "settlement",
            Severity.CRITICAL,
            f"Seat {seat} was settled {e.get('outcome')} on {wager.value} paying "
            f"{money(int(e.get('paid_cents')))} without a wager on record.",
            seat=seat,
            expected=0,
            actual=int(e.get("paid_cents")),
            event_ids=(e.event_id,),
        )


@round_check(when=Phase.SETTLED)
def no_vigorish_without_a_wager(view: RoundView) -> Iterator[Flag]:
    """3.3(c), 4.10(c), 7.3(c): vigorish is charged on a winning Banker wager of the seat."""
    charged = dict.fromkeys(int(e.get("seat")) for e in view.round.vig)
    for seat in (seat for seat in charged if seat not in view.due):
        events = _vig_events(view, seat)
        amount = sum(int(e.get("amount_cents")) for e in events)
        yield Flag(
            "vig",
            Severity.CRITICAL,
            f"Seat {seat} was charged {money(amount)} of vigorish with no winning "
            "Banker wager to charge it on.",
            seat=seat,
            expected=0,
            actual=amount,
            event_ids=tuple(e.event_id for e in events),
        )


def recorded_steps(rnd: RoundState) -> list[tuple[str, int, str]]:
    """The round's settlement as the pit recorded it, in order: ("LOSE" | "PAY" | "VIG",
    seat, event id) for each losing wager collected, winning wager paid and vigorish
    collected or marked (void and pushed wagers are returned in no order 3.10(b) sets)."""
    steps: list[tuple[str, int, str]] = []
    vig_ids = {e.event_id for e in rnd.vig}
    for e in sorted([*rnd.settled, *rnd.vig], key=lambda e: (e.device_id, e.seq)):
        if e.event_id in vig_ids:
            steps.append(("VIG", int(e.get("seat")), e.event_id))
        elif e.get("outcome") == "LOSE":
            steps.append(("LOSE", int(e.get("seat")), e.event_id))
        elif e.get("outcome") == "WIN":
            steps.append(("PAY", int(e.get("seat")), e.event_id))
    return steps


@round_check(when=Phase.SETTLED)
def settled_in_the_pits_order(view: RoundView) -> Iterator[Flag]:
    """3.10(b) (7.10): losing wagers first; then the pit's procedure (b)1-4."""
    rules = view.rules
    if not view.variant.settlement_order:
        return
    steps = recorded_steps(view.round)
    problem = settlement_order_problem(rules.settlement_procedure.value, steps)
    if problem:
        code = "PB-3.10b-SETTLEMENT"
        yield Flag(
            code,
            Severity.MEDIUM,
            f"{problem} (procedure (b){rules.settlement_procedure.value} of "
            f"{rule(code).citation} applies in this pit).",
            event_ids=tuple(s[2] for s in steps),
        )
