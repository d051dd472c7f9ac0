"""The site's HTTP and WebSocket transports: uvicorn's, with the limits a public server needs.

uvicorn's default HTTP parser (httptools) reads a request's headers without any size limit and
a connection may take forever to send them; a WebSocket whose reader has stopped keeps its
socket, and the server then waits for it forever when it shuts down. This module owns the
classes :mod:`heartsuit.cli.serve_cmd` hands to uvicorn instead:

- :func:`http_protocol`: h11, whose buffer of an incomplete request is bounded
  (``max_header_bytes``: beyond it the request is answered 400 and the socket closed), plus a
  deadline (``request_timeout_s``) for a request to arrive whole, from the connection's start
  or from the first byte after the previous response;
- :func:`websocket_protocol`: uvicorn's WebSocket protocol whose outgoing buffer is bounded
  (``ws_send_buffer_bytes``: beyond it the app's next send waits) and whose socket is dropped
  when that buffer has not drained for ``ws_send_stall_s`` (a reader that stopped reading), also
  while the server shuts down; which pings only a peer that has been silent for the ping
  interval (one that spoke within it is alive: a busy server is spared a ping, a pong and two
  timers per socket every interval, and a dead peer is still found as soon as before); and
  which offers the app a way to write a text frame at once (:data:`SEND_NOW`), without the
  layers of coroutines an ASGI ``send`` crosses; and which, on a socket that agreed to
  compress (permessage-deflate), sends a message shorter than :data:`COMPRESS_FROM_BYTES` as it
  is; and which closes a text frame that is not UTF-8 (1007) with one short line in the log,
  at most one a minute per address (:class:`MistakeLog`), where uvicorn logs a traceback of
  3 KB for each: a client's mistake must not fill a disk or drown a real error.

Everything here works below the app, on the event loop's transports: the app never sees a
request that is too large or too slow, and a stalled reader's sends fail as a disconnect.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode
from websockets.typing import ExtensionParameter

log = logging.getLogger("heartsuit.server")

#: the ASGI extension (in a WebSocket scope's ``extensions``) whose ``"send_text"`` writes one
#: text frame (its UTF-8 bytes) at once and returns True, or returns False, having done
#: nothing, when that cannot be done at once (the handshake is not over, the socket is closing
#: or gone, its outgoing buffer is full): the app then uses the ASGI ``send``, which waits or
#: says why. A server without it (Starlette's TestClient) is spoken to through ASGI only.
SEND_NOW: Final = "heartsuit.send_now"

#: the type of that ``"send_text"``
SendNow = Callable[[bytes], bool]


#: a message shorter than this many bytes is sent uncompressed on a socket that agreed to
#: compress (RFC 7692 lets a sender leave any message uncompressed: its RSV1 bit unset). Such a
#: message fits in one TCP segment either way, so compressing it saves the reader no round trip,
#: and it is most of what a table sends (a Hearts patch is ~450 bytes; 80% of its frames are
#: under 1 KB). Leaving them plain took a Hearts change from 0.61 to 0.50 ms of the server's
#: CPU at saturation (docs/site.md, "Compression").
COMPRESS_FROM_BYTES: Final = 1024


class SmallMessagesPlain(PerMessageDeflate):
    """permessage-deflate that sends a message shorter than :data:`COMPRESS_FROM_BYTES` as it
    is (the compressor's context goes on from the last compressed message to the next)."""

    def encode(self, frame: Frame) -> Frame:
        if (
            frame.fin
            and frame.opcode in (Opcode.TEXT, Opcode.BINARY)
            and len(frame.data) < COMPRESS_FROM_BYTES
        ):
            return frame  # a whole message, short: RSV1 unset, sent as it is
        return super().encode(frame)


class SmallMessagesPlainFactory(ServerPerMessageDeflateFactory):
    """The server's permessage-deflate negotiation, as websockets' (the same parameters
    agreed), giving :class:`SmallMessagesPlain`."""

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, agreed = super().process_request_params(params, accepted_extensions)
        return response, SmallMessagesPlain(
            agreed.remote_no_context_takeover,
            agreed.local_no_context_takeover,
            agreed.remote_max_window_bits,
            agreed.local_max_window_bits,
            agreed.compress_settings,
        )


def http_protocol(*, max_header_bytes: int, request_timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a bounded request head and a deadline for each request."""

    class BoundedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # h11 refuses a request head (or chunk header) that grows past this many bytes
            self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=max_header_bytes)
            self._deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.get_protocol() is not self or self.conn.their_state not in (
                h11.IDLE,
                h11.SEND_BODY,
            ):
                self._disarm()  # a whole request arrived, or the socket became a WebSocket
            else:
                self._arm()  # a request has begun: it has until the deadline to arrive whole

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(request_timeout_s, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.transport.get_protocol() is not self or self.transport.is_closing():
                return
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and (
                self.cycle is None or self.cycle.response_complete
            ):
                log.info("closing an HTTP connection whose request did not arrive in time")
                self.transport.abort()

    return BoundedH11Protocol


class MistakeLog:
    """Client mistakes in the log: one short line (a warning, never a traceback) per address,
    then none from that address for ``interval_s``; the next line says how many were left out.

    A server's own errors keep their tracebacks; a client that sends garbage gets a line a
    minute however fast it sends. The addresses remembered are bounded (the quiet ones are
    forgotten first), so a flood from many addresses does not grow the process either.
    """

    def __init__(
        self,
        interval_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        logger: logging.Logger = log,
        max_addresses: int = 10_000,
    ) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self.logger = logger
        self.max_addresses = max_addresses
        #: address -> (when its last line was written, mistakes left out since)
        self._seen: dict[str, tuple[float, int]] = {}

    def note(self, address: str, what: str) -> bool:
        """Count one mistake of ``address``; True if a line was written for it."""
        now = self.clock()
        seen = self._seen.get(address)
        if seen is not None and now - seen[0] < self.interval_s:
            self._seen[address] = (seen[0], seen[1] + 1)
            return False
        left_out = seen[1] if seen is not None else 0
        self._seen[address] = (now, 0)
        if len(self._seen) > self.max_addresses:
            self._forget(now)
        more = f" (and {left_out} more since the last line)" if left_out else ""
        self.logger.warning("client %s: %s%s", address, what, more)
        return True

    def _forget(self, now: float) -> None:
        for address, (when, _) in list(self._seen.items()):
            if now - when >= self.interval_s:
                del self._seen[address]
        if len(self._seen) > self.max_addresses:
            self._seen.clear()


#: the process's log of client mistakes at the transport
MISTAKES = MistakeLog()


def websocket_protocol(
    *, send_buffer_bytes: int, send_stall_s: float
) -> type[WebSocketsSansIOProtocol]:
    """uvicorn's WebSocket protocol that drops a socket whose outgoing data stops draining."""

    class BoundedWebSocketProtocol(WebSocketsSansIOProtocol):
        _stall: asyncio.TimerHandle | None = None
        #: the loop's time when the peer was last heard from
        _heard = 0.0

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # uvicorn's compression settings (a 4 KB window, memLevel 5), short messages plain
            self.conn.available_extensions = [
                SmallMessagesPlainFactory(
                    server_no_context_takeover=factory.server_no_context_takeover,
                    client_no_context_takeover=factory.client_no_context_takeover,
                    server_max_window_bits=factory.server_max_window_bits,
                    client_max_window_bits=factory.client_max_window_bits,
                    compress_settings=factory.compress_settings,
                    require_client_max_window_bits=factory.require_client_max_window_bits,
                )
                if type(factory) is ServerPerMessageDeflateFactory
                else factory
                for factory in self.conn.available_extensions or ()
            ]

        def data_received(self, data: bytes) -> None:
            self._heard = self.loop.time()
            super().data_received(data)

        def send_receive_event_to_app(self) -> None:
            # uvicorn's, but for a text frame that is not UTF-8: closed the same way (1007),
            # with one short line (MistakeLog) instead of an ERROR and its traceback
            data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
            self.frames = []
            if self.close_sent:
                return  # past the app's close: read on until the peer's close reply
            if self.curr_msg_data_type == "text":
                try:
                    text = data.decode()
                except UnicodeDecodeError:
                    address = self.client[0] if self.client else "?"
                    MISTAKES.note(address, "a text frame that is not UTF-8 (closed: 1007)")
                    self.conn.send_close(1007)
                    self.handle_parser_exception()
                    return
                self.queue.put_nowait({"type": "websocket.receive", "text": text})
            else:
                self.queue.put_nowait({"type": "websocket.receive", "bytes": data})
            if not self.read_paused:
                self.read_paused = True
                self.transport.pause_reading()

        def send_keepalive_ping(self) -> None:
            # a peer heard from within the interval is alive: look again when it will have been
            # silent for the whole interval (so it is pinged no later than before)
            interval = self.ping_interval
            quiet = self.loop.time() - self._heard
            if interval is not None and quiet < interval and self.pending_ping_payload is None:
                self.ping_timer = self.loop.call_later(interval - quiet, self.send_keepalive_ping)
                return
            super().send_keepalive_ping()

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            self.transport.set_write_buffer_limits(high=send_buffer_bytes)

        async def run_asgi(self) -> None:
            self.scope["extensions"][SEND_NOW] = {"send_text": self.send_now}
            await super().run_asgi()

        def send_now(self, data: bytes) -> bool:
            """Write one text frame now, as the ASGI ``send`` would once it stopped waiting;
            False (nothing done) when it would wait or fail (see :data:`SEND_NOW`)."""
            if (
                not self.handshake_complete
                or self.close_sent
                or self.disconnected
                or self.initial_response is not None
                or not self.writable.is_set()
            ):
                return False
            try:
                self.conn.send_text(data)
            except InvalidState:  # the closing handshake has begun: the ASGI send says so
                return False
            self.transport.write(b"".join(self.conn.data_to_send()))
            return True

        def pause_writing(self) -> None:
            # the buffer is full: the app's sends wait; if it does not drain in time, drop it
            super().pause_writing()
            self._watch()

        def resume_writing(self) -> None:
            super().resume_writing()
            if self._stall is not None:
                self._stall.cancel()
                self._stall = None

        def shutdown(self) -> None:
            super().shutdown()
            # the close frame waits behind whatever the reader never read: give it the same time
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._stall is not None:
                self._stall.cancel()
                self._stall = None
            super().connection_lost(exc)

        def _watch(self) -> None:
            if self._stall is None and not self.disconnected:
                self._stall = self.loop.call_later(send_stall_s, self._drop)

        def _drop(self) -> None:
            self._stall = None
            if not self.disconnected:
                log.info("dropping a WebSocket whose reader stopped reading (%.0f s)", send_stall_s)
                self.transport.abort()

    return BoundedWebSocketProtocol
