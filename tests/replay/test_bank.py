"""Chemin de Fer's bank on its own (:class:`pipeline.replay.bank.Bank`), fed events directly:
who holds it, the Banker's limits and passing it on a loss (N.J.A.C. 19:47-4.5(b), 4.6(b),
4.11)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.events.model import TableEvent
from pipeline.replay.bank import Bank
from pipeline.replay.state import RoundState
from pipeline.rules.cards import cards
from pipeline.rules.outcome import outcome_of

BANKER_LOSES = outcome_of(cards("TH 7C"), cards("3D 3S"))
BANKER_WINS = outcome_of(cards("TH 6C"), cards("3D 4S"))


def event(n: int, payload_type: str, **fields: Any) -> TableEvent:
    return TableEvent(f"e{n}", "T04", "T04-pit", n, n, payload_type, fields)


def round_with_banker(round_id: str, seat: int, amount: int, n: int) -> RoundState:
    rnd = RoundState(round_id, "S1", 1, False, f"start-{round_id}", 0)
    rnd.bank.append(event(n, "BankerWager", seat=seat, amount_cents=amount))
    rnd.bank.append(
        event(n + 1, "PlayerBancoWager", seat=5, action="BANCO_SEUL", amount_cents=amount)
    )
    rnd.announced = event(n + 2, "ResultAnnounced", round_id=round_id)
    return rnd


@pytest.mark.rule("CF-4.11a1-BANK-PASS")
def test_a_losing_banker_who_keeps_the_bank_is_found_on_the_lost_round() -> None:
    """CF-4.11a1-BANK-PASS, N.J.A.C. 19:47-4.11(a)1: the Banker whose hand lost passes the bank;
    the finding names the round lost, with its announcement and the wager that kept the
    bank as evidence."""
    bank = Bank()
    lost = round_with_banker("R1", 2, 100_000, 1)
    assert bank.banker_wager(lost.bank[0]) == []
    assert bank.settled(lost, BANKER_LOSES) == []
    kept = round_with_banker("R2", 2, 100_000, 10)
    (flag,) = bank.round_ended(kept)
    assert (flag.code, flag.seat, flag.round_id) == ("CF-4.11a1-BANK-PASS", 2, "R1")
    assert flag.event_ids == ("e3", "e10")
    assert bank.round_ended(kept) == []  # reported once


@pytest.mark.rule("CF-4.11a1-BANK-PASS")
def test_only_the_losing_banker_passing_clears_the_pass() -> None:
    """CF-4.11a1-BANK-PASS, N.J.A.C. 19:47-4.11(a)1: a pass recorded for another seat does not
    stand for the losing Banker's; the Banker's own pass does."""
    bank = Bank()
    lost = round_with_banker("R1", 2, 100_000, 1)
    bank.banker_wager(lost.bank[0])
    bank.settled(lost, BANKER_LOSES)
    bank.passed(event(20, "BankPassed", seat=7, to_seat=3, voluntary=False))
    assert [f.code for f in bank.round_ended(round_with_banker("R2", 3, 50_000, 30))] == [
        "CF-4.11a1-BANK-PASS"
    ]
    bank.settled(lost, BANKER_LOSES)
    bank.passed(event(40, "BankPassed", seat=2, to_seat=3, voluntary=False))
    assert bank.round_ended(round_with_banker("R3", 3, 50_000, 50)) == []


@pytest.mark.rule("CF-4.11a1-BANK-PASS")
def test_a_winning_banker_keeps_the_bank() -> None:
    """CF-4.11a1-BANK-PASS, N.J.A.C. 19:47-4.11(a)1: only a loss passes the bank."""
    bank = Bank()
    won = round_with_banker("R1", 2, 100_000, 1)
    bank.banker_wager(won.bank[0])
    assert bank.settled(won, BANKER_WINS) == []
    assert bank.round_ended(round_with_banker("R2", 2, 100_000, 10)) == []


@pytest.mark.rule("CF-4.5b-BANKER-BID", "CF-4.6b-BANKER-LIMITS")
def test_the_bid_sets_the_first_wager_and_the_last_wager_the_next() -> None:
    """CF-4.5b-BANKER-BID, CF-4.6b-BANKER-LIMITS, N.J.A.C. 19:47-4.5(b), 4.6(b): the highest
    bidder banks and wagers at least the bid; each later wager is at least the previous one
    and at most twice it."""
    bank = Bank()
    bank.bid(event(1, "BankBid", seat=2, amount_cents=100_000))
    bank.bid(event(2, "BankBid", seat=4, amount_cents=80_000))
    assert bank.banker_wager(event(3, "BankerWager", seat=2, amount_cents=100_000)) == []
    assert bank.banker_wager(event(4, "BankerWager", seat=2, amount_cents=200_000)) == []
    (flag,) = bank.banker_wager(event(5, "BankerWager", seat=2, amount_cents=400_100))
    assert (flag.code, flag.expected, flag.actual) == ("CF-4.6b-BANKER-LIMITS", 200_000, 400_100)
    usurper = Bank()
    usurper.bid(event(1, "BankBid", seat=2, amount_cents=100_000))
    usurper.bid(event(2, "BankBid", seat=4, amount_cents=80_000))
    codes = [
        f.code for f in usurper.banker_wager(event(3, "BankerWager", seat=4, amount_cents=80_000))
    ]
    assert codes == ["CF-4.5b-BANKER-BID"]


@pytest.mark.rule("CF-4.11c-VOLUNTARY-PASS")
def test_after_a_voluntary_pass_the_last_wager_is_the_new_bankers_floor() -> None:
    """CF-4.11c-VOLUNTARY-PASS, N.J.A.C. 19:47-4.11(c): the new Banker wagers from the previous
    Banker's last wager up to twice it; after a mandatory pass (4.11(b)) there is no floor."""
    bank = Bank()
    bank.banker_wager(event(1, "BankerWager", seat=2, amount_cents=100_000))
    bank.passed(event(2, "BankPassed", seat=2, to_seat=3, voluntary=True))
    (flag,) = bank.banker_wager(event(3, "BankerWager", seat=3, amount_cents=50_000))
    assert (flag.code, flag.expected) == ("CF-4.11c-VOLUNTARY-PASS", 100_000)
    mandatory = Bank()
    mandatory.banker_wager(event(1, "BankerWager", seat=2, amount_cents=100_000))
    mandatory.passed(event(2, "BankPassed", seat=2, to_seat=3, voluntary=False))
    assert mandatory.banker_wager(event(3, "BankerWager", seat=3, amount_cents=50_000)) == []
