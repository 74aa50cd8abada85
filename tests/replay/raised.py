"""Which rule codes the replay raises from events, in which tests, reading which events: the
evidence behind ``docs/rule-codes.md``.

``python -m tests.replay.raised`` runs the replay's scenario tests (``tests/replay`` and the
evolution test that replays a wager type added by a later schema) with a plugin that watches
every replay, and the judgement of a pit's tables from their replays
(:func:`pipeline.replay.pit.pit_findings`), then writes ``docs/rule-codes.md``: for each code of
:data:`pipeline.rules.codes.RULE_CODES`, the payload types of the events its findings cite and
the tests that raise it. A code that no replay of events raises is listed in
:data:`NOT_FROM_EVENTS` with what raises it instead and the test that shows it.
``--check`` writes nothing and exits 1 if a code is neither raised from events nor listed there,
or if ``docs/rule-codes.md`` is not what the command would write;
``tests/replay/test_rule_codes_raised.py`` runs it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import settings

from pipeline.events.model import TableEvent
from pipeline.replay import pit
from pipeline.replay.findings import Finding
from pipeline.replay.machine import TableReplay
from pipeline.replay.rows import PracticeRow, ReplayResult
from pipeline.replay.sequencer import Sequenced
from pipeline.rules.codes import MIRRORS, RULE_CODES, RuleCode, rule_in

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rule-codes.md"
SCENARIOS = ("tests/replay", "tests/events/test_event_evolution.py")
"""The tests whose replays count as "raised from events"."""
SELF = "tests/replay/test_rule_codes_raised.py"


class Elsewhere(NamedTuple):
    """A code no replay of events raises: what raises it instead (or that nothing does yet),
    and the test that shows it."""

    source: str
    test: str


CONFIGURATION = "configuration: `pipeline validate-rules` refuses the rule set or floor"
DEFINITION = "a definition every draw, announcement and settlement check applies"

NOT_FROM_EVENTS: Mapping[str, Elsewhere] = {
    "PB-3.1b-VALUE": Elsewhere(DEFINITION, "test_cards"),
    "PB-3.1c-POINT-COUNT": Elsewhere(DEFINITION, "test_cards"),
    "PB-3.3c2-VIG-DEFERRED": Elsewhere(
        "the VigDeferred event is the marker; what it carries is checked under "
        "PB-3.3c4-DEFERRED-DEADLINE",
        "test_vigorish",
    ),
    "PB-3.3e2-TOTAL-CARD-COVER": Elsewhere(
        "no filed Punto Banco rule set offers 3.3(e)2 (Minibaccarat's 7.3(f)2 settlements cite "
        "MB-7.3f-NO-VIG); the settlement rule itself is tested",
        "test_settlement",
    ),
    "PB-3.3c3vii-COMPLIMENTARY": Elsewhere(
        "a figure, not a finding: the day's comp_vig_cents in the table game win", "test_close"
    ),
    "PB-3.3e-ONE-OPTION": Elsewhere(CONFIGURATION, "test_config"),
    "PB-3.2a6iii-DRAGON-EXCLUSIVE": Elsewhere(CONFIGURATION, "test_config"),
    "MB-7.1d-TWO-BATCH": Elsewhere(
        CONFIGURATION + " (under 12 decks); a shoe's decks are compared with the filed ones "
        "under MB-7.1a-DECKS",
        "test_config",
    ),
    **{
        code: Elsewhere(
            "the pattern stage across shoes and days (pipeline.patterns.slugs), not the replay "
            "of one table-day",
            "test_slugs",
        )
        for code in ("PB-3.5a1-SLUG", "CF-4.4a1-SLUG", "MB-7.5a-SLUG")
    },
    "NJ-DATA-CONTRACT": Elsewhere(
        "data integrity: the decoders and the ingest's dead letters", "test_ledger"
    ),
    "NJ-DATA-CONFLICT": Elsewhere(
        "data integrity: copies of one event id compared across everything a table-day "
        "holds, before the replay (pipeline.ingest.conflicts)",
        "test_conflicting_copies",
    ),
    "NJ-PATTERN-INFORMED-BETTING": Elsewhere(
        "a pattern across a patron's rounds of a gaming day, not one replay: the pattern "
        "stage runs `pipeline.patterns.informed` on the day's settlements",
        "test_informed",
    ),
    "NJ-PATTERN-INFORMED-ACCUMULATED": Elsewhere(
        "evidence across a patron's rounds of every table and day of the window, not one "
        "replay: the pattern stage runs `pipeline.patterns.evidence` on the window's "
        "settlements",
        "test_evidence",
    ),
    "NJ-PATTERN-CARD-PREVIEW": Elsewhere(
        "evidence across a patron's rounds of the window against the cards each shoe dealt "
        "next, not one replay: the pattern stage runs `pipeline.patterns.evidence`",
        "test_evidence",
    ),
    "NJ-PATTERN-CARD-TURN-REQUEST": Elsewhere(
        "a patron's request to turn cards, granted, read from the pit terminal's "
        "`PatronRequest` events (schema id 6) of the day: the pattern stage runs "
        "`pipeline.patterns.requests`; the replay has nothing to do with a request",
        "test_requests",
    ),
    "NJ-PATTERN-DEALER-PATRON": Elsewhere(
        "a pattern across days of payout and vigorish errors, not one replay: the pattern "
        "stage runs `pipeline.patterns.pairs` on the window's settlements and vigorish",
        "test_pairs",
    ),
}
"""Every code no replay of events raises, with what raises it instead. A code that becomes
raised from events must leave this list (the check says so)."""


HYPOTHESIS_PROFILE = "rule-codes"
settings.register_profile(HYPOTHESIS_PROFILE, derandomize=True, database=None)
"""The same examples on every machine: a local example database once made a code "raised" here
and not on a fresh clone."""


@dataclass
class Raised:
    tests: set[str] = field(default_factory=set)
    payloads: set[str] = field(default_factory=set)


@dataclass(eq=False)  # pluggy keeps plugins in sets
class Watch:
    """A pytest plugin noting every finding every replay returns, and every finding the
    day-level judgement of a pit's tables returns from their replays' rows, with the test it
    ran in."""

    raised: dict[str, Raised] = field(default_factory=dict)
    test: str = ""
    kinds: dict[str, str] = field(default_factory=dict)
    """The payload type of every event the test's replays read: a pit finding cites the
    events of several table-days."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.test = f"{Path(str(item.path)).stem}::{getattr(item, 'originalname', item.name)}"
        self.kinds = {}

    def read(self, events: Iterable[TableEvent]) -> None:
        self.kinds.update((e.event_id, e.payload_type) for e in events)

    def note(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            entry = self.raised.setdefault(finding.code, Raised())
            entry.tests.add(self.test)
            entry.payloads.update(self.kinds[i] for i in finding.event_ids if i in self.kinds)


def watched(watch: Watch) -> Callable[[], None]:
    """Wrap TableReplay.finish and .withheld, and the pit judgement
    (:func:`pipeline.replay.pit.pit_findings`, which the tests call through its module), so
    ``watch`` sees every replay; returns the undo."""
    finish, withheld, judge = TableReplay.finish, TableReplay.withheld, pit.pit_findings

    def finish_watched(self: TableReplay, sequenced: Sequenced) -> ReplayResult:
        result = finish(self, sequenced)
        watch.read(sequenced.events)
        watch.note(result.findings)
        return result

    def withheld_watched(self: TableReplay, arrived: list[TableEvent]) -> ReplayResult:
        result = withheld(self, arrived)
        watch.read(arrived)
        watch.note(result.findings)
        return result

    def judge_watched(rows: Iterable[PracticeRow]) -> list[Finding]:
        findings = judge(rows)
        watch.note(findings)
        return findings

    TableReplay.finish = finish_watched  # type: ignore[method-assign]
    TableReplay.withheld = withheld_watched  # type: ignore[method-assign]
    pit.pit_findings = judge_watched

    def undo() -> None:
        TableReplay.finish = finish  # type: ignore[method-assign]
        TableReplay.withheld = withheld  # type: ignore[method-assign]
        pit.pit_findings = judge

    return undo


def collect(scenarios: Sequence[str] = SCENARIOS) -> dict[str, Raised]:
    watch = Watch()
    undo = watched(watch)
    try:
        status = pytest.main(
            [
                *scenarios,
                f"--ignore={SELF}",
                f"--hypothesis-profile={HYPOTHESIS_PROFILE}",
                "-q",
                "-p",
                "no:cacheprovider",
            ],
            plugins=[watch],
        )
    finally:
        undo()
    if status != 0:
        raise SystemExit(f"the scenario tests failed (pytest exit {status}); fix them first")
    return watch.raised


def _cell(items: Iterable[str]) -> str:
    return ", ".join(f"`{i}`" for i in sorted(items))


def render(raised: Mapping[str, Raised]) -> str:
    lines = [
        "# Rule codes",
        "",
        "Every code of `pipeline/rules/codes.py`, with the events its findings cite and the",
        "tests that raise it from a replay of events. Generated by `python -m tests.replay.raised`",
        "(do not edit); `tests/replay/test_rule_codes_raised.py` fails when a code is never",
        "raised from events and not marked below as raised by something else, and when this",
        "file is out of date.",
        "",
        "The curator rules (3.6(b)-(d), 3.11) are read from the pit terminal's `CuratorChanged`",
        "events (schema id 3); a table whose devices never send one is not checked. The cards",
        "handed to the players (3.7(d), 7.7(c)3) are read from the pit terminal's",
        "`CardsHandedTo` events (schema id 5), judged by the wagers standing when each was",
        "recorded; a round without one is not checked (the cards may have been turned up).",
        "",
        "Banco priority (4.7(b)-(d)) is read from the pit terminal's `BancoCalled` events",
        "(schema id 4), every call for the whole bank, refused ones included, with the wagers",
        "accepted; a table whose devices never send one is judged on its accepted wagers alone.",
        "",
        "A Punto Banco code whose rule subchapter 7 repeats in a section of its own",
        "(`MINIBACCARAT_MIRRORS`) keeps its code at a Minibaccarat table and cites that section",
        "there, in the exception's section and message; the section column names it after the",
        "Punto Banco one.",
        "",
        "| code | section | statement | events read | raised by |",
        "| --- | --- | --- | --- | --- |",
    ]
    for code, entry in RULE_CODES.items():
        seen = raised.get(code)
        if seen is not None:
            events, tests = _cell(seen.payloads) or "(the table-day)", _cell(seen.tests)
        elif code in NOT_FROM_EVENTS:
            elsewhere = NOT_FROM_EVENTS[code]
            events, tests = f"none: {elsewhere.source}", f"`{elsewhere.test}`"
        else:
            events, tests = "**never raised**", ""
        lines.append(f"| `{code}` | {_sections(entry)} | {entry.statement} | {events} | {tests} |")
    return "\n".join(lines) + "\n"


def _sections(entry: RuleCode) -> str:
    """The code's citation, then the section each game mirroring it cites instead."""
    mirrored = [
        f"{game.value.replace('_', ' ').capitalize()}: {rule_in(game, entry.code).section}"
        for game, mirrors in MIRRORS.items()
        if entry.code in mirrors
    ]
    return "; ".join([entry.citation, *mirrored])


def problems(raised: Mapping[str, Any]) -> list[str]:
    """Codes neither raised from events nor listed in NOT_FROM_EVENTS, and stale entries."""
    found = [
        f"{code}: no replay of events raises it and NOT_FROM_EVENTS does not say what does"
        for code in RULE_CODES
        if code not in raised and code not in NOT_FROM_EVENTS
    ]
    found += [
        f"{code}: listed in NOT_FROM_EVENTS but raised from events; remove it from the list"
        for code in NOT_FROM_EVENTS
        if code in raised
    ]
    found += [f"{code}: not a rule code" for code in NOT_FROM_EVENTS if code not in RULE_CODES]
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.replay.raised", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    raised = collect()
    text = render(raised)
    wrong = problems(raised)
    if args.check:
        if DOC.read_text() != text:
            wrong.append(f"{DOC.name} is out of date: run python -m tests.replay.raised")
    else:
        DOC.write_text(text)
    for line in wrong:
        print(f"rule-codes: {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
