"""The garbage collector's policy of a serving process (heartsuit.server.collector): survivors of
a young collection are frozen, frozen cyclic garbage waits for a sweep, a sweep comes when the
heap has grown by the given fraction, the tick makes young collections, and the site's lifespan
ticks when (and only when) ``heartsuit serve`` installed the policy. Each test gives the process
back to Python's collector as it found it."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from heartsuit.server import collector
from heartsuit.server.collector import OLD_THRESHOLD, Collector
from tests.server_support import running_site

#: no young collection starts by itself during a test (each is started by the test)
NEVER = 10**9


class Node:
    """Something a cycle can be made of, and watched through a weak reference."""

    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def policy() -> Iterator[Collector]:
    thresholds = gc.get_threshold()
    installed = collector.install(Collector(young_threshold=NEVER, tick_s=3600))
    try:
        yield installed
    finally:
        collector.uninstall()
        assert gc.get_threshold() == thresholds
        assert installed._after not in gc.callbacks


def _in_generations(obj: object) -> bool:
    return any(o is obj for generation in range(3) for o in gc.get_objects(generation))


def _cycle() -> tuple[Node, weakref.ref[Node], weakref.ref[Node]]:
    """Two nodes that refer to each other: the first (the only strong reference), and a weak
    reference to each."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a), weakref.ref(b)


def test_install_freezes_what_exists_and_takes_over_the_thresholds(policy: Collector) -> None:
    assert collector.installed() is policy and policy.installed
    assert gc.get_threshold() == (NEVER, OLD_THRESHOLD, OLD_THRESHOLD)
    assert gc.get_freeze_count() > 0
    assert policy.swept_at > 0


def test_what_survives_a_young_collection_is_walked_no_more(policy: Collector) -> None:
    kept = [[n] for n in range(200)]
    assert _in_generations(kept[0])
    young = policy.young
    gc.collect(0)
    assert policy.young == young + 1
    # still tracked and alive, but in no generation a later collection walks
    assert gc.is_tracked(kept[0]) and not _in_generations(kept[0])
    assert not any(_in_generations(item) for item in kept[::20])


def test_a_frozen_cycle_waits_for_the_sweep(policy: Collector) -> None:
    held, first, second = _cycle()
    gc.collect(0)  # alive then: frozen with the rest
    del held
    assert first() is not None
    gc.collect(0)  # garbage now, but frozen: young collections never look at it
    gc.collect(1)
    assert first() is not None and second() is not None
    found = policy.sweep()
    assert first() is None and second() is None
    assert found >= 2 and policy.sweeps == 1
    # after the sweep everything that lives is frozen again
    survivor = [[1]]
    assert not _in_generations(policy) and _in_generations(survivor)


def test_a_cycle_that_dies_young_goes_at_the_next_young_collection(policy: Collector) -> None:
    held, first, _ = _cycle()
    del held
    assert first() is not None
    assert gc.collect(0) >= 2
    assert first() is None and policy.sweeps == 0


def test_a_sweep_comes_when_the_heap_has_grown_by_the_fraction(policy: Collector) -> None:
    policy.sweep_growth = 0.05
    policy.swept_at = sys.getallocatedblocks()
    policy.tick()
    assert policy.sweeps == 0
    # two blocks or more each (a list, its items, an int): the heap grows by a fifth or more
    grown = [[n + 1000] for n in range(sys.getallocatedblocks() // 10)]
    assert policy.sweep_due()
    policy.tick()
    assert policy.sweeps == 1 and not policy.sweep_due()
    assert policy.swept_at >= sys.getallocatedblocks() - 1000
    del grown


def test_the_tick_makes_a_young_collection_only_when_none_came_for_a_while(
    policy: Collector,
) -> None:
    young = policy.young
    policy.tick()  # one just came (the install)
    assert policy.young == young
    policy.tick_s = 0.0
    policy.tick()
    assert policy.young == young + 1
    policy.tick_s = 3600
    policy.tick()
    assert policy.young == young + 1


def test_run_ticks_until_cancelled(policy: Collector) -> None:
    policy.tick_s = 0.01

    async def main() -> int:
        task = asyncio.create_task(policy.run())
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        stopped = policy.young
        await asyncio.sleep(0.05)
        assert policy.young == stopped
        return stopped

    assert asyncio.run(main()) >= 3


def test_the_site_ticks_only_under_the_policy(tmp_path: Path) -> None:
    with running_site(tmp_path / "plain.sqlite3"):
        assert collector.installed() is None  # a site made by tests and tools has none
    policy = collector.install(Collector(young_threshold=NEVER, tick_s=0.01))
    try:
        with running_site(tmp_path / "served.sqlite3"):
            start = policy.young
            deadline = time.monotonic() + 5
            while policy.young < start + 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert policy.young >= start + 3
        stopped = policy.young
        time.sleep(0.1)
        assert policy.young == stopped  # the tick ended with the site
    finally:
        collector.uninstall()
