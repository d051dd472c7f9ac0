"""The event-log kernel both games' services use (``server/storage/event_log.py``)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from heartsuit.server.storage.db import MoveConflict
from heartsuit.server.storage.event_log import LiveCache, Locks, retry_conflicts


def test_a_lock_lives_while_held_or_kept_and_goes_after() -> None:
    async def run() -> None:
        locks = Locks()
        lock = locks("a")
        assert locks("a") is lock and "a" in locks
        async with lock:
            assert locks.held("a") and not locks.idle("a")
        locks.keep("a")
        assert locks.is_kept("a") and locks.idle("a")
        del lock
        gc.collect()
        assert "a" in locks  # kept: the copy in memory and its lock stay together
        locks.let_go("a")
        gc.collect()
        assert "a" not in locks and not locks.held("a") and not locks.idle("a")
        # an unknown key asked for once leaves nothing behind
        locks("nobody")
        gc.collect()
        assert "nobody" not in locks

    asyncio.run(run())


def test_keeping_a_key_without_a_lock_keeps_nothing() -> None:
    locks = Locks()
    locks.keep("a")
    assert not locks.is_kept("a") and "a" not in locks


def test_the_cache_keeps_the_most_recently_used_and_says_which_it_drops() -> None:
    dropped: list[str] = []
    cache: LiveCache[int] = LiveCache(2, dropped=dropped.append)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.touch("a")  # "b" is now the oldest
    cache.put("c", 3)
    assert list(cache) == ["a", "c"] and dropped == ["b"]
    assert cache["c"] == 3 and cache.get("b") is None and "b" not in cache
    cache.drop("a")
    cache.clear()
    assert len(cache) == 0 and dropped == ["b", "a", "c"]
    with pytest.raises(ValueError):
        LiveCache(0)


@pytest.mark.parametrize("failure", [MoveConflict("taken"), OSError("down"), "cancelled"])
def test_a_failed_write_drops_the_copy_that_already_moved(failure: object) -> None:
    async def run() -> None:
        cache: LiveCache[str] = LiveCache(4)
        cache.put("game", "moved")

        async def write() -> None:
            if failure == "cancelled":
                raise asyncio.CancelledError
            assert isinstance(failure, BaseException)
            raise failure

        with pytest.raises(BaseException):  # noqa: B017 - each kind of failure in turn
            await cache.written("game", write())
        assert "game" not in cache

        async def fine() -> str:
            return "logged"

        cache.put("game", "moved")
        assert await cache.written("game", fine()) == "logged"
        assert cache["game"] == "moved"

    asyncio.run(run())


def test_conflicts_are_caught_up_and_tried_again_a_few_times() -> None:
    async def run() -> None:
        tries: list[int] = []
        catch_ups: list[int] = []

        async def twice_taken() -> str:
            tries.append(len(tries))
            if len(tries) <= 2:
                raise MoveConflict("another writer first")
            return "done"

        async def caught_up() -> None:
            catch_ups.append(len(tries))

        assert await retry_conflicts(twice_taken, caught_up, attempts=3) == "done"
        assert tries == [0, 1, 2] and catch_ups == [1, 2]

        tries.clear()
        catch_ups.clear()
        assert await retry_conflicts(twice_taken, caught_up, attempts=2) is None
        assert catch_ups == [1, 2]  # caught up after the last too: the stale answer is fresh

        async def broken() -> str:
            raise OSError("not a conflict")

        with pytest.raises(OSError):
            await retry_conflicts(broken)

    asyncio.run(run())
