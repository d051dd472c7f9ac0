"""Helpers for tests against the real server process: uvicorn on a free port, raw sockets.

Not a test module itself. Limits that live below the app (request heads, slow requests,
stalled WebSocket readers, shutdown) cannot be seen through Starlette's ``TestClient``; these
helpers start :func:`heartsuit.cli.serve_cmd.serve` in a child process with chosen
:class:`~heartsuit.server.core.settings.Settings` and talk to it over plain TCP.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPT = """
import sys
from heartsuit.cli.serve_cmd import serve
from heartsuit.server.core.settings import Settings, sqlite_url
from heartsuit.server.hearts.game import hearts_game
from heartsuit.server.hearts.settings import HeartsSettings
from heartsuit.server.solitaire.game import solitaire_game
fields = eval(sys.argv[3])
hearts = {k.removeprefix("hearts_"): fields.pop(k) for k in list(fields) if k.startswith("hearts_")}
settings = Settings(database_url=sqlite_url(sys.argv[1]), port=int(sys.argv[2]), **fields)
serve(settings, [solitaire_game(), hearts_game(HeartsSettings(**hearts))])
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def rss_mb(self) -> float:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def terminate(self) -> None:
        self.process.send_signal(signal.SIGTERM)


@contextmanager
def server_process(tmp: Path, **settings: Any) -> Iterator[ServerProcess]:
    """``heartsuit serve`` with ``settings`` changed, answering /healthz, stopped afterwards."""
    port = free_port()
    log = tmp / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(tmp / "site.sqlite3"), str(port), repr(settings)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    server = ServerProcess(process, port, log)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited: {server.output()}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r,
            ):
                if r.read() == b"ok":
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def ws_frame(text: str) -> bytes:
    """One masked text frame, as a client sends it."""
    payload = text.encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    if len(payload) < 126:
        head += bytes([0x80 | len(payload)])
    elif len(payload) < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", len(payload))
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


def raw_websocket(port: int, *, receive_buffer: int | None = None) -> socket.socket:
    """A WebSocket to ``/ws`` opened by hand, so that the test decides when (if ever) it reads."""
    sock = socket.socket()
    if receive_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed during the handshake")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def send_json(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(ws_frame(json.dumps(message)))
