"""The garbage collector's policy in a serving process (docs/site.md, "Garbage collection").

What a busy server allocates is mostly state that lives for minutes (a table's match, a
socket's wait for its next frame) and almost no cyclic garbage: at 1,000 busy Hearts tables a
full collection walks a million objects for 0.7 s and frees none. Python's generations walk
such survivors again and again, in the middle generation's collections (200-300 ms each, every
minute or so) and the full ones. So a serving process collects only its young objects, and
often (:data:`YOUNG_THRESHOLD`, and at least every :data:`YOUNG_EVERY_S`: each such pause a
few milliseconds); what survives a young collection is never walked again by the collector on
its own. It is still freed by its reference count the moment nothing holds it. For the rare
cycle among survivors, :class:`Sweeper` runs a full collection now and then
(:class:`SweepSchedule`): on a clock that stretches while sweeps find little, and sooner when
the heap has grown fourfold since the last one left it.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
import time
from dataclasses import dataclass

log = logging.getLogger("heartsuit.server")

#: young collections after this many new container objects (net of freed ones; Python's own is
#: 700): a few milliseconds each at 1,000 busy tables
YOUNG_THRESHOLD = 2_000

#: a young collection at least this often (seconds; see :class:`Sweeper`)
YOUNG_EVERY_S = 0.25

#: the middle and oldest generations' thresholds: never reached (a C int's largest), so only
#: a sweep walks what survived a young collection
NEVER = 2**31 - 1

#: the collector's thresholds in a serving process
THRESHOLDS = (YOUNG_THRESHOLD, NEVER, NEVER)


@dataclass
class SweepSchedule:
    """When the next full collection (a sweep) is due; times in seconds of a monotonic clock,
    the heap in :func:`sys.getallocatedblocks` blocks (cheap to read, unlike a count of the
    collector's objects, which walks them)."""

    #: when the last sweep ended (or the process settled)
    last_at: float
    #: the heap the last sweep left; ``None`` before the first: the heap of a process that has
    #: just started is no measure of its load (at 1,000 tables it grows sevenfold as they fill,
    #: and a sweep then walks a million live objects for a second and frees nothing)
    blocks_after: int | None = None
    #: a sweep this long after the last one in any case
    every_s: float = 3600.0
    #: the clock's bounds as it adapts (see :meth:`swept`)
    shortest_s: float = 60.0
    longest_s: float = 86_400.0
    #: a sweep sooner (but not within ``shortest_s`` of the last) once the heap has grown this
    #: many times over what the last sweep left
    growth: float = 4.0
    #: a sweep that frees less than this share of the heap doubles the clock (to ``longest_s``);
    #: one that frees more than ``busy`` halves it (to ``shortest_s``)
    idle: float = 0.05
    busy: float = 0.2

    def due(self, now: float, blocks: int) -> bool:
        """Whether to sweep now, with the heap at ``blocks``."""
        since = now - self.last_at
        if since >= self.every_s:
            return True
        if self.blocks_after is None:
            return False
        return since >= self.shortest_s and blocks >= self.growth * self.blocks_after

    def swept(self, now: float, before: int, after: int) -> None:
        """A sweep ended at ``now`` and took the heap from ``before`` to ``after`` blocks."""
        freed = (before - after) / before if before > 0 else 0.0
        if freed < self.idle:
            self.every_s = min(self.every_s * 2, self.longest_s)
        elif freed > self.busy:
            self.every_s = max(self.every_s / 2, self.shortest_s)
        self.last_at = now
        self.blocks_after = after


class Sweeper:
    """A daemon thread that, every ``check_s`` seconds, collects the young generation and
    sweeps when ``schedule`` says so. A collection holds the GIL while it walks, so the event
    loop waits for it; the schedule keeps sweeps rare.

    Why young collections on a clock too: the collector's count of new objects is net of the
    freed ones, old or young, so while old state is being freed (a match ending, a socket
    closing) the count hardly rises, and the young generation grows long between collections
    (at 1,000 tables after ten minutes, pauses of 40-76 ms instead of 5-15 ms). A young
    collection every ``check_s`` bounds it by what that many seconds leave alive."""

    def __init__(self, schedule: SweepSchedule, check_s: float = YOUNG_EVERY_S) -> None:
        self.schedule = schedule
        self.check_s = check_s
        self.sweeps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gc-sweeper", daemon=True)

    def start(self) -> Sweeper:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.check_s):
            before = sys.getallocatedblocks()
            if self.schedule.due(time.monotonic(), before):
                self.sweep(before)
            else:
                gc.collect(0)

    def sweep(self, before: int) -> None:
        started = time.perf_counter()
        found = gc.collect()
        took = time.perf_counter() - started
        after = sys.getallocatedblocks()
        self.schedule.swept(time.monotonic(), before, after)
        self.sweeps += 1
        log.info(
            "gc sweep: %d unreachable objects, heap %d -> %d blocks, %.0f ms; next within %.0f s",
            found,
            before,
            after,
            took * 1000,
            self.schedule.every_s,
        )


def settle() -> Sweeper:
    """Once a serving process is loaded: move what it allocated so far (modules, the app, its
    caches) out of the collector's sight for good (:func:`gc.freeze`), collect only young
    objects from now on (:data:`THRESHOLDS`), and start the :class:`Sweeper`."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    schedule = SweepSchedule(last_at=time.monotonic())
    return Sweeper(schedule).start()
