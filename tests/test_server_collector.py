"""The garbage collector's serving policy (``heartsuit/server/core/collector.py``): when a sweep is
due, how its clock adapts, and that the sweeper's thread does free cyclic garbage that young
collections left alone."""

from __future__ import annotations

import gc
import sys
import time
import weakref

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.server.core.collector import NEVER, THRESHOLDS, Sweeper, SweepSchedule


def schedule(**kw: float) -> SweepSchedule:
    return SweepSchedule(last_at=1000.0, blocks_after=100_000, **kw)


def test_a_sweep_comes_on_the_clock() -> None:
    s = schedule(every_s=600)
    assert not s.due(1000 + 599.9, 100_000)
    assert s.due(1000 + 600, 100_000)


def test_a_doubled_heap_brings_the_sweep_forward_but_not_within_the_shortest_wait() -> None:
    s = schedule(every_s=600, shortest_s=60, growth=2)
    assert not s.due(1000 + 30, 500_000)  # doubled, but too soon after the last
    assert not s.due(1000 + 61, 199_999)  # not yet doubled
    assert s.due(1000 + 61, 200_000)


def test_before_the_first_sweep_only_the_clock_brings_one() -> None:
    s = SweepSchedule(last_at=1000.0, every_s=600, shortest_s=60, growth=2)
    assert not s.due(1000 + 599, 10**12)  # a heap filling as tables arrive is no reason
    assert s.due(1000 + 600, 0)
    s.swept(1600, before=400_000, after=390_000)
    assert not s.due(1600 + 61, 779_999)
    assert s.due(1600 + 61, 780_000)  # from then on, growth over what the sweep left


def test_the_clock_stretches_while_sweeps_find_little_and_shrinks_when_they_find_much() -> None:
    s = schedule(every_s=600, shortest_s=60, longest_s=3600)
    s.swept(2000, before=100_000, after=99_000)  # 1% freed
    assert s.every_s == 1200 and s.last_at == 2000 and s.blocks_after == 99_000
    for now in (3000, 4000, 5000):
        s.swept(now, before=100_000, after=100_000)
    assert s.every_s == 3600  # no longer than the longest
    s.swept(6000, before=100_000, after=50_000)  # half the heap was garbage
    assert s.every_s == 1800
    s.swept(7000, before=100_000, after=90_000)  # 10%: neither
    assert s.every_s == 1800
    for now in (8000, 9000, 10_000, 11_000, 12_000):
        s.swept(now, before=100_000, after=10_000)
    assert s.every_s == 60  # no shorter than the shortest


@given(
    st.lists(
        st.tuples(st.integers(0, 10_000), st.integers(1, 10**7), st.integers(0, 10**7)),
        max_size=30,
    )
)
def test_the_clock_stays_within_its_bounds(sweeps: list[tuple[int, int, int]]) -> None:
    s = schedule(every_s=600, shortest_s=60, longest_s=3600)
    now = 1000.0
    for gap, before, after in sweeps:
        now += gap
        s.swept(now, before, after)
        assert 60 <= s.every_s <= 3600
        # never due before the shortest wait, always due at the clock
        assert not s.due(now + 59, 10**12)
        assert s.due(now + s.every_s, 0)


def test_the_thresholds_leave_everything_but_young_collections_to_the_sweeper() -> None:
    young, middle, oldest = THRESHOLDS
    assert 700 <= young <= 10_000
    assert middle == oldest == NEVER == 2**31 - 1  # a C int's largest: gc takes it


def due_at_once() -> SweepSchedule:
    """A schedule that wants a sweep at every look (its clock stays at least ``shortest_s``)."""
    return SweepSchedule(
        last_at=time.monotonic(), blocks_after=sys.getallocatedblocks(), every_s=0, shortest_s=0
    )


class Knot:
    """An object in a reference cycle: only a collection of its generation frees it."""

    def __init__(self) -> None:
        self.me = self


def run_until_gone(sweeper: Sweeper, gone: weakref.ref[Knot]) -> Sweeper:
    """Run ``sweeper`` until the object behind ``gone`` is freed (10 s at most), then stop it."""
    sweeper.start()
    try:
        deadline = time.monotonic() + 10
        while gone() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        sweeper.stop()
    return sweeper


def test_the_sweeper_frees_a_cycle_that_young_collections_left_alone() -> None:
    thresholds = gc.get_threshold()
    gc.collect()
    try:
        gc.set_threshold(*THRESHOLDS)
        knot = Knot()
        gc.collect(0)  # the knot survives a young collection: in the middle generation now
        assert gc.is_tracked(knot) and knot in gc.get_objects(1)
        gone = weakref.ref(knot)
        del knot
        for _ in range(20):  # young collections no longer reach it
            gc.collect(0)
        assert gone() is not None
        sweeper = run_until_gone(Sweeper(due_at_once(), check_s=0.01), gone)
        assert gone() is None and sweeper.sweeps >= 1 and not sweeper.running
    finally:
        gc.set_threshold(*thresholds)


def test_the_sweeper_collects_young_objects_on_its_clock_between_sweeps() -> None:
    thresholds = gc.get_threshold()
    gc.collect()
    try:
        gc.set_threshold(10**6, NEVER, NEVER)  # no young collection of the collector's own
        knot = Knot()
        gone = weakref.ref(knot)
        del knot
        assert gone() is not None
        not_due = SweepSchedule(last_at=time.monotonic(), blocks_after=10**12, every_s=3600)
        sweeper = run_until_gone(Sweeper(not_due, check_s=0.01), gone)
        assert gone() is None and sweeper.sweeps == 0
    finally:
        gc.set_threshold(*thresholds)


def test_a_stopped_sweeper_sweeps_no_more() -> None:
    sweeper = Sweeper(due_at_once(), check_s=0.01).start()
    sweeper.stop()
    done = sweeper.sweeps
    time.sleep(0.05)
    assert sweeper.sweeps == done and not sweeper.running


@pytest.mark.parametrize("freed", [0.0, 0.5])
def test_a_sweep_records_what_it_left(freed: float) -> None:
    s = schedule()
    s.swept(1500, before=200_000, after=int(200_000 * (1 - freed)))
    assert s.last_at == 1500 and s.blocks_after == int(200_000 * (1 - freed))
    assert not s.due(1500 + 1, s.blocks_after)
