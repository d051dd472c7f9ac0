"""How a serving process uses Python's garbage collector: each object is walked once while
young, then set aside until the heap has grown by a quarter.

Python's collector is generational: a young collection walks what was made since the last
one, and what survives it is walked again by each collection of the older generations. A busy
game server is made of objects that live seconds: each table's newest state, each socket's
wait for its next frame, the finished tricks of a hand. Every collection of the middle
generation finds tens of thousands of them alive and frees nothing, and at 1,000 busy tables
each such pause took 60-300 ms (docs/bench-hearts.md, "Session 12"). What this server makes
is almost never cyclic garbage: in a run of 600 tables, 556 young collections freed nothing
at all.

So, once :meth:`Collector.install` has run (``heartsuit serve`` does it after start-up):

* young collections come after 1,000 new container objects (:data:`YOUNG_THRESHOLD`), and at
  least every :data:`TICK_S` (:meth:`Collector.run`, in the event loop): a steady server frees
  about as much as it makes, so the count that starts a young collection may rise slowly while
  the young generation fills up with objects made long ago; the tick keeps each young
  collection small;
* after each young collection, what survived it is frozen (:func:`gc.freeze`): no later
  collection walks it again; it is still freed as usual when its last reference goes;
* cyclic garbage among frozen objects is freed by a sweep (all of the heap unfrozen, one full
  collection, all frozen again) once the heap has grown by :data:`SWEEP_GROWTH` (a quarter)
  since the last sweep, in memory blocks (:func:`sys.getallocatedblocks`, which costs a
  fraction of a millisecond where counting the frozen objects walks them all): about the rule
  of Python's own collector for its full collections, so what waits for a sweep is bounded
  much as it is there. A sweep walks the whole heap (about 1 s for 700,000 objects on a slow
  machine): it comes while tables are being set up, and hardly ever on a server whose load is
  steady.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from typing import Any

#: a young collection after this many new container objects (Python's own: 700)
YOUNG_THRESHOLD = 1_000
#: the middle and oldest generations are always empty once survivors are frozen: their
#: thresholds only keep Python from starting collections of them that would walk nothing
OLD_THRESHOLD = 1_000_000
#: a young collection at least this often (seconds) while the event loop runs
TICK_S = 0.2
#: a sweep once the heap's memory blocks are this much more (a fraction) than after the last
SWEEP_GROWTH = 0.25


class Collector:
    """The collector's policy of one serving process (see the module)."""

    def __init__(
        self,
        young_threshold: int = YOUNG_THRESHOLD,
        tick_s: float = TICK_S,
        sweep_growth: float = SWEEP_GROWTH,
    ) -> None:
        self.young_threshold = young_threshold
        self.tick_s = tick_s
        self.sweep_growth = sweep_growth
        #: the heap's memory blocks after the last sweep (or the install)
        self.swept_at = 0
        #: the young collections and the sweeps made since the install
        self.young = 0
        self.sweeps = 0
        #: when the last young collection ended (time.monotonic)
        self.last_young = 0.0
        self._sweeping = False
        self._saved: tuple[int, int, int] | None = None

    # --- the process ------------------------------------------------------------------------

    def install(self) -> None:
        """Collect once, freeze everything made so far, and take over from Python's thresholds."""
        self._saved = gc.get_threshold()
        gc.collect()
        gc.freeze()
        self.swept_at = sys.getallocatedblocks()
        self.last_young = time.monotonic()
        gc.callbacks.append(self._after)
        gc.set_threshold(self.young_threshold, OLD_THRESHOLD, OLD_THRESHOLD)

    def uninstall(self) -> None:
        """Give the process back to Python's collector as it was (everything unfrozen)."""
        if self._after in gc.callbacks:
            gc.callbacks.remove(self._after)
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
        gc.unfreeze()

    @property
    def installed(self) -> bool:
        return self._saved is not None

    def _after(self, phase: str, info: dict[str, Any]) -> None:
        # called by the collector around each collection, in whichever thread started it
        if phase != "stop" or self._sweeping:
            return
        # what survived is walked no more (a full collection leaves everything frozen too)
        gc.freeze()
        self.young += 1
        self.last_young = time.monotonic()

    # --- the event loop ---------------------------------------------------------------------

    def sweep_due(self) -> bool:
        return sys.getallocatedblocks() > self.swept_at * (1 + self.sweep_growth)

    def sweep(self) -> int:
        """Unfreeze everything, collect it all once and freeze what lives; returns how many
        objects the collection found unreachable."""
        self._sweeping = True
        try:
            gc.unfreeze()
            found = gc.collect()
            gc.freeze()
        finally:
            self._sweeping = False
        self.swept_at = sys.getallocatedblocks()
        self.sweeps += 1
        return found

    def tick(self) -> None:
        """A sweep when one is due, else a young collection when none came for ``tick_s``."""
        if self.sweep_due():
            self.sweep()
        elif time.monotonic() - self.last_young >= self.tick_s:
            gc.collect(0)

    async def run(self) -> None:
        """Tick every ``tick_s`` until cancelled (the site's lifespan runs it)."""
        while True:
            await asyncio.sleep(self.tick_s)
            self.tick()


#: the process's collector once ``heartsuit serve`` installed it (None in tests and tools)
_installed: Collector | None = None


def install(collector: Collector | None = None) -> Collector:
    """Install ``collector`` (a default one if None) as this process's policy."""
    global _installed
    if _installed is not None:
        _installed.uninstall()
    chosen = collector or Collector()
    chosen.install()
    _installed = chosen
    return chosen


def installed() -> Collector | None:
    """The process's collector, if ``heartsuit serve`` installed one."""
    return _installed


def uninstall() -> None:
    global _installed
    if _installed is not None:
        _installed.uninstall()
        _installed = None
