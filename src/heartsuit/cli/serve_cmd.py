"""``heartsuit serve``: run the site on uvicorn, one process, on an embedded SQLite file.

``--db PATH`` (else ``HEARTSUIT_DB``, else ``heartsuit.sqlite3`` here) names the SQLite file;
``DATABASE_URL`` in the environment switches to another database such as PostgreSQL. Tables
are created on start.

``--workers N`` runs N server processes on one listening socket (the kernel spreads the
connections over them), forked by a small supervisor that restarts a worker that dies and
stops them all on SIGTERM or SIGINT. More than one needs ``REDIS_URL`` (the bus, the table
leases and presence between the processes) and should use a shared database such as PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from heartsuit.server.core.settings import DEFAULT_HOST, DEFAULT_PORT, limits_help

if TYPE_CHECKING:
    import uvicorn

    from heartsuit.server.core.collector import Sweeper
    from heartsuit.server.core.settings import Settings
    from heartsuit.server.site.app import GameMaker


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535, not {port}")
    return port


def register(sub: Any) -> None:
    """Add the ``serve`` command to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="run the website",
        description="Run the heartsuit site (Heart to Heart and Hearts in the browser) on "
        "uvicorn.",
        epilog=limits_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        default=None,
        help="SQLite file (default: $HEARTSUIT_DB or ./heartsuit.sqlite3; "
        "$DATABASE_URL overrides both)",
    )
    parser.add_argument(
        "--workers",
        type=_workers,
        default=1,
        metavar="N",
        help="server processes on the one port (default 1; more need $REDIS_URL)",
    )
    parser.set_defaults(handler=run)


def _workers(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers") from None
    if not 1 <= count <= 64:
        raise argparse.ArgumentTypeError(f"workers are 1..64, not {count}")
    return count


def uvicorn_config(
    settings: Settings, games: list[GameMaker] | None = None, **overrides: Any
) -> uvicorn.Config:
    """How uvicorn serves the site (with ``games``, by default the site's own): the bounded
    transports of :mod:`heartsuit.server.core.transport` and the settings' limits (docs/site.md,
    "Limits"). ``overrides``: further :class:`uvicorn.Config` options (the load bench's quieter
    log and longer backlog)."""
    import copy

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from heartsuit.server.core.settings import TRANSPORT_MAX_BYTES
    from heartsuit.server.core.transport import http_protocol, websocket_protocol
    from heartsuit.server.site.app import create_app

    # the site's own messages (a socket dropped, a client gone) go where uvicorn's go
    logging_config = copy.deepcopy(LOGGING_CONFIG)
    logging_config["loggers"]["heartsuit"] = {"handlers": ["default"], "level": "INFO"}
    return uvicorn.Config(
        create_app(settings, games=games),
        host=settings.host,
        port=settings.port,
        http=http_protocol(
            max_header_bytes=settings.max_header_bytes,
            request_timeout_s=settings.request_timeout_s,
        ),
        ws=websocket_protocol(
            send_buffer_bytes=settings.ws_send_buffer_bytes,
            send_stall_s=settings.ws_send_stall_s,
        ),
        ws_max_size=TRANSPORT_MAX_BYTES,
        # each frame is read only once the app took the one before it: little to queue
        ws_max_queue=8,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=max(1, round(settings.shutdown_timeout_s)),
        # the server does not announce itself
        server_header=False,
        # X-Forwarded-For is believed only from configured proxies (never by default)
        proxy_headers=bool(settings.forwarded_allow_ips),
        forwarded_allow_ips=settings.forwarded_allow_ips or "127.0.0.1",
        log_config=logging_config,
        **{"log_level": "info", **overrides},
    )


#: how long (seconds) a thread may keep the GIL while another waits for it (Python's default is
#: 5 ms): the database's threads let it go around each SQLite call of a batch (its BEGIN, each
#: statement, its COMMIT) and then wait up to this long, each time, for a busy event loop to
#: give it back, while the taps of the batch wait for its commit (docs/site.md, "Writes: group
#: commit")
GIL_SWITCH_S = 0.001


def settle_process() -> Sweeper:
    """Once the site is loaded: the garbage collector's serving policy (freeze what start-up
    made, collect young objects only, sweep the heap now and then:
    :func:`heartsuit.server.core.collector.settle`; docs/site.md, "Garbage collection"), and let a
    thread that waits for the GIL have it sooner (:data:`GIL_SWITCH_S`). Returns the sweeper
    (its thread is a daemon: it ends with the process)."""
    import sys

    from heartsuit.server.core.collector import settle

    sys.setswitchinterval(GIL_SWITCH_S)
    return settle()


def serve(settings: Settings, games: list[GameMaker] | None = None) -> None:
    """Run the site until a signal stops it."""
    import uvicorn

    config = uvicorn_config(settings, games)
    settle_process()
    uvicorn.Server(config).run()


def serve_workers(settings: Settings, workers: int, games: list[GameMaker] | None = None) -> int:
    """Run ``workers`` server processes on one socket until SIGTERM or SIGINT; a worker that
    dies is started again (after a pause, so a worker that cannot start does not spin)."""
    import contextlib
    import signal
    import socket
    import time

    import uvicorn

    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((settings.host, settings.port))
    sock.listen(2048)
    sock.set_inheritable(True)
    children: set[int] = set()
    stopping = False

    def start_worker() -> None:
        pid = os.fork()
        if pid == 0:  # the worker: its own app, event loop, database pool and Redis clients
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            code = 0
            try:
                config = uvicorn_config(settings, games)
                settle_process()
                uvicorn.Server(config).run(sockets=[sock])
            except BaseException:  # a worker reports what stopped it and exits, never returns
                import traceback

                traceback.print_exc()
                code = 1
            os._exit(code)
        children.add(pid)

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in tuple(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(workers):
        start_worker()
    print(f"heartsuit: {workers} workers (pids {sorted(children)})", flush=True)
    while children:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:  # pragma: no cover - PEP 475 retries os.wait itself
            continue
        children.discard(pid)
        if not stopping:
            print(f"heartsuit: worker {pid} ended ({status}); starting another", flush=True)
            time.sleep(0.5)
            if not stopping:
                start_worker()
    sock.close()
    return 0


def run(args: argparse.Namespace) -> int:
    from heartsuit.server.core.settings import Settings, SettingsError, limits_from_env
    from heartsuit.server.site.app import default_games

    try:
        settings = limits_from_env(
            Settings.from_env(db_path=args.db, host=args.host, port=args.port)
        )
        # each game's own settings from the environment (HEARTSUIT_HEARTS_…)
        games = default_games(os.environ)
    except SettingsError as err:
        print(f"heartsuit serve: {err}")
        return 2
    workers: int = getattr(args, "workers", 1)
    if workers > 1 and not settings.redis_url:
        print(
            "heartsuit serve: --workers above 1 needs REDIS_URL "
            "(the processes share tables, presence and notices through Redis)"
        )
        return 2
    where = settings.database_url.split("@")[-1]  # never print a password in a URL
    print(f"heartsuit: http://{settings.host}:{settings.port}/  (data: {where})", flush=True)
    if workers > 1:
        return serve_workers(settings, workers, games)
    serve(settings, games)
    return 0
