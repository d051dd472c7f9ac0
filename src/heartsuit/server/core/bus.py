"""The message bus between the server's sockets: who must hear that something changed.

A player may have a game open in two tabs, four people sit at one Hearts table, and in a
multi-process deployment those sockets may be held by different processes. So a service never
writes to another socket directly: it publishes a small typed :class:`Notice` on a channel
(``player:<id>``, later ``table:<id>``), and every socket following that channel rebuilds its
own view from the store or the engine. A notice only says "look again": it never carries a
card or anything else that not every listener may know (DESIGN.md, principle 3) — the one card
a notice may name is one just played face up, which every seat sees at that version
(``hearts_service.TableChanged``), so that another process need not read it from the log.

Notices are frozen dataclasses of plain fields, each kind registered by :func:`notice` under a
name, so that :meth:`Notice.to_dict` and :meth:`Notice.from_dict` can carry them over a wire.
:class:`LocalBus` is the embedded, in-process implementation; a Redis pub/sub implementation of
:class:`Bus` is the planned seam for several processes (DESIGN.md, "Growing past one machine").
"""

from __future__ import annotations

import asyncio
import logging
import typing
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Protocol, TypeVar

#: what a notice's fields may hold: enough to name a thing and its version, nothing more
NoticeValue = str | int | bool

#: a listener's way to take a notice at once, in the publisher's call, instead of through its
#: queue and the task that waits on it: True when it is done with the notice (answered it, or
#: found nothing to do), False to have it queued as usual. A bus asks it only while the
#: listener's queue is empty, so that it never overtakes a queued notice; it must neither wait
#: nor raise (an error is logged and the notice queued)
Direct = Callable[["Notice"], bool]

log = logging.getLogger("heartsuit.server")


class NoticeError(ValueError):
    """A notice that came over a wire and is not one this server knows."""


@dataclass(frozen=True, slots=True)
class Notice:
    """Something changed; the subclass says what (see :func:`notice`)."""

    kind: ClassVar[str] = ""

    def to_dict(self) -> dict[str, NoticeValue]:
        """The notice as a JSON object: ``{"kind": ..., field: value, ...}``."""
        data: dict[str, NoticeValue] = {"kind": self.kind}
        for field in fields(self):
            data[field.name] = getattr(self, field.name)
        return data

    @staticmethod
    def from_dict(data: Mapping[str, object]) -> Notice:
        """The notice a :meth:`to_dict` made; raises :class:`NoticeError` for anything else."""
        kind = data.get("kind")
        cls = _KINDS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise NoticeError(f"unknown notice kind {kind!r}")
        values: dict[str, Any] = {}
        for name, expected in _FIELD_TYPES[cls].items():
            if name not in data and name in _OPTIONAL[cls]:
                continue  # a field added later, with a default (a process of the version before)
            value = data.get(name)
            # bool is an int to isinstance; a field typed int must not accept True
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise NoticeError(f"{kind} notice: {name} must be {expected.__name__}")
            values[name] = value
        return cls(**values)


_KINDS: dict[str, type[Notice]] = {}
#: each registered kind's fields and their types (read once: get_type_hints is slow, and
#: every notice that comes over a wire is checked against them)
_FIELD_TYPES: dict[type[Notice], dict[str, type]] = {}
#: each registered kind's fields that have a default (they may be left out on the wire)
_OPTIONAL: dict[type[Notice], frozenset[str]] = {}
N = TypeVar("N", bound=type[Notice])


def _field_types(cls: type[Notice]) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    return {field.name: hints[field.name] for field in fields(cls)}


def notice(kind: str) -> Callable[[N], N]:
    """Register a notice class under ``kind`` (put it above ``@dataclass(frozen=True)``)."""

    def register(cls: N) -> N:
        if kind in _KINDS and _KINDS[kind] is not cls:
            raise ValueError(f"two notice classes are called {kind!r}")
        for name, value_type in _field_types(cls).items():
            if value_type not in (str, int, bool):
                raise TypeError(f"notice field {cls.__name__}.{name} must be str, int or bool")
        cls.kind = kind
        _KINDS[kind] = cls
        _FIELD_TYPES[cls] = _field_types(cls)
        _OPTIONAL[cls] = frozenset(f.name for f in fields(cls) if f.default is not MISSING)
        return cls

    return register


def notice_kinds() -> dict[str, type[Notice]]:
    """Every registered notice kind (for tests and for a bus that checks what it carries)."""
    return dict(_KINDS)


class Bus(Protocol):
    async def publish(self, channel: str, notice: Notice) -> None:
        """Tell every current listener of ``channel``; never blocks on a slow listener."""
        ...

    def listen(
        self, channel: str, direct: Direct | None = None
    ) -> AbstractAsyncContextManager[asyncio.Queue[Notice]]:
        """A queue of the channel's notices, for as long as the context is open (``direct``:
        first offered each notice that finds the queue empty)."""
        ...


def deliver(subscribers: dict[asyncio.Queue[Notice], Direct | None], notice: Notice) -> None:
    """Give ``notice`` to each subscriber: at once to one that is idle and takes it (its
    ``direct``), else into its bounded queue, whose oldest notice a full queue loses."""
    for queue, direct in tuple(subscribers.items()):
        if direct is not None and queue.empty():
            try:
                if direct(notice):
                    continue
            except Exception:
                log.exception("a listener failed to take a notice at once; queued instead")
        if queue.full():
            queue.get_nowait()
        queue.put_nowait(notice)


class LocalBus:
    """An in-process bus: each subscriber has a bounded queue; a slow one loses old notices.

    Losing a notice is harmless by design: notices only say "look again", and the next one
    (or the next reply) carries the fresh state anyway. Notices are frozen, so every listener
    may share the one object.

    A listener that gives a ``direct`` callable is offered each notice that finds its queue
    empty inside :meth:`publish` itself (see :data:`Direct`): a socket that can answer at once
    does so without a queue, a task wake-up and the coroutines they keep alive.
    """

    def __init__(self, queue_size: int = 64) -> None:
        self._queues: dict[str, dict[asyncio.Queue[Notice], Direct | None]] = {}
        self._size = queue_size

    async def publish(self, channel: str, notice: Notice) -> None:
        subscribers = self._queues.get(channel)
        if subscribers:
            deliver(subscribers, notice)

    @asynccontextmanager
    async def listen(
        self, channel: str, direct: Direct | None = None
    ) -> AsyncIterator[asyncio.Queue[Notice]]:
        """A queue that receives the channel's notices while the context is open."""
        queue: asyncio.Queue[Notice] = asyncio.Queue(self._size)
        self._queues.setdefault(channel, {})[queue] = direct
        try:
            yield queue
        finally:
            subscribers = self._queues.get(channel)
            if subscribers is not None:
                subscribers.pop(queue, None)
                if not subscribers:
                    del self._queues[channel]

    def subscriber_count(self, channel: str) -> int:
        return len(self._queues.get(channel, ()))
