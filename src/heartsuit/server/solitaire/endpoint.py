"""Heart to Heart's end of ``/ws``: its messages, answered for one tab, and its pushes.

:class:`SolitaireEndpoint` is what ``app.py`` registers (a
:class:`~heartsuit.server.core.game_service.GameService`); for each connection it opens a
:class:`SolitaireSession`, which answers the solitaire messages with the
:class:`~heartsuit.server.solitaire.service.SolitaireService` and remembers what this tab was
last sent: the player's settings (so a change made in another tab is pushed once) and, per
game, the length of the move log it was shown (so a notice about a move this tab already
shows is not answered with the same state again).

It is also a *viewer* of the game it shows, for the play clock: the game page says when it is
visible or hidden (``solitaire.visibility``); a tab that has not said so counts as visible once
it plays (a tap, an undo, a new deal), but a mere ``solitaire.resume`` (the home page asking
whether there is a game to continue) does not start the clock. Closing the connection stops
watching.
"""

from __future__ import annotations

from collections.abc import Mapping

import anyio
from pydantic import BaseModel

from heartsuit.server.core import messages
from heartsuit.server.core.bus import Notice
from heartsuit.server.core.game_service import Context
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import ClientMessage, Encoded, Stale
from heartsuit.server.players.service import PlayerChanged
from heartsuit.server.solitaire.frames import plain_event, stale_frame, state_frame, tap_event
from heartsuit.server.solitaire.protocol import (
    MESSAGES,
    PlayerSettings,
    SettingsReply,
    SettingsUpdate,
    SolitaireNew,
    SolitaireNone,
    SolitaireRestart,
    SolitaireResume,
    SolitaireTap,
    SolitaireUndo,
    SolitaireVisibility,
    StatsRequest,
)
from heartsuit.server.solitaire.service import GameChanged, Played, SolitaireService


class SolitaireEndpoint:
    """Heart to Heart as ``/ws`` sees it."""

    messages = MESSAGES

    def __init__(self, service: SolitaireService) -> None:
        self.service = service

    def session(self, context: Context) -> SolitaireSession:
        return SolitaireSession(self.service, context)


class SolitaireSession:
    """Heart to Heart's part of one connection."""

    def __init__(self, service: SolitaireService, context: Context) -> None:
        self.service = service
        self.context = context
        self.prefs = PlayerSettings()
        #: per game, the log length of the last state this tab was sent (to skip stale notices)
        self._seen: dict[str, int] = {}
        #: what the page said of itself: visible, hidden, or nothing yet (None)
        self._visible: bool | None = None
        #: the player and the game this tab was last sent
        self._player: str | None = None
        self._showing: str | None = None

    async def hello(self, player: Player) -> Mapping[str, BaseModel]:
        self.prefs = await self.service.preferences(player.id)
        self._seen.clear()
        if self._player is not None and self._player != player.id:
            await self.service.watch(self, self._player, None)
        self._player = player.id
        return {"settings": self.prefs}

    async def handle(self, player: Player, message: ClientMessage, req: int | None) -> None:
        service, pid = self.service, player.id
        helped = self.prefs.placement_help
        self._player = pid
        playing = self._visible is not False  # a tab that plays is looked at, unless it said not
        viewer = self if playing else None
        if isinstance(message, SolitaireResume):
            played = await service.resume(
                pid, placement_help=helped, viewer=self if self._visible is True else None
            )
            if played is None:
                await self.context.send(SolitaireNone(), req)
            else:
                await self._send_state(played, req)
        elif isinstance(message, SolitaireNew):
            # "use the player's setting" is this tab's copy of it (kept as the other settings
            # are: read at hello, changed by this tab, followed from the others' notices), so a
            # deal does not read it from the store again
            winnable = message.winnable_only
            await self._send_state(
                await service.new_game(
                    pid,
                    message.code,
                    self.prefs.winnable_only if winnable is None else winnable,
                    leave=message.leave,
                    placement_help=helped,
                    daily=message.daily,
                    viewer=viewer,
                ),
                req,
            )
        elif isinstance(message, SolitaireRestart):
            await self._send_state(
                await service.restart(
                    pid, message.game, leave=message.leave, placement_help=helped, viewer=viewer
                ),
                req,
            )
        elif isinstance(message, SolitaireTap | SolitaireUndo):
            # a page that plays watches the game first (in the service, under the player's
            # lock): the clock runs at the move
            try:
                if isinstance(message, SolitaireTap):
                    played = await service.tap(
                        pid,
                        message.game,
                        message.target,
                        intent=message.intent,
                        base=message.base,
                        placement_help=helped,
                        viewer=viewer,
                    )
                else:
                    played = await service.undo(
                        pid,
                        message.game,
                        intent=message.intent,
                        base=message.base,
                        placement_help=helped,
                        viewer=viewer,
                    )
            except Stale as stale:
                await self._send_stale(stale, req)
                return
            await self._send_state(played, req)
        elif isinstance(message, SolitaireVisibility):
            self._visible = message.visible
            if not message.visible:
                await service.watch(self, pid, None)
            showing = self._showing
            if showing is None:
                await self.context.send(SolitaireNone(), req)
            else:
                played_now = await service.game_of(
                    pid,
                    showing,
                    placement_help=helped,
                    viewer=self if message.visible else None,
                )
                await self._send_state(played_now, req)
        elif isinstance(message, SettingsUpdate):
            self.prefs = await service.set_preferences(
                pid,
                move_errors=message.move_errors,
                placement_help=message.placement_help,
                winnable_only=message.winnable_only,
            )
            await self.context.send(SettingsReply(**self.prefs.model_dump()), req)
        elif isinstance(message, StatsRequest):
            await self.context.send(await service.stats(pid, message.offset, message.limit), req)

    async def notice(self, notice: Notice) -> None:
        """Follow what the player's other tabs do, so this tab never shows a stale game."""
        if isinstance(notice, PlayerChanged):
            prefs = await self.service.preferences(notice.player)
            if prefs != self.prefs:
                self.prefs = prefs
                await self.context.send(SettingsReply(**prefs.model_dump()))
        elif isinstance(notice, GameChanged):
            if self._seen.get(notice.game, -1) >= notice.log_length:
                return  # this tab was already sent the game as far as the notice goes
            played = await self.service.game_of(
                notice.player,
                notice.game,
                log_length=notice.log_length,
                placement_help=self.prefs.placement_help,
                viewer=self if self._visible is True else None,
            )
            assert played.parts is not None
            if self._seen.get(notice.game) != played.parts.log_length:
                await self._send_state(played, None)

    async def close(self) -> None:
        # the games live in the move log; only the play clock is told this tab is gone (shielded:
        # a connection torn down by cancellation must still pause the clock)
        if self._player is not None:
            with anyio.CancelScope(shield=True):
                await self.service.watch(self, self._player, None)

    async def _send_state(self, played: Played, req: int | None) -> None:
        view = played.parts
        assert view is not None  # the service builds every answer's view under its lock
        self._showing = view.id
        if played.result is not None:
            event = tap_event(
                played.result, move_errors=self.prefs.move_errors, lang=self.context.lang
            )
        else:
            event = plain_event(played.kind, played.repeat)
        seen = self._seen.get(view.id, -1)
        if view.log_length > seen:
            self._seen[view.id] = view.log_length
        # the frame is written from the view's parts (no model built: a state is sent after
        # every tap), the same text as encode(SolitaireState(...)) writes (tested)
        await self.context.send(Encoded(state_frame(view, event)), req)

    async def _send_stale(self, stale: Stale[object], req: int | None) -> None:
        played = stale.fresh  # Heart to Heart's stale refusal carries the game as it is now
        assert isinstance(played, Played)
        view = played.parts
        assert view is not None
        self._seen[view.id] = max(self._seen.get(view.id, -1), view.log_length)
        text = messages.text(self.context.lang, "server.error.solitaire_stale")
        await self.context.send(Encoded(stale_frame(view, text)), req)
