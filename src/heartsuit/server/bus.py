"""The message bus between the server's sockets: who must hear that something changed.

A player may have the game open in two tabs, and in a multi-process deployment those tabs may
be held by different processes. So the service never writes to another socket directly: it
publishes a small notice on a channel (``player:<id>``), and every socket subscribed to that
channel rebuilds its own view from the store or the engine. :class:`LocalBus` is the embedded,
in-process implementation; a Redis pub/sub implementation of :class:`Bus` is the planned seam
for several processes (DESIGN.md, "Growing past one machine").
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

Notice = Mapping[str, str]


class Bus(Protocol):
    async def publish(self, channel: str, notice: Notice) -> None:
        """Tell every current listener of ``channel``; never blocks on a slow listener."""
        ...

    def listen(self, channel: str) -> AbstractAsyncContextManager[asyncio.Queue[Notice]]:
        """A queue of the channel's notices, for as long as the context is open."""
        ...


class LocalBus:
    """An in-process bus: each subscriber has a bounded queue; a slow one loses old notices.

    Losing a notice is harmless by design: notices only say "look again", and the next one
    (or the next reply) carries the fresh state anyway.
    """

    def __init__(self, queue_size: int = 64) -> None:
        self._queues: dict[str, set[asyncio.Queue[Notice]]] = {}
        self._size = queue_size

    async def publish(self, channel: str, notice: Notice) -> None:
        for queue in tuple(self._queues.get(channel, ())):
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(dict(notice))

    @asynccontextmanager
    async def listen(self, channel: str) -> AsyncIterator[asyncio.Queue[Notice]]:
        """A queue that receives the channel's notices while the context is open."""
        queue: asyncio.Queue[Notice] = asyncio.Queue(self._size)
        self._queues.setdefault(channel, set()).add(queue)
        try:
            yield queue
        finally:
            subscribers = self._queues.get(channel)
            if subscribers is not None:
                subscribers.discard(queue)
                if not subscribers:
                    del self._queues[channel]

    def subscriber_count(self, channel: str) -> int:
        return len(self._queues.get(channel, ()))
