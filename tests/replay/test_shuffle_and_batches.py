"""The shuffle recorded per shoe against the option filed for the table (3.5(a), 4.4(a),
7.5(b)), and Minibaccarat's two batches alternated shoe by shoe (7.1(d)4)."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.replay.findings import Severity
from tests.replay.builder import TableDayBuilder, codes, only

ROUND: dict[str, Any] = {"player": "TH 6C", "banker": "3D 4S", "wagers": {3: {"BANKER": 10_000}}}


def two_shoes(rules_id: str, **second: Any) -> TableDayBuilder:
    b = TableDayBuilder("T02", rules_id)
    b.open()
    for overrides in ({}, second):
        b.shoe(**overrides)
        b.round(**ROUND)
        b.end_shoe()
    return b


@pytest.mark.parametrize(
    ("rules_id", "method", "code"),
    [
        ("pb-5-classic", "MANUAL_WASH", "PB-3.5a-SHUFFLE-FILED"),
        ("cf-5", "MANUAL_LACE", "CF-4.4a-SHUFFLE-FILED"),
        ("mb-5-rounded", "MANUAL_LACE", "MB-7.5b-SHUFFLE-FILED"),
    ],
)
@pytest.mark.rule("PB-3.5a-SHUFFLE-FILED", "CF-4.4a-SHUFFLE-FILED", "MB-7.5b-SHUFFLE-FILED")
def test_a_shoe_shuffled_by_another_option(rules_id: str, method: str, code: str) -> None:
    """PB-3.5a-SHUFFLE-FILED, N.J.A.C. 19:47-3.5(a) (4.4(a), 7.5(b)): each shoe is shuffled by
    the option filed for the table; the second shoe's recorded method differs: one MEDIUM
    finding on its ShoeStarted, citing the game's own section."""
    b = TableDayBuilder("T02", rules_id)
    b.open()
    b.shoe()
    started = b.shoe(shuffle_method=method)
    result = b.replay()
    f = only(result, code)
    assert (f.severity, f.event_ids) == (Severity.MEDIUM, (started,))
    assert f"shuffled {method}, but the table's rules {rules_id!r} file" in f.message


@pytest.mark.rule("MB-7.1d4-BATCH-ALTERNATE")
def test_two_shoes_from_the_same_batch() -> None:
    """MB-7.1d4-BATCH-ALTERNATE, N.J.A.C. 19:47-7.1(d)4: 'One batch of cards shall be shuffled
    and stored in the automated card shuffling device while the other batch is being dealt':
    batch A twice in a row is a finding on the second shoe."""
    b = two_shoes("mb-tie-quarter", batch="A")
    f = only(b.replay())
    second = [e.event_id for e in b.events if e.payload_type == "ShoeStarted"][1]
    assert (f.code, f.severity, f.event_ids) == (
        "MB-7.1d4-BATCH-ALTERNATE",
        Severity.MEDIUM,
        (second,),
    )
    assert "dealt from batch A after a shoe of batch A" in f.message


@pytest.mark.rule("MB-7.1d4-BATCH-ALTERNATE", "PB-3.5a-SHUFFLE-FILED")
def test_batches_alternated_and_the_filed_shuffle_are_clean() -> None:
    """MB-7.1d4-BATCH-ALTERNATE, PB-3.5a-SHUFFLE-FILED, N.J.A.C. 19:47-7.1(d)4, 3.5(a): the legal
    cases, batches A then B, and Punto Banco shoes shuffled as filed."""
    assert codes(two_shoes("mb-tie-quarter").replay()) == []
    assert codes(two_shoes("pb-5-classic").replay()) == []


@pytest.mark.parametrize(
    ("first", "then", "code", "found"),
    [
        ("pb-5-classic", "pb-4-banker6", "PB-3.3d-VIG-ONE-RATE", True),
        ("mb-5-rounded", "mb-tie-quarter", "MB-7.3e-VIG-ONE-RATE", True),
        ("pb-5-classic", "pb-dragon", "PB-3.3d-VIG-ONE-RATE", False),  # both 5 %
    ],
)
@pytest.mark.rule("PB-3.3d-VIG-ONE-RATE", "MB-7.3e-VIG-ONE-RATE")
def test_one_vigorish_per_table_for_the_day(first: str, then: str, code: str, found: bool) -> None:
    """PB-3.3d-VIG-ONE-RATE, N.J.A.C. 19:47-3.3(d) (7.3(e)): 'The percentage of vigorish charged
    at a baccarat table shall apply to all players at that table': a table reopened the same
    day under rules charging another vigorish is one HIGH finding on the second opening; the
    same vigorish under other rules is not."""
    b = TableDayBuilder("T03", first)
    b.open()
    b.shoe()
    b.round(**ROUND)
    b.end_shoe()
    reopened = b.open(series=(), rules_id=then, game=b.game.value)
    result = b.replay()
    if not found:
        assert code not in codes(result)
        return
    f = only(result, code)
    assert (f.severity, f.event_ids, f.round_id) == (Severity.HIGH, (reopened,), None)
    assert f"after {first!r} charging 5 %" in f.message
