"""Throwaway PostgreSQL and Redis servers for the benches of several processes.

Not a bench itself. :func:`services` yields ``(database_url, redis_url)``: the URLs given (or
``HEARTSUIT_TEST_POSTGRES`` / ``HEARTSUIT_TEST_REDIS``, as ``./dev test`` sets them), else
servers started here the way ``./dev test`` starts them (Debian's ``postgresql`` and
``redis-server`` packages; PostgreSQL with ``fsync=off``, as in the tests, so its figures are of
the site's work rather than of this machine's disk) and stopped afterwards. A database URL that
names a server gets a fresh database of its own for the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The user + system CPU time of process ``pid`` so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """Stop a child process: SIGTERM, then SIGKILL if it has not gone after 30 s."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- the client side of a load bench -------------------------------------------------------------
#
# A load bench's clients stand for thousands of browsers on as many machines, but here they are
# one or two Python processes holding thousands of sockets, and their own pauses (a full
# collection of their heap took up to 870 ms; asyncio's own loop costs more per frame than
# uvloop) were counted as the server's latency. These keep the measuring tool out of the figures,
# and ``LoopLag`` reports how late the client's loop still was, so that what is left is seen.


def run_client(main: Coroutine[Any, Any, T]) -> T:
    """Run a bench's client side on uvloop, as the server runs (asyncio's loop without it)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        return asyncio.run(main)
    return uvloop.run(main)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The client's cyclic garbage collector off for a measuring window (what exists is frozen
    first, then collected as usual afterwards): a bench client's pause is not the server's."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


class LoopLag:
    """How late this process's event loop wakes a 5 ms sleep, sampled until :meth:`stop`: a
    client that is itself late makes every latency it measures look longer."""

    def __init__(self) -> None:
        self.lags_ms: list[float] = []
        self._task = asyncio.get_running_loop().create_task(self._sample())

    async def _sample(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            began = loop.time()
            await asyncio.sleep(0.005)
            self.lags_ms.append((loop.time() - began - 0.005) * 1000)

    def stop(self) -> tuple[float, float]:
        """(p99, max) of the lateness in ms."""
        self._task.cancel()
        ordered = sorted(self.lags_ms) or [float("nan")]
        return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], ordered[-1]


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    where = Path(tempfile.mkdtemp(prefix="bench-redis."))
    port = free_port()
    process = subprocess.Popen(
        [
            *("redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(where)),
            *("--save", "", "--appendonly", "no"),
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait()
        shutil.rmtree(where, ignore_errors=True)


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    if not found:
        raise SystemExit("no PostgreSQL here: apt-get install postgresql, or pass --database-url")
    bin_dir = Path(found[-1]).parent
    where = Path(tempfile.mkdtemp(prefix="bench-pg."))
    where.chmod(0o755)
    as_pg = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    if as_pg:
        shutil.chown(where, "postgres")
    port = free_port()
    data = where / "data"
    subprocess.run(
        [*as_pg, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    options = f"-p {port} -k {where} -c listen_addresses=127.0.0.1 -c fsync=off"
    options += " -c max_connections=300"
    ctl = [*as_pg, str(bin_dir / "pg_ctl"), "-D", str(data)]
    subprocess.run(
        [*ctl, "-l", str(where / "log"), "-w", "-o", options, "start"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*ctl, "-m", "fast", "stop"], stdout=subprocess.DEVNULL, check=False)
        shutil.rmtree(where, ignore_errors=True)


@contextlib.contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A new database on the server of ``server_url``, dropped afterwards."""
    from sqlalchemy import text
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    name = f"bench_{secrets.token_hex(5)}"

    async def admin(statement: str) -> None:
        engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(text(statement))
        finally:
            await engine.dispose()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(admin(f'DROP DATABASE "{name}" WITH (FORCE)'))


@contextlib.contextmanager
def servers(database_url: str = "", redis_url: str = "") -> Iterator[tuple[str, str]]:
    """``(PostgreSQL server URL, redis_url)``: given, from the environment, or started here."""
    database_url = database_url or os.environ.get("HEARTSUIT_TEST_POSTGRES", "")
    redis_url = redis_url or os.environ.get("HEARTSUIT_TEST_REDIS", "")
    with contextlib.ExitStack() as stack:
        if not database_url:
            database_url = stack.enter_context(postgres_server())
        if not redis_url:
            redis_url = stack.enter_context(redis_server())
        yield database_url, redis_url


@contextlib.contextmanager
def services(database_url: str = "", redis_url: str = "") -> Iterator[tuple[str, str]]:
    """``(database_url, redis_url)`` for a run: a fresh database on the server of
    :func:`servers`, and its Redis."""
    with (
        servers(database_url, redis_url) as (server_url, redis),
        fresh_database(server_url) as url,
    ):
        yield url, redis
