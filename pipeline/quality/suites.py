"""The two Great Expectations suites, as plain lists of GX expectations per frame.

Each expectation carries a ``description`` that says what a failure means for the audit; the
runner (:mod:`pipeline.quality.run`) validates them and reports every failure with its counts
and the identifying columns of the offending rows. A failing expectation is a data finding,
never an error of the pipeline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pandas as pd
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
from great_expectations.expectations.row_conditions import Column

from pipeline.quality.frames import EventContract, TableDay
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

UUID_PATTERN = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


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
    day_s = 24 * 3600.0
    deliveries: list[Expectation] = [
        *(
            ExpectColumnValuesToBeOfType(
                column=c, type_=t, description=f"deliveries.{c} is stored as {t}"
            )
            for c, t in (
                ("source", text),
                ("position", "int64"),
                ("event_id", text),
                ("table_id", text),
                ("device_id", text),
                ("seq", "int64"),
                ("occurred_at", "int64"),
                ("payload_type", text),
                ("fields_json", text),
            )
        ),
        *(
            ExpectColumnValuesToNotBeNull(column=c, description=f"every delivery has {c}")
            for c in ("event_id", "table_id", "device_id", "seq", "occurred_at", "payload_type")
        ),
        ExpectColumnValuesToMatchRegex(
            column="event_id", regex=UUID_PATTERN, description="event_id is a UUID"
        ),
        ExpectColumnValuesToBeInSet(
            column="payload_type",
            value_set=sorted(p.contract.payload_types),
            description="payload_type is one of the event contract's payload records",
        ),
        ExpectColumnValuesToBeBetween(
            column="seq", min_value=0, description="device sequence numbers are non-negative"
        ),
        ExpectColumnValuesToBeBetween(
            column="offset_s",
            min_value=-p.tolerance_s,
            max_value=day_s + p.tolerance_s,
            description=(
                f"device timestamps lie within the gaming day its TableOpened declared "
                f"(boundary from the table's rules, ± {p.tolerance_s:g} s)"
            ),
        ),
        ExpectColumnValuesToBeJsonParseable(
            column="fields_json", description="payload fields are stored as JSON"
        ),
        ExpectColumnValuesToBeUnique(
            column="event_id",
            description="each event is delivered once (duplicates: NJ-DATA-DUPLICATE)",
        ),
    ]
    events: list[Expectation] = [
        ExpectCompoundColumnsToBeUnique(
            column_list=["device_id", "seq"],
            description="(device_id, seq) is unique once duplicate deliveries are removed",
        ),
        ExpectColumnValuesToBeBetween(
            column="seq_step",
            min_value=1,
            description=(
                "seq strictly increases per device in delivery order "
                "(out-of-order delivery: NJ-DATA-REORDERED)"
            ),
        ),
    ]
    symbols: list[Expectation] = [
        ExpectColumnValuesToBeInSet(
            column="value",
            value_set=sorted(p.contract.enums[enum_name]),
            row_condition=Column("kind") == enum_name,
            description=f"every {enum_name} field ({', '.join(fields)}) is a declared symbol",
        )
        for enum_name, fields in _fields_by_enum(p.contract).items()
    ]
    amounts: list[Expectation] = [
        ExpectColumnValuesToBeBetween(
            column="amount_cents",
            min_value=0,
            description="every *_cents amount is non-negative",
        )
    ]
    for t in p.tables:
        if t.rules is None:
            continue
        lo, hi = t.rules.min_wager_cents, t.rules.max_wager_cents
        amounts.append(
            ExpectColumnValuesToBeBetween(
                column="amount_cents",
                min_value=lo,
                max_value=hi,
                row_condition=Column("limit_scope") == t.table_id,
                description=(
                    f"{t.table_id} stakes are within the limits of {t.rules_id} "
                    f"({money(lo)} to {money(hi)})"
                ),
            )
        )
    form_serials: list[Expectation] = [
        ExpectColumnValuesToBeInSet(
            column="in_received_series",
            value_set=[True],
            description="every Form serial lies in a series the table received (3.3(c)3ii)",
        )
    ]
    table_days: list[Expectation] = [
        ExpectColumnValuesToNotBeNull(
            column="rules_id", description="every table-day opens with a TableOpened"
        ),
        ExpectColumnValuesToBeInSet(
            column="rules_id",
            value_set=sorted(p.catalog),
            description="every TableOpened names a filed rule configuration",
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


def ledger_suite(contract: EventContract, catalog: Mapping[str, TableRules]) -> Expectations:
    enums = contract.enums

    def in_set(column: str, values: Iterable[str], what: str) -> Expectation:
        return ExpectColumnValuesToBeInSet(
            column=column, value_set=sorted(values), description=what
        )

    def non_negative(column: str) -> Expectation:
        return ExpectColumnValuesToBeBetween(
            column=column, min_value=0, description=f"{column} is non-negative"
        )

    def no_orphans(what: str) -> Expectation:
        return ExpectColumnValuesToBeInSet(
            column="round_known",
            value_set=[True],
            description=f"every {what} row's round exists in rounds for the same table-day",
        )

    return {
        "rounds": [
            in_set("status", ROUND_STATUSES, "round status is COMPLETE, INCOMPLETE or VOID"),
            in_set("winner", enums["Winner"], "winner is a Winner symbol"),
            ExpectColumnValuesToBeBetween(
                column="player_points", min_value=0, max_value=9, description="points are 0-9"
            ),
            ExpectColumnValuesToBeBetween(
                column="banker_points", min_value=0, max_value=9, description="points are 0-9"
            ),
            ExpectColumnValuesToBeBetween(
                column="total_cards",
                min_value=4,
                max_value=6,
                description="a dealt round uses 4 to 6 cards",
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
            ),
            ExpectColumnPairValuesAToBeGreaterThanB(
                column_A="stake_cents",
                column_B="expected_vig_cents",
                or_equal=True,
                description="vigorish never exceeds the stake",
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
            ),
            in_set("status", FORM_STATUSES, "Form status is ISSUED or VOIDED"),
            non_negative("amount_cents"),
        ],
        "form_events": [
            ExpectCompoundColumnsToBeUnique(
                column_list=["serial", "kind"],
                description="each Form serial's original and duplicate are received once",
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
            ),
            ExpectColumnValuesToBeInSet(
                column="has_summary",
                value_set=[True],
                description="every exception's table-day has a table_day_summary row",
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
