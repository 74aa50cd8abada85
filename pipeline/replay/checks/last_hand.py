"""Chemin de Fer: the last hand of a shoe with a card found face up in the shoe is void,
N.J.A.C. 19:47-4.12(j), second sentence. (The first sentence, the card discarded with as many
more as its value, is counted where every discard is, :mod:`pipeline.replay.machine`; the
wagers of the void hand returned, where every void round's are, :mod:`.voided`.)"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.replay.checks import Flag, Phase, RoundView, round_check
from pipeline.replay.findings import Severity, money
from pipeline.rules.codes import regulates
from pipeline.rules.variants import games_where

LAST_HAND_VOID_GAMES = games_where(lambda v: regulates(v.game, "last_hand_face_up"))
"""The games whose face-up card voids the shoe's last hand (4.12(j); not 3.12(d), 7.11(d))."""


@round_check(when=Phase.SETTLED, games=LAST_HAND_VOID_GAMES)
@round_check(when=Phase.MISDEALT, games=LAST_HAND_VOID_GAMES)
def last_hand_with_a_face_up_card_is_void(view: RoundView) -> Iterator[Flag]:
    """4.12(j): "The last hand of a shoe shall be void when a card of that hand is found face
    upwards in the shoe." The cutting card came out in this round, so it is the shoe's last
    hand (4.12(g), (k)), and the pit reported one of its cards face up in the shoe; dealing it
    on and settling it as a normal coup moves money on a hand that does not count."""
    rnd = view.round
    report = view.last_hand_face_up
    if report is None:
        return
    cut = rnd.cut_card
    assert cut is not None  # the report voids the round only in the shoe's last hand
    paid = sum(int(e.get("paid_cents")) for e in rnd.settled)
    vig = sum(int(e.get("amount_cents")) for e in rnd.vig)
    yield Flag(
        "last_hand_face_up",
        Severity.HIGH,
        f"A card of round {rnd.round_id} was found face up in the shoe "
        f"({report.get('card_rank')}, event {report.event_id}) and the cutting card came out in "
        f"that round (event {cut.event_id}), so it is the shoe's last hand, which is "
        f"void ({view.citation('last_hand_face_up')}); it was dealt on and "
        f"{len(rnd.settled)} wager(s) settled instead, {money(paid)} paid and {money(vig)} of "
        "vigorish charged. Void the round, return its wagers, and recover what was paid or "
        "collected.",
        event_ids=(
            report.event_id,
            cut.event_id,
            *(e.event_id for e in (*rnd.settled, *rnd.vig)),
        ),
    )
