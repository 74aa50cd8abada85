"""Hostile device strings, and a gaming day whose devices send them.

What a compromised terminal or a name typed at the pit can put into any string of an event:
paths that climb, markup, spreadsheet formulas, SQL, invisible and direction-changing
characters, look-alike letters, and sheer length. :func:`hostile_day` rewrites an emulated
day so that every device string (table, round, shoe and device ids, patron names and ids,
dealer ids, pits, locations, notes, signatures) is one of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from pipeline.events import default_codec
from pipeline.events.convert import to_record
from pipeline.events.model import TableEvent
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)

CORPUS: tuple[str, ...] = (
    "../../../../tmp/evil<script>alert(1)</script>",
    "..\\..\\windows\\evil",
    "/etc/passwd",
    "T02<img src=x onerror=alert(1)>",
    "<script src=//evil.example/x.js></script>",
    "T02 https://evil.example/x.js",
    "<img src=//evil.example/pixel.png>",
    "![pixel](https://evil.example/p.png)",
    "[click here](https://evil.example/phish)",
    '=HYPERLINK("https://evil.example/x","click")',
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "\tTAB=1+1",
    "\r=1+1",
    "' OR 1=1 --",
    "'); DROP TABLE rounds; --",
    "nul\x00byte",
    "esc\x1b[31mred\x1b[0m",
    "bell\x07",
    "rlo\u202eexe.txt",
    "lro\u202d override",
    "zero\u200bwidth",
    "line\nbreak",
    "carriage\rreturn",
    "T\u041e1",  # a Cyrillic O that looks like the Latin one
    "**bold** _it_ `code` $x^2$ :red[red] # heading",
    "x" * 5000,
)
"""Every attack a device string can carry, one per entry."""

TABLE_IDS = {
    "T01": "T01/<img src=//evil.example/p.png onerror=alert(1)> https://evil.example/x.js",
    "T02": "../T02\x1b\u202e=cmd",
}
"""What the emulated tables call themselves on the hostile day: a ``/``, markup that loads a
remote image and runs script, a remote URL, a path climb, ESC, RLO and a formula, in the id
every report and page shows."""

DEVICE_STRINGS = frozenset(
    {"round_id", "shoe_id", "patron_id", "patron_name", "dealer_id", "pit", "location"}
    | {"table_location", "note", "reason", "reported_by", "received_by", "shuffled_by"}
    | {"dealer_signature", "patron_signature", "pit_boss_signature", "pit_clerk_signature"}
)
"""The payload fields a device fills with free text or ids (not enum symbols or rule codes)."""


class _Hostile:
    """Gives each distinct device string a distinct hostile one, cycling through
    :data:`CORPUS`, numbered so that ids stay unique."""

    def __init__(self) -> None:
        self._given: dict[tuple[str, str], str] = {}
        self._next: Iterator[str] = itertools.cycle(CORPUS)

    def __call__(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self._given:
            self._given[key] = f"{next(self._next)}#{len(self._given)}"
        return self._given[key]


def hostile_events(tables: int = 2, hours: float = 0.5, seed: int = 3) -> list[TableEvent]:
    """An emulated day (every fault kind injected) with every device string made hostile."""
    result = simulate(tables, hours, seed, parse_faults("all"), DAY)
    hostile = _Hostile()
    events = []
    for table_id, table_events in result.events_by_table.items():
        for e in table_events:
            fields = {
                k: hostile(k, v) if k in DEVICE_STRINGS and isinstance(v, str) else v
                for k, v in e.fields.items()
            }
            events.append(
                TableEvent(
                    e.event_id,
                    TABLE_IDS[table_id],
                    hostile("device", e.device_id),
                    e.seq,
                    e.occurred_at,
                    e.payload_type,
                    fields,
                )
            )
    return events


def write_events(events: list[TableEvent], path: Path) -> Path:
    """``events`` as one Avro container file, through the project's codec."""
    codec = default_codec()
    path.parent.mkdir(parents=True, exist_ok=True)
    codec.write_events(path, (to_record(codec, e) for e in events))
    return path
