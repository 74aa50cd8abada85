"""The deal: how many cards each hand holds (3.7(c), 3.8(d)), the order they went out (3.7(c),
3.8(c), 4.8(d)), naturals (3.9(a)) and the draw tables (3.9(b)-(c) Tables 1-2, 4.9 Table 3,
7.9); and the simulated round of 3.12(c)3, which takes no wagers."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.checks.error_cards import kept_as_dealt
from pipeline.replay.findings import Severity
from pipeline.rules.deal import deal_order_problem
from pipeline.rules.draw import Draw, DrawRuling, draw_rulings


def _card_ids(view: RoundView) -> tuple[str, ...]:
    return tuple(c.event_id for c in view.round.cards)


def _judged_by_the_draw_tables(view: RoundView) -> bool:
    """Whether the draw tables judge the round: not when the cards went out of order
    (:func:`cards_dealt_in_order` says so), the Banker's deal was reported beyond rectifying
    (4.12(a)-(d) count it), or the round was announced with a card dealt in error kept where
    it was dealt (:func:`error_cards.error_card_not_kept` explains the round)."""
    if view.round.banker_misdealt or kept_as_dealt(view) is not None:
        return False
    return deal_order_problem([c.hand for c in view.round.cards]) is None


def _rulings(view: RoundView) -> tuple[DrawRuling, DrawRuling]:
    cards = view.round.cards
    return draw_rulings(
        view.game,
        [c.card.value for c in cards if c.hand == "PLAYER"],
        [c.card.value for c in cards if c.hand == "BANKER"],
    )


@round_check(when=Phase.MISDEALT)
def two_or_three_cards_a_hand(view: RoundView) -> Iterator[Flag]:
    """3.7(c), 3.8(d), 4.8(d): each hand has two cards and at most one more."""
    cards = view.round.cards
    player = sum(1 for c in cards if c.hand == "PLAYER")
    banker = sum(1 for c in cards if c.hand == "BANKER")
    if 2 <= player <= 3 and 2 <= banker <= 3:
        return
    subject = "one_more" if player > 3 or banker > 3 else "deal_order"
    yield Flag(
        subject,
        Severity.HIGH,
        f"Round {view.round.round_id} has {player} Player and {banker} Banker cards; each "
        f"hand has two cards and at most one more ({view.cite(subject)}).",
        event_ids=_card_ids(view),
    )


@round_check(when=Phase.DEALT)
def cards_dealt_in_order(view: RoundView) -> Iterator[Flag]:
    """3.7(c), 4.8(d): the first and third cards to the Player's Hand, the second and fourth
    to the Banker's; 3.8(c): a third card first to the Player's Hand, then to the Banker's."""
    if view.round.banker_misdealt:
        return  # reported under 4.12(a)-(d), which say what follows (checks.banker_deal)
    hands = [c.hand for c in view.round.cards]
    subject = deal_order_problem(hands)
    if subject is None:
        return
    dealt = "-".join(h[0] for h in hands)
    rule = (
        "the first and third go to the Player's Hand, the second and fourth to the Banker's"
        if subject == "deal_order"
        else "a third card goes first to the Player's Hand, then to the Banker's"
    )
    yield Flag(
        subject,
        Severity.HIGH,
        f"Cards went to {dealt}; {rule} ({view.cite(subject)}).",
        event_ids=_card_ids(view),
    )


@round_check(when=Phase.DEALT)
def player_hand_draws_by_the_rules(view: RoundView) -> Iterator[Flag]:
    """3.9(a) naturals; 3.9(b) Table 1 (7.9); 4.9(a) the Dominant Player; when
    :func:`_judged_by_the_draw_tables`."""
    if not _judged_by_the_draw_tables(view):
        return
    player, _ = _rulings(view)
    if player.agrees:
        return
    p2, b2 = player.player_points, player.banker_points
    reason = (
        f"with a natural ({'Player' if p2 >= 8 else 'Banker'} {p2 if p2 >= 8 else b2}) no more "
        "cards are dealt"
        if player.natural
        else f"the Player's Hand with {p2} must {'draw' if player.cell is Draw.DRAW else 'stay'}"
    )
    yield Flag(
        player.subject,
        Severity.HIGH,
        f"{reason[0].upper()}{reason[1:]}: {view.cite(player.subject)}; the Player's "
        f"Hand {'drew' if player.drew else 'stayed'}.",
        event_ids=_card_ids(view),
    )


@round_check(when=Phase.DEALT)
def banker_hand_draws_by_the_rules(view: RoundView) -> Iterator[Flag]:
    """3.9(a) naturals; 3.9(c)-(g) Table 2 (7.9); 4.9(c)-(g) Table 3; when
    :func:`_judged_by_the_draw_tables`, and not when the Player's Hand drew against its rule
    (that finding explains the round)."""
    if not _judged_by_the_draw_tables(view):
        return
    player, banker = _rulings(view)
    if not player.agrees or banker.agrees:
        return
    if banker.natural:
        text = (
            f"With a natural no more cards are dealt: {view.cite('natural')}; the "
            "Banker's Hand drew."
        )
    else:
        third = banker.player_third
        against = (
            f"when the Player's third card is {third}"
            if third is not None
            else "when the Player's Hand stays"
        )
        must = "draw" if banker.cell is Draw.DRAW else "stay"
        did = "let the Banker draw" if banker.drew else "stood"
        text = (
            f"Banker with {banker.banker_points} must {must} {against}: "
            f"{view.cite('banker_draw')}; the dealer {did}."
        )
    yield Flag(banker.subject, Severity.HIGH, text, event_ids=_card_ids(view))


@round_check(when=Phase.SIMULATED)
def no_wagers_on_a_simulated_round(view: RoundView) -> Iterator[Flag]:
    """3.12(c)3, 4.12(h)3, 7.11(c)3: no wagers are accepted in the simulated round."""
    if view.round.simulated and view.round.wagers:
        yield Flag(
            "disclosed",
            Severity.HIGH,
            f"Wagers were accepted on simulated round {view.round.round_id}; no wagers are "
            f"accepted in the simulated round of {view.citation('disclosed')}3.",
            event_ids=view.wager_event_ids(),
        )
