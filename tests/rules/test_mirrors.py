"""Minibaccarat's mirrors (pipeline.rules.codes.MINIBACCARAT_MIRRORS): the Punto Banco codes a
Minibaccarat table cites under the section of N.J.A.C. 19:47-7 that repeats the rule."""

from __future__ import annotations

import pytest

from pipeline.rules.codes import _BY_GAME, MINIBACCARAT_MIRRORS, rule, rule_in
from pipeline.rules.games import Game

from ._regulations import MINIBACCARAT_TEXT, REGULATIONS, missing_places, outline

MIRRORED = sorted(MINIBACCARAT_MIRRORS)


@pytest.mark.rule(*MIRRORED)
def test_every_mirror_names_a_section_of_the_minibaccarat_text() -> None:
    """N.J.A.C. 19:47-7.2(a), 7.3(a)-(c), (g), 7.7(c): every section a mirror cites is in the
    edition that governs Minibaccarat (``001_...``), down to its paragraph and item: the 7.3(c)4
    deadline, the Form rules 7.3(c)3i-vii, the wagers of 7.2(a)1-4 and their odds in 7.3(a), (b)
    and (g), the deal order of 7.7(c) (PB-3.3c4-DEFERRED-DEADLINE, PB-3.7c-DEAL-ORDER and the
    rest)."""
    text = REGULATIONS / MINIBACCARAT_TEXT
    if not text.is_file():
        pytest.skip(f"the regulation texts are not at {REGULATIONS}; set BACCARAT_REGULATIONS")
    sections = outline(text.read_text(encoding="utf-8"))
    assert {"7.2", "7.3", "7.7"} <= set(sections)
    missing = {
        code: places
        for code, cited in MINIBACCARAT_MIRRORS.items()
        if (places := missing_places(cited, sections))
    }
    assert missing == {}
    # the reader does find a place the text lacks: 7.3 has no (c)5 and no (h)
    assert missing_places("7.3(c)4, (c)5, (h)", sections) == ["(c)5", "(h)"]


@pytest.mark.rule(*MIRRORED)
def test_a_mirror_is_a_punto_banco_code_minibaccarat_cites() -> None:
    """N.J.A.C. 19:47-3 and 7: a mirror maps a Punto Banco code to a subchapter 7 section, and
    no subject gives Minibaccarat a code of its own in that code's place, so the mirror is the
    one Minibaccarat's findings use (PB-3.2a1-BANKER, PB-3.3c4-DEFERRED-DEADLINE,
    PB-3.7c-DEAL-ORDER)."""
    assert all(code.startswith("PB-3.") for code in MIRRORED)
    assert all(cited.startswith("7.") for cited in MINIBACCARAT_MIRRORS.values())
    replaced = {
        subject: (pb, mb)
        for subject, (pb, _, mb) in _BY_GAME.items()
        if pb in MINIBACCARAT_MIRRORS and mb != pb
    }
    assert replaced == {}
    assert {"banker_wager", "deferred_deadline", "deal_order"} <= {
        subject for subject, (pb, _, _) in _BY_GAME.items() if pb in MINIBACCARAT_MIRRORS
    }


@pytest.mark.parametrize("code", MIRRORED)
@pytest.mark.rule(*MIRRORED)
def test_minibaccarat_cites_the_mirror_and_keeps_the_code(code: str) -> None:
    """N.J.A.C. 19:47-7.3(c)2 (PB-3.3c2-VIG-DEFERRED), 7.3(c)3vii (PB-3.3c3vii-COMPLIMENTARY)
    and every other mirror: at a Minibaccarat table the code, its statement and its identity
    stay those of Punto Banco and the citation is the 7.x section naming the 3.x one; Punto
    Banco and Chemin de Fer cite the code's own section."""
    own = rule(code)
    at_minibaccarat = rule_in(Game.MINIBACCARAT, code)
    assert (at_minibaccarat.code, at_minibaccarat.statement) == (code, own.statement)
    assert at_minibaccarat.citation == (
        f"N.J.A.C. 19:47-{MINIBACCARAT_MIRRORS[code]} (mirrors {own.section})"
    )
    assert rule_in(Game.PUNTO_BANCO, code) == own
    assert rule_in(Game.CHEMIN_DE_FER, code) == own


@pytest.mark.rule("MB-7.3c-VIG", "PB-3.9c-TABLE2")
def test_codes_without_a_mirror_cite_their_own_section_at_minibaccarat() -> None:
    """N.J.A.C. 19:47-7.3(c) (MB-7.3c-VIG, Minibaccarat's own code) and 3.9(c) (PB-3.9c-TABLE2,
    whose 7.9 the given texts hold only the title of): no mirror, the code's own citation."""
    assert rule_in(Game.MINIBACCARAT, "MB-7.3c-VIG").citation == "N.J.A.C. 19:47-7.3(c)"
    assert rule_in(Game.MINIBACCARAT, "PB-3.9c-TABLE2").citation == "N.J.A.C. 19:47-3.9(c)-(g)"
