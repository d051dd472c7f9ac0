"""``heartsuit serve``: run the site on uvicorn, one process, on an embedded SQLite file.

``--db PATH`` (else ``HEARTSUIT_DB``, else ``heartsuit.sqlite3`` here) names the SQLite file;
``DATABASE_URL`` in the environment switches to another database such as PostgreSQL. Tables
are created on start.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from heartsuit.server.settings import DEFAULT_HOST, DEFAULT_PORT

if TYPE_CHECKING:
    import uvicorn

    from heartsuit.server.settings import Settings


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


def uvicorn_config(settings: Settings) -> uvicorn.Config:
    """How uvicorn serves the site: the bounded transports of :mod:`heartsuit.server.transport`
    and the settings' limits (docs/site.md, "Limits")."""
    import copy

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from heartsuit.server.app import create_app
    from heartsuit.server.settings import TRANSPORT_MAX_BYTES
    from heartsuit.server.transport import http_protocol, websocket_protocol

    # the site's own messages (a socket dropped, a client gone) go where uvicorn's go
    logging_config = copy.deepcopy(LOGGING_CONFIG)
    logging_config["loggers"]["heartsuit"] = {"handlers": ["default"], "level": "INFO"}
    return uvicorn.Config(
        create_app(settings),
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
        log_level="info",
    )


def serve(settings: Settings) -> None:
    """Run the site until a signal stops it."""
    import uvicorn

    uvicorn.Server(uvicorn_config(settings)).run()


def run(args: argparse.Namespace) -> int:
    from heartsuit.server.settings import Settings, SettingsError, limits_from_env

    try:
        settings = limits_from_env(
            Settings.from_env(db_path=args.db, host=args.host, port=args.port)
        )
    except SettingsError as err:
        print(f"heartsuit serve: {err}")
        return 2
    where = settings.database_url.split("@")[-1]  # never print a password in a URL
    print(f"heartsuit: http://{settings.host}:{settings.port}/  (data: {where})", flush=True)
    serve(settings)
    return 0
