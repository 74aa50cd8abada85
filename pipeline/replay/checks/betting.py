"""Betting closes with the first card (3.2(d) with 3.7(b), 4.7(e) with 4.8(d), 7.2(d) with
7.7(b)): "No More Bets" is announced before "Cards". A wager moved after the round's first card
is late whether or not the pit terminal recorded the announcement, and whenever it recorded it
(:mod:`~pipeline.replay.checks.late_wagers`); here, the announcement itself: recorded after the
cards, or, at a table whose pit terminal records it in every round (``records_no_more_bets``),
not recorded at all."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity


@round_check(when=Phase.SETTLED)
def no_more_bets_before_the_cards(view: RoundView) -> Iterator[Flag]:
    """3.2(d)/3.7(b), 4.7(e)/4.8(d), 7.2(d)/7.7(b): "No More Bets" is announced before
    "Cards". One recorded after the round's first card is the procedure not kept, whether or
    not a wager moved in between (one that did is ``no_wager_after_the_first_card``'s
    finding, which names the late record)."""
    rnd = view.round
    if rnd.closed_after_cards is None or rnd.after_first_card or rnd.first_card is None:
        return
    yield Flag(
        "bets_after_cards",
        Severity.MEDIUM,
        f'"No More Bets" was recorded in round {rnd.round_id} only after its first card was '
        f"dealt (event {rnd.first_card}); it is announced before the cards "
        f"({view.citation('bets_after_cards')}). No wager moved in between; review the "
        "dealer's procedure and the pit terminal's record.",
        event_ids=(rnd.first_card, rnd.closed_after_cards),
    )


@round_check(when=Phase.SETTLED)
def no_more_bets_on_record(view: RoundView) -> Iterator[Flag]:
    """3.7(b), 4.7(d)-(e) with 4.8(d), 7.7(b): the dealer announces "No More Bets" at the
    commencement of each round. Where the table's pit terminal records it in every round
    (``records_no_more_bets``), a round dealt and settled without the record was dealt without
    the announcement. A round where a wager then moved after the first card is
    ``no_wager_after_the_first_card``'s finding, which names the missing record."""
    rnd = view.round
    if not view.rules.records_no_more_bets or rnd.betting_closed is not None:
        return
    if rnd.after_first_card or rnd.first_card is None:
        return
    yield Flag(
        "no_more_bets_called",
        Severity.MEDIUM,
        f'Round {rnd.round_id} was dealt (first card event {rnd.first_card}) with no "No More '
        f'Bets" on record, though the pit terminal of rules {view.rules.rules_id!r} records it '
        f"in every round; the dealer announces it before the cards "
        f"({view.citation('no_more_bets_called')}). No wager moved after the cards; review the "
        "dealer's procedure with surveillance, or set records_no_more_bets = false in the rule "
        "catalog if the terminal does not record every announcement.",
        event_ids=(rnd.started_event, rnd.first_card),
    )
