"""Where the computer players of Hearts tables think: a pool of worker processes.

The serving thread never thinks for a computer (DESIGN.md): a search holds the GIL for
milliseconds (``normal``) to tens of milliseconds (``hard``, as Python modules up to a tenth
of a second and more), and every socket of the process would wait behind it. So a decision
is sent to a :class:`ThinkingPool`, a :class:`concurrent.futures.ProcessPoolExecutor` sized
from the cores, and awaited there while the event loop serves everyone else. What crosses
into a worker is what :func:`heartsuit.hearts.driver.decide` takes: the seat's view (pickled
as a plain :class:`~heartsuit.hearts.view.SeatView`: the seat's own cards and public facts,
never the match, which holds every hand), the level and the seed; the action comes back. The service
calls it under the table's lock, as it did a thread, so nothing changes the match meanwhile, and
the seed is still derived from (table, version, seat) by the service, so the pool makes the
choice the in-process path makes.

- Processes, not threads: a thread of this process would hold its GIL while it searches.
- The workers come from a ``forkserver`` (``spawn`` where there is none), never ``fork``: this
  process has an event loop and threads, which a forked child would inherit half-way through.
  They are started and warmed (imports, one decision) when the service starts, so the first
  decision costs what the others do; they run at a lower CPU priority than the serving process
  (nice +10: on busy cores the serving thread goes first), ignore SIGINT (the server stops
  them) and leave by themselves when the serving process is gone (killed outright, say: the
  forkserver would not leave while its workers live).
- A worker that dies (killed, out of memory, a crash) breaks the whole pool: every decision in
  flight fails with :class:`BrokenProcessPool`. The first to see it replaces the pool, and each
  decision is tried again, up to :data:`ATTEMPTS` times; after that :class:`ThinkerLost` is
  raised and the service lets the ``easy`` level play, as it does for a bot's bug.
- The cheap levels (:data:`IN_PROCESS_LEVELS`) are decided here at once: an ``easy`` decision
  costs about 0.05 ms, a round trip to a worker about 0.3 ms of this process's CPU (measured,
  docs/site.md, "Computer players think in a pool of processes").
- ``workers=0``: no pool; decisions run in a thread of this process, as before the pool (the
  tests' apps, and a machine where processes cannot be started).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any, Final

import anyio

from heartsuit.hearts.actions import Action
from heartsuit.hearts.driver import decide
from heartsuit.hearts.view import SeatView

__all__ = [
    "ATTEMPTS",
    "IN_PROCESS_LEVELS",
    "Think",
    "ThinkerLost",
    "ThinkingPool",
]

log = logging.getLogger("heartsuit.server.hearts")

#: what a worker runs: (view, level, seed) -> action; a module-level function (or a partial of
#: one), since it is pickled by name
Think = Callable[[SeatView, str, int], Action]

#: how many times a decision is tried when workers keep dying under it
ATTEMPTS: Final = 3
#: levels decided in this process at once: cheaper than the round trip to a worker
IN_PROCESS_LEVELS: Final = frozenset({"easy"})
#: how long a stopping pool waits for a decision in flight before it terminates the worker
STOP_GRACE_S: Final = 2.0
#: how much lower a worker's CPU priority is than the serving process's: when the cores are
#: all busy, the kernel gives the serving thread its turn first, so a person's action still
#: does not wait behind a search (as on a machine shared with other work)
WORKER_NICE: Final = 10
#: how often a worker checks that the serving process that started it is still there
ORPHAN_CHECK_S: Final = 1.0


class ThinkerLost(RuntimeError):
    """Workers died under the same decision :data:`ATTEMPTS` times (or the pool is stopped)."""


def _context() -> BaseContext:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        # the forkserver imports the engine once; each worker forked from it starts loaded
        context.set_forkserver_preload(["heartsuit.server.hearts.thinking_pool"])
        return context
    return multiprocessing.get_context("spawn")


def _worker_start(nice: int, server: int, born: str | None) -> None:
    """A worker's initializer: ignore the terminal's Ctrl-C (the server stops its workers
    itself), yield the CPU to the serving process (:data:`WORKER_NICE`), leave when the serving
    process ``server`` (started at ``born``) is gone, and take one decision so that the first
    real one is not slower than the rest."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)

    def watch() -> None:
        # the server, not this worker's parent: a forkserver outlives the server as long as
        # its workers hold their end of its pipe, so a worker must not wait for it to go
        while True:
            time.sleep(ORPHAN_CHECK_S)
            if _birth(server) != born:
                os._exit(0)

    threading.Thread(target=watch, name="orphan watch", daemon=True).start()
    _warm()


def _birth(pid: int) -> str | None:
    """When process ``pid`` started (``/proc``'s start time; ``""`` where there is no /proc),
    or None once it is gone or a zombie: a pid used again by another process reads otherwise."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        if Path("/proc/self/stat").exists():
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except OSError:
            pass
        return ""
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


def _warm() -> None:
    from heartsuit.hearts import Match, Rules

    match = Match.new(Rules(), seed=1)
    decide(match.view(0), "normal", 1)


def _ready() -> int:
    """A task that keeps its worker busy a moment, so that each warm-up lands on its own."""
    time.sleep(0.05)
    return os.getpid()


class ThinkingPool:
    """The computer players' decisions, in ``workers`` processes (0: a thread of this one).

    :meth:`start` before the first decision (the service's start), :meth:`stop` at the end
    (its stop). ``think`` is what a worker runs (tests give one that dies or sleeps); ``nice``
    how much lower the workers' CPU priority is (default :data:`WORKER_NICE`)."""

    def __init__(self, workers: int, *, think: Think = decide, nice: int | None = None) -> None:
        if workers < 0:
            raise ValueError(f"a pool of {workers} workers")
        self.workers = workers
        self.think = think
        self.nice = WORKER_NICE if nice is None else nice
        self._pool: ProcessPoolExecutor | None = None
        self._context = _context() if workers else None
        #: pools replaced because a worker died (for tests and logs)
        self.replaced = 0
        self._stopped = False

    # ------------------------------------------------------------------ lifetime

    async def start(self) -> None:
        """Start the workers and wait until each is warm."""
        self._stopped = False
        if self.workers and self._pool is None:
            self._pool = self._new_pool()
            await asyncio.gather(*(asyncio.wrap_future(f) for f in self._warm_up(self._pool)))

    async def stop(self) -> None:
        """Stop the workers: a decision in flight gets :data:`STOP_GRACE_S` to end, then its
        worker is terminated; never hangs."""
        self._stopped = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(_shut, pool)

    def pids(self) -> list[int]:
        """The workers' process ids (for tests)."""
        return sorted(_processes(self._pool)) if self._pool is not None else []

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            self.workers,
            mp_context=self._context,
            initializer=_worker_start,
            initargs=(self.nice, os.getpid(), _birth(os.getpid())),
        )

    def _warm_up(self, pool: ProcessPoolExecutor) -> list[Future[int]]:
        # submitted together, each finds no idle worker and starts one (workers are started on
        # demand, up to the pool's size)
        return [pool.submit(_ready) for _ in range(self.workers)]

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        if self._pool is not broken or self._stopped:
            return  # another decision replaced it already
        self.replaced += 1
        log.warning("a computer players' worker process died; starting the pool again")
        self._pool = self._new_pool()
        self._warm_up(self._pool)
        threading.Thread(target=_shut, args=(broken,), name="old pool", daemon=True).start()

    # ------------------------------------------------------------------ decisions

    async def decide(self, view: SeatView, level: str, seed: int) -> Action:
        """What the computer at ``level`` does from ``view`` with ``seed``: the choice of
        :func:`heartsuit.hearts.driver.decide`, made in a worker (or in this process for the
        cheap levels, or in a thread without workers). :class:`~heartsuit.hearts.driver.BotError`
        and the bot's other errors come through as they are."""
        if level in IN_PROCESS_LEVELS:
            return self.think(view, level, seed)
        if not self.workers:
            return await anyio.to_thread.run_sync(self.think, view, level, seed)
        for attempt in range(1, ATTEMPTS + 1):
            pool = self._pool
            if pool is None or self._stopped:
                raise ThinkerLost("the computer players' pool is stopped")
            try:
                future = pool.submit(_run, self.think, view, level, seed)
                return await asyncio.wrap_future(future)
            except BrokenProcessPool:
                log.warning(
                    "a %s decision lost its worker (attempt %d of %d)", level, attempt, ATTEMPTS
                )
                self._replace(pool)
        raise ThinkerLost(f"workers died {ATTEMPTS} times under one {level} decision")


def _run(think: Think, view: SeatView, level: str, seed: int) -> Action:
    """In a worker: ``think``, with an error that would not unpickle here (one whose
    constructor takes other arguments than its message) sent back as a RuntimeError: a result
    that fails to unpickle would break the whole pool."""
    try:
        return think(view, level, seed)
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None
        raise


def _processes(pool: ProcessPoolExecutor | None) -> dict[int, Any]:
    # the executor's own table of its processes (no public accessor before Python 3.14)
    found = getattr(pool, "_processes", None) if pool is not None else None
    return dict(found) if found else {}


def _shut(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down without waiting on a worker for longer than :data:`STOP_GRACE_S`."""
    processes = list(_processes(pool).values())
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + STOP_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            log.warning("a computer players' worker did not stop: terminating it")
            process.terminate()
            process.join(1.0)
            if process.is_alive():
                process.kill()
                process.join(1.0)
