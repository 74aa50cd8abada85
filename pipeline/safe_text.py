"""Device strings placed into CSV, HTML, Markdown, SQL and file names, where they stay data.

Table, round, shoe and device ids, patron names, dealer ids, pits, locations, notes and
signatures come from the floor: a compromised terminal or a name typed at the pit chooses
them. Every output that carries them goes through one function here, so that a string
cannot become a path, a formula, markup or SQL, and cannot hide behind invisible
characters:

- :func:`visible`: control, bidi and other invisible format characters made visible;
- :func:`csv_cell` / :func:`csv_row`: spreadsheet formulas neutralised (OWASP "CSV
  Injection": a cell starting with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading
  ``'``), numbers left numbers;
- :func:`html_text` and :func:`markdown_text`: escaped for HTML and for Streamlit's Markdown;
- :func:`sql_literal`: a DuckDB string literal, for the statements that take no parameters;
- :func:`file_stem` and :func:`inside`: a file name that cannot leave its directory, and
  the check that a path did not.

This module imports nothing of the pipeline, so every layer may use it.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (bidi overrides and isolates, zero-width joiners, tag
characters), surrogates, private-use and unassigned code points, line and paragraph
separators: characters that change how the text around them displays, or show nothing."""

FORMULA_LEADERS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a cell as a formula (OWASP CSV Injection)."""

_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:^=&\"'])")
"""Characters with a meaning in Streamlit's Markdown: CommonMark's punctuation, ``$`` (math),
``:`` (emoji shortcodes and ``:red[...]`` colour directives), ``<``/``>``/``&`` (HTML)."""

_SAFE_STEM = re.compile(r"[A-Z0-9](?:[A-Z0-9._-]{0,62}[A-Z0-9])?")
"""Ids kept verbatim as file names: upper-case letters, digits and ``._-`` inside, at most 64
characters. No lower case, so two such names never collide on a case-insensitive disk."""
_SLUG_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
STEM_DIGEST_SEPARATOR = "~"
"""Joins a slug and its digest; never part of a verbatim stem, so the two forms cannot meet."""


def visible(text: str) -> str:
    """``text`` with every invisible or layout-changing character shown: C0 controls and
    DEL as their Unicode control pictures (ESC as ``␛``, NUL as ``␀``, newline as ``␊``),
    any other (an RLO bidi override, a zero-width joiner, a C1 control) as ``[U+202E]``."""
    if text.isprintable():  # the usual case, and fast: nothing to replace
        return text
    return "".join(_shown(c) for c in text)


def _shown(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
        return f"[U+{code:04X}]"
    return char


def csv_cell(value: T) -> T | str:
    """``value`` as a CSV cell a spreadsheet shows as text: a string is made
    :func:`visible` and, when it would start a formula, prefixed with ``'``; a string that is
    a plain number ("-500") and every non-string (numbers: negative cents stay numbers)
    are returned unchanged."""
    if not isinstance(value, str):
        return value
    text = visible(value)
    if value.startswith(FORMULA_LEADERS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + text
    return text


def csv_row(values: Iterable[object]) -> list[object]:
    """Every cell of one CSV row through :func:`csv_cell` (for ``csv.writer.writerow``)."""
    return [csv_cell(v) for v in values]


def html_text(value: object) -> str:
    """``value`` as HTML text (element content or a quoted attribute value): escaped and
    made :func:`visible`."""
    return html.escape(visible(str(value)), quote=True)


def markdown_text(value: object) -> str:
    """``value`` as literal text inside Streamlit Markdown (``st.markdown``, ``st.caption``,
    ``st.info``, titles, expander labels, ``st.table`` cells): every character with a
    Markdown, math, directive or HTML meaning backslash-escaped, and made :func:`visible`."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", visible(str(value)))


def markdown_code(value: object) -> str:
    """``value`` as an inline Markdown code span, shown literally and never escaped inside:
    made :func:`visible` (no line break or control character survives), fenced by more
    backticks than the longest run in it, with a space inside each fence when the text
    starts or ends with a backtick."""
    text = visible(str(value))
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def sql_literal(text: str) -> str:
    """``text`` as a DuckDB string literal (quotes doubled), for statements that take no
    prepared parameters (attaching a database file by its path). A NUL would end the string
    early in C code below: refused."""
    if "\x00" in text:
        raise ValueError(f"a NUL character cannot be part of an SQL string: {visible(text)!r}")
    return "'" + text.replace("'", "''") + "'"


def file_stem(text: str) -> str:
    """A file name (without suffix) for a device id, that stays in its directory.

    An id of upper-case letters, digits and inner ``._-`` (``T01``,
    ``T01-20261124-S01-R003``) is its own name. Any other id (a ``/``, ``..``, a NUL, lower
    case, markup, more than 64 characters) becomes a slug of its safe characters, ``~`` and
    the first 16 hex digits of its SHA-256 (``T01_evil_script~3f2a…``): two ids never share a
    name, and none names a parent directory, a hidden file or a device."""
    if _SAFE_STEM.fullmatch(text):
        return text
    slug = _SLUG_UNSAFE.sub("_", text).strip("._-")[:40] or "id"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{slug}{STEM_DIGEST_SEPARATOR}{digest}"


def inside(directory: Path, name: str) -> Path:
    """``directory / name``, checked to resolve to a direct child of ``directory``; raises
    :class:`ValueError` otherwise (a name built from data must never climb out)."""
    path = directory / name
    if path.resolve().parent != directory.resolve():
        raise ValueError(
            f"{visible(name)!r} would be written outside {directory}; file names built from "
            "device strings go through pipeline.safe_text.file_stem"
        )
    return path
