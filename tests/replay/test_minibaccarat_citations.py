"""A Minibaccarat table's finding under a Punto Banco code cites the section of N.J.A.C. 19:47-7
that repeats the rule (7.2(a), 7.3(a)-(c), (g), 7.7(c)) and keeps the code; the same finding at a
Punto Banco table cites subchapter 3."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pipeline.replay.findings import Finding
from pipeline.rules.codes import MINIBACCARAT_MIRRORS, rule
from pipeline.rules.games import Game
from tests.replay.builder import FIRST_SERIAL, only, table
from tests.replay.raised import NOT_FROM_EVENTS
from tests.replay.test_forms import finish, issue, pit_only
from tests.replay.test_vigorish import DEFERRED

PLAYER_9_4: dict[str, Any] = {"player": "2H 3C 4D", "banker": "5D KS 9C"}  # Player wins 9-4
BANKER_7_6: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}  # Banker wins, four cards
TIE_7: dict[str, Any] = {"player": "4H 3C", "banker": "2D 5S"}

RULES_IDS = {Game.PUNTO_BANCO: "pb-5-classic", Game.MINIBACCARAT: "mb-5-rounded"}


def settled_wrongly(hands: dict[str, Any], wager: str, **wrong: Any) -> Callable[[str], Finding]:
    """Seat 3's $100 ``wager`` on ``hands``, settled as ``wrong`` says (``paid=`` or
    ``results=``)."""

    def day(rules_id: str) -> Finding:
        recorded: dict[str, Any] = {k: {(3, wager): v} for k, v in wrong.items()}
        b = table(rules_id)
        b.round(**hands, wagers={3: {wager: 10_000}}, **recorded)
        return only(b.replay())

    return day


def deferred_past_the_shoe(rules_id: str) -> Finding:
    """3.3(c)4, 7.3(c)4: a marker still on the layout when the shoe is completed."""
    b = table(rules_id)
    b.round(**DEFERRED)
    b.end_shoe(settle_deferred=False)
    b.close()
    return only(b.replay())


def form_unsigned(rules_id: str) -> Finding:
    """3.3(c)3i, 7.3(c)3i: neither the patron's signature nor why it is missing."""
    b = pit_only(rules_id)
    issue(b, 500, patron_signature=None, signature_missing_reason=None)
    finish(b)
    return only(b.replay())


def form_skipped(rules_id: str) -> Finding:
    """3.3(c)3ii, 7.3(c)3ii: Form 1002 neither used nor voided."""
    b = pit_only(rules_id)
    issue(b, 500, serial=FIRST_SERIAL)
    issue(b, 500, serial=FIRST_SERIAL + 2)
    finish(b)
    return only(b.replay())


def form_never_at_accounting(rules_id: str) -> Finding:
    """3.3(c)3iii-iv, 7.3(c)3iii-iv: neither copy of an issued Form reached accounting."""
    b = pit_only(rules_id)
    issue(b, 500)
    finish(b, skip=[FIRST_SERIAL])
    return only(b.replay())


def void_form_unmarked(rules_id: str) -> Finding:
    """3.3(c)3vi, 7.3(c)3vi: a void Form not marked VOID."""
    b = pit_only(rules_id)
    b.form_voided(marked_void=False)
    finish(b)
    return only(b.replay(), "PB-3.3c3vi-FORM-VOID")


def dealt_out_of_order(rules_id: str) -> Finding:
    """3.7(c), 7.7(c): cards 1 and 3 to the Player's Hand, 2 and 4 to the Banker's."""
    b = table(rules_id)
    b.round(**PLAYER_9_4, order="PPBBPB", wagers={3: {"BANKER": 10_000}})
    return only(b.replay())


HANDING_RULES = {"pb-5-classic": "pb-dragon", "mb-5-rounded": "mb-tie-quarter"}
"""The game's rules that file the procedure handing the cards to the players (3.7(d),
7.7(c)3)."""


def handed_at_a_table_that_does_not_hand(rules_id: str) -> Finding:
    """3.7(c)-(d), 7.7(c): the cards handed where the filed procedure keeps them."""
    b = table(rules_id)
    b.round(**BANKER_7_6, wagers={3: {"BANKER": 10_000}}, handed={"BANKER": 3})
    return only(b.replay())


def handed_to_a_lower_wager(rules_id: str) -> Finding:
    """3.7(d)2, 7.7(c)3ii: the Banker's Hand to seat 5, seat 3 having wagered more on it."""
    b = table(HANDING_RULES[rules_id])
    wagers = {3: {"BANKER": 20_000}, 5: {"BANKER": 10_000}}
    b.round(**BANKER_7_6, wagers=wagers, handed={"BANKER": 5})
    return only(b.replay())


FINDINGS: dict[str, Callable[[str], Finding]] = {
    "PB-3.2a1-BANKER": settled_wrongly(PLAYER_9_4, "BANKER", results="VOID"),
    "PB-3.3a-PLAYER": settled_wrongly(PLAYER_9_4, "PLAYER", paid=12_000),
    "PB-3.3b-TIE": settled_wrongly(TIE_7, "TIE", paid=90_000),
    "PB-3.3f-TOTAL-CARDS": settled_wrongly(BANKER_7_6, "CARDS_4", paid=20_000),
    "PB-3.3c4-DEFERRED-DEADLINE": deferred_past_the_shoe,
    "PB-3.3c3-COMP-FORM": form_unsigned,
    "PB-3.3c3ii-FORM-SEQUENCE": form_skipped,
    "PB-3.3c3iv-FORM-MATCH": form_never_at_accounting,
    "PB-3.3c3vi-FORM-VOID": void_form_unmarked,
    "PB-3.7c-DEAL-ORDER": dealt_out_of_order,
    "PB-3.7d-PROCEDURE": handed_at_a_table_that_does_not_hand,
    "PB-3.7d-HIGHEST-WAGER": handed_to_a_lower_wager,
}
"""For each mirrored code the replay raises from events, a table-day with one finding of it."""

RAISED = sorted(FINDINGS)


def mirrored_citation(code: str) -> str:
    """7.x, naming the 3.x section it mirrors."""
    return f"N.J.A.C. 19:47-{MINIBACCARAT_MIRRORS[code]} (mirrors {rule(code).section})"


CITED_BY_GAME: dict[Game, Callable[[str], str]] = {
    Game.MINIBACCARAT: mirrored_citation,
    Game.PUNTO_BANCO: lambda code: rule(code).citation,
}
"""The citation a finding under a mirrored code carries at each game's table."""


@pytest.mark.parametrize("game", CITED_BY_GAME, ids=lambda game: game.value)
@pytest.mark.parametrize("code", RAISED)
@pytest.mark.rule(
    "PB-3.2a1-BANKER",
    "PB-3.3a-PLAYER",
    "PB-3.3b-TIE",
    "PB-3.3f-TOTAL-CARDS",
    "PB-3.3c4-DEFERRED-DEADLINE",
    "PB-3.3c3-COMP-FORM",
    "PB-3.3c3ii-FORM-SEQUENCE",
    "PB-3.3c3iv-FORM-MATCH",
    "PB-3.3c3vi-FORM-VOID",
    "PB-3.7c-DEAL-ORDER",
    "PB-3.7d-PROCEDURE",
    "PB-3.7d-HIGHEST-WAGER",
)
def test_a_finding_cites_its_game_s_own_section(code: str, game: Game) -> None:
    """At a Minibaccarat table, N.J.A.C. 19:47-7.2(a)1-4, 7.3(a)-(b), (g) (settlements),
    7.3(c)4 (the deferral deadline), 7.3(c)3i-vi (the Forms), 7.7(c) (the deal order, the
    dealing procedure filed), 7.7(c)3i-ii (the hands handed to the highest wagers): the
    finding keeps its Punto Banco code (PB-3.3c4-DEFERRED-DEADLINE...), and its section, as the
    ledger stores it, and its message cite the 7.x section naming the 3.x one it mirrors. At a
    Punto Banco table, 3.2(a), 3.3(a)-(c), (f), 3.7(c): the same error is the same code with its
    own section and no mirror (PB-3.2a1-BANKER, PB-3.3c3-COMP-FORM...)."""
    f = FINDINGS[code](RULES_IDS[game])
    cited = CITED_BY_GAME[game](code)
    assert (f.code, f.game, f.section) == (code, game, cited)
    assert f"({cited})" in f.message
    other_subchapter = "19:47-3." if game is Game.MINIBACCARAT else "mirrors"
    assert other_subchapter not in f.message


@pytest.mark.rule("PB-3.3c2-VIG-DEFERRED", "PB-3.3c3vii-COMPLIMENTARY")
def test_every_mirror_is_raised_here_or_by_something_else() -> None:
    """N.J.A.C. 19:47-7.3(c)2 and (c)3vii: each mirrored code either has a Minibaccarat day
    above or is one no replay raises (PB-3.3c2-VIG-DEFERRED: the marker itself;
    PB-3.3c3vii-COMPLIMENTARY: a figure of the day), as docs/rule-codes.md lists them."""
    unraised = set(MINIBACCARAT_MIRRORS) - set(FINDINGS)
    assert unraised == {"PB-3.3c2-VIG-DEFERRED", "PB-3.3c3vii-COMPLIMENTARY"}
    assert unraised <= set(NOT_FROM_EVENTS)
