"""The Data Docs page check: what a value that escaped its escaping would bring is caught."""

from __future__ import annotations

import pytest

from pipeline.quality.docs import unsafe_markup

CLEAN = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title><style>p{}</style>'
    '</head><body><div class="row" id="s-1" style="margin:0"><table data-toggle="table">'
    '<tr><td><a href="#ledger.rounds">ledger.rounds</a> <a href="../expectations/x.html">x</a>'
    '</td><td><span class="h6">T02&lt;img src=x onerror=alert(1)&gt;</span>'
    '<i class="fas fa-check-circle" aria-hidden="true"></i></td></tr></table></div></body></html>'
)


def test_a_data_docs_page_of_escaped_values_passes() -> None:
    assert unsafe_markup(CLEAN) == []


@pytest.mark.parametrize(
    ("injected", "named"),
    [
        ("<img src=x onerror=alert(1)>", "<img>"),
        ("<script>alert(1)</script>", "<script>"),
        ("<svg onload=alert(1)>", "<svg>"),
        ("<iframe src=//evil.example></iframe>", "<iframe>"),
        ('<a href="javascript:alert(1)">x</a>', "link 'javascript:alert(1)'"),
        ('<a href="//evil.example/phish">x</a>', "link '//evil.example/phish'"),
        ('<a href=" https://evil.example">x</a>', "link"),
        ('<span onmouseover="alert(1)">x</span>', "attribute onmouseover"),
        ('<div style="background:url(//evil.example/p.png)">x</div>', "style"),
        ('<meta http-equiv="refresh" content="0;url=//evil.example">', "attribute http-equiv"),
        ('<form action="//evil.example"><input name=x></form>', "<form>"),
        ('<base href="//evil.example/">', "<base>"),
        ('<style>@import "//evil.example/x.css";</style>', "<style>"),
    ],
)
def test_active_markup_is_named_with_its_line(injected: str, named: str) -> None:
    page = CLEAN.replace("</body>", f"\n{injected}\n</body>")
    problems = unsafe_markup(page)
    assert problems and any(named in p for p in problems), problems
    assert all("line" in p for p in problems)
