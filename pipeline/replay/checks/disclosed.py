"""A card disclosed in error, handled by the pre-selected procedure (3.12(c), 4.12(h),
7.11(c)): under (c)2 the additional card goes to the discards face down; under (c)3 the
disclosed card opens the simulated round."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity
from pipeline.replay.state import Irregularity
from pipeline.rules.cards import Card, Rank, Suit
from pipeline.rules.codes import code_for, rule
from pipeline.rules.config import DisclosedCardProcedure, TableRules


def disclosed_discards_face_down(rules: TableRules, irr: Irregularity) -> Iterator[Flag]:
    """(c)2, (h)2: "one additional card drawn face downwards ... without disclosing the
    additional card". Read when the irregularity's discards are counted; a card found face up
    in the shoe (3.12(d)) has its own, face-up, procedure."""
    if rules.disclosed_card_procedure is not DisclosedCardProcedure.DISCARD_ONE_FACE_DOWN:
        return
    if irr.event.get("kind") == "CARD_FACE_UP_IN_SHOE":
        return
    shown = [c for c in irr.discards[1:] if c.face_up]
    if shown:
        code = code_for(rules.game, "disclosed_face_down")
        yield Flag(
            code,
            Severity.MEDIUM,
            f"After the card disclosed in error ({irr.event.get('card_rank')}), "
            f"{', '.join(f'{c.card} at position {c.position}' for c in shown)} went to the "
            f"discards face up; the pre-selected procedure draws the additional card face down "
            f"and discards it undisclosed ({rule(code).citation}). Review the dealer's "
            "procedure with the pit boss.",
            event_ids=(irr.event.event_id, *(c.event_id for c in shown)),
        )


@round_check(when=Phase.SIMULATED)
def simulated_round_opens_with_the_disclosed_card(view: RoundView) -> Iterator[Flag]:
    """3.12(c)3, 4.12(h)3, 7.11(c)3: "The disclosed card shall be used as the first card of a
    simulated round": that very card, at the shoe position the report names, where it gives
    one; a shoe of several decks holds other cards of its rank and suit."""
    report = view.round.disclosed
    if report is None or not view.round.cards:
        return
    first = view.round.cards[0]
    rank, suit = Rank[str(report.get("card_rank"))], report.get("card_suit")
    at = report.get("position")
    if (
        first.card.rank is rank
        and (suit is None or first.card.suit.name == suit)
        and (at is None or first.position == int(at))
    ):
        return
    disclosed = str(Card(rank, Suit[str(suit)])) if suit else f"a {rank.name.lower()}"
    if at is not None:
        disclosed += f" at position {at}"
    yield Flag(
        "simulated_first",
        Severity.MEDIUM,
        f"Simulated round {view.round.round_id} opened with {first.card} (position "
        f"{first.position}), not with the card disclosed in error ({disclosed}); the disclosed "
        f"card is the simulated round's first card ({view.citation('simulated_first')}). "
        "Check the card reading; if it is right, review the dealer's procedure.",
        event_ids=(report.event_id, first.event_id),
    )
