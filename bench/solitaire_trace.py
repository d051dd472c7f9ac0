"""``heartsuit serve`` with a trace of what can stall a tap, for ``solitaire_load.py --trace``.

Not a bench by itself: ``solitaire_load.py --trace DIR`` starts the server through this module
instead of ``python -m heartsuit``. It records, in wall-clock seconds, until the server stops:

* every garbage collection (``gc.callbacks``): when, which generation, how long;
* every group-commit batch (on a SQLite file ``_BatchWriter._write``, timed in the writer
  thread; else ``Database._write_batch``): when, how many writes, how long, and how much of
  that was the statements and how much the commit;
* the event loop's lag: a task that sleeps 5 ms notes each wake-up later than 5 ms more;

and writes them as JSON to ``$HEARTSUIT_TRACE`` when the server stops (as its database
closes). ``$HEARTSUIT_TRACE_TRY`` tries what the site does not do (comma-separated):
``gc-freeze`` (``gc.freeze()`` once the database is open), ``gc-off`` (no cyclic garbage
collection at all), ``no-autocheckpoint`` (no WAL checkpoint inside commits),
``autocheckpoint=N`` (the automatic checkpoint after N pages of WAL instead of 1,000),
``switch=MS`` (``sys.setswitchinterval``: how long a thread that wants the GIL waits before
it asks the running one to let go, 5 ms by default; the writer thread asks for it back after
each statement of a batch). The load bench then matches its slow taps to them
(:func:`explain`).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

#: what was seen: lists of tuples, written as JSON at exit
TRACE: dict[str, list[Any]] = {"gc": [], "batches": [], "lag": [], "heap": []}
#: set by a full collection: the lag task then counts what the collector tracks, once
_COUNT_HEAP: list[bool] = []


def _install() -> None:
    from heartsuit.server.storage import batch_writer, db, statements
    from heartsuit.server.storage import sqlite as sqlite_setup

    trying = set(filter(None, os.environ.get("HEARTSUIT_TRACE_TRY", "").split(",")))
    pages = next((t.split("=", 1)[1] for t in trying if t.startswith("autocheckpoint=")), "")
    if pages:
        # SQLite's automatic checkpoint after this many WAL pages instead of 1,000
        set_pragmas = sqlite_setup.pragmas

        def with_pages(dbapi_connection: Any, record: Any) -> None:
            set_pragmas(dbapi_connection, record)
            dbapi_connection.execute(f"PRAGMA wal_autocheckpoint={int(pages)}")

        sqlite_setup.pragmas = with_pages  # type: ignore[assignment]
    switch = next((t.split("=", 1)[1] for t in trying if t.startswith("switch=")), "")
    if switch:
        sys.setswitchinterval(float(switch) / 1000)
    if "no-autocheckpoint" in trying:
        # SQLite's automatic checkpoint (in a commit once the WAL passes 1,000 pages) left out
        pragmas = sqlite_setup.pragmas

        def without_checkpoint(dbapi_connection: Any, record: Any) -> None:
            pragmas(dbapi_connection, record)
            dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

        sqlite_setup.pragmas = without_checkpoint  # type: ignore[assignment]

    started: dict[str, float] = {}

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started["gc"] = time.time()
        else:
            t0 = started.pop("gc", time.time())
            TRACE["gc"].append((t0, time.time() - t0, info["generation"], info["collected"]))
            if (
                info["generation"] == 2
                and os.environ.get("HEARTSUIT_TRACE_HEAP")
                and len(TRACE["batches"]) > 2000
            ):
                _COUNT_HEAP.append(True)

    gc.callbacks.append(on_gc)

    original_batch = db.Database._write_batch
    original_many = statements.run_many
    marks: dict[str, float] = {}

    async def run_many(conn: Any, group: list[Any]) -> None:
        await original_many(conn, group)
        marks["statements"] = time.time()

    async def write_batch(self: db.Database, engine: Any, batch: list[Any]) -> None:
        t0 = time.time()
        marks["statements"] = t0
        await original_batch(self, engine, batch)
        t1 = time.time()
        TRACE["batches"].append((t0, t1 - t0, len(batch), marks["statements"] - t0))

    # on a SQLite file the statements run in the writer thread: the driver's way marks the
    # start of its commit, SQLAlchemy's way the end of its statements (one batch at a time)
    original_commit = batch_writer.Hooks.commit
    original_many_sync = statements.run_many_sync

    def commit(self: Any, cursor: Any) -> None:
        marks["statements"] = time.time()
        original_commit(self, cursor)

    def run_many_sync(conn: Any, group: list[Any]) -> None:
        original_many_sync(conn, group)
        marks["statements"] = time.time()

    original_thread_write = batch_writer.BatchWriter._write

    def thread_write(self: Any, batch: list[Any]) -> Any:
        # a SQLite file's batches: timed in the writer thread, which takes them one after the
        # other (Database._write_batch is the async engine's way only)
        t0 = time.time()
        marks["statements"] = t0
        try:
            return original_thread_write(self, batch)
        finally:
            t1 = time.time()
            TRACE["batches"].append((t0, t1 - t0, len(batch), marks["statements"] - t0))

    batch_writer.BatchWriter._write = thread_write  # type: ignore[method-assign]
    batch_writer.Hooks.commit = commit  # type: ignore[method-assign]
    statements.run_many_sync = run_many_sync
    statements.run_many = run_many  # type: ignore[assignment]
    db.Database._write_batch = write_batch  # type: ignore[method-assign]

    original_open = db.Database.open

    async def open_(self: db.Database) -> None:
        await original_open(self)
        if not started.get("lag"):
            started["lag"] = 1.0
            if "gc-off" in trying:
                # no cyclic garbage collection at all (a measurement: memory would grow)
                gc.disable()
            if "gc-freeze" in trying:
                # what start-up leaves in memory moved out of the collector's way
                gc.collect()
                gc.freeze()
            asyncio.get_running_loop().create_task(_lag())

    db.Database.open = open_  # type: ignore[method-assign]

    original_close = db.Database.close

    async def close(self: db.Database) -> None:
        # written as the app shuts down (uvicorn ends the process by the signal it caught, so
        # atexit would never run)
        await original_close(self)
        _write()

    db.Database.close = close  # type: ignore[method-assign]


async def _lag() -> None:
    while True:
        t0 = time.time()
        await asyncio.sleep(0.005)
        late = time.time() - t0 - 0.005
        if late > 0.005:
            TRACE["lag"].append((t0, late))
        if _COUNT_HEAP and not TRACE["heap"]:
            kinds = Counter(type(o).__qualname__ for o in gc.get_objects())
            TRACE["heap"] = [("all", sum(kinds.values())), *kinds.most_common(25)]


def _write() -> None:
    out = os.environ.get("HEARTSUIT_TRACE")
    if out:
        with open(out, "w") as f:
            json.dump(TRACE, f)


def explain(trace: dict[str, list[Any]], slow: Sequence[tuple[float, float]]) -> str:
    """What happened around the slow taps (``(sent, latency_ms)``, wall clock)."""

    def during(kind: str, t0: float, t1: float, end: Any) -> list[Any]:
        return [e for e in trace[kind] if e[0] < t1 and e[0] + end(e) > t0]

    gc_hits = batch_sizes = lag_hits = 0
    worst_batch: list[float] = []
    for sent, ms in slow:
        t1 = sent + ms / 1000
        if any(e[1] > 0.005 for e in during("gc", sent, t1, lambda e: e[1])):
            gc_hits += 1
        if during("lag", sent, t1, lambda e: e[1]):
            lag_hits += 1
        batches = during("batches", sent, t1, lambda e: e[1])
        if batches:
            worst_batch.append(max(b[1] for b in batches) * 1000)
            batch_sizes += max(b[2] for b in batches)
    lines = [f"{len(slow)} slow taps"]
    if slow:
        lines.append(
            f"  overlapping a GC pause > 5 ms: {gc_hits}; a loop lag > 5 ms: {lag_hits}; "
            f"mean size of the largest batch they waited on: {batch_sizes / len(slow):.0f}"
        )
    if worst_batch:
        worst_batch.sort()
        lines.append(f"  their longest batch, median {worst_batch[len(worst_batch) // 2]:.1f} ms")
    gcs = trace["gc"]
    if slow:
        first, last = min(t for t, _ in slow), max(t for t, _ in slow)
        inside = [e for e in gcs if e[2] == 2 and first <= e[0] <= last]
        lines.append(
            "  full collections among the slow taps: "
            + (", ".join(f"{e[1] * 1000:.0f} ms" for e in inside) or "none")
        )
    for gen in (0, 1, 2):
        these = sorted(e[1] * 1000 for e in gcs if e[2] == gen)
        if these:
            lines.append(
                f"  GC gen {gen}: {len(these)} runs, median {these[len(these) // 2]:.2f} ms, "
                f"max {these[-1]:.1f} ms, total {sum(these):.0f} ms"
            )
    batches = trace["batches"]
    if batches:
        ms = sorted(b[1] * 1000 for b in batches)
        sizes = sorted(b[2] for b in batches)
        commit = sorted((b[1] - b[3]) * 1000 for b in batches)
        lines.append(
            f"  batches: {len(batches)}, size median {sizes[len(sizes) // 2]} max {sizes[-1]}; "
            f"duration median {ms[len(ms) // 2]:.1f} ms p99 {ms[int(0.99 * len(ms))]:.1f} ms "
            f"max {ms[-1]:.1f} ms; commit median {commit[len(commit) // 2]:.1f} ms "
            f"max {commit[-1]:.1f} ms"
        )
    if trace.get("heap"):
        lines.append("  tracked objects: " + ", ".join(f"{k} {n}" for k, n in trace["heap"]))
    lag = sorted(e[1] * 1000 for e in trace["lag"])
    if lag:
        lines.append(f"  loop lags > 5 ms: {len(lag)}, max {lag[-1]:.0f} ms")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    _install()
    from heartsuit.cli import main as cli_main

    sys.argv = ["heartsuit", *argv]
    return cli_main()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
