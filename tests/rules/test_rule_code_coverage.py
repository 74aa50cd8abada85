"""Which rule codes the test suite covers.

Scans every file under ``tests/`` for each code of :data:`pipeline.rules.codes.RULE_CODES` and
lists the codes no test mentions. Codes about procedures that later stages check (forms,
deferred vigorish, "No More Bets", announcements, settlement order, data integrity) are not
testable in the pure rules layer yet, so the assertion covers the pure-rule codes below, which
the tests in ``tests/rules`` must each mention. For the full list of unmentioned codes run
``python -m tests.rules.test_rule_code_coverage`` from the repository root.

Also checks the suite's own discipline: every test in ``tests/rules`` carries a
``@pytest.mark.rule(...)`` marker with known codes, cites "N.J.A.C. 19:47-" in its docstring,
and asserts something.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline.rules.codes import RULE_CODES

HERE = Path(__file__).resolve()
TESTS = HERE.parent.parent
RULES_TESTS = HERE.parent

PURE_RULE_CODES = frozenset(
    {
        # Punto Banco, subchapter 3
        "PB-3.1a-DECKS",
        "PB-3.1b-VALUE",
        "PB-3.1c-POINT-COUNT",
        "PB-3.2a1-BANKER",
        "PB-3.3a-PLAYER",
        "PB-3.3b-TIE",
        "PB-3.3f-TOTAL-CARDS",
        "PB-3.3g-BONUS",
        "PB-3.2b-WAGER-OFFERED",
        "PB-3.3c-VIG",
        "PB-3.3c1-VIG-ROUNDING",
        "PB-3.3d-VIG-ONE-RATE",
        "PB-3.3e-ONE-OPTION",
        "PB-3.3e1-BANKER-SIX",
        "PB-3.3e2-TOTAL-CARD-COVER",
        "PB-3.3h-DRAGON-PUSH",
        "PB-3.3i-DRAGON-7",
        "PB-3.2a6iii-DRAGON-EXCLUSIVE",
        "PB-3.5b-SHUFFLE-PIT",
        "PB-3.5d-CUT",
        "PB-3.5e-CUT-CARD-14",
        "PB-3.5e-BURN",
        "PB-3.6b-CURATOR",
        "PB-3.7c-DEAL-ORDER",
        "PB-3.8c-THIRD-ORDER",
        "PB-3.8d-ONE-MORE",
        "PB-3.8e-LAST-HAND",
        "PB-3.9a-NATURAL",
        "PB-3.9b-TABLE1",
        "PB-3.9c-TABLE2",
        "PB-3.10b5-NO-VIG-MARKED",
        "PB-3.10c1-PIT-PROCEDURE",
        "PB-3.11a1-CURATOR-PASS",
        "PB-3.12a-UNAUTHORIZED-THIRD",
        "PB-3.12c-DISCLOSED",
        "PB-3.12d-FACE-UP",
        "PB-3.12e-INSUFFICIENT",
        # Chemin de Fer, subchapter 4
        "CF-4.1a-DECKS",
        "CF-4.4e-BURN",
        "CF-4.5b-BANKER-BID",
        "CF-4.6a-BANKER",
        "CF-4.6b-BANKER-LIMITS",
        "CF-4.7a-AGGREGATE",
        "CF-4.7b-SUIVI",
        "CF-4.7e-UNCOVERED",
        "CF-4.7g-PLAYER",
        "CF-4.8c-DOMINANT",
        "CF-4.8d-DEAL-ORDER",
        "CF-4.9a-PLAYER",
        "CF-4.9c-TABLE3",
        "CF-4.10c-VIG",
        "CF-4.11a1-BANK-PASS",
        "CF-4.12b-BANKER-EXTRA",
        "CF-4.12c-PLAYER-EXTRA",
        "CF-4.12d-BANKER-TWO",
        "CF-4.12e-CARD-AFTER-STAY",
        "CF-4.12h-DISCLOSED",
        "CF-4.12i-CARD-TO-PLAYER",
        "CF-4.12j-FACE-UP",
        "CF-4.12k-INSUFFICIENT",
        # Minibaccarat, subchapter 7
        "MB-7.1a-DECKS",
        "MB-7.1d-TWO-BATCH",
        "MB-7.3c-VIG",
        "MB-7.3c1-VIG-ROUNDING",
        "MB-7.3d-TIE-VIG",
        "MB-7.3f-NO-VIG",
        "MB-7.5f-BURN",
        "MB-7.11c-DISCLOSED",
    }
)


def _test_files() -> list[Path]:
    """Every file under tests/ except this one (it names the codes without testing them)."""
    skip = {"__pycache__", ".hypothesis", ".pytest_cache"}
    return sorted(
        p
        for p in TESTS.rglob("*")
        if p.is_file() and p != HERE and not skip & set(p.parts) and p.suffix != ".pyc"
    )


def mentioned_codes() -> dict[str, list[str]]:
    """code -> the test files (relative to tests/) that mention it."""
    texts = {
        p.relative_to(TESTS).as_posix(): p.read_text("utf-8", "replace") for p in _test_files()
    }
    return {code: [name for name, text in texts.items() if code in text] for code in RULE_CODES}


def unmentioned_codes() -> list[str]:
    return sorted(code for code, files in mentioned_codes().items() if not files)


@pytest.mark.rule(*sorted(PURE_RULE_CODES))
def test_every_pure_rule_code_is_covered_by_a_test() -> None:
    """N.J.A.C. 19:47-3, 4, 7: every rule code of a pure rule (card values, tables, wagers,
    vigorish, configuration, shoe, irregularities, roles) is mentioned by a test; the codes
    nobody mentions yet are printed for the later stages."""
    assert sorted(PURE_RULE_CODES - set(RULE_CODES)) == []
    mentioned = mentioned_codes()
    uncovered = sorted(code for code in PURE_RULE_CODES if not mentioned[code])
    not_yet = unmentioned_codes()
    print("rule codes no test mentions yet:", ", ".join(not_yet) or "none")
    assert uncovered == [], f"pure-rule codes no test mentions: {uncovered}"
    rules_dir_only = [
        code for code in PURE_RULE_CODES if not any(f.startswith("rules/") for f in mentioned[code])
    ]
    assert rules_dir_only == []


def _rules_test_functions() -> list[tuple[str, ast.FunctionDef, ast.Module]]:
    found = []
    for path in sorted(RULES_TESTS.glob("test_*.py")):
        module = ast.parse(path.read_text("utf-8"))
        for node in module.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found.append((path.name, node, module))
    return found


def _rule_marker_codes(func: ast.FunctionDef) -> list[str] | None:
    for deco in func.decorator_list:
        if (
            isinstance(deco, ast.Call)
            and isinstance(deco.func, ast.Attribute)
            and deco.func.attr == "rule"
            and isinstance(deco.func.value, ast.Attribute)
            and deco.func.value.attr == "mark"
        ):
            out = []
            for arg in deco.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    out.append(arg.value)
                elif isinstance(arg, ast.Starred):
                    out.append("*")  # computed list, checked at run time by conftest
            return out
    return None


def _asserts_something(func: ast.FunctionDef) -> bool:
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.With):
            for item in node.items:
                call = item.context_expr
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "raises"
                ):
                    return True
    return False


@pytest.mark.rule("PB-3.9c-TABLE2")
def test_every_rules_test_cites_its_rule_and_asserts() -> None:
    """N.J.A.C. 19:47-3, 4, 7 (every section tested here): each test in tests/rules has a ``rule``
    marker naming existing codes, a docstring citing "N.J.A.C. 19:47-" and at least one
    assertion (an ``assert`` or ``pytest.raises``)."""
    functions = _rules_test_functions()
    assert len(functions) > 50
    problems = []
    for filename, func, _module in functions:
        where = f"{filename}::{func.name}"
        codes = _rule_marker_codes(func)
        if not codes:
            problems.append(f"{where}: no @pytest.mark.rule(...)")
        else:
            unknown = [c for c in codes if c != "*" and c not in RULE_CODES]
            if unknown:
                problems.append(f"{where}: unknown codes {unknown}")
        doc = ast.get_docstring(func) or ""
        if "N.J.A.C. 19:47-" not in doc:
            problems.append(f"{where}: docstring does not cite N.J.A.C. 19:47-...")
        if not _asserts_something(func):
            problems.append(f"{where}: asserts nothing")
    assert problems == []


if __name__ == "__main__":  # pragma: no cover
    for code, files in sorted(mentioned_codes().items()):
        print(f"{code:32} {', '.join(files) if files else '-- not mentioned by any test --'}")
