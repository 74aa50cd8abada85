"""A legal day replays without findings, and every derived row names the events it came from."""

from __future__ import annotations

import pytest

from tests.replay.builder import (
    GAMING_DATE,
    OPENS_AT,
    TableDayBuilder,
    clean_day,
    event_id,
    table,
)


@pytest.mark.rule("PB-3.7c-DEAL-ORDER", "PB-3.9b-TABLE1", "PB-3.9c-TABLE2", "PB-3.10a-ANNOUNCE")
def test_builder_stream_is_consistent() -> None:
    """PB-3.7c-DEAL-ORDER: The fixture itself: per-device seq 1..n, time strictly increasing,
    deterministic ids, the deal order of N.J.A.C. 19:47-3.7(c) and 3.8(c)."""
    b, rounds = clean_day()
    events = b.events
    assert [e.event_id for e in events] == [event_id(n) for n in range(1, len(events) + 1)]
    assert [e.occurred_at for e in events] == sorted({e.occurred_at for e in events})
    assert events[0].occurred_at > OPENS_AT
    for device in ("T01-shoe", "T01-bets", "T01-pit", "T01-acct"):
        seqs = [e.seq for e in events if e.device_id == device]
        assert seqs == list(range(1, len(seqs) + 1)), device
    hands = [b.by_id(i).get("hand") for i in rounds[1].cards]
    assert hands == ["PLAYER", "BANKER", "PLAYER", "BANKER", "PLAYER", "BANKER"]
    again, _ = clean_day()
    assert again.events == events


@pytest.mark.rule("PB-3.3c-VIG", "PB-3.3c3-COMP-FORM", "PB-3.3c3iv-FORM-MATCH")
def test_clean_day_has_no_findings() -> None:
    """PB-3.3c-VIG: A day dealt by Tables 1 and 2 (N.J.A.C. 19:47-3.9), announced (3.10(a)), settled
    at the odds of 3.3 with 5 % vigorish rounded to 25c (3.3(c)1), one deferral documented on a Form
    (3.3(c)3), a void Form (3.3(c)3vi) and accounting's match (3.3(c)3iv) finds nothing."""
    b, _ = clean_day()
    result = b.replay()
    assert result.findings == []
    assert result.summary is not None
    assert result.summary.findings == 0
    assert result.event_count == len(b.events)


@pytest.mark.rule("PB-3.10a-ANNOUNCE", "PB-3.3a-PLAYER", "PB-3.3b-TIE")
def test_clean_day_round_and_card_rows_keep_their_events() -> None:
    """PB-3.10a-ANNOUNCE: Rows carry the recorded values beside the recomputed ones (N.J.A.C.
    19:47-3.10(a)) and the ids of the events they came from."""
    b, rounds = clean_day()
    result = b.replay()
    assert [r.round_id for r in result.rounds] == [r.round_id for r in rounds]
    first, second, third = result.rounds
    assert (first.status, first.player_cards, first.banker_cards) == ("COMPLETE", "TH 6C", "3D 4S")
    assert (first.player_points, first.banker_points, first.winner) == (6, 7, "BANKER")
    assert (first.total_cards, first.natural, first.started_event) == (4, False, rounds[0].started)
    assert first.announced == "6-7 BANKER 4 cards"
    assert (second.winner, second.total_cards, second.player_cards) == ("PLAYER", 6, "2H 3C 4D")
    assert (third.winner, third.player_points, third.banker_points) == ("TIE", 7, 7)
    for handle in rounds:
        ids = [c.event_id for c in result.cards if c.round_id == handle.round_id]
        assert ids == handle.cards
    card = next(c for c in result.cards if c.event_id == rounds[1].cards[4])
    assert (card.rank, card.suit, card.hand, card.shoe_id) == (
        "FOUR",
        "DIAMONDS",
        "PLAYER",
        "T01-S01",
    )


@pytest.mark.rule("PB-3.3c-VIG", "PB-3.3f-TOTAL-CARDS", "PB-3.3g-BONUS", "PB-3.2a1-BANKER")
def test_clean_day_wager_and_settlement_rows() -> None:
    """PB-3.3c-VIG: Each wager and its settlement by N.J.A.C. 19:47-3.2(a) and 3.3: recorded next to
    the recomputed, with the WagerPlaced and WagerSettled event ids."""
    b, rounds = clean_day()
    result = b.replay()
    r1 = rounds[0]
    wager = next(
        w for w in result.wagers if (w.round_id, w.seat, w.wager) == (r1.round_id, 3, "BANKER")
    )
    assert (wager.amount_cents, wager.late, wager.patron_id) == (10_100, False, "PAT-03")
    assert wager.event_ids == (r1.wagers[(3, "BANKER")],)
    rows = {(s.round_id, s.seat, s.wager): s for s in result.settlements}
    banker = rows[(r1.round_id, 3, "BANKER")]
    assert (banker.expected_result, banker.recorded_result) == ("WIN", "WIN")
    assert (banker.expected_paid_cents, banker.expected_vig_cents) == (10_100, 525)
    assert (banker.rule_code, banker.event_ids) == ("PB-3.3c-VIG", (r1.settled_id(3, "BANKER"),))
    four = rows[(r1.round_id, 7, "CARDS_4")]
    assert (four.expected_paid_cents, four.recorded_paid_cents) == (15_000, 15_000)  # 3 to 2
    bonus = rows[(rounds[1].round_id, 3, "PLAYER_BONUS")]
    assert (bonus.expected_paid_cents, bonus.rule_code) == (20_000, "PB-3.3g-BONUS")  # A: 5 pts 2:1
    void = rows[(rounds[2].round_id, 3, "BANKER")]
    assert (void.expected_result, void.recorded_result, void.expected_paid_cents) == (
        "VOID",
        "VOID",
        0,
    )
    assert all(s.recorded_paid_cents == s.expected_paid_cents for s in result.settlements)
    assert len(result.settlements) == sum(len(h.settled) for h in rounds)


@pytest.mark.rule("PB-3.3c2-VIG-DEFERRED", "PB-3.3c3-COMP-FORM", "PB-3.3c3vii-COMPLIMENTARY")
def test_clean_day_vigorish_and_form_rows() -> None:
    """PB-3.3c2-VIG-DEFERRED: Deferred vigorish (N.J.A.C. 19:47-3.3(c)2) documented on a Form
    (3.3(c)3i) is a complimentary in the win (3.3(c)3vii); the void Form (3.3(c)3vi) and the series
    are accounted for (3.3(c)3ii), each row with its event id."""
    b, rounds = clean_day()
    result = b.replay()
    deferred, documented = result.vig_ledger
    assert (deferred.kind, deferred.amount_cents, deferred.balance_after_cents) == (
        "DEFERRED",
        525,
        525,
    )
    assert deferred.event_id == rounds[0].vig[3]
    assert (documented.kind, documented.amount_cents, documented.balance_after_cents) == (
        "DOCUMENTED",
        525,
        0,
    )
    void, issued = result.forms
    assert (void.serial, void.status, void.marked_void) == (1001, "VOIDED", True)
    assert (issued.serial, issued.status, issued.amount_cents) == (1002, "ISSUED", 525)
    assert (issued.patron_name, issued.gaming_date, issued.pit) == (
        "Patron 3",
        GAMING_DATE,
        "BACCARAT-1",
    )
    assert b.by_id(issued.event_id).payload_type == "CompVigFormIssued"
    assert documented.event_id == issued.event_id
    assert {(r.serial, r.kind, r.matched) for r in result.form_events} == {
        (1001, "ORIGINAL_COUNTED", True),
        (1001, "DUPLICATE_RECEIVED", True),
        (1002, "ORIGINAL_COUNTED", True),
        (1002, "DUPLICATE_RECEIVED", True),
    }
    (series,) = result.form_series
    assert (series.first_serial, series.last_serial, series.used, series.voided) == (
        1001,
        1050,
        1,
        1,
    )
    summary = result.summary
    assert summary is not None
    assert (summary.rounds, summary.shoes, summary.comp_vig_cents) == (3, 1, 525)
    assert (summary.vig_expected_cents, summary.vig_collected_cents) == (525, 0)
    assert summary.handle_cents == sum(w.amount_cents for w in result.wagers)


LEGAL_ROUNDS = (
    ("TH 6C", "3D 4S"),  # Banker 7-6
    ("2H 3C 4D", "5D KS 9C"),  # Player 9-4, Banker 5 draws against a 4
    ("4H 3C", "2D 5S"),  # tie 7-7
    ("TH 4C KD", "3D 3S"),  # Banker wins with 6 (1 to 2 under 3.3(e)1)
    ("TH 6C", "3D 2S 2C"),  # three-card Banker 7 wins: a dragon 7 (3.3(h))
    ("9H KC", "2D 3S"),  # natural 9
)


@pytest.mark.parametrize(
    "rules_id", ["pb-5-classic", "pb-4-banker6", "pb-dragon", "mb-5-rounded", "mb-tie-quarter"]
)
@pytest.mark.rule("PB-3.9c-TABLE2", "PB-3.3e1-BANKER-SIX", "PB-3.3h-DRAGON-PUSH", "MB-7.3d-TIE-VIG")
def test_every_punto_banco_and_minibaccarat_configuration_replays_clean(rules_id: str) -> None:
    """PB-3.9c-TABLE2, N.J.A.C. 19:47-3.9(c)-(g): Under each filed configuration the honest dealer's
    day (Tables 1 and 2 of N.J.A.C. 19:47-3.9; payouts of 3.3 or 7.3 with its vigorish option;
    settlement procedure of 3.10(b)) finds nothing."""
    b = table(rules_id)
    for player, banker in LEGAL_ROUNDS:
        b.round(
            player=player,
            banker=banker,
            wagers={
                1: {"BANKER": 10_000},
                2: {"PLAYER": 10_000, "TIE": 10_000},
                6: {"BANKER": 10_100},
            },
            defer_vig={6} if b.rules.vig_deferral else (),
        )
    b.patron_leaves(6)
    b.end_shoe()
    b.close()
    result = b.replay()
    assert result.findings == []
    assert [r.status for r in result.rounds] == ["COMPLETE"] * len(LEGAL_ROUNDS)
    assert len(result.settlements) == 4 * len(LEGAL_ROUNDS)


@pytest.mark.rule("CF-4.5b-BANKER-BID", "CF-4.7b-SUIVI", "CF-4.10c-VIG", "CF-4.11a1-BANK-PASS")
def test_chemin_de_fer_clean_day() -> None:
    """CF-4.5b-BANKER-BID: A Chemin de Fer shoe: bank to the highest bid (N.J.A.C. 19:47-4.5(b)), a
    banco seul, the loser's banco suivi (4.7(b)-(c)), the bank passed when the Banker's Hand loses
    (4.11(a)1), partial wagers counterclockwise (4.7(d)), vigorish collected at once (4.10(c))."""
    b = TableDayBuilder("T04", "cf-5", pit="CHEMMY-1", location="BAC-04")
    b.open()
    b.shoe()
    r1 = b.round(
        player="TH 6C",
        banker="3D 4S",
        bank={
            "seat": 1,
            "amount": 100_000,
            "bids": {1: 100_000, 5: 50_000},
            "banco": [(5, "BANCO_SEUL", None)],
        },
    )
    r2 = b.round(
        player="TH 7C",
        banker="3D 3S",
        bank={"seat": 1, "amount": 200_000, "banco": [(5, "BANCO_SUIVI", None)]},
    )
    r3 = b.round(
        player="TH 6C",
        banker="3D 4S",
        bank={
            "seat": 5,
            "amount": 200_000,
            "banco": [(7, "PARTIAL", 120_000), (1, "PARTIAL", 80_000)],
        },
    )
    b.end_shoe()
    b.close()
    result = b.replay()
    assert result.findings == []
    assert r2.bank_passed is not None and b.by_id(r2.bank_passed).fields["to_seat"] == 5
    rows = {(s.round_id, s.seat): s for s in result.settlements}
    assert (rows[(r1.round_id, 1)].expected_vig_cents, rows[(r1.round_id, 1)].rule_code) == (
        5_000,
        "CF-4.10c-VIG",
    )
    assert rows[(r2.round_id, 5)].expected_paid_cents == 200_000
    assert rows[(r3.round_id, 5)].expected_vig_cents == 10_000
    assert result.vig_ledger[0].event_id == r1.vig[1]
