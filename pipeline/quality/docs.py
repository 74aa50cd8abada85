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

Device strings (an unknown rules id or other offending value a device sent, round ids and
patron ids in sample rows) reach GX's renderers, which put values into the page as they are:
every string of a rendered document is escaped before the page is drawn, and the finished
page is checked against the few tags and attributes a Data Docs page is made of
(:func:`unsafe_markup`). A page that fails the check, or that GX cannot render, is replaced
by a plain escaped page (:func:`plain_data_docs`): a rendering problem never blocks a close.
"""

from __future__ import annotations

import logging
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import ChoiceLoader, DictLoader

from pipeline.safe_text import html_text, visible

if TYPE_CHECKING:
    from pipeline.quality.run import QualityReport

log = logging.getLogger(__name__)

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
<title>{{ title | text }}</title>
<style>{% include 'data_docs_default_styles.css' %}</style>
<style>{{ offline_css }}</style>
</head><body>
<h1>{{ title | text }}: {{ verdict | text }}</h1>
<p>{{ summary | text }}</p>
<table><tr><th>level</th><th>result</th><th>frame</th><th>expectation</th>
<th>rows failing</th></tr>
{% for row in rows %}<tr><td class="{{ row.level | text }}">{{ row.level | text }}</td>
<td class="{{ row.result | text }}">{{ row.result | text }}</td>
<td><a href="#{{ row.anchor | text }}">{{ row.frame | text }}</a></td>
<td>{{ row.description | text }}</td>
<td>{{ row.failing | text }}</td></tr>
{% endfor %}</table>
{% for document in documents %}
<div class="frame" id="{{ document.anchor | text }}"><h2>{{ document.anchor | text }}</h2>
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


_MARKUP_PARAMS = frozenset({"html_success_icon"})
"""String-template parameters GX itself fills with markup (an icon); every other string of a
rendered document may carry device data and is escaped."""
_ALLOWED_TAGS = frozenset(
    {"html", "head", "meta", "title", "style", "body", "div", "span", "p", "a", "i", "b"}
    | {"strong", "em", "code", "pre", "br", "hr", "ul", "ol", "li", "small"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tfoot", "tr", "td", "th"}
    | {"dl", "dt", "dd"}
)
_ALLOWED_ATTRIBUTES = frozenset(
    {"class", "id", "style", "href", "hidden", "aria-hidden", "colspan", "rowspan"}
    | {"charset", "name", "content", "title", "lang"}
)
_URL_SCHEME = re.compile(r"\s*(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_ACTIVE_CSS = re.compile(r"url\(|expression\(|@import", re.IGNORECASE)


class DocsRenderError(RuntimeError):
    """GX's rendering produced a page that is not safe to open or not readable offline."""


class _MarkupCheck(HTMLParser):
    """Collects every tag or attribute outside the small set a Data Docs page is made of."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        where = f"line {self.getpos()[0]}"
        self.in_body = self.in_body or tag == "body"
        if tag not in _ALLOWED_TAGS or (tag == "style" and self.in_body):  # ours are in <head>
            self.problems.append(f"<{tag}> at {where}")
        for name, value in attrs:
            if name not in _ALLOWED_ATTRIBUTES and not name.startswith("data-"):
                self.problems.append(f"attribute {name} of <{tag}> at {where}")
            elif name == "href" and _URL_SCHEME.match(value or ""):
                self.problems.append(f"link {value!r} of <{tag}> at {where}")
            elif name == "style" and _ACTIVE_CSS.search(value or ""):
                self.problems.append(f"style {value!r} of <{tag}> at {where}")


def unsafe_markup(page: str) -> list[str]:
    """Every tag, attribute, link or inline style in ``page`` that could run code, load
    something or leave the page: what a device string that escaped its escaping would add."""
    check = _MarkupCheck()
    check.feed(page)
    check.close()
    return check.problems


def _escaped(node: Any) -> Any:
    """A rendered GX document with every string (templates, parameters, table cells,
    headers) as HTML text: GX's renderers put values into the page as they are, and device
    strings (offending values such as an unknown rules id) are among them. Newlines stay
    (GX's templates are laid out with them; HTML shows them as spaces)."""
    if isinstance(node, str):
        return "\n".join(html_text(line) for line in node.split("\n"))
    if isinstance(node, list):
        return [_escaped(v) for v in node]
    if isinstance(node, dict):
        return {k: v if k in _MARKUP_PARAMS else _escaped(v) for k, v in node.items()}
    return node


def render_data_docs(report: QualityReport) -> str:
    """The Data Docs page of ``report``'s validation results, with every value escaped and
    nothing loaded remotely; raises :class:`DocsRenderError` when the page still holds
    active markup or a remote reference."""
    from great_expectations.render.renderer.page_renderer import ValidationResultsPageRenderer
    from great_expectations.render.view.view import DefaultJinjaPageView

    view = DefaultJinjaPageView()
    packaged = view.env.loader
    assert packaged is not None, "GX's view always loads its packaged templates"
    ours = DictLoader({"offline_page.j2": PAGE_TEMPLATE, "offline_section.j2": SECTION_TEMPLATE})
    view.env.loader = ChoiceLoader([ours, packaged])
    view.env.filters["text"] = html_text
    renderer = ValidationResultsPageRenderer(run_info_at_end=True)
    documents: list[dict[str, Any]] = []
    for number, result in enumerate(report.gx_results, start=1):
        document = _escaped(renderer.render(result).to_json_dict())
        document.update(number=number, anchor=str(result.suite_name))
        documents.append(document)
    page = view.env.get_template("offline_page.j2").render(
        title=_title(report),
        verdict=report.verdict,
        summary=report.summary(),
        rows=_rows(report),
        documents=documents,
        offline_css=OFFLINE_CSS,
    )
    page = _REMOTE_CSS_URL.sub("none", _SCRIPT.sub("", page))
    problems = remote_references(page) + unsafe_markup(page)
    if problems:
        raise DocsRenderError(
            f"the Data Docs page would hold {len(problems)} unsafe or remote reference(s), "
            f"e.g. {visible(problems[0][:120])}; a GX template changed or a value escaped "
            "its escaping: extend pipeline/quality/docs.py"
        )
    return page


def _title(report: QualityReport) -> str:
    return f"Data quality, gaming day {report.gaming_date.isoformat()}"


def _rows(report: QualityReport) -> list[dict[str, Any]]:
    """One summary row per expectation, failures first, BLOCK before WARN."""
    return [
        {
            "level": o.level.value,
            "result": "PASS" if o.success else "FAIL",
            "anchor": f"{o.suite}.{o.frame}",
            "frame": f"{o.suite}.{o.frame}",
            "description": o.description or o.expectation,
            "failing": "" if o.unexpected_count is None else o.unexpected_count,
            "sample": o.unexpected_sample[:5],
        }
        for s in report.suites
        for o in sorted(s.expectations, key=lambda o: (o.success, o.level != "BLOCK"))
    ]


def plain_data_docs(report: QualityReport, problem: str) -> str:
    """The page written instead of GX's when that cannot be rendered safely: every
    expectation's verdict and sample of offending values, as escaped text, and why."""
    cells = ("level", "result", "frame", "description", "failing", "sample")
    rows = "".join(
        "<tr>" + "".join(f"<td>{html_text(row[c])}</td>" for c in cells) + "</tr>\n"
        for row in _rows(report)
    )
    head = "".join(f"<th>{c}</th>" for c in cells)
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html_text(_title(report))}'
        f"</title><style>{OFFLINE_CSS}</style></head><body>\n"
        f"<h1>{html_text(_title(report))}: {html_text(report.verdict)}</h1>\n"
        f"<p>{html_text(report.summary())}</p>\n"
        f'<p class="alert alert-secondary">Great Expectations\' rendering of these results '
        f"was replaced by this plain page: {html_text(problem)}. The verdict and every "
        "outcome are unchanged (see the JSON results beside this page).</p>\n"
        f"<table><tr>{head}</tr>\n{rows}</table>\n</body></html>\n"
    )


def write_data_docs(report: QualityReport, path: Path) -> Path:
    """Write the Data Docs page of ``report`` to ``path``. A page that cannot be rendered
    safely never stops the close it documents: the plain page is written instead, and the
    problem is logged and kept in ``report.docs_problem`` (the JSON results carry it)."""
    try:
        page = render_data_docs(report)
    except Exception as err:  # GX's renderers are third-party code fed device strings
        report.docs_problem = f"{type(err).__name__}: {err}"
        log.warning("%s: Data Docs written as a plain page: %s", path, report.docs_problem)
        page = plain_data_docs(report, report.docs_problem)
    path.write_text(page, encoding="utf-8")
    return path
