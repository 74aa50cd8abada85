"""What the Prefect UI shows of a close, without a server: a day sealed with blocking
exceptions ends in a Failed state named "Blocked" (the UI colours a state by its type), a
clean one in a plain Completed; runs are named for the gaming day they audit, whether it is
given or worked out."""

from __future__ import annotations

from datetime import date

from flows import audit, steps
from pipeline.config.catalog import DEFAULT_CATALOG, gaming_day_of, load_catalog

GAMING_DATE = date(2026, 11, 24)


def _closed(blocking: int) -> steps.CloseSummary:
    status = "CLOSED_WITH_BLOCKING_EXCEPTIONS" if blocking else "CLOSED"
    return steps.CloseSummary(GAMING_DATE, status, blocking, "0" * 64, "0" * 64, {}, [])


def test_a_day_closed_with_blocking_exceptions_is_not_a_plain_completed() -> None:
    closed = _closed(blocking=3)

    state = audit.closed_state(closed, closed)

    assert state.is_failed() and not state.is_completed()
    assert state.name == audit.BLOCKED_STATE_NAME == "Blocked"
    assert state.message == (
        "gaming day 2026-11-24 closed with 3 blocking exceptions (sealed, reports written): "
        "acknowledge or resolve them, then reopen and close the day"
    )
    assert audit.close_outcome(state) is closed


def test_a_day_closed_without_blocking_exceptions_is_completed() -> None:
    closed = _closed(blocking=0)

    state = audit.closed_state(closed, "the audit")

    assert state.is_completed() and state.name == "Completed"
    assert state.message == "gaming day 2026-11-24 closed, no blocking exceptions"
    assert state.result() == audit.close_outcome(state) == "the audit"


def test_the_audited_day_is_the_given_one_else_the_last_ended() -> None:
    assert audit.audited_day(GAMING_DATE) == GAMING_DATE
    assert audit.audited_day("2026-11-24") == GAMING_DATE  # a deployment run's parameter
    last = steps.last_closed_gaming_date(gaming_day_of(load_catalog(DEFAULT_CATALOG)))
    assert audit.audited_day(None) == last
