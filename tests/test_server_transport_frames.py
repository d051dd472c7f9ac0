"""The WebSocket protocol's own frame path (``server/core/transport.py``), in process: uvicorn's
protocol class as ``heartsuit serve`` configures it, on a fake transport, with ``websockets``'
sans-I/O client on the other end.

- ``send_now`` (the :data:`~heartsuit.server.core.transport.SEND_NOW` extension) writes a text frame
  at once while the socket is open and its buffer has room, and otherwise does nothing and
  says so, so that the app falls back to the ASGI ``send`` (which waits, or fails);
- keepalive pings go only to a peer that has been silent for the ping interval, and a silent
  peer that never answers is still dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.uri import parse_uri

from heartsuit.server.core.transport import (
    COMPRESS_FROM_BYTES,
    SEND_NOW,
    SmallMessagesPlain,
    websocket_protocol,
)

App = Callable[[Any, Any, Any], Awaitable[None]]


class FakeTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.out: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> None:
        self.out.append(bytes(data))

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass


class Peer:
    """A client on one server-side protocol object."""

    def __init__(self, app: App, *, deflate: bool = True, **options: Any) -> None:
        config = uvicorn.Config(app, log_level="warning", **options)
        config.ws = websocket_protocol(send_buffer_bytes=65536, send_stall_s=30.0)
        config.load()
        self.transport = FakeTransport()
        self.proto: Any = config.ws(config=config, server_state=ServerState(), app_state={})
        self.proto.connection_made(self.transport)
        self.ws = ClientProtocol(
            parse_uri("ws://127.0.0.1:8000/ws"),
            extensions=[ClientPerMessageDeflateFactory()] if deflate else None,
        )
        self.frames: list[Frame] = []

    async def open(self) -> None:
        self.ws.send_request(self.ws.connect())
        # as uvicorn's HTTP protocol hands an upgrade over: h11 lowercased the header names
        head, *lines = b"".join(self.ws.data_to_send()).split(b"\r\n")
        lowered = [line.split(b":", 1)[0].lower() + line[line.find(b":") :] for line in lines]
        self.proto.data_received(b"\r\n".join([head, *lowered]))
        for _ in range(200):
            await asyncio.sleep(0.01)
            self.read()
            if self.ws.handshake_exc is None and self.ws.state.name == "OPEN":
                return
        raise AssertionError("no handshake")

    def read(self) -> list[Frame]:
        """The frames the server wrote since the last read (pings answered, as a client does)."""
        self.ws.receive_data(b"".join(self.transport.out))
        self.transport.out.clear()
        new = [e for e in self.ws.events_received() if isinstance(e, Frame)]
        self.frames.extend(new)
        return new

    def say(self, text: str) -> None:
        self.ws.send_text(text.encode())
        self.proto.data_received(b"".join(self.ws.data_to_send()))


def echo(scopes: list[Any]) -> App:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        scopes.append(scope)
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            await send({"type": "websocket.send", "text": "echo " + message["text"]})

    return app


def test_send_now_writes_a_frame_at_once_or_declines_having_done_nothing() -> None:
    async def main() -> None:
        scopes: list[Any] = []
        peer = Peer(echo(scopes))
        await peer.open()
        send_now = scopes[0]["extensions"][SEND_NOW]["send_text"]
        assert send_now("♥ at once".encode()) is True
        texts = [bytes(f.data).decode() for f in peer.read() if f.opcode is Opcode.TEXT]
        assert texts == ["♥ at once"]  # written before any await: nothing else ran
        # a full outgoing buffer: declined, nothing written (the ASGI send would wait)
        peer.proto.pause_writing()
        assert send_now(b"later") is False and peer.transport.out == []
        peer.proto.resume_writing()
        assert send_now(b"now") is True
        assert [f.data for f in peer.read() if f.opcode is Opcode.TEXT] == [b"now"]
        # the ASGI path still works beside it, frames in order
        peer.say("hi")
        await asyncio.sleep(0.05)
        assert [f.data for f in peer.read() if f.opcode is Opcode.TEXT] == [b"echo hi"]
        # once the peer is gone: declined (the ASGI send then says the client went away)
        peer.proto.connection_lost(None)
        assert send_now(b"gone") is False and peer.transport.out == []
        await asyncio.sleep(0.05)

    asyncio.run(main())


def test_send_now_declines_once_the_closing_handshake_began() -> None:
    async def main() -> None:
        scopes: list[Any] = []
        peer = Peer(echo(scopes))
        await peer.open()
        send_now = scopes[0]["extensions"][SEND_NOW]["send_text"]
        peer.ws.send_close(1000)  # the page closes
        peer.proto.data_received(b"".join(peer.ws.data_to_send()))
        assert send_now(b"too late") is False
        assert not [f for f in peer.read() if f.opcode is Opcode.TEXT]
        await asyncio.sleep(0.05)

    asyncio.run(main())


@pytest.mark.slow
def test_a_peer_that_speaks_is_not_pinged_and_a_silent_one_is_then_dropped() -> None:
    async def main() -> None:
        peer = Peer(echo([]), ws_ping_interval=1.0, ws_ping_timeout=1.0)
        await peer.open()
        # two whole intervals of a page that talks every 0.1 s: alive, never pinged
        for i in range(25):
            peer.say(f"tap {i}")
            await asyncio.sleep(0.1)
            peer.read()
        assert not [f for f in peer.frames if f.opcode is Opcode.PING]
        assert sum(f.opcode is Opcode.TEXT for f in peer.frames) == 25
        # silent now: pinged within the interval (bounded wait, not a timing check)
        for _ in range(100):
            await asyncio.sleep(0.1)
            if any(f.opcode is Opcode.PING for f in peer.read()):
                break
        else:
            raise AssertionError("a silent peer was never pinged")
        # the pong is never delivered (the peer is dead): the socket is dropped
        peer.transport.out.clear()
        for _ in range(100):
            await asyncio.sleep(0.1)
            if peer.transport.closed:
                break
        assert peer.transport.closed

    asyncio.run(main())


@pytest.mark.slow
def test_a_silent_peer_that_answers_pings_keeps_its_socket() -> None:
    async def main() -> None:
        peer = Peer(echo([]), ws_ping_interval=0.3, ws_ping_timeout=1.0)
        await peer.open()
        pings = 0
        for _ in range(40):  # 4 s of silence but for the pongs
            await asyncio.sleep(0.1)
            pings += sum(f.opcode is Opcode.PING for f in peer.read())
            pong = b"".join(peer.ws.data_to_send())  # the client's automatic pongs
            if pong:
                peer.proto.data_received(pong)
        assert pings >= 2 and not peer.transport.closed
        peer.say("still here")
        await asyncio.sleep(0.05)
        assert [f.data for f in peer.read() if f.opcode is Opcode.TEXT] == [b"echo still here"]

    asyncio.run(main())


def _written(peer: Peer) -> list[tuple[bool, int, str]]:
    """Each frame the server wrote since the last read: whether it was compressed (its RSV1
    bit), its length on the wire, and its text as the client read it."""
    raw = [bytes(chunk) for chunk in peer.transport.out]
    frames = [f for f in peer.read() if f.opcode is Opcode.TEXT]
    assert len(raw) == len(frames)  # one write per frame here
    return [
        (bool(chunk[0] & 0x40), len(chunk), bytes(f.data).decode())
        for chunk, f in zip(raw, frames, strict=True)
    ]


def test_short_messages_go_uncompressed_and_longer_ones_compressed() -> None:
    """On a socket that agreed to permessage-deflate, a message shorter than
    COMPRESS_FROM_BYTES is sent as it is (RSV1 unset) and a longer one compressed; mixed, with
    the compressor's context kept from one long message to the next, the client reads every
    one right."""

    async def main() -> None:
        scopes: list[Any] = []
        peer = Peer(echo(scopes))
        await peer.open()
        (agreed,) = peer.proto.conn.extensions
        assert type(agreed) is SmallMessagesPlain and not agreed.local_no_context_takeover
        send_now = scopes[0]["extensions"][SEND_NOW]["send_text"]
        just_short = "♥" + "x" * (COMPRESS_FROM_BYTES - 4)  # (♥ is 3 bytes)
        just_long = just_short + "x"
        long = '{"type":"hearts.state","hand":["2C","3C","4C"]}' * 100
        for text in (just_short, just_long, "hi ♥", long, just_short, long):
            assert send_now(text.encode()) is True
            ((compressed, size, read),) = _written(peer)
            assert read == text
            assert compressed == (len(text.encode()) >= COMPRESS_FROM_BYTES), len(text)
            if compressed:
                assert size < len(text.encode()) / 4
            else:
                assert size > len(text.encode())  # the text and the frame's head
        # the ASGI send goes the same way
        peer.say("y" * 2000)
        peer.say("hi")
        await asyncio.sleep(0.05)
        assert [(c, t) for c, _, t in _written(peer)] == [
            (True, "echo " + "y" * 2000),
            (False, "echo hi"),
        ]

    asyncio.run(main())


def test_a_client_that_does_not_offer_compression_gets_every_message_plain() -> None:
    async def main() -> None:
        scopes: list[Any] = []
        peer = Peer(echo(scopes), deflate=False)
        await peer.open()
        assert peer.proto.conn.extensions == []
        send_now = scopes[0]["extensions"][SEND_NOW]["send_text"]
        assert send_now(b"z" * 5000) is True
        assert [(c, t) for c, _, t in _written(peer)] == [(False, "z" * 5000)]

    asyncio.run(main())


# --- the site's own /ws: straight to its endpoint ----------------------------------------------


def test_the_site_socket_skips_the_http_layers_and_everything_else_still_takes_them(
    tmp_path: Path,
) -> None:
    """``/ws`` reaches its endpoint without Starlette's middleware stack (the security
    headers, compression, the error and exception middlewares, the router); HTTP answers and
    other WebSocket paths still go through it all."""
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from heartsuit.server.core.headers import CONTENT_SECURITY_POLICY
    from heartsuit.server.core.settings import Settings, sqlite_url
    from heartsuit.server.site.app import create_app
    from tests.server_support import TEST_ORIGINS

    app = create_app(
        Settings(database_url=sqlite_url(tmp_path / "site.sqlite3"), origins=TEST_ORIGINS)
    )
    stacked: list[str] = []
    built = app.build_middleware_stack()

    async def watched(scope: Any, receive: Any, send: Any) -> None:
        stacked.append(f"{scope['type']} {scope.get('path', '')}")
        await built(scope, receive, send)

    app.middleware_stack = watched
    with TestClient(app) as client:
        with client.websocket_connect("/ws") as socket:
            socket.send_json({"type": "hello", "req": 1})
            assert socket.receive_json()["type"] == "welcome"
            socket.send_json({"type": "nonsense", "req": 2})
            assert socket.receive_json()["code"] == "unknown_type"
        # a foreign page is still refused before the socket opens
        evil = {"origin": "http://evil.example"}
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws", headers=evil):
            pass
        assert not [s for s in stacked if s.startswith("websocket")]
        # another WebSocket path: the router refuses it, as before
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/elsewhere"):
            pass
        assert "websocket /elsewhere" in stacked
        # HTTP on /ws: the site's 404 page, with its security headers
        page = client.get("/ws")
        assert page.status_code == 404
        assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert "http /ws" in stacked


# --- Connection.send: at once when it can, in order always ------------------------------------


class FakeSocket:
    """What a Connection needs of a Starlette WebSocket to send: the scope (with or without
    the send_now extension), and an ASGI-path send that waits while ``room`` is clear."""

    def __init__(self, written: list[str], accept_now: list[bool]) -> None:
        self.written = written
        self.accept_now = accept_now
        self.room = asyncio.Event()
        self.room.set()
        self.client = None
        self.cookies: dict[str, str] = {}
        self.scope = {"extensions": {SEND_NOW: {"send_text": self.send_now}}}

    def send_now(self, data: bytes) -> bool:
        if not self.accept_now[0]:
            return False
        self.written.append("now " + data.decode())
        return True

    async def send_text(self, text: str) -> None:
        await self.room.wait()
        self.written.append("asgi " + text)


def test_frames_keep_their_order_when_some_must_wait() -> None:
    from heartsuit.server.core.connection import Connection
    from heartsuit.server.core.protocol import Encoded

    async def main() -> None:
        written: list[str] = []
        accept_now = [True]
        socket = FakeSocket(written, accept_now)
        connection = Connection(socket, None, [], None, 16 * 1024)  # type: ignore[arg-type]
        await connection.send(Encoded('{"n":1}'))
        assert written == ['now {"n":1}']  # at once, not through ASGI
        # the buffer is full: the next frame waits in the ASGI send...
        accept_now[0] = False
        socket.room.clear()
        first = asyncio.create_task(connection.send(Encoded('{"n":2}')))
        await asyncio.sleep(0.01)
        # ...and the socket could take a frame at once again, but one is still waiting: the
        # later frames queue behind it instead of overtaking it
        accept_now[0] = True
        third = asyncio.create_task(connection.send(Encoded('{"n":3}')))
        await asyncio.sleep(0.01)
        assert written == ['now {"n":1}']
        # room again, and a fourth frame comes before the third has taken its turn (between
        # the second's end and the third's start nothing may slip in)
        socket.room.set()
        fourth = asyncio.create_task(connection.send(Encoded('{"n":4}')))
        await asyncio.gather(first, third, fourth)
        assert [w.split(" ", 1)[1] for w in written] == [f'{{"n":{n}}}' for n in (1, 2, 3, 4)]
        assert written[1:] == ['asgi {"n":2}', 'asgi {"n":3}', 'asgi {"n":4}']
        # all sent: at once again
        await connection.send(Encoded('{"n":5}'), 7)
        assert written[-1] == 'now {"n":5,"req":7}'

    asyncio.run(main())
