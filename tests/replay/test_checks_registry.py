"""The registry of round checks (:mod:`pipeline.replay.checks`): every registered check stays
silent on legal rounds of every game, each states and cites its section, and no message in
the replay writes a citation by hand instead of taking it from the rule-code table."""

from __future__ import annotations

import ast
import copy
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pipeline.replay import machine
from pipeline.replay.checks import REGISTRY, Flag, Phase, Registered, RoundView, run_checks
from pipeline.rules.games import Game
from tests.replay.builder import TableDayBuilder, clean_day, table

REPLAY = Path(machine.__file__).parent
SECTION = re.compile(r"\b[3478]\.\d+")
"""A section of N.J.A.C. 19:47-3, 4, 7 or 8, as a check's docstring cites it (``3.10(b)``)."""

BANKER_WINS: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S"}
PLAYER_WINS: dict[str, Any] = {"player": "2H 3C 4D", "banker": "5D KS 9C"}
A_TIE: dict[str, Any] = {"player": "4H 3C", "banker": "2D 5S"}


def _punto_banco() -> TableDayBuilder:
    return clean_day("pb-5-classic")[0]


def _simulated_round() -> TableDayBuilder:
    """pb-dragon pre-selects 3.12(c)3: a disclosed card opens a simulated round."""
    b = table("pb-dragon")
    b.round(**BANKER_WINS, wagers={3: {"BANKER": 10_000}})
    b.irregularity("5D")
    b.round(player="5D 4C", banker="3H 3S", simulated=True)
    b.round(**PLAYER_WINS, wagers={4: {"PLAYER": 10_000}, 6: {"BANKER": 5_000}})
    b.end_shoe()
    return b


def _void_for_insufficient_cards() -> TableDayBuilder:
    """Five cards left after a round: the next round may not complete, so its void is right.
    The shoe is short to leave five cards; its own findings (3.1(a), 3.5(d)) are no round's
    (:data:`SHORT_SHOE`)."""
    b = table(cards_in_shoe=8 + 5)
    b.round(**BANKER_WINS, wagers={3: {"BANKER": 10_000}})
    b.voided_round()
    b.end_shoe()
    return b


def _minibaccarat(rules_id: str) -> Callable[[], TableDayBuilder]:
    def day() -> TableDayBuilder:
        b = table(rules_id, "T02")
        b.round(**BANKER_WINS, wagers={1: {"BANKER": 10_000}, 2: {"PLAYER": 5_000}})
        b.round(**PLAYER_WINS, wagers={1: {"PLAYER": 10_000}, 2: {"BANKER": 5_000}})
        b.round(**A_TIE, wagers={1: {"BANKER": 10_000}, 2: {"TIE": 5_000}})
        b.end_shoe()
        return b

    return day


def _chemin_de_fer() -> TableDayBuilder:
    b = table("cf-5", "T04")
    seul = (5, "BANCO_SEUL", None)
    b.round(**BANKER_WINS, bank={"seat": 2, "amount": 100_000, "banco": [seul], "bids": {2: 1}})
    b.round(**BANKER_WINS, bank={"seat": 2, "amount": 150_000, "banco": [seul]})
    b.end_shoe()
    return b


SHORT_SHOE = {"PB-3.1a-DECKS", "PB-3.5d-CUT", "PB-3.5e-CUT-CARD-SEEN"}
"""What the replay finds at the start of a shoe too short for a full deck count, before any
round check runs."""

LEGAL_DAYS: dict[str, Callable[[], TableDayBuilder]] = {
    "punto banco": _punto_banco,
    "simulated round": _simulated_round,
    "void for insufficient cards": _void_for_insufficient_cards,
    "minibaccarat": _minibaccarat("mb-5-rounded"),
    "minibaccarat tie vigorish": _minibaccarat("mb-tie-quarter"),
    "chemin de fer": _chemin_de_fer,
}


def _views(build: Callable[[], TableDayBuilder], monkeypatch: pytest.MonkeyPatch) -> Any:
    """The views the machine hands to the checks while replaying ``build()``'s day, by phase,
    and the day's findings."""
    seen: dict[Phase, list[RoundView]] = defaultdict(list)
    run = run_checks

    def capture(view: RoundView, when: Phase) -> list[Flag]:
        # the view as the checks saw it then: its round and shoe are the machine's live state
        seen[when].append(copy.deepcopy(view))
        return run(view, when)

    with monkeypatch.context() as patched:
        patched.setattr(machine, "run_checks", capture)
        result = build().replay()
    return seen, result.findings


def _legal_views(entry: Registered, seen: dict[Phase, list[RoundView]]) -> Iterator[RoundView]:
    """The views ``entry`` judges on a legal day: those of its phase; a legal round never
    reaches MISDEALT, so its check reads the rounds whose hands were dealt."""
    phase = Phase.DEALT if entry.when is Phase.MISDEALT else entry.when
    return (view for view in seen[phase] if view.game in entry.games)


@pytest.mark.rule("PB-3.10a-ANNOUNCE", "PB-3.9c-TABLE2", "PB-3.12e-INSUFFICIENT")
def test_every_check_is_silent_on_legal_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each registered check (PB-3.10a-ANNOUNCE, PB-3.9c-TABLE2, PB-3.12e-INSUFFICIENT and
    every other, N.J.A.C. 19:47-3, 4, 7 and 8), run on every round of legal days of all
    three games (settled, simulated and voided rounds), returns no flag; and each is run on
    at least one round, so the silence is not for want of rounds."""
    judged: dict[str, int] = defaultdict(int)
    games: set[Game] = set()
    for day, build in LEGAL_DAYS.items():
        seen, findings = _views(build, monkeypatch)
        wrong = [
            f
            for f in findings
            if f.code not in SHORT_SHOE or build is not _void_for_insufficient_cards
        ]
        assert wrong == [], f"the {day} day is not legal: " + "; ".join(f.render() for f in wrong)
        for entry in REGISTRY:
            for view in _legal_views(entry, seen):
                games.add(view.game)
                flags = list(entry.check(view))
                assert flags == [], f"{entry.check.__name__} flags a legal {day} round: {flags}"
                judged[entry.check.__name__] += 1
    assert games == set(Game)
    never = [e.check.__name__ for e in REGISTRY if judged[e.check.__name__] == 0]
    assert never == [], f"checks no legal day exercised: {never}"


@pytest.mark.rule("PB-3.12c-DISCLOSED", "PB-3.12e-INSUFFICIENT")
def test_the_legal_days_reach_every_phase(monkeypatch: pytest.MonkeyPatch) -> None:
    """The days above hold settled, dealt, simulated (PB-3.12c-DISCLOSED, N.J.A.C.
    19:47-3.12(c)3) and voided (PB-3.12e-INSUFFICIENT) rounds; MISDEALT is never legal. So
    every check of every phase was judged on a round of its own phase."""
    reached: set[Phase] = set()
    for build in LEGAL_DAYS.values():
        seen, _ = _views(build, monkeypatch)
        reached |= {phase for phase, views in seen.items() if views}
    assert reached == set(Phase) - {Phase.MISDEALT}


@pytest.mark.rule("PB-3.10a-ANNOUNCE")
@pytest.mark.parametrize("entry", REGISTRY, ids=lambda e: e.check.__name__)
def test_every_check_states_and_cites_its_rule(entry: Registered) -> None:
    """A check's docstring says which section(s) of N.J.A.C. 19:47-3, 4, 7 or 8 it enforces
    (announcement_matches_cards: PB-3.10a-ANNOUNCE, "3.10(a), 4.10(a)")."""
    doc = entry.check.__doc__ or ""
    assert SECTION.search(doc), f"{entry.check.__name__} cites no section: {doc!r}"


@pytest.mark.rule("PB-3.10b-SETTLEMENT")
def test_registry_checks_are_unique_and_cover_the_games() -> None:
    """No check is registered twice for one phase (a PB-3.10b-SETTLEMENT finding would be
    reported twice; a check may read rounds of two phases, as the curator's does), and every
    game has checks at settlement (N.J.A.C. 19:47-3.10, 4.10, 7.10)."""
    names = [f"{e.check.__module__}.{e.check.__name__}@{e.when.name}" for e in REGISTRY]
    assert len(names) == len(set(names))
    for game in Game:
        assert any(e.when is Phase.SETTLED and game in e.games for e in REGISTRY)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (of a module, class or function, or
    the attribute docstrings under an assignment)."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                ids.add(id(stmt.value))
    return ids


def _hand_written_citations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return [
        f"{path.name}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docs
        and "19:47-" in node.value
    ]


@pytest.mark.rule("PB-3.3c3iv-FORM-MATCH", "PB-3.9c-TABLE2")
def test_no_message_writes_a_citation_by_hand() -> None:
    """Every citation in a replay message comes from the rule-code table
    (``rule(code).citation``, ``RoundView.citation``), never a "N.J.A.C. 19:47-..." literal
    that can drift from the code it sits beside (as a Form's PB-3.3c3iv-FORM-MATCH message
    once cited 3.3(c)3iv beside a code of 3.3(c)3iii-iv; PB-3.9c-TABLE2 is cited as
    "N.J.A.C. 19:47-3.9(c) Table 2" from its code)."""
    found = [hit for path in sorted(REPLAY.rglob("*.py")) for hit in _hand_written_citations(path)]
    assert found == []


@pytest.mark.rule("PB-3.10a-ANNOUNCE")
def test_the_citation_scan_sees_a_hand_written_one(tmp_path: Path) -> None:
    """The scan above is not blind: a PB-3.10a-ANNOUNCE message with a literal "N.J.A.C.
    19:47-3.10(a)" is caught, the docstring beside it is not."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        'def f() -> str:\n    """3.10(a), N.J.A.C. 19:47-3.10(a)."""\n'
        '    return f"announced wrongly (N.J.A.C. 19:47-3.10(a))"\n',
        encoding="utf-8",
    )
    assert [hit.split(":")[1] for hit in _hand_written_citations(bad)] == ["3"]
