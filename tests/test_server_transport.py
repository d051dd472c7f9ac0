"""Limits below the app, on the real server process: request heads, slow requests, stalled
WebSocket readers and shutdown (``server/core/transport.py`` and ``cli/serve_cmd.py``).

Each check is one that an unprotected server fails: it answers a 1 MiB header, keeps a
trickling request open, keeps a reader that stopped reading, and never stops while one is
connected. The times waited are generous bounds for "it ends", never measurements.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.server_process import raw_websocket, server_process, ws_frame

pytestmark = pytest.mark.slow


def _closed(sock: socket.socket, within_s: float) -> bool:
    """Whether the server closed ``sock`` (reading away whatever it had sent) in time."""
    sock.settimeout(0.5)
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_a_huge_request_head_is_refused_and_costs_nothing(tmp_path: Path) -> None:
    with server_process(tmp_path) as server:
        before = server.rss_mb()
        sent = [0]

        def stream() -> None:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", server.port)) as sock,
            ):
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: ")
                while sent[0] < 200 * 2**20:
                    sock.sendall(b"a" * 65536)
                    sent[0] += 65536

        streams = [threading.Thread(target=stream) for _ in range(4)]
        for thread in streams:
            thread.start()
        for thread in streams:
            thread.join(60)
        # the server cut every stream off long before 200 MiB, and did not grow with them
        assert sent[0] < 200 * 2**20
        assert server.rss_mb() < before + 30

        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.settimeout(10)
            with contextlib.suppress(OSError):
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 2**20)
            reply = b""
            with contextlib.suppress(OSError):
                reply = sock.recv(100)
        assert not reply.startswith(b"HTTP/1.1 200"), reply
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5) as r:
            assert r.read() == b"ok"  # and everyone else is served as before


def test_a_request_that_never_finishes_arriving_is_closed(tmp_path: Path) -> None:
    with server_process(tmp_path, request_timeout_s=1.0) as server:
        silent = socket.create_connection(("127.0.0.1", server.port))
        trickle = socket.create_connection(("127.0.0.1", server.port))
        trickle.sendall(b"GET /healthz HTTP/1.1\r\n")
        for _ in range(4):  # a byte a second would keep it open forever
            with contextlib.suppress(OSError):
                trickle.sendall(b"X")
            time.sleep(0.5)
        assert _closed(trickle, 10)
        assert _closed(silent, 10)


def _stall(port: int) -> socket.socket:
    """A WebSocket that asks for its game again and again and never reads an answer."""
    sock = raw_websocket(port, receive_buffer=4096)
    sock.sendall(ws_frame('{"type":"hello"}') + ws_frame('{"type":"solitaire.new"}'))
    resume = ws_frame('{"type":"solitaire.resume"}') * 50
    sock.settimeout(2)
    with contextlib.suppress(OSError):  # until the server stops reading: every buffer is full
        for _ in range(200):
            sock.sendall(resume)
    time.sleep(4)  # the server answers until its buffers and ours are full
    return sock


def test_a_websocket_whose_reader_stopped_is_dropped(tmp_path: Path) -> None:
    with server_process(tmp_path, ws_send_buffer_bytes=4096, ws_send_stall_s=1.0) as server:
        sock = _stall(server.port)
        # wait for the server to give up on the socket without reading from it: reading would
        # drain the buffers and so end the stall (on a busy machine the server may take longer
        # than _stall's pause to fill them)
        deadline = time.monotonic() + 30
        while "reader stopped reading" not in server.output() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "reader stopped reading" in server.output()
        assert _closed(sock, 20)


def test_shutdown_ends_even_with_stalled_readers(tmp_path: Path) -> None:
    with server_process(
        tmp_path, ws_send_buffer_bytes=4096, ws_send_stall_s=60.0, shutdown_timeout_s=2.0
    ) as server:
        stalled = [_stall(server.port) for _ in range(2)]
        started = time.monotonic()
        server.terminate()
        server.process.wait(timeout=30)  # unprotected, it waits for them forever
        print(f"shut down in {time.monotonic() - started:.1f} s with {len(stalled)} stalled")
        for sock in stalled:
            sock.close()


def test_serve_freezes_what_start_up_made_and_takes_the_bench_options(tmp_path: Path) -> None:
    """``heartsuit serve`` settles its memory before serving (``gc.freeze``), and the load
    bench gets exactly ``serve``'s configuration, with only the options it names changed."""
    import gc

    from heartsuit.cli.serve_cmd import GIL_SWITCH_S, settle_process, uvicorn_config
    from heartsuit.server.core.collector import THRESHOLDS
    from heartsuit.server.core.settings import Settings, sqlite_url

    settings = Settings(database_url=sqlite_url(str(tmp_path / "x.sqlite3")))
    plain = uvicorn_config(settings)
    bench = uvicorn_config(settings, log_level="warning", backlog=4096)
    assert bench.backlog == 4096 and plain.backlog != 4096
    # the same transports (each call makes its classes): the bounded ones, not uvicorn's
    assert isinstance(bench.ws, type) and isinstance(plain.ws, type)
    assert bench.ws.__name__ == plain.ws.__name__ == "BoundedWebSocketProtocol"
    assert isinstance(bench.http, type) and isinstance(plain.http, type)
    assert bench.http.__name__ == plain.http.__name__ == "BoundedH11Protocol"
    assert bench.ws_per_message_deflate and bench.ws_max_size == plain.ws_max_size
    frozen = gc.get_freeze_count()
    thresholds = gc.get_threshold()
    switch = sys.getswitchinterval()
    sweeper = None
    try:
        sweeper = settle_process()
        assert gc.get_freeze_count() > frozen
        assert gc.get_threshold() == THRESHOLDS != thresholds
        assert sweeper.running
        # a thread waiting for the GIL (the database's) gets it back sooner than Python's 5 ms
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_S) and switch > GIL_SWITCH_S
    finally:
        if sweeper is not None:
            sweeper.stop()
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.setswitchinterval(switch)


def _bad_utf8_frame() -> bytes:
    """A masked text frame whose payload is not UTF-8 (a lone 0xff byte inside a string)."""
    payload = b'{"type":"hello","player":"\xff\xfe"}'
    mask = b"\x01\x02\x03\x04"
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x81, 0x80 | len(payload)]) + mask + masked


def test_frames_that_are_not_utf8_are_closed_with_a_short_line_a_minute(tmp_path: Path) -> None:
    """200 sockets, each sending a frame that is not UTF-8, are each closed with 1007; the log
    gains one short line about them (no traceback), not one 3 KB traceback each."""
    with server_process(tmp_path) as server:
        before = len(server.output())
        for _ in range(200):
            sock = raw_websocket(server.port)
            sock.sendall(_bad_utf8_frame())
            sock.settimeout(10)
            closing = sock.recv(16)
            assert closing[:2] == b"\x88\x02" and closing[2:4] == (1007).to_bytes(2, "big")
            sock.close()
        # the server is still serving, and says so in the log only once
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5) as r:
            assert r.read() == b"ok"
        added = server.output()[before:]
        assert "Traceback" not in added and "UnicodeDecodeError" not in added
        lines = [line for line in added.splitlines() if "not UTF-8" in line]
        assert len(lines) == 1, lines
        assert len(lines[0]) < 120, lines[0]


def test_the_mistake_log_writes_a_line_a_minute_per_address_and_forgets() -> None:
    from heartsuit.server.core.transport import MistakeLog

    now = [0.0]
    written: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            written.append(record.getMessage())

    logger = logging.getLogger("tests.mistakes")
    logger.addHandler(Collect())
    logger.propagate = False
    mistakes = MistakeLog(60.0, clock=lambda: now[0], logger=logger, max_addresses=3)
    assert mistakes.note("10.0.0.1", "bad")
    assert not mistakes.note("10.0.0.1", "bad") and not mistakes.note("10.0.0.1", "bad")
    assert mistakes.note("10.0.0.2", "bad")  # another address has its own line
    now[0] = 61.0
    assert mistakes.note("10.0.0.1", "bad")
    assert written == [
        "client 10.0.0.1: bad",
        "client 10.0.0.2: bad",
        "client 10.0.0.1: bad (and 2 more since the last line)",
    ]
    for n in range(10):  # many addresses: the remembered ones stay bounded
        mistakes.note(f"10.1.0.{n}", "bad")
    assert len(mistakes._seen) <= 3 + 1
