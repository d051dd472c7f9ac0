"""The bus of a site that runs as several processes: Redis publish/subscribe.

Chosen by ``REDIS_URL`` (see :mod:`heartsuit.server.core.settings`); without it the site uses the
in-process :class:`~heartsuit.server.core.bus.LocalBus`. Each process keeps one publish connection
and one subscribe connection. A socket that follows a channel gets a local bounded queue, as
with ``LocalBus``; the first local listener of a channel subscribes this process to it in
Redis and the last one to leave unsubscribes, so Redis sends a process only the notices of the
tables and players its own sockets follow.

What goes over Redis is :meth:`Notice.to_dict` as JSON: a notice's kind and a few ids and
numbers ("table T is at version v", "player P changed"), never a hidden card (DESIGN.md,
principle 3): the one card a notice may name is one just played face up, which every seat sees
at that version (``hearts_service.TableChanged``).
A message that is not a notice this server knows is logged and dropped.

Notices are hints to look again, so the bus is built to lose them rather than to stall: a slow
listener loses its oldest notices, and while Redis is unreachable a publish reaches only this
process's own listeners (logged), the reader reconnects with a growing pause, and Redis
subscribes it again to every channel it follows (redis-py does that on reconnect). The next
notice, or the client's next message, brings a fresh state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from heartsuit.server.core.bus import Direct, Notice, NoticeError, deliver

redis: Any
#: what the client raises when Redis cannot be reached or refuses (OSError without it)
_FAILURES: tuple[type[Exception], ...]
try:  # an optional extra: ``pip install 'heartsuit[redis]'``
    import redis.asyncio as redis
    from redis.exceptions import RedisError

    _FAILURES = (RedisError, OSError)
except ImportError:  # pragma: no cover - the dev extra installs it
    redis = None
    _FAILURES = (OSError,)

#: the same, for the other modules that talk to Redis
REDIS_FAILURES = _FAILURES

log = logging.getLogger(__name__)

#: every channel of this site in Redis starts with this (several sites may share one Redis)
PREFIX = "heartsuit:"


class RedisBusError(RuntimeError):
    """Redis cannot be used (the client library is missing, or the URL is wrong)."""


class RedisBus:
    """:class:`~heartsuit.server.core.bus.Bus` over Redis pub/sub; :meth:`start` it, then use it."""

    def __init__(self, url: str, queue_size: int = 64, *, prefix: str = PREFIX) -> None:
        if redis is None:
            raise RedisBusError(
                "REDIS_URL is set but the redis client is not installed: "
                "pip install 'heartsuit[redis]'"
            )
        try:
            self._redis: Any = redis.from_url(url)
        except ValueError as exc:
            raise RedisBusError(f"REDIS_URL is not a Redis URL: {exc}") from None
        self._pubsub: Any = self._redis.pubsub(ignore_subscribe_messages=True)
        self._prefix = prefix
        self._size = queue_size
        self._queues: dict[str, dict[asyncio.Queue[Notice], Direct | None]] = {}
        self._reader: asyncio.Task[None] | None = None
        #: notices dropped because they were not notices (for tests and logs)
        self.dropped = 0

    async def start(self) -> None:
        """Check that Redis answers, then start reading what it sends."""
        try:
            await self._redis.ping()
            await self._pubsub.subscribe(self._prefix + "control")
        except _FAILURES as exc:
            raise RedisBusError(f"Redis does not answer at REDIS_URL: {exc}") from None
        self._reader = asyncio.create_task(self._read(), name="redis-bus-reader")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        with contextlib.suppress(*_FAILURES):
            await self._pubsub.aclose()
        with contextlib.suppress(*_FAILURES):
            await self._redis.aclose()

    async def publish(self, channel: str, notice: Notice) -> None:
        payload = json.dumps(notice.to_dict(), separators=(",", ":"))
        try:
            await self._redis.publish(self._prefix + channel, payload)
        except _FAILURES as exc:
            log.warning("Redis unreachable, %s told only in this process: %s", channel, exc)
            self._deliver(channel, notice)

    @asynccontextmanager
    async def listen(
        self, channel: str, direct: Direct | None = None
    ) -> AsyncIterator[asyncio.Queue[Notice]]:
        """A queue that receives the channel's notices (from every process) while open
        (``direct``: as with :class:`~heartsuit.server.core.bus.LocalBus`)."""
        queue: asyncio.Queue[Notice] = asyncio.Queue(self._size)
        subscribers = self._queues.setdefault(channel, {})
        first = not subscribers
        subscribers[queue] = direct
        try:
            if first:
                await self._subscribe(channel)
            yield queue
        finally:
            subscribers = self._queues.get(channel, {})
            subscribers.pop(queue, None)
            if not subscribers:
                self._queues.pop(channel, None)
                await self._unsubscribe(channel)

    def subscriber_count(self, channel: str) -> int:
        return len(self._queues.get(channel, ()))

    async def _subscribe(self, channel: str) -> None:
        try:
            await self._pubsub.subscribe(self._prefix + channel)
        except _FAILURES as exc:
            # the reader's reconnect subscribes again to every channel asked for
            log.warning("Redis unreachable, subscribing to %s later: %s", channel, exc)

    async def _unsubscribe(self, channel: str) -> None:
        if channel in self._queues:  # someone listens again already
            return
        with contextlib.suppress(*_FAILURES):
            await self._pubsub.unsubscribe(self._prefix + channel)

    async def _read(self) -> None:
        pause = 0.05
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except _FAILURES as exc:
                log.warning("Redis bus reader: %s; trying again in %.1f s", exc, pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 5.0)
                continue
            pause = 0.05
            if message is None or message.get("type") != "message":
                continue
            self._dispatch(message["channel"], message["data"])

    def _dispatch(self, raw_channel: bytes | str, data: bytes | str) -> None:
        channel = raw_channel.decode() if isinstance(raw_channel, bytes) else raw_channel
        if not channel.startswith(self._prefix) or channel == self._prefix + "control":
            return
        try:
            loaded = json.loads(data)
            if not isinstance(loaded, dict):
                raise NoticeError("a notice is a JSON object")
            notice = Notice.from_dict(loaded)
        except (ValueError, NoticeError) as exc:
            self.dropped += 1
            log.warning("dropped a message on %s that is no notice: %s", channel, exc)
            return
        self._deliver(channel[len(self._prefix) :], notice)

    def _deliver(self, channel: str, notice: Notice) -> None:
        subscribers = self._queues.get(channel)
        if subscribers:
            deliver(subscribers, notice)
