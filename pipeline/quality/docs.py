"""Great Expectations Data Docs for one gaming day's validation, as one HTML page that reads
offline.

GX's own renderers draw every validated frame (``ValidationResultsPageRenderer`` and the
Jinja templates of ``DefaultJinjaPageView``), so the page shows what a GX Data Docs site
shows. Its stock page template loads Bootstrap, Font Awesome, jQuery and Vega from CDNs, which
a surveillance room or an auditor's laptop may not reach. This page replaces that template:
GX's own default stylesheet is inlined with a small stylesheet for the few Bootstrap and Font
Awesome classes the validation pages use, and every script is dropped (they only drive
collapsible panels and charts, and would need the CDN libraries). A file-backed GX context
is not needed: the renderers work on the validation results the run already holds.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import ChoiceLoader, DictLoader

if TYPE_CHECKING:
    from pipeline.quality.run import QualityReport

OFFLINE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       margin: 0; padding: 1em 2em; color: #212529; background: #fff; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; }
.container-fluid { width: 100%; box-sizing: border-box; }
.row { display: flex; flex-wrap: wrap; }
[class*="col-"] { flex: 1 1 100%; box-sizing: border-box; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #dee2e6; padding: .3em .6em; vertical-align: top; text-align: left; }
th { background: #f1f3f5; }
.alert { padding: .5em 1em; border-radius: .25em; margin: .5em 0; }
.alert-secondary { background: #e2e3e5; }
.card { border: 1px solid #dee2e6; border-radius: .25em; margin: .5em 0; padding: .5em; }
.text-danger, .BLOCK { color: #b02a37; } .text-success, .PASS { color: #146c43; }
.WARN { color: #997404; }
.collapse { display: block; }
.d-none, .invisible, .ge-walkthrough-modal, nav, footer { display: none; }
.fas::before { font-style: normal; font-weight: bold; }
.fa-check-circle::before { content: "\\2714"; }
.fa-times::before { content: "\\2718"; }
.fa-exclamation-triangle::before { content: "\\26A0"; }
.fa-question-circle::before { content: "?"; }
.frame { border-top: 2px solid #adb5bd; margin-top: 2em; padding-top: .5em; }
"""

PAGE_TEMPLATE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{{ title }}</title>
<style>{% include 'data_docs_default_styles.css' %}</style>
<style>{{ offline_css }}</style>
</head><body>
<h1>{{ title }}: {{ verdict }}</h1>
<p>{{ summary }}</p>
<table><tr><th>level</th><th>result</th><th>frame</th><th>expectation</th>
<th>rows failing</th></tr>
{% for row in rows %}<tr><td class="{{ row.level }}">{{ row.level }}</td>
<td class="{{ row.result }}">{{ row.result }}</td>
<td><a href="#{{ row.anchor }}">{{ row.frame }}</a></td><td>{{ row.description }}</td>
<td>{{ row.failing }}</td></tr>
{% endfor %}</table>
{% for document in documents %}
<div class="frame" id="{{ document.anchor }}"><h2>{{ document.anchor }}</h2>
{% set renderer_type = document.renderer_type %}
{% for section in document.sections %}
{% set section_loop = {"index": document.number ~ "-" ~ loop.index} %}
{% include 'offline_section.j2' %}
{% endfor %}</div>
{% endfor %}
</body></html>
"""

SECTION_TEMPLATE = """<div id="section-{{ section_loop.index }}" class="ge-section container-fluid">
<div class="row" {{ section | render_styling_from_string_template }}>
{% for content_block in section["content_blocks"] -%}
{% set content_block_loop = loop -%}
{% include 'component.j2' %}
{% endfor %}
</div></div>
"""
"""GX's ``section.j2`` without its ``set section_loop = loop``, so that ids carry the frame's
number and stay unique on a page holding every frame."""

_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL | re.IGNORECASE)
_REMOTE_TAG = re.compile(
    r"<(?:link|img|script|iframe)\b[^>]*\b(?:href|src)\s*=\s*[\"']?(?:https?:)?//[^>]*>",
    re.IGNORECASE,
)
_REMOTE_CSS_URL = re.compile(r"url\(\s*[\"']?(?:https?:)?//[^)]*\)", re.IGNORECASE)


def remote_references(page: str) -> list[str]:
    """Every tag or CSS ``url()`` in ``page`` that would load something from the network."""
    return [m.group(0) for m in (*_REMOTE_TAG.finditer(page), *_REMOTE_CSS_URL.finditer(page))]


def render_data_docs(report: QualityReport) -> str:
    """The Data Docs page of ``report``'s validation results, with nothing loaded remotely."""
    from great_expectations.render.renderer.page_renderer import ValidationResultsPageRenderer
    from great_expectations.render.view.view import DefaultJinjaPageView

    view = DefaultJinjaPageView()
    packaged = view.env.loader
    assert packaged is not None, "GX's view always loads its packaged templates"
    ours = DictLoader({"offline_page.j2": PAGE_TEMPLATE, "offline_section.j2": SECTION_TEMPLATE})
    view.env.loader = ChoiceLoader([ours, packaged])
    renderer = ValidationResultsPageRenderer(run_info_at_end=True)
    documents: list[dict[str, Any]] = []
    for number, result in enumerate(report.gx_results, start=1):
        document = renderer.render(result).to_json_dict()
        document.update(number=number, anchor=str(result.suite_name))
        documents.append(document)
    rows = [
        {
            "level": o.level.value,
            "result": "PASS" if o.success else "FAIL",
            "anchor": f"{o.suite}.{o.frame}",
            "frame": f"{o.suite}.{o.frame}",
            "description": o.description or o.expectation,
            "failing": "" if o.unexpected_count is None else o.unexpected_count,
        }
        for s in report.suites
        for o in sorted(s.expectations, key=lambda o: (o.success, o.level != "BLOCK"))
    ]
    page = view.env.get_template("offline_page.j2").render(
        title=f"Data quality, gaming day {report.gaming_date.isoformat()}",
        verdict=report.verdict,
        summary=report.summary(),
        rows=rows,
        documents=documents,
        offline_css=OFFLINE_CSS,
    )
    page = _REMOTE_CSS_URL.sub("none", _SCRIPT.sub("", page))
    left = remote_references(page)
    if left:
        raise RuntimeError(
            f"the Data Docs page would still load {len(left)} resource(s) from the network, "
            f"e.g. {left[0][:120]!r}; a GX template changed: extend pipeline/quality/docs.py "
            "to drop or inline it"
        )
    return page


def write_data_docs(report: QualityReport, path: Path) -> Path:
    path.write_text(render_data_docs(report), encoding="utf-8")
    return path
