"""One WebSocket connection on ``/ws``: framing, errors, dispatch by message type, channels.

A connection owns its language, its player (after ``hello``) and the channels it follows; the
games own everything else. Each client frame is decoded and parsed here, then answered here
(``hello``, ``lang``) or handed to the session of the game that owns its ``type`` (see
:mod:`heartsuit.server.core.game_service`). The connection follows the player's channel for all its
sessions, and any further channel a session asks for (a Hearts table), each in a task of its
own, so that what other tabs and other players do reaches this tab.

A session may also give a channel a ``now`` (:data:`~heartsuit.server.core.game_service.NoticeNow`):
the bus then offers it each notice that finds the channel idle (nothing queued, nothing being
handled) inside the publisher's own call, and a notice it answers at once costs no queue, no
task wake-up and no coroutine left for the garbage collector. A notice this connection's own
task publishes (its intent changed a table it follows) is kept until the reply to that intent
is sent, so that a reply and a push never swap. Anything else goes the queued way.

Any bad frame gets an ``error`` reply and changes nothing; the connection stays open and other
connections never notice. A failure that is not the client's (a bug, the database gone) is
logged and closes this one connection with code 1011, so that the page reconnects and resumes
from the move log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import deque
from collections.abc import Sequence
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketDisconnected

from heartsuit import i18n
from heartsuit.server.core import messages
from heartsuit.server.core.bus import Bus, Notice
from heartsuit.server.core.game_service import GameService, NoticeNow, OnNotice, Session
from heartsuit.server.core.limits import Limits
from heartsuit.server.core.player import Player, Players, player_channel
from heartsuit.server.core.protocol import (
    COMMON_MESSAGES,
    Encoded,
    ErrorCode,
    ErrorReply,
    Hello,
    LangChange,
    LangReply,
    MessageParser,
    ProtocolError,
    RateLimitedReply,
    Reply,
    Welcome,
    decode_frame,
    encode,
    message_type,
    request_id,
)
from heartsuit.server.core.transport import SEND_NOW, SendNow

log = logging.getLogger("heartsuit.server")


class _Listener:
    """One followed channel: its queue, its ``now``, and what its task is doing."""

    __slots__ = ("busy", "failure", "later", "now", "queue")

    def __init__(self, now: NoticeNow) -> None:
        self.now = now
        self.queue: asyncio.Queue[Notice] | None = None
        #: the task is handling a notice (a later one waits in the queue behind it)
        self.busy = False
        #: notices published by this connection's own task, kept until its reply is sent
        #: (made when needed: most sockets never keep one)
        self.later: deque[Notice] | None = None
        #: an unexpected error of ``now``, raised again in the listening task
        self.failure: Exception | None = None


class Connection:
    """The conversation with one browser tab (the
    :class:`~heartsuit.server.core.game_service.Context` of each game's session)."""

    def __init__(
        self,
        socket: WebSocket,
        players: Players,
        games: Sequence[GameService],
        bus: Bus,
        max_frame_bytes: int,
        parser: MessageParser | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.socket = socket
        self.limits = limits
        #: whom the limits count this socket against (the proxy's word only if trusted)
        self.address = socket.client.host if socket.client is not None else "unknown"
        self._counted = False
        self.players = players
        self.bus = bus
        self.max_frame_bytes = max_frame_bytes
        self.parser = parser or client_parser(games)
        self.lang: i18n.Lang = i18n.pick_lang(socket.cookies.get("lang"))
        self.player: Player | None = None
        self._sessions: list[Session] = []
        #: which session answers which message type
        self._owners: dict[str, Session] = {}
        for game in games:
            session = game.session(self)
            self._sessions.append(session)
            for model in game.messages:
                self._owners[message_type(model)] = session
        #: the channels followed, each with the scope that stops its listening task
        self._channels: dict[str, anyio.CancelScope] = {}
        # asyncio's lock, not anyio's: taking a free one does not yield to the event loop (one
        # loop turn less for each frame sent)
        self._send_lock = asyncio.Lock()
        #: the server's way to write a frame at once (transport.py), if it offers one
        self._send_now: SendNow | None = (
            socket.scope.get("extensions", {}).get(SEND_NOW, {}).get("send_text")
        )
        #: how many frames are on their way through the ASGI send
        self._sending = 0
        self._tasks: TaskGroup | None = None
        #: the task that reads and answers the client's frames
        self._reader: asyncio.Task[Any] | None = None
        #: the listeners holding notices until the reply being made is sent
        self._later: list[_Listener] = []

    async def run(self) -> None:
        await self.socket.accept()
        if self.limits is not None:
            if not self.limits.connect(self.address):
                await self._send_error(ProtocolError(ErrorCode.TOO_MANY_CONNECTIONS), None)
                await self.socket.close(code=1008)
                return
            self._counted = True
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                self._reader = asyncio.current_task()
                await self._read_loop()
                tasks.cancel_scope.cancel()
        except* WebSocketDisconnect:
            pass  # the tab went away; its games are safe in the move log
        finally:
            if self.limits is not None and self._counted:
                self.limits.disconnect(self.address)
                if self.player is not None:
                    self.limits.close_tab(self.player.id)
            for session in self._sessions:
                await session.close()

    async def _read_loop(self) -> None:
        while True:
            frame = await self.socket.receive()
            if frame["type"] == "websocket.disconnect":
                return
            text = frame.get("text")
            try:
                if text is None:
                    raise ProtocolError(ErrorCode.BAD_JSON, "binary frames are not understood")
                data = decode_frame(text, self.max_frame_bytes)
            except ProtocolError as err:
                await self._send_error(err, None)
                continue
            req = request_id(data)
            try:
                await self._handle(data, req)
            except ProtocolError as err:
                await self._send_error(err, req)
            if self._later:
                self._after_reply()

    async def _handle(self, data: Any, req: int | None) -> None:
        message = self.parser.parse(data)
        if isinstance(message, Hello):
            await self._hello(message, req)
            return
        if isinstance(message, LangChange):
            self.lang = message.lang
            await self.send(LangReply(lang=message.lang), req)
            return
        if self.player is None:
            raise ProtocolError(ErrorCode.NO_PLAYER, "send hello first")
        self._rate(message.type)
        await self._owners[message.type].handle(self.player, message, req)

    def _rate(self, kind: str) -> None:
        """Refuse a message that came too often from this player, or from this address beyond
        its ceiling (``rate_limited``; server/core/limits.py)."""
        limited = None if self.limits is None else self.limits.messages.get(kind)
        if limited is not None and self.player is not None:
            _refuse_after(limited.take(self.player.id, self.address), kind)

    async def _hello(self, message: Hello, req: int | None) -> None:
        player = await self.players.hello(message.player)
        if self.limits is not None:
            if player.id == message.player:
                # a known id: its own hellos count, and the address's ceiling
                _refuse_after(self.limits.hellos.take(player.id, self.address), "hello")
            else:
                # a new id: minting ids is what one address may not do without bound
                wait = self.limits.new_players.take(self.address)
                if wait > 0:
                    self.players.forget(player.id)  # refused: nothing was made
                    _refuse_after(wait, "new player")
        same = self.player is not None and self.player.id == player.id
        if self.limits is not None and not same:
            if not self.limits.open_tab(player.id):
                raise ProtocolError(ErrorCode.TOO_MANY_TABS, "too many tabs of this player")
            if self.player is not None:
                self.limits.close_tab(self.player.id)
        if self.player is not None:
            self.unfollow(player_channel(self.player.id))
        self.player = player
        fields: dict[str, Any] = {}
        for session in self._sessions:
            fields.update(await session.hello(player))
        await self.send(Welcome(player=player.id, **fields), req)
        await self.follow(player_channel(player.id), self._player_notice)

    async def _player_notice(self, notice: Notice) -> None:
        """Every session hears the player's channel (its games, its preferences)."""
        for session in self._sessions:
            try:
                await session.notice(notice)
            except ProtocolError:
                continue  # e.g. a game another tab abandoned; nothing to show

    # --- the Context of the sessions ---

    async def follow(self, channel: str, on_notice: OnNotice, now: NoticeNow | None = None) -> None:
        """Hear ``channel`` until :meth:`unfollow`; returns once listening, so that nothing
        published after it is missed (``now``: offered each notice first, see the module)."""
        if self._tasks is None:
            raise RuntimeError("a connection follows channels only while it runs")
        self.unfollow(channel)
        scope = anyio.CancelScope()
        self._channels[channel] = scope
        await self._tasks.start(self._listen, channel, on_notice, now, scope)

    def unfollow(self, channel: str) -> None:
        scope = self._channels.pop(channel, None)
        if scope is not None:
            scope.cancel()

    async def _listen(
        self,
        channel: str,
        on_notice: OnNotice,
        now: NoticeNow | None,
        scope: anyio.CancelScope,
        *,
        task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        listener = None if now is None else _Listener(now)
        direct = None if listener is None else (lambda notice: self._direct(listener, notice))
        with scope:
            async with self.bus.listen(channel, direct) as queue:
                if listener is not None:
                    listener.queue = queue
                task_status.started()
                try:
                    while True:
                        notice = await queue.get()
                        if listener is not None:
                            if listener.failure is not None:
                                raise listener.failure
                            listener.busy = True
                        try:
                            await on_notice(notice)
                        except ProtocolError:
                            continue  # what the notice was about is gone; nothing to show
                        finally:
                            if listener is not None:
                                listener.busy = False
                finally:
                    if listener is not None:
                        listener.queue = None  # gone: nothing more is taken at once

    def _direct(self, listener: _Listener, notice: Notice) -> bool:
        """The bus offers ``notice`` to an idle channel (its queue is empty): answer it now if
        the session can, keep it until the reply if this connection's own task published it."""
        queue = listener.queue
        if queue is None or listener.busy or listener.failure is not None:
            return False
        later = listener.later
        if later is not None or (
            self._reader is not None and asyncio.current_task() is self._reader
        ):
            # published while answering this socket's intent (or behind such a notice):
            # after the reply to it
            if later is None:
                later = listener.later = deque()
                self._later.append(listener)
            later.append(notice)
            if queue.maxsize and len(later) > queue.maxsize:
                later.popleft()  # as a full queue loses its oldest
            return True
        return self._now(listener, notice)

    def _now(self, listener: _Listener, notice: Notice) -> bool:
        try:
            return listener.now(notice)
        except ProtocolError:
            return True  # what the notice was about is gone; nothing to show
        except Exception as exc:
            # raised in the listening task instead, which ends this connection as it would
            listener.failure = exc
            return False

    def _after_reply(self) -> None:
        """The reply is sent: each notice kept meanwhile is answered now or queued, in order."""
        waiting, self._later = self._later, []
        for listener in waiting:
            notices, listener.later = listener.later, None
            queue = listener.queue
            if queue is None or notices is None:
                continue  # the channel was let go meanwhile
            for notice in notices:
                if queue.empty() and not listener.busy and self._now(listener, notice):
                    continue
                if queue.full():
                    queue.get_nowait()
                queue.put_nowait(notice)

    def send_now(self, message: Reply | Encoded) -> bool:
        """Write ``message`` (a push) at once if the server can and no earlier frame is still
        on its way; False, having sent nothing, otherwise."""
        send_now = self._send_now
        if send_now is None or self._sending:
            return False
        return send_now(encode(message).encode())

    async def send(self, message: Reply | Encoded, req: int | None = None) -> None:
        text = encode(message, req)
        # at once when the server can and no earlier frame is still on its way through the
        # ASGI send (waiting for the lock or for the buffer): frames keep their order
        send_now = self._send_now
        if send_now is not None and not self._sending and send_now(text.encode()):
            return
        self._sending += 1
        try:
            async with self._send_lock:
                await self.socket.send_text(text)
        finally:
            self._sending -= 1

    async def _send_error(self, err: ProtocolError, req: int | None) -> None:
        text = messages.text(self.lang, err.message_key, **err.values)
        seconds = err.values.get("seconds")
        if err.code is ErrorCode.RATE_LIMITED and isinstance(seconds, int):
            reply: ErrorReply = RateLimitedReply(code=err.code, message=text, retry_after=seconds)
        else:
            reply = ErrorReply(code=err.code, message=text)
        await self.send(reply, req)


def _refuse_after(wait: float, what: str) -> None:
    """Raise ``rate_limited`` when ``wait`` (seconds until a token is back) is not 0; the
    seconds said are rounded up, so that a page that waits them is taken."""
    if wait > 0:
        seconds = max(1, math.ceil(wait)) if math.isfinite(wait) else 3600
        raise ProtocolError(ErrorCode.RATE_LIMITED, f"too many {what}", seconds=seconds)


def client_parser(games: Sequence[GameService]) -> MessageParser:
    """The parser of every message the site understands: the common ones and each game's."""
    return MessageParser([*COMMON_MESSAGES, *(m for game in games for m in game.messages)])


async def serve_socket(
    socket: WebSocket,
    players: Players,
    games: Sequence[GameService],
    bus: Bus,
    max_frame_bytes: int,
    parser: MessageParser | None = None,
    limits: Limits | None = None,
) -> None:
    """Run one connection to its end; an unexpected failure closes only this connection."""
    connection = Connection(socket, players, games, bus, max_frame_bytes, parser, limits)
    try:
        await connection.run()
    except Exception as exc:
        if _client_went_away(exc):
            # a tab closed or a network dropped while something was being sent: nothing is lost
            log.info("a WebSocket client went away (%s)", type(exc).__name__)
            return
        log.exception("closing a WebSocket after an unexpected error")
        # the socket may already be gone; then there is nothing more to do
        with contextlib.suppress(Exception):
            await socket.close(code=1011)


def _client_went_away(exc: BaseException) -> bool:
    """Whether ``exc`` (or every error in a group) says only that the client is gone."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_client_went_away(inner) for inner in exc.exceptions)
    # Starlette turns a send to a vanished client into WebSocketDisconnect; a reset or a broken
    # pipe may still surface as such (but a disk error, also an OSError, is no client's doing)
    return isinstance(exc, WebSocketDisconnect | WebSocketDisconnected | ConnectionError)
