"""Who holds the shoe and the bank.

Seats are numbered; "counterclockwise around the table" is read as ascending seat number,
wrapping from the highest occupied seat back to the lowest (3.6(b) starts at seat 1 and moves
counterclockwise, so counterclockwise order is seat order).

Punto Banco: the curator passes when the Banker's Hand loses (3.11(a)1) to the right, then
counterclockwise (3.11(b)). Chemin de Fer: the Banker is chosen by bid (4.5(b)), wagers within
limits (4.6(b)), is covered by banco suivi, banco seul, then partial wagers (4.7), and passes
the bank when the Banker's Hand loses (4.11), and a participant who moves seats to come to
the bank sooner misses that turn (4.11(e)).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pipeline.rules.config import Cents, money
from pipeline.rules.outcome import RoundOutcome, Winner
from pipeline.rules.symbol import Symbol
from pipeline.rules.variants import HandingProcedure


def counterclockwise_from(start: int, seats: Iterable[int]) -> list[int]:
    """Occupied ``seats`` in counterclockwise order beginning after ``start``."""
    ordered = sorted(set(seats))
    return [s for s in ordered if s > start] + [s for s in ordered if s <= start]


def curator_must_pass(outcome: RoundOutcome) -> bool:
    """N.J.A.C. 19:47-3.11(a)1 (and 4.11(a)1): the shoe passes whenever the Banker's Hand loses.
    A tie is not a loss."""
    return outcome.winner is Winner.PLAYER


def shoe_offer_order(previous: int | None, seated: Iterable[int]) -> list[int]:
    """The seats the dealer offers the shoe to, in order, until one accepts
    (``PB-3.6b-CURATOR``). N.J.A.C. 19:47-3.6(b): at the commencement of play, "the participant
    in seat number one" first, then "each of the other participants in turn counterclockwise";
    3.11(b): after a relinquishment, "the participant immediately to the right of the previous
    curator", then "each of the other participants in turn counterclockwise" (the previous
    curator is not one of the others). ``previous`` is ``None`` at the commencement of play and
    when the dealer held the shoe (3.6(d)): then the offer starts again at seat 1. If nobody
    accepts, the dealer acts as curator (3.6(d)2)."""
    if previous is None:
        return sorted(set(seated))
    return [seat for seat in counterclockwise_from(previous, seated) if seat != previous]


def next_holder(previous: int, accepting: Iterable[int]) -> int | None:
    """The new curator or Banker after a mandatory pass: the first participant to the right of
    the previous holder, then counterclockwise, who accepts (3.11(b), 4.11(b)). ``None``: the
    dealer acts as curator (3.6(d)2)."""
    order = shoe_offer_order(previous, accepting)
    return order[0] if order else None


def move_promotes(banker: int, left: int, taken: int, seats: Iterable[int]) -> bool:
    """N.J.A.C. 19:47-4.11(e): whether a participant moving from seat ``left`` to seat
    ``taken``, while the bank is at seat ``banker``, moves up in turn to become the Banker: the
    bank is offered from the Banker's right, counterclockwise (4.11(b)-(c)), and ``taken``
    comes before ``left`` in that order. ``seats`` are the other occupied seats."""
    if banker in (left, taken):
        return False
    order = counterclockwise_from(banker, {*seats, left, taken} - {banker})
    return order.index(taken) < order.index(left)


def offer_reaches(passer: int, receiver: int | None, seat: int, seats: Iterable[int]) -> bool:
    """Whether the bank that ``passer`` gave up and ``receiver`` took (``None``: nobody) was
    offered to ``seat`` on its way round the occupied ``seats`` from the passer's right,
    counterclockwise (4.11(b)-(c)): ``seat`` is the receiver or comes before it."""
    if receiver is None:
        return True
    order = counterclockwise_from(passer, {*seats, receiver} - {passer})
    return seat in order and order.index(seat) <= order.index(receiver)


def bank_offer_order(passer: int, seated: Iterable[int], passed_by: int | None = None) -> list[int]:
    """The seats a relinquished bank is offered to, in order, until one accepts
    (``CF-4.11b-OFFER-ORDER``). N.J.A.C. 19:47-4.11(b): "it shall be offered to the seated
    participant to the right of the previous Banker and then to each other seated participant,
    moving counterclockwise around the table"; 4.11(c) offers a voluntarily passed bank in the
    same order. 4.11(d): a passed bank that is defeated is transferred "as it would have been
    ... had it not been voluntarily passed": ``passed_by`` is the Banker who passed it
    voluntarily, from whose right the offer then starts. Neither the Banker giving the bank up
    (``passer``) nor the one who passed it is offered it."""
    start = passer if passed_by is None else passed_by
    return [seat for seat in counterclockwise_from(start, seated) if seat not in (passer, start)]


def cut_offer_order(seated: Iterable[int]) -> list[int]:
    """The seats the stack is offered to for the cut, in order, until one accepts
    (``CF-4.4c-CUT-ORDER``). N.J.A.C. 19:47-4.4(c): "The dealer shall begin with the
    participant seated in the highest number position at the table ... and working clockwise
    around the table, shall offer the stack to each participant until a participant accepts
    the cut. If no participant accepts the cut, the dealer shall cut the cards." Seats are
    numbered counterclockwise, so clockwise is descending seat number."""
    return sorted(set(seated), reverse=True)


def passed_over(
    order: Sequence[int], taker: int | None, declined: Iterable[int]
) -> tuple[int, ...]:
    """The seats an offer made in ``order`` "until a participant accepts" went past without
    their declining it: every seat before ``taker`` that did not decline, or every seat of
    ``order`` when nobody took the offer (``None``: the dealer cut, or the bank goes to the
    bidding). Empty: the offer went round in turn (N.J.A.C. 19:47-4.4(c), 4.11(b)-(c)). A
    ``taker`` the order never reaches is passed over by nobody here: who may take an offer at
    all is the rule of ``CF-4.11b-PASSED-TO`` and of the cut offered to the seated."""
    if taker is not None and taker not in order:
        return ()
    reached = order if taker is None else order[: order.index(taker)]
    said_no = set(declined)
    return tuple(seat for seat in reached if seat not in said_no)


def may_bid_in_first_round(seat: int, passer: int) -> bool:
    """N.J.A.C. 19:47-4.11(c) (``CF-4.11c-PASSER-BID``): when no participant accepts a bank
    passed voluntarily on its terms, "the participant offering to wager the highest amount on
    the next hand shall become the new Banker provided however that the participant who passed
    the Bank shall not be permitted to take part in the first round of such bidding"."""
    return seat != passer


def seats_to_hand(
    procedure: HandingProcedure, on_hand: Mapping[int, Cents], on_other_hand: Mapping[int, Cents]
) -> tuple[int, ...] | None:
    """The seats that may be handed a hand's two cards under the procedure that hands them to
    the players, given each seat's wager on that hand and on the other one.

    N.J.A.C. 19:47-3.7(d)1-2 (7.7(c)3i-ii): "the player with the highest wager" on the hand.
    3.7(d)5: of equally high wagers, the one "closest to the dealer moving counterclockwise",
    the lowest seat number (seats are numbered counterclockwise from the dealer's left); the
    given 7.7(c)3 names no tie-break, so every equal wager qualifies there
    (:attr:`HandingProcedure.closest_of_equal_wagers`). 3.7(d)6: with no wager on the hand,
    any player wagering on the other hand may be permitted to turn it face up. ``None``: the
    procedure names nobody for a hand without wagers (7.7(c)3).
    """
    wagered = sorted(seat for seat, cents in on_hand.items() if cents > 0)
    if wagered:
        highest = max(on_hand[seat] for seat in wagered)
        equal = tuple(seat for seat in wagered if on_hand[seat] == highest)
        return equal[:1] if procedure.closest_of_equal_wagers else equal
    if procedure.other_hand_when_unwagered:
        return tuple(sorted(seat for seat, cents in on_other_hand.items() if cents > 0))
    return None


def banker_by_bid(bids: Mapping[int, Cents]) -> int:
    """N.J.A.C. 19:47-4.5(b): the highest bid becomes Banker; of equal bids, the one closest to
    the dealer counterclockwise (the lowest seat number)."""
    if not bids:
        raise ValueError("no bids: the bank cannot be awarded (N.J.A.C. 19:47-4.5(b))")
    return min(bids, key=lambda seat: (-bids[seat], seat))


def banker_wager_problem(previous: Cents | None, bid: Cents | None, wager: Cents) -> str | None:
    """N.J.A.C. 19:47-4.6(b): the first wager is at least the winning bid; each later wager is
    at least the previous and at most twice it. Returns what is wrong, or ``None``."""
    if previous is None:
        if bid is not None and wager < bid:
            return f"first Banker wager {money(wager)} is below the winning bid {money(bid)}"
        return None
    if wager < previous:
        return f"Banker wager {money(wager)} is below the previous wager {money(previous)}"
    if wager > 2 * previous:
        return f"Banker wager {money(wager)} exceeds twice the previous wager {money(previous)}"
    return None


class BancoKind(Symbol):
    SUIVI = "BANCO_SUIVI"  # 4.7(b)
    SEUL = "BANCO_SEUL"  # 4.7(c)
    PARTIAL = "PARTIAL"  # 4.7(d)


@dataclass(frozen=True, slots=True)
class BancoOffer:
    seat: int
    kind: BancoKind
    amount_cents: Cents


@dataclass(frozen=True, slots=True)
class BancoCall:
    """An announcement to take the whole bank, accepted or not: "Banco Suivi" (``SUIVI``,
    N.J.A.C. 19:47-4.7(b)) or "Banco Seul" (``SEUL``, 4.7(c)) by the participant at ``seat``."""

    seat: int
    kind: BancoKind

    @property
    def option_code(self) -> str:
        """The code of the option the call exercises when it is owed the bank:
        ``CF-4.7b-SUIVI-FIRST`` (4.7(b)) or ``CF-4.7c-BANCO-PRIORITY`` (4.7(c))."""
        return "CF-4.7b-SUIVI-FIRST" if self.kind is BancoKind.SUIVI else "CF-4.7c-BANCO-PRIORITY"


def banco_priority(
    banker_seat: int, calls: Iterable[BancoCall], suivi_seat: int | None
) -> BancoCall | None:
    """The call that must receive the wager for the whole bank, N.J.A.C. 19:47-4.7(b)-(d).

    (b) The participant who equaled and lost the Banker's immediately preceding wager
    (``suivi_seat``; a stand-off does not count) has the first option, by calling "Banco
    Suivi"; a "suivi" from anyone else exercises no option. (c) Otherwise, of the participants
    calling "Banco Seul", the one seated nearest the Banker counterclockwise. ``None``: neither
    option was exercised, and only then are partial wagers taken (4.7(d)). The Banker's own
    calls are not "the remaining participants" of 4.7(a) and never count.
    """
    calls = [c for c in calls if c.seat != banker_seat]
    for call in calls:
        if call.kind is BancoKind.SUIVI and call.seat == suivi_seat:
            return call
    seul = {c.seat: c for c in calls if c.kind is BancoKind.SEUL}
    if not seul:
        return None
    return seul[counterclockwise_from(banker_seat, seul)[0]]


@dataclass(frozen=True, slots=True)
class PriorityBreach:
    """The call owed the whole bank that did not receive it, and the code that reports it."""

    owed: BancoCall
    rule_code: str
    """``owed.option_code`` when another caller, or nobody, received the bank;
    ``CF-4.7d-PARTIAL`` when partial wagers were taken instead."""


def priority_breach(
    banker_seat: int,
    calls: Iterable[BancoCall],
    suivi_seat: int | None,
    accepted: Sequence[BancoOffer],
) -> PriorityBreach | None:
    """N.J.A.C. 19:47-4.7(b)-(d): whether the wagers ``accepted`` against the Banker pass over
    the call :func:`banco_priority` owes the whole bank. An accepted wager for the whole bank
    is a call too (it was announced to be made). ``None``: the call owed the bank received it,
    or nobody exercised either option."""
    full = [o for o in accepted if o.kind is not BancoKind.PARTIAL]
    owed = banco_priority(
        banker_seat, [*calls, *(BancoCall(o.seat, o.kind) for o in full)], suivi_seat
    )
    if owed is None or any(o.seat == owed.seat for o in full):
        return None
    return PriorityBreach(owed, "CF-4.7d-PARTIAL" if accepted and not full else owed.option_code)


def partial_offer_order(banker_seat: int, seated: Iterable[int]) -> list[int]:
    """The seats a part of the Banker's wager is offered to, in order, until the partial wagers
    cover it (``CF-4.7d-PARTIAL-ORDER``). N.J.A.C. 19:47-4.7(d): "beginning with one seated to
    the immediate right of the Banker and moving counterclockwise around the table"; the
    Banker is not one of "the remaining participants" (4.7(a))."""
    return [seat for seat in counterclockwise_from(banker_seat, seated) if seat != banker_seat]


def partial_wagers_passed_over(
    banker_seat: int,
    banker_wager: Cents,
    seated: Iterable[int],
    accepted: Sequence[BancoOffer],
    calls: Iterable[BancoCall],
    suivi_seat: int | None,
    declined: Iterable[int],
) -> tuple[int, ...]:
    """The participants the partial wagers against the Banker passed over
    (``CF-4.7d-PARTIAL-ORDER``). N.J.A.C. 19:47-4.7(d): "If the options granted by subsections
    (b) and (c) of this section are not exercised, each participant, beginning with one seated
    to the immediate right of the Banker and moving counterclockwise around the table, shall
    have the right to make a wager against a part of the wager made by the Banker. Such wagers
    shall be accepted until the amount of the partial wagers, taken in the aggregate, equals
    the amount of the wager made by the Banker or until the dealer announces 'No More Bets.'"

    When the partial wagers ``accepted`` cover the whole ``banker_wager``, every ``seated``
    participant before the last of them in that order either made one or ``declined`` one on
    record; the others are returned, passed over for a later seat. Nothing is returned when
    the bank was left uncovered in part: "No More Bets" ended the offer with room left on the
    bank, so the order deprived nobody. Nor when 4.7(b)-(c) owed the whole bank to a call
    (:func:`banco_priority`, partial wagers taken instead are ``CF-4.7d-PARTIAL``), or a wager
    for the whole bank was accepted: then no partial wager was offered."""
    if any(o.kind is not BancoKind.PARTIAL for o in accepted):
        return ()
    if banco_priority(banker_seat, calls, suivi_seat) is not None:
        return ()
    if not accepted or sum(o.amount_cents for o in accepted) < banker_wager:
        return ()
    takers = {o.seat for o in accepted} - {banker_seat}
    if not takers:
        return ()
    order = partial_offer_order(banker_seat, {*seated, *takers})
    last = max(takers, key=order.index)
    return passed_over(order, last, {*takers, *declined})


@dataclass(frozen=True, slots=True)
class Coverage:
    accepted: tuple[BancoOffer, ...]
    uncovered_cents: Cents
    """What the Banker withdraws, 4.7(e)."""
    dominant_seat: int | None
    """Who controls the Player's Hand, 4.8(c)."""


def cover_bank(
    banker_seat: int,
    banker_wager: Cents,
    offers: Sequence[BancoOffer],
    suivi_seat: int | None,
) -> Coverage:
    """Which wagers against the Banker stand, N.J.A.C. 19:47-4.7(a)-(e) and 4.8(c).

    ``suivi_seat`` is the participant who equaled and lost the Banker's previous wager (stand
    offs do not count), the only one entitled to banco suivi. Banco suivi takes the whole bank;
    else banco seul, nearest the Banker counterclockwise; else partial wagers counterclockwise
    from the Banker's right until the bank is covered. Nothing ever exceeds the bank.
    """
    offers = [o for o in offers if o.seat != banker_seat]  # 4.7(a): "the remaining participants"
    chosen = banco_priority(banker_seat, (BancoCall(o.seat, o.kind) for o in offers), suivi_seat)
    if chosen is not None:
        return Coverage((BancoOffer(chosen.seat, chosen.kind, banker_wager),), 0, chosen.seat)
    by_seat = {o.seat: o for o in offers if o.kind is BancoKind.PARTIAL}
    remaining = banker_wager
    accepted: list[BancoOffer] = []
    for seat in counterclockwise_from(banker_seat, by_seat):
        if remaining == 0:
            break
        take = min(by_seat[seat].amount_cents, remaining)
        accepted.append(BancoOffer(seat, BancoKind.PARTIAL, take))
        remaining -= take
    return Coverage(tuple(accepted), remaining, dominant_player(banker_seat, accepted))


def dominant_player(banker_seat: int, accepted: Sequence[BancoOffer]) -> int | None:
    """N.J.A.C. 19:47-4.8(c): the Dominant Player, who controls the Player's Hand: whoever made
    the banco suivi or banco seul wager; else the highest wager against the Banker, and of equal
    ones the nearest the Banker counterclockwise. ``None`` when nobody wagered against it."""
    for offer in accepted:
        if offer.kind is not BancoKind.PARTIAL:
            return offer.seat
    if not accepted:
        return None
    highest = max(o.amount_cents for o in accepted)
    return counterclockwise_from(
        banker_seat, (o.seat for o in accepted if o.amount_cents == highest)
    )[0]
