"""What follows a void round: its wagers returned (3.12(e), 4.12(a), (j), (k)), and no more
rounds from the shoe that could not complete it (3.12(e), 4.12(k); Minibaccarat by 7.11 as
3.12)."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity, money

RETURNED = ("VOID", "PUSH")
"""How a returned wager is recorded: its stake goes back, nothing is paid or collected."""


@round_check(when=Phase.VOIDED)
def void_round_wagers_returned(view: RoundView) -> Iterator[Flag]:
    """3.12(e), 4.12(a), (j), (k): a void round's wagers are returned: a settlement paying a
    win or collecting the wager, or vigorish charged, moves money on a round that did not
    count."""
    rnd = view.round
    voided = rnd.voided
    assert voided is not None
    # A hand annulled under 4.12(a), or a last hand with a card found face up (4.12(j)), is
    # void by that rule; any other void, by 3.12(e), 4.12(k).
    subject = "void_returned"
    if rnd.annulled is not None:
        subject = "banker_wrong_order"
    elif view.last_hand_face_up is not None:
        subject = "last_hand_face_up"
    cite = view.citation(subject)
    for e in rnd.settled:
        outcome, paid = str(e.get("outcome")), int(e.get("paid_cents"))
        if outcome in RETURNED and paid == 0:
            continue
        seat = int(e.get("seat"))
        yield Flag(
            subject,
            Severity.CRITICAL,
            f"Seat {seat}'s {e.get('wager')} wager on round {rnd.round_id}, voided by event "
            f"{voided.event_id}, was settled {outcome} paying {money(paid)}; the wagers of a "
            f"void round are returned, nothing paid or collected ({cite}). Recover the payment "
            "or return the collected wager, and record the settlement as VOID.",
            seat=seat,
            expected=0,
            actual=paid,
            event_ids=(voided.event_id, e.event_id),
        )
    for e in rnd.vig:
        seat = int(e.get("seat"))
        amount = int(e.get("amount_cents"))
        yield Flag(
            subject,
            Severity.CRITICAL,
            f"Seat {seat} was charged {money(amount)} of vigorish on round {rnd.round_id}, "
            f"voided by event {voided.event_id}; a void round wins nothing to charge it on "
            f"({cite}). Return it.",
            seat=seat,
            expected=0,
            actual=amount,
            event_ids=(voided.event_id, e.event_id),
        )


@round_check(when=Phase.SETTLED)
@round_check(when=Phase.VOIDED)
def no_round_after_a_void_for_insufficient_cards(view: RoundView) -> Iterator[Flag]:
    """A round dealt from a shoe whose earlier round was voided for insufficient cards: the
    next round commences only after the cards are reshuffled (3.12(e)); the void hand is the
    shoe's last (4.12(k))."""
    shoe = view.shoe
    if shoe is None or shoe.voided_for_insufficient is None:
        return
    void = shoe.voided_for_insufficient
    if void.round_id == view.round.round_id:
        return
    yield Flag(
        "void_reshuffle",
        Severity.HIGH,
        f"Round {view.round.round_id} was dealt from shoe {shoe.shoe_id} after round "
        f"{void.round_id} was voided for insufficient cards (event {void.event_id}); the next "
        "round commences only after the entire set of cards is reshuffled and placed in a new "
        f"shoe ({view.citation('void_reshuffle')}). End the shoe and reshuffle.",
        event_ids=(void.event_id, view.round.started_event),
    )
