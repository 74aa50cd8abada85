"""The two Great Expectations suites, as plain lists of GX expectations per frame.

Each expectation carries a ``description`` that says what a failure means for the audit, and
in its ``meta`` a :class:`Level` with the reason for it:

- ``BLOCK``: a violated data contract. Rows of the wrong type or outside the Avro contract,
  negative or out-of-limit cents, broken settlement identities, a Form serial standing for
  two Forms, derived rows without their round: the day's figures cannot be trusted, so the
  gaming-day close is refused until the input is fixed and replayed, or someone accepts the
  failure with a reason that goes to the audit trail.
- ``WARN``: an imperfection of the device stream that the replay already repairs or withholds
  and reports as an ``NJ-DATA-*`` exception (duplicates, out-of-order delivery, clocks outside
  the tolerance). The expectation restates that finding from the raw rows; it is reported with
  the close and never blocks it, or every day with a flaky sensor would need an override.

The runner (:mod:`pipeline.quality.run`) validates them and reports every failure with its
counts and the identifying columns of the offending rows; the gate
(:mod:`pipeline.quality.gate`) decides the close from the levels.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
from great_expectations.execution_engine.pandas_execution_engine import PandasExecutionEngine
from great_expectations.expectations.core.expect_column_pair_values_a_to_be_greater_than_b import (
    ExpectColumnPairValuesAToBeGreaterThanB,
)
from great_expectations.expectations.core.expect_column_values_to_be_between import (
    ExpectColumnValuesToBeBetween,
)
from great_expectations.expectations.core.expect_column_values_to_be_in_set import (
    ExpectColumnValuesToBeInSet,
)
from great_expectations.expectations.core.expect_column_values_to_be_json_parseable import (
    ExpectColumnValuesToBeJsonParseable,
)
from great_expectations.expectations.core.expect_column_values_to_be_of_type import (
    ExpectColumnValuesToBeOfType,
)
from great_expectations.expectations.core.expect_column_values_to_be_unique import (
    ExpectColumnValuesToBeUnique,
)
from great_expectations.expectations.core.expect_column_values_to_match_regex import (
    ExpectColumnValuesToMatchRegex,
)
from great_expectations.expectations.core.expect_column_values_to_not_be_null import (
    ExpectColumnValuesToNotBeNull,
)
from great_expectations.expectations.core.expect_compound_columns_to_be_unique import (
    ExpectCompoundColumnsToBeUnique,
)
from great_expectations.expectations.expectation import Expectation
from great_expectations.expectations.metrics.map_metric_provider.column_condition_partial import (
    column_condition_partial,
)
from great_expectations.expectations.metrics.map_metric_provider.column_map_metric_provider import (
    ColumnMapMetricProvider,
)
from great_expectations.expectations.row_conditions import Column

from pipeline.events.codec import CANONICAL_UUID
from pipeline.ledger.quality_frames import PAYLOAD_COLUMN, EventContract, TableDay
from pipeline.ledger.quality_json import is_ledger_json
from pipeline.quality.levels import Level as Level
from pipeline.replay.findings import Severity, money
from pipeline.rules.config import TableRules

Expectations = dict[str, list[Expectation]]
"""Frame name -> the expectations validated against it."""

ROUND_STATUSES = ("COMPLETE", "INCOMPLETE", "VOID")
FORM_STATUSES = ("ISSUED", "VOIDED")
FORM_EVENT_KINDS = ("ORIGINAL_COUNTED", "DUPLICATE_RECEIVED")
VIG_KINDS = ("COLLECTED", "DEFERRED", "DEFERRED_COLLECTED", "DOCUMENTED", "WRITTEN_OFF")
UNPAID_RESULTS = ("LOSE", "VOID", "PUSH")
"""Outcomes that pay nothing beyond returning (or keeping) the stake."""

UUID_PATTERN = f"^{CANONICAL_UUID}$"


def block(why: str) -> dict[str, Any]:
    """GX ``meta`` of a blocking expectation; ``why`` says what a failure makes untrustworthy."""
    return {"level": Level.BLOCK.value, "why": why}


def warn(replay_code: str, why: str) -> dict[str, Any]:
    """GX ``meta`` of a warning expectation; ``replay_code`` is the NJ-DATA-* exception in
    which the replay already reports the same rows."""
    return {"level": Level.WARN.value, "replay_code": replay_code, "why": why}


def level_of(meta: Mapping[str, Any] | None) -> Level:
    """The level an expectation's ``meta`` declares; every expectation must declare one."""
    level = str((meta or {}).get("level"))
    if level not in Level.__members__:
        raise ValueError(
            f"expectation meta {dict(meta or {})!r} declares no level; build its meta with "
            "pipeline.quality.suites.block(...) or warn(...)"
        )
    return Level(level)


DECODED = block(
    "the Avro decoder stores every envelope field with this type and never null; anything "
    "else reached the ledger around the event contract, and nothing derived from it holds"
)
CONTRACT = block(
    "a value outside the event contract (schemas/, nj.baccarat.v1) is skipped or misread by "
    "the replay, so the rounds and money it belongs to are silently incomplete"
)
MONEY = block(
    "money is integer cents that are never negative; a negative or out-of-limit amount goes "
    "straight into handle, win or vigorish"
)
DERIVED = block(
    "the replay never writes such a row; the ledger was edited or the replay is wrong, and "
    "the close would seal figures computed from it"
)
ORPHAN = block(
    "a derived row whose round is missing is counted in the table's figures but cannot be "
    "traced to the cards that justify it"
)


class ColumnValuesLedgerJson(ColumnMapMetricProvider):
    """GX's map metric of :class:`ExpectColumnValuesToBeLedgerJson` (GX registers it by
    ``condition_metric_name`` when the class is defined)."""

    condition_metric_name = "column_values.ledger_json"

    @column_condition_partial(engine=PandasExecutionEngine)
    def _pandas(cls, column: pd.Series, **kwargs: Any) -> pd.Series:
        return column.map(is_ledger_json)


class ExpectColumnValuesToBeLedgerJson(ExpectColumnValuesToBeJsonParseable):
    """GX's JSON expectation with the JSON the gate's frames can read
    (:mod:`pipeline.ledger.quality_json`): GX's own takes ``NaN`` and a lone surrogate
    escape, which the frames cannot read, so a row it passed would vanish from them."""

    map_metric = "column_values.ledger_json"


@dataclass(frozen=True)
class RawSuiteParams:
    contract: EventContract
    tables: list[TableDay]
    catalog: Mapping[str, TableRules]
    tolerance_s: float = 600.0
    """How far outside its gaming day an event's device timestamp may lie (clock drift)."""


def string_dtype() -> str:
    """The dtype name pandas gives text columns (``str`` on pandas 3, ``object`` before)."""
    return str(pd.Series(["x"]).dtype)


def raw_events_suite(p: RawSuiteParams) -> Expectations:
    text = string_dtype()
    deliveries: list[Expectation] = [
        *(
            ExpectColumnValuesToBeOfType(
                column=c, type_=t, description=f"deliveries.{c} is stored as {t}", meta=DECODED
            )
            for c, t in (
                ("source", text),
                ("position", "int64"),
                ("event_id", text),
                ("table_id", text),
                ("device_id", text),
                ("seq", "int64"),
                ("occurrence", "int64"),
                ("occurred_at", "int64"),
                ("payload_type", text),
                (PAYLOAD_COLUMN, text),
            )
        ),
        *(
            ExpectColumnValuesToNotBeNull(
                column=c, description=f"every delivery has {c}", meta=DECODED
            )
            for c in ("event_id", "table_id", "device_id", "seq", "occurred_at", "payload_type")
        ),
        ExpectColumnValuesToMatchRegex(
            column="event_id",
            regex=UUID_PATTERN,
            description="event_id is a UUID",
            meta=block(
                "exceptions and evidence bundles cite events by event_id; an id that is not "
                "the device's UUID proves nothing"
            ),
        ),
        ExpectColumnValuesToBeInSet(
            column="payload_type",
            value_set=sorted(p.contract.payload_types),
            description="payload_type is one of the event contract's payload records",
            meta=CONTRACT,
        ),
        ExpectColumnValuesToBeBetween(
            column="seq",
            min_value=0,
            description="device sequence numbers are non-negative",
            meta=CONTRACT,
        ),
        ExpectColumnValuesToBeBetween(
            column="outside_s",
            min_value=-p.tolerance_s,
            max_value=p.tolerance_s,
            description=(
                f"device timestamps lie within the gaming day its TableOpened declared "
                f"(boundary from the table's rules, ± {p.tolerance_s:g} s)"
            ),
            meta=warn(
                "NJ-DATA-CLOCK-SKEW",
                "a device clock that drifted or jumped is reported by the replay (clock "
                "skew, or the gap its event leaves in the day it should belong to); the "
                "replay orders a device by seq, never by its clock, so the figures stand",
            ),
        ),
        ExpectColumnValuesToBeLedgerJson(
            column=PAYLOAD_COLUMN, description="payload fields are stored as JSON", meta=DECODED
        ),
        ExpectColumnValuesToBeUnique(
            column="event_id",
            description="each event is delivered once (duplicates: NJ-DATA-DUPLICATE)",
            meta=warn(
                "NJ-DATA-DUPLICATE",
                "the replay applies a duplicate delivery once and reports it; the copies are "
                "kept in deliveries as evidence of what the device sent",
            ),
        ),
    ]
    events: list[Expectation] = [
        ExpectCompoundColumnsToBeUnique(
            column_list=["device_id", "seq"],
            description="(device_id, seq) is unique once duplicate deliveries are removed",
            meta=block(
                "two different events claim the same place in a device's stream; the replay "
                "cannot tell which one the device sent and has no NJ-DATA code for it"
            ),
        ),
        ExpectColumnValuesToBeBetween(
            column="seq_step",
            min_value=1,
            description=(
                "seq strictly increases per device in delivery order "
                "(out-of-order delivery: NJ-DATA-REORDERED)"
            ),
            meta=warn(
                "NJ-DATA-REORDERED",
                "the replay puts each device's events back in seq order and reports every "
                "late arrival, so delivery order does not change a figure",
            ),
        ),
    ]
    symbols: list[Expectation] = [
        ExpectColumnValuesToBeInSet(
            column="value",
            value_set=sorted(p.contract.enums[enum_name]),
            row_condition=Column("kind") == enum_name,
            description=f"every {enum_name} field ({', '.join(fields)}) is a declared symbol",
            meta=CONTRACT,
        )
        for enum_name, fields in _fields_by_enum(p.contract).items()
    ]
    amounts: list[Expectation] = [
        ExpectColumnValuesToBeBetween(
            column="amount_cents",
            min_value=0,
            description="every *_cents amount is non-negative",
            meta=MONEY,
        )
    ]
    # one expectation per rule set, not per table: the count (and the gate's time and memory)
    # stays with the catalog however many tables a property runs; a failing row names its table
    played = {t.rules_id: t.rules for t in p.tables if t.rules is not None and t.rules_id}
    for rules_id, rules in sorted(played.items()):
        lo, hi = rules.min_wager_cents, rules.max_wager_cents
        amounts.append(
            ExpectColumnValuesToBeBetween(
                column="amount_cents",
                min_value=lo,
                max_value=hi,
                row_condition=Column("limit_scope") == rules_id,
                description=(
                    f"stakes are within the limits of {rules_id} ({money(lo)} to {money(hi)}) "
                    "at every table playing it (N.J.A.C. 19:47-8.2)"
                ),
                meta=block(
                    "a stake outside the limits the casino filed for the table is either a "
                    "misread bet sensor or a wager the table could not accept; it is counted "
                    "in handle and win all the same"
                ),
            )
        )
    form_serials: list[Expectation] = [
        ExpectColumnValuesToBeInSet(
            column="in_received_series",
            value_set=[True],
            description="every Form serial lies in a series the table received (3.3(c)3ii)",
            meta=block(
                "Complimentary Vigorish Forms are serially prenumbered and accounted for by "
                "series (N.J.A.C. 19:47-3.3(c)3ii); a Form outside every series received "
                "cannot be reconciled in the Form register the close reports"
            ),
        )
    ]
    table_days: list[Expectation] = [
        ExpectColumnValuesToNotBeNull(
            column="rules_id",
            description="every table-day opens with a TableOpened",
            meta=block(
                "without a TableOpened the table-day has no rules, pit or gaming date; its "
                "rounds cannot be judged and its figures are missing from the close"
            ),
        ),
        ExpectColumnValuesToBeInSet(
            column="rules_id",
            value_set=sorted(p.catalog),
            description="every TableOpened names a filed rule configuration",
            meta=block(
                "the replay derives nothing for a table opened under rules the catalog lacks "
                "(NJ-DATA-CONTRACT), so the table is missing from the day's figures"
            ),
        ),
    ]
    return {
        "deliveries": deliveries,
        "events": events,
        "symbols": symbols,
        "amounts": amounts,
        "form_serials": form_serials,
        "table_days": table_days,
    }


def _fields_by_enum(contract: EventContract) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, by_enum in sorted(contract.enum_fields.items()):
        for enum_name in by_enum:
            out.setdefault(enum_name, []).append(name)
    return dict(sorted(out.items()))


FORM_REGISTER = block(
    "a Form serial standing for two Forms (or two originals) breaks the Form register: the "
    "complimentary figure and the count-room match (N.J.A.C. 19:47-3.3(c)3ii-iv) cannot "
    "both be right"
)


def ledger_suite(contract: EventContract, catalog: Mapping[str, TableRules]) -> Expectations:
    """Every ledger expectation blocks: the replay derives these rows, so a violation is an
    edited ledger or a replay defect, never something the devices did."""
    enums = contract.enums

    def in_set(column: str, values: Iterable[str], what: str) -> Expectation:
        return ExpectColumnValuesToBeInSet(
            column=column, value_set=sorted(values), description=what, meta=DERIVED
        )

    def non_negative(column: str) -> Expectation:
        return ExpectColumnValuesToBeBetween(
            column=column, min_value=0, description=f"{column} is non-negative", meta=MONEY
        )

    def no_orphans(what: str) -> Expectation:
        return ExpectColumnValuesToBeInSet(
            column="round_known",
            value_set=[True],
            description=f"every {what} row's round exists in rounds for the same table-day",
            meta=ORPHAN,
        )

    return {
        "rounds": [
            in_set("status", ROUND_STATUSES, "round status is COMPLETE, INCOMPLETE or VOID"),
            in_set("winner", enums["Winner"], "winner is a Winner symbol"),
            ExpectColumnValuesToBeBetween(
                column="player_points",
                min_value=0,
                max_value=9,
                description="points are 0-9",
                meta=DERIVED,
            ),
            ExpectColumnValuesToBeBetween(
                column="banker_points",
                min_value=0,
                max_value=9,
                description="points are 0-9",
                meta=DERIVED,
            ),
            ExpectColumnValuesToBeBetween(
                column="total_cards",
                min_value=4,
                # 19:47-3.8(d), 4.8(d): two cards a hand and at most one more; a Chemin de Fer
                # Banker's misdeal counted by 4.12(b)-(d) keeps the cards he took (up to 7).
                max_value=7,
                description="a dealt round uses 4 to 6 cards, 7 after a Banker's misdeal",
                meta=DERIVED,
            ),
        ],
        "cards": [
            in_set("rank", enums["Rank"], "rank is a Rank symbol"),
            in_set("suit", enums["Suit"], "suit is a Suit symbol"),
            in_set("hand", enums["Hand"], "hand is a Hand symbol"),
            no_orphans("card"),
        ],
        "wagers": [
            in_set("wager", enums["WagerType"], "wager is a WagerType symbol"),
            non_negative("amount_cents"),
            no_orphans("wager"),
        ],
        "settlements": [
            non_negative("stake_cents"),
            non_negative("expected_paid_cents"),
            non_negative("expected_vig_cents"),
            non_negative("recorded_paid_cents"),
            in_set("expected_result", enums["WagerOutcome"], "expected result is an outcome"),
            in_set("recorded_result", enums["WagerOutcome"], "recorded result is an outcome"),
            ExpectColumnValuesToBeBetween(
                column="expected_paid_cents",
                min_value=0,
                max_value=0,
                row_condition=Column("expected_result").is_in(UNPAID_RESULTS),
                description="a wager that loses, is void or pushes is paid nothing",
                meta=block(
                    "a settlement identity: the recomputed payout the win figures are "
                    "compared with would be wrong"
                ),
            ),
            ExpectColumnPairValuesAToBeGreaterThanB(
                column_A="stake_cents",
                column_B="expected_vig_cents",
                or_equal=True,
                description="vigorish never exceeds the stake",
                meta=block(
                    "a settlement identity: vigorish is a percentage of the stake "
                    "(N.J.A.C. 19:47-3.3(c)), so the recomputed vigorish would be wrong"
                ),
            ),
            no_orphans("settlement"),
        ],
        "vig_ledger": [
            in_set("kind", VIG_KINDS, "vigorish ledger kind is known"),
            non_negative("amount_cents"),
            non_negative("balance_after_cents"),
        ],
        "comp_vig_forms": [
            ExpectCompoundColumnsToBeUnique(
                column_list=["serial", "status"],
                description="a Form serial is used once per status (3.3(c)3ii)",
                meta=FORM_REGISTER,
            ),
            in_set("status", FORM_STATUSES, "Form status is ISSUED or VOIDED"),
            non_negative("amount_cents"),
        ],
        "form_events": [
            ExpectCompoundColumnsToBeUnique(
                column_list=["serial", "kind"],
                description="each Form serial's original and duplicate are received once",
                meta=FORM_REGISTER,
            ),
            in_set("kind", FORM_EVENT_KINDS, "Form copy kind is known"),
            non_negative("amount_cents"),
        ],
        "exceptions": [
            in_set("severity", [s.name for s in Severity], "severity is a Severity name"),
            ExpectColumnValuesToBeBetween(
                column="severity_rank",
                min_value=min(Severity),
                max_value=max(Severity),
                description="severity rank is within the scale",
                meta=DERIVED,
            ),
            ExpectColumnValuesToBeInSet(
                column="has_summary",
                value_set=[True],
                description="every exception's table-day has a table_day_summary row",
                meta=ORPHAN,
            ),
        ],
        "table_day_summary": [
            in_set("rules_id", catalog, "the table-day ran a filed rule configuration"),
            *(
                non_negative(c)
                for c in (
                    "rounds",
                    "handle_cents",
                    "vig_expected_cents",
                    "vig_collected_cents",
                    "vig_uncollected_cents",
                    "comp_vig_cents",
                )
            ),
        ],
    }
