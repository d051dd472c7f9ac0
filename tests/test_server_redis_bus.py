"""The Redis bus between processes, against a real Redis (``HEARTSUIT_TEST_REDIS``; ``./dev test``
starts a throwaway ``redis-server``). Two :class:`RedisBus` objects on one Redis stand for two
processes: a notice published by one reaches the listeners of the other, only the channels
someone follows are subscribed, what is not a notice is dropped, a slow listener loses old
notices, and a publish while Redis is unreachable still reaches this process's listeners.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from heartsuit.server.core.bus import Notice, notice_kinds
from heartsuit.server.core.redis_bus import PREFIX, RedisBus, RedisBusError
from heartsuit.server.core.settings import Settings, SettingsError
from heartsuit.server.hearts.service import TableChanged
from heartsuit.server.players.service import PlayerChanged
from heartsuit.server.solitaire.service import GameChanged

REDIS_URL = os.environ.get("HEARTSUIT_TEST_REDIS", "")
needs_redis = pytest.mark.skipif(not REDIS_URL, reason="set HEARTSUIT_TEST_REDIS to a redis URL")


def run(check: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(check(), 30))


@asynccontextmanager
async def bus(prefix: str) -> AsyncIterator[RedisBus]:
    one = RedisBus(REDIS_URL, queue_size=4, prefix=prefix)
    await one.start()
    try:
        yield one
    finally:
        await one.close()


def fresh_prefix() -> str:
    # each test has channels of its own, even on a Redis shared with other runs
    return f"test-{secrets.token_hex(4)}:"


async def next_notice(queue: asyncio.Queue[Notice]) -> Notice:
    return await asyncio.wait_for(queue.get(), 5)


async def subscribed(raw: RedisBus, channel: str) -> int:
    counts = await raw._redis.pubsub_numsub(channel)
    return int(counts[0][1])


@needs_redis
def test_a_notice_reaches_the_listeners_of_another_process() -> None:
    async def check() -> None:
        prefix = fresh_prefix()
        async with (
            bus(prefix) as one,
            bus(prefix) as two,
            two.listen("table:t1") as queue,
            one.listen("table:t1") as own,
        ):
            sent = TableChanged("t1", 7, False)
            await one.publish("table:t1", sent)
            assert await next_notice(queue) == sent
            assert await next_notice(own) == sent  # the publisher's own listeners too
            await one.publish("player:p", PlayerChanged("p"))
            await one.publish("table:t1", TableChanged("t1", 8, True))
            assert await next_notice(queue) == TableChanged("t1", 8, True)
            assert queue.empty()

    run(check)


@needs_redis
def test_only_followed_channels_are_subscribed_in_redis() -> None:
    async def check() -> None:
        prefix = fresh_prefix()
        async with bus(prefix) as one:
            channel = prefix + "table:t2"
            assert await subscribed(one, channel) == 0
            async with one.listen("table:t2"), one.listen("table:t2"):
                assert await subscribed(one, channel) == 1
                assert one.subscriber_count("table:t2") == 2
            await asyncio.sleep(0.05)
            assert await subscribed(one, channel) == 0

    run(check)


@needs_redis
def test_what_is_not_a_notice_is_dropped_and_the_bus_goes_on() -> None:
    async def check() -> None:
        prefix = fresh_prefix()
        async with bus(prefix) as one, one.listen("table:t3") as queue:
            for junk in ['{"kind":"card","seat":1}', "[1,2]", "not json", '{"kind":"table"}']:
                await one._redis.publish(prefix + "table:t3", junk)
            await one.publish("table:t3", TableChanged("t3", 1, False))
            assert await next_notice(queue) == TableChanged("t3", 1, False)
            assert one.dropped == 4

    run(check)


@needs_redis
def test_a_slow_listener_loses_its_oldest_notices() -> None:
    async def check() -> None:
        prefix = fresh_prefix()
        async with bus(prefix) as one, one.listen("table:t4") as queue:
            for version in range(10):
                await one.publish("table:t4", TableChanged("t4", version, False))
            await asyncio.sleep(0.2)
            got = [queue.get_nowait() for _ in range(queue.qsize())]
            assert [n.version for n in got if isinstance(n, TableChanged)] == [6, 7, 8, 9]

    run(check)


def test_a_publish_without_redis_still_reaches_this_process() -> None:
    async def check() -> None:
        # a port where nothing listens: Redis is down
        one = RedisBus("redis://127.0.0.1:9/0", prefix=fresh_prefix())
        with pytest.raises(RedisBusError):
            await one.start()
        async with one.listen("table:t5") as queue:
            await one.publish("table:t5", TableChanged("t5", 3, False))
            assert queue.get_nowait() == TableChanged("t5", 3, False)
        await one.close()

    run(check)


def test_notices_carry_no_card() -> None:
    """Every kind of notice a bus may carry over Redis holds ids, versions and flags only, but
    one: a table's change may name the card just played face up (which every seat sees at that
    version; tests/test_server_processes.py checks each one against the log)."""
    assert GameChanged.kind in notice_kinds()
    # the site's own notices (a test module may register one of its own)
    site = {k: c for k, c in notice_kinds().items() if c.__module__.startswith("heartsuit.")}
    for kind, cls in site.items():
        for name in (field.name for field in dataclasses.fields(cls)):
            # ("seat" is a seat's number, "by" the id of the process that took a seat over)
            allowed = {"table", "version", "presence", "player", "game", "log_length", "seat", "by"}
            if kind == "hearts.table_changed":
                allowed |= {"card", "at_ms"}
            assert name in allowed, (
                kind,
                name,
            )


def test_a_bad_redis_url_is_refused() -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({"REDIS_URL": "http://example.org"})
    with pytest.raises(RedisBusError):
        RedisBus("redis://:bad port")
    assert Settings.from_env({"REDIS_URL": " redis://127.0.0.1:6379/0 "}).redis_url == (
        "redis://127.0.0.1:6379/0"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start_redis(port: int, where: Path) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [
            *("redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(where)),
            *("--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
    )
    for _ in range(100):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.1):
            return server
        time.sleep(0.05)
    server.kill()
    raise RuntimeError("redis-server did not start")


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs Debian's redis-server")
def test_the_bus_follows_its_channels_again_after_redis_restarts(tmp_path: Path) -> None:
    port = _free_port()
    url = f"redis://127.0.0.1:{port}/0"
    server = _start_redis(port, tmp_path)

    async def check() -> None:
        nonlocal server
        one = RedisBus(url)
        await one.start()
        try:
            async with one.listen("table:t6") as queue:
                server.kill()
                server.wait()
                # Redis is gone: this process's own listeners still hear
                await one.publish("table:t6", TableChanged("t6", 1, False))
                assert await next_notice(queue) == TableChanged("t6", 1, False)
                server = _start_redis(port, tmp_path)
                # another process publishes once the reader is back and subscribed again
                async with bus_at(url) as two:
                    for _ in range(100):
                        if await subscribed(two, PREFIX + "table:t6"):
                            break
                        await asyncio.sleep(0.1)
                    await two.publish("table:t6", TableChanged("t6", 2, False))
                    assert await next_notice(queue) == TableChanged("t6", 2, False)
        finally:
            await one.close()

    try:
        run(check)
    finally:
        server.kill()
        server.wait()


@asynccontextmanager
async def bus_at(url: str) -> AsyncIterator[RedisBus]:
    one = RedisBus(url)
    await one.start()
    try:
        yield one
    finally:
        await one.close()


@needs_redis
def test_a_notice_from_another_process_is_offered_to_an_idle_listener_first() -> None:
    async def check() -> None:
        prefix = fresh_prefix()
        taken: list[Notice] = []
        accept = [True]

        def direct(notice: Notice) -> bool:
            taken.append(notice)
            return accept[0]

        async with bus(prefix) as one, bus(prefix) as two, two.listen("table:t9", direct) as q:
            await one.publish("table:t9", TableChanged("t9", 1, False))
            for _ in range(500):
                if taken:
                    break
                await asyncio.sleep(0.01)
            assert taken == [TableChanged("t9", 1, False)] and q.empty()
            accept[0] = False
            await one.publish("table:t9", TableChanged("t9", 2, False))
            assert await next_notice(q) == TableChanged("t9", 2, False)  # declined: queued
            assert taken[-1] == TableChanged("t9", 2, False)

    run(check)
