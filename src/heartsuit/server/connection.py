"""One WebSocket connection on ``/ws``: framing, errors, dispatch, and notices from other tabs.

A connection owns its language and its player (after ``hello``); the service owns the games.
Any bad frame gets an ``error`` reply and changes nothing; the connection stays open and other
connections never notice. A failure that is not the client's (a bug, the database gone) is
logged and closes this one connection with code 1011, so that the page reconnects and resumes
from the move log.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import anyio
from anyio.abc import TaskGroup
from starlette.websockets import WebSocket, WebSocketDisconnect

from heartsuit import i18n
from heartsuit.server import messages
from heartsuit.server.bus import Bus, Notice
from heartsuit.server.protocol import (
    ErrorCode,
    ErrorReply,
    Event,
    Hello,
    LangChange,
    LangReply,
    PlayerSettings,
    ProtocolError,
    ServerMessage,
    SettingsReply,
    SettingsUpdate,
    SolitaireNew,
    SolitaireNone,
    SolitaireResume,
    SolitaireState,
    SolitaireTap,
    SolitaireUndo,
    StatsRequest,
    Welcome,
    decode_frame,
    encode,
    parse_client,
    request_id,
)
from heartsuit.server.solitaire_service import Played, SolitaireService, player_channel
from heartsuit.server.solitaire_view import game_view, tap_event
from heartsuit.server.store import Preferences

log = logging.getLogger("heartsuit.server")


def _settings(prefs: Preferences) -> PlayerSettings:
    return PlayerSettings(
        move_errors=prefs.move_errors,
        placement_help=prefs.placement_help,
        winnable_only=prefs.winnable_only,
    )


class Connection:
    """The conversation with one browser tab."""

    def __init__(
        self, socket: WebSocket, service: SolitaireService, bus: Bus | None, max_frame_bytes: int
    ) -> None:
        self.socket = socket
        self.service = service
        self.bus = bus
        self.max_frame_bytes = max_frame_bytes
        self.lang: messages.Lang = i18n.pick_lang(socket.cookies.get("lang"))
        self.player: str | None = None
        self.prefs = Preferences()
        #: per game, the log length of the last state this tab was sent (to skip stale notices)
        self._seen: dict[str, int] = {}
        self._send_lock = anyio.Lock()
        self._listening: anyio.CancelScope | None = None
        self._tasks: TaskGroup | None = None

    async def run(self) -> None:
        await self.socket.accept()
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                await self._read_loop()
                tasks.cancel_scope.cancel()
        except* WebSocketDisconnect:
            pass  # the tab went away; its games are safe in the move log

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

    async def _handle(self, data: Any, req: int | None) -> None:
        message = parse_client(data)
        if isinstance(message, Hello):
            await self._hello(message, req)
            return
        if isinstance(message, LangChange):
            self.lang = message.lang
            await self.send(LangReply(lang=message.lang), req)
            return
        player = self.player
        if player is None:
            raise ProtocolError(ErrorCode.NO_PLAYER, "send hello first")
        service = self.service
        if isinstance(message, SolitaireResume):
            played = await service.resume(player)
            if played is None:
                await self.send(SolitaireNone(), req)
            else:
                await self._send_state(played, req)
        elif isinstance(message, SolitaireNew):
            await self._send_state(
                await service.new_game(player, message.code, message.winnable_only), req
            )
        elif isinstance(message, SolitaireTap):
            await self._send_state(await service.tap(player, message.game, message.target), req)
        elif isinstance(message, SolitaireUndo):
            await self._send_state(await service.undo(player, message.game), req)
        elif isinstance(message, SettingsUpdate):
            self.prefs = await service.set_preferences(
                player,
                move_errors=message.move_errors,
                placement_help=message.placement_help,
                winnable_only=message.winnable_only,
            )
            await self.send(SettingsReply(**_settings(self.prefs).model_dump()), req)
            if self.bus is not None:
                await self.bus.publish(player_channel(player), {"settings": "changed"})
        elif isinstance(message, StatsRequest):
            await self.send(await service.stats(player), req)

    async def _hello(self, message: Hello, req: int | None) -> None:
        record = await self.service.hello(message.player)
        self.player = record.id
        self.prefs = record.preferences
        self._seen.clear()
        await self.send(Welcome(player=record.id, settings=_settings(self.prefs)), req)
        if self.bus is not None and self._tasks is not None:
            if self._listening is not None:
                self._listening.cancel()
            self._tasks.start_soon(self._listen, record.id)

    async def _listen(self, player: str) -> None:
        """Follow what the player's other tabs do, so this tab never shows a stale game."""
        assert self.bus is not None
        with anyio.CancelScope() as scope:
            self._listening = scope
            async with self.bus.listen(player_channel(player)) as queue:
                while True:
                    notice = await queue.get()
                    if self.player != player:
                        return
                    try:
                        await self._follow(player, notice)
                    except ProtocolError:
                        continue  # e.g. a game another tab abandoned; nothing to show

    async def _follow(self, player: str, notice: Notice) -> None:
        if "settings" in notice:
            prefs = await self.service.preferences(player)
            if prefs != self.prefs:
                self.prefs = prefs
                await self.send(SettingsReply(**_settings(prefs).model_dump()), None)
            return
        game_id = notice.get("game")
        if not isinstance(game_id, str):
            return
        played = await self.service.game_of(player, game_id)
        if self._seen.get(game_id) != played.live.record.log_length:
            await self._send_state(played, None)

    async def _send_state(self, played: Played, req: int | None) -> None:
        live = played.live
        view = game_view(
            live.game,
            game_id=live.record.id,
            started_at_ms=live.record.started_at_ms,
            now_ms=self.service.clock(),
            placement_help=self.prefs.placement_help,
        )
        if played.result is not None:
            event = tap_event(played.result, move_errors=self.prefs.move_errors, lang=self.lang)
        else:
            event = Event(kind=played.kind)
        self._seen[live.record.id] = live.record.log_length
        await self.send(SolitaireState(game=view, event=event), req)

    async def _send_error(self, err: ProtocolError, req: int | None) -> None:
        if err.code is ErrorCode.BAD_CODE:
            key = f"server.code.{err.values.get('problem', 'parts')}"
        else:
            key = f"server.error.{err.code.value}"
        text = messages.text(self.lang, key, **err.values)
        await self.send(ErrorReply(code=err.code, message=text), req)

    async def send(self, message: ServerMessage, req: int | None) -> None:
        async with self._send_lock:
            await self.socket.send_text(encode(message, req))


async def serve_socket(
    socket: WebSocket, service: SolitaireService, bus: Bus | None, max_frame_bytes: int
) -> None:
    """Run one connection to its end; an unexpected failure closes only this connection."""
    connection = Connection(socket, service, bus, max_frame_bytes)
    try:
        await connection.run()
    except Exception:
        log.exception("closing a WebSocket after an unexpected error")
        # the socket may already be gone; then there is nothing more to do
        with contextlib.suppress(Exception):
            await socket.close(code=1011)
