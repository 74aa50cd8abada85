"""The replay suite's own discipline: every test names its rule code, cites its section, and
asserts something."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pipeline.rules.codes import RULE_CODES

HERE = Path(__file__).resolve().parent
MODULES = sorted(p for p in HERE.glob("test_*.py") if p.name != Path(__file__).name)


def _test_functions(path: Path) -> list[ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]


def marker_codes(fn: ast.FunctionDef) -> list[str]:
    found = []
    for dec in fn.decorator_list:
        if (
            isinstance(dec, ast.Call)
            and isinstance(dec.func, ast.Attribute)
            and dec.func.attr == "rule"
        ):
            found += [
                a.value
                for a in dec.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
    return found


def asserts(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.With) and "raises" in ast.unparse(node.items[0].context_expr):
            return True
    return False


@pytest.mark.rule("PB-3.9c-TABLE2")
@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_every_test_cites_its_rule_and_asserts(path: Path) -> None:
    """Each test carries @pytest.mark.rule with known codes, names one of them and the section
    ("N.J.A.C. 19:47-") in its docstring, and asserts (e.g. PB-3.9c-TABLE2, N.J.A.C.
    19:47-3.9(c))."""
    problems = []
    for fn in _test_functions(path):
        codes = marker_codes(fn)
        doc = " ".join((ast.get_docstring(fn) or "").split())
        if not codes or any(c not in RULE_CODES for c in codes):
            problems.append(f"{fn.name}: rule marker missing or unknown {codes}")
        if "N.J.A.C. 19:47-" not in doc:
            problems.append(f"{fn.name}: docstring cites no section")
        if not any(c in doc for c in codes):
            problems.append(f"{fn.name}: docstring names none of its codes {codes}")
        if not asserts(fn):
            problems.append(f"{fn.name}: asserts nothing")
    assert not problems, "\n".join(problems)
    assert _test_functions(path), f"{path.name} holds no tests"
