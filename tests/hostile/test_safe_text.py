"""The one place device strings are made safe for CSV, HTML, Markdown, SQL and file names,
attacked with every string of the hostile corpus."""

from __future__ import annotations

import csv
import html
import io
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest
from markdown_it import MarkdownIt

from pipeline.safe_text import (
    FORMULA_LEADERS,
    csv_cell,
    csv_row,
    file_stem,
    html_text,
    inside,
    markdown_code,
    markdown_text,
    sql_literal,
    visible,
)
from tests.hostile.corpus import CORPUS, TABLE_IDS

EVERY = (*CORPUS, *TABLE_IDS.values())


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def _tags(page: str) -> list[str]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def test_visible_shows_every_invisible_character() -> None:
    assert visible("esc\x1b[31m nul\x00 bel\x07 del\x7f") == "esc␛[31m nul␀ bel␇ del␡"
    assert visible("line\nbreak\rcr\ttab") == "line␊break␍cr␉tab"
    assert visible("rlo\u202eexe.txt lro\u202d zwsp\u200b c1\x85") == (
        "rlo[U+202E]exe.txt lro[U+202D] zwsp[U+200B] c1[U+0085]"
    )
    assert visible("Patron Ö 李 T\u041e1") == "Patron Ö 李 T\u041e1"  # letters stay letters
    for text in EVERY:
        assert visible(text).isprintable(), repr(text)


@pytest.mark.parametrize("text", EVERY, ids=range(len(EVERY)))
def test_csv_cells_start_no_formula_and_hide_nothing(text: str) -> None:
    cell = csv_cell(text)
    assert isinstance(cell, str)
    assert cell.isprintable()
    assert not cell.startswith(FORMULA_LEADERS)
    buffer = io.StringIO()
    csv.writer(buffer).writerow(csv_row([text, -12_550, None]))
    (back,) = csv.reader(io.StringIO(buffer.getvalue()))
    assert back[0] == cell and back[1] == "-12550" and back[2] == ""


def test_csv_formulas_get_a_quote_and_numbers_stay_numbers() -> None:
    assert csv_cell('=HYPERLINK("x")') == '\'=HYPERLINK("x")'
    assert csv_cell("+cmd") == "'+cmd"
    assert csv_cell("-2+3") == "'-2+3"
    assert csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("\t=1") == "'␉=1"
    assert csv_cell("\r=1") == "'␍=1"
    assert csv_cell(-12_550) == -12_550  # negative cents: a number, untouched
    assert csv_cell("-12550") == "-12550"  # a number as text is no formula either
    assert csv_cell("+1.5") == "+1.5"
    assert csv_cell(None) is None and csv_cell(True) is True
    assert csv_cell("T01-20261124-S01-R003") == "T01-20261124-S01-R003"


@pytest.mark.parametrize("text", EVERY, ids=range(len(EVERY)))
def test_html_text_makes_no_markup(text: str) -> None:
    escaped = html_text(text)
    page = f'<p title="{escaped}">{escaped}</p>'
    assert _tags(page) == ["p"]
    assert html.unescape(escaped) == visible(text)


@pytest.mark.parametrize("text", EVERY, ids=range(len(EVERY)))
def test_markdown_text_renders_as_the_text_itself(text: str) -> None:
    rendered = MarkdownIt("commonmark").render(f"**Table** {markdown_text(text)}")
    assert _tags(rendered) == ["p", "strong"]  # no image, link, code, heading or HTML
    assert html.unescape(rendered) == f"<p><strong>Table</strong> {visible(text)}</p>\n"


def test_markdown_text_escapes_streamlit_extensions() -> None:
    escaped = markdown_text("$x^2$ :red[alarm] :smile:")
    assert "$" not in escaped.replace("\\$", "")
    assert "[" not in escaped.replace("\\[", "")
    assert ":" not in escaped.replace("\\:", "")


@pytest.mark.parametrize("text", [t for t in EVERY if "\x00" not in t], ids=str)
def test_sql_literal_is_the_string_itself(text: str) -> None:
    con = duckdb.connect()
    assert con.execute(f"SELECT {sql_literal(text)}").fetchone() == (text,)


def test_sql_literal_refuses_nul() -> None:
    with pytest.raises(ValueError, match="NUL"):
        sql_literal("shard.duckdb\x00' AS x; DROP TABLE rounds; --")


def test_file_stems_stay_in_their_directory_and_never_collide(tmp_path: Path) -> None:
    ids = [*EVERY, "T01", "t01", ".", "..", "", "~", "CON", "a" * 300]
    stems = [file_stem(i) for i in ids]
    assert len({s.casefold() for s in stems}) == len(ids)  # even on a case-blind disk
    for stem in stems:
        assert stem.isprintable() and stem.isascii()
        assert not stem.startswith(".") and len(stem) <= 64
        path = inside(tmp_path, f"evidence-{stem}.zip")
        path.write_text("x")
        assert path.parent == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"evidence-{s}.zip" for s in stems)
    assert file_stem("T01") == "T01"  # well-formed ids read as themselves
    assert file_stem("T01-20261124-S01-R003") == "T01-20261124-S01-R003"


def test_a_stem_cannot_be_forged_by_an_id_that_looks_like_one() -> None:
    forged = file_stem("T01/x")
    assert "~" in forged
    assert file_stem(forged) != forged  # an id spelled like a stem gets its own digest


@pytest.mark.parametrize("name", ["../x.zip", "a/../../x.zip", "/etc/passwd", "sub/x.zip"])
def test_inside_refuses_names_that_leave(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="outside"):
        inside(tmp_path, name)


@pytest.mark.parametrize(
    ("value", "span"),
    [
        ("/srv/reports/close-2026-11-24.r2.html", "`/srv/reports/close-2026-11-24.r2.html`"),
        ("a`b", "``a`b``"),
        ("`x``", "``` `x`` ```"),
        ("line\nbreak", "`line\u240abreak`"),
    ],
)
def test_a_code_span_shows_a_path_unescaped_and_cannot_be_closed_early(
    value: str, span: str
) -> None:
    """Markdown escapes do not work inside a code span (``close\\-2026`` would show the
    backslash): the path goes in as it is, fenced by more backticks than any run in it."""
    assert markdown_code(value) == span
