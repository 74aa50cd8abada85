"""The cycle collector's pace during batch work (``pipeline/collector.py``): raised while a
batch runs, put back exactly as found however the spans overlap."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from pipeline import collector
from pipeline.collector import YOUNG_PASS_EVERY, batch_collection
from tests.forking import exit_code_of_child_forked_holding


@pytest.fixture(autouse=True)
def _default_thresholds() -> Iterator[None]:
    found = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*found)


def test_a_batch_passes_over_the_young_generation_less_often_and_the_old_pace_returns() -> None:
    with batch_collection():
        assert gc.get_threshold() == (YOUNG_PASS_EVERY, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_the_old_pace_returns_when_the_batch_fails() -> None:
    with pytest.raises(RuntimeError), batch_collection():
        raise RuntimeError("the batch failed")
    assert gc.get_threshold() == (700, 10, 10)


def test_a_nested_batch_leaves_the_outer_one_paced() -> None:
    @batch_collection()
    def inner() -> tuple[int, int, int]:
        return gc.get_threshold()

    with batch_collection():
        assert inner() == (YOUNG_PASS_EVERY, 10, 10)
        assert gc.get_threshold() == (YOUNG_PASS_EVERY, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_batches_on_two_threads_restore_the_pace_only_when_both_end() -> None:
    """Thread A enters, then B; A leaves first. A saving and restoring on its own would put
    the default back under B's feet, and B's exit would then leave the raised pace for good."""
    a_entered, b_entered, a_left, b_may_leave = (threading.Event() for _ in range(4))
    seen_by_b: list[tuple[int, int, int]] = []

    def a() -> None:
        with batch_collection():
            a_entered.set()
            b_entered.wait(5)
        a_left.set()

    def b() -> None:
        a_entered.wait(5)
        with batch_collection():
            b_entered.set()
            a_left.wait(5)
            seen_by_b.append(gc.get_threshold())
            b_may_leave.wait(5)

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for thread in threads:
        thread.start()
    a_left.wait(5)
    b_may_leave.set()
    for thread in threads:
        thread.join(5)
    assert seen_by_b == [(YOUNG_PASS_EVERY, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)


def test_a_process_that_turned_collection_off_keeps_it_off() -> None:
    gc.set_threshold(0, 10, 10)
    with batch_collection():
        assert gc.get_threshold() == (0, 10, 10)
    assert gc.get_threshold() == (0, 10, 10)


def test_a_process_that_collects_less_often_already_is_not_made_to_collect_more() -> None:
    gc.set_threshold(50_000, 10, 10)
    with batch_collection():
        assert gc.get_threshold() == (50_000, 10, 10)
    assert gc.get_threshold() == (50_000, 10, 10)


def test_a_child_forked_while_another_thread_holds_the_lock_can_enter_a_batch() -> None:
    def enters_a_batch() -> bool:
        with batch_collection():
            return True

    # the lock held as if another thread were entering a batch at the fork
    assert exit_code_of_child_forked_holding(collector._lock, enters_a_batch, within=30) == 0
