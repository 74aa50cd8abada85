"""A reader for the regulation texts in ``shared/regulations`` (N.J.A.C. 19:47 as given): which
sections, subsections, paragraphs and items a text holds, so a test can check that a citation
names a place that exists.

The texts sit beside the repository (``<repository>/../shared/regulations``) or where
``BACCARAT_REGULATIONS`` points.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

REGULATIONS = Path(
    os.environ.get(
        "BACCARAT_REGULATIONS",
        Path(__file__).resolve().parents[2].parent / "shared" / "regulations",
    )
)
MINIBACCARAT_TEXT = "001_ec5a7d8539fe8a2f.txt"
"""The edition that governs Minibaccarat (the README of ``shared/regulations``)."""

HEADING = re.compile(r"^#+ 19:47-(\d+\.\d+) ", re.MULTILINE)
SUBSECTION = re.compile(r"^\(([a-z])\) ")
PARAGRAPH = re.compile(r"^(\d+)\. ")
ITEM = re.compile(r"^(?:- )?([ivx]+)\. ")
PLACE = re.compile(
    r"^(?:(?P<section>\d+\.\d+))?\((?P<subsection>[a-z])\)(?P<paragraph>\d+)?"
    r"(?P<item>[ivx]+)?(?:-(?P<last_item>[ivx]+))?$"
)
"""One place of a citation: ``7.3(c)3iii-iv``, or ``(c)4`` continuing the section before."""

Outline = dict[str, dict[str, dict[str, set[str]]]]
"""section -> subsection -> paragraph ("" for the subsection's own text) -> items."""


def outline(text: str) -> Outline:
    """Every section of ``text`` with its subsections (``(a)``), paragraphs (``1.``) and items
    (``i.``), as the text's lines open them."""
    sections: Outline = {}
    headings = list(HEADING.finditer(text))
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        body = text[heading.end() : following.start() if following else len(text)]
        subsections = sections.setdefault(heading.group(1), {})
        paragraphs: dict[str, set[str]] | None = None
        items: set[str] | None = None
        for line in body.splitlines():
            if opened := SUBSECTION.match(line):
                paragraphs = subsections.setdefault(opened.group(1), {"": set()})
                items = paragraphs[""]
            elif paragraphs is not None and (opened := PARAGRAPH.match(line)):
                items = paragraphs.setdefault(opened.group(1), set())
            elif items is not None and (opened := ITEM.match(line)):
                items.add(opened.group(1))
    return sections


def missing_places(citation: str, sections: Outline) -> list[str]:
    """The places of ``citation`` (a rule code's section, ``7.3(c)2, (c)4``) that ``sections``
    does not hold, each as written; a place that does not parse is missing too."""
    missing = []
    section = None
    for place in citation.split(", "):
        parsed = PLACE.match(place)
        if parsed is None:
            missing.append(place)
            continue
        section = parsed["section"] or section
        paragraphs = sections.get(section or "", {}).get(parsed["subsection"])
        items = paragraphs.get(parsed["paragraph"] or "") if paragraphs is not None else None
        wanted = {parsed["item"], parsed["last_item"]} - {None}
        if items is None or not wanted <= items:
            missing.append(place)
    return missing
