"""``heartsuit serve``: run the site on uvicorn, one process, on an embedded SQLite file.

``--db PATH`` (else ``HEARTSUIT_DB``, else ``heartsuit.sqlite3`` here) names the SQLite file;
``DATABASE_URL`` in the environment switches to another database such as PostgreSQL. Tables
are created on start.
"""

from __future__ import annotations

import argparse
from typing import Any

from heartsuit.server.settings import DEFAULT_HOST, DEFAULT_PORT


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
        description="Run the heartsuit site (Heart to Heart in the browser) on uvicorn.",
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
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # imported here so that the other commands start without loading the web stack
    import uvicorn

    from heartsuit.server.app import create_app
    from heartsuit.server.settings import TRANSPORT_MAX_BYTES, Settings, SettingsError

    try:
        settings = Settings.from_env(db_path=args.db, host=args.host, port=args.port)
    except SettingsError as err:
        print(f"heartsuit serve: {err}")
        return 2
    where = settings.database_url.split("@")[-1]  # never print a password in a URL
    print(f"heartsuit: http://{settings.host}:{settings.port}/  (data: {where})", flush=True)
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        ws_max_size=TRANSPORT_MAX_BYTES,
        log_level="info",
    )
    return 0
