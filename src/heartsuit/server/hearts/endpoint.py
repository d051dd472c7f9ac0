"""One socket's conversation about Hearts tables: its seat tokens, what it shows, what it follows.

A session belongs to one connection. It holds the seat tokens the page presented (a person's
seat; on a shared device, every person's seat), follows the channel of each table it sits at,
and answers every intent and every notice with a ``hearts.state`` built for its own seats only
(:func:`heartsuit.server.hearts.frames.table_state`), or with a ``hearts.patch`` from the state it
sent last when one will do (a card or a pass that moved nothing else). On a shared device it
shows a hand only after the person whose turn it is asked to look (``hearts.look``), and
forgets it again as soon as that person has acted, so a reload, the back button or the page's
DOM never show a hand to the next person.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from heartsuit import i18n
from heartsuit.hearts import Moon
from heartsuit.hearts.actions import Pass, Play
from heartsuit.server.core.bus import Notice
from heartsuit.server.core.game_service import Context
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import ClientMessage, Encoded, ErrorCode, ProtocolError, Stale
from heartsuit.server.hearts.frames import error_frame, invite_url, seat_infos
from heartsuit.server.hearts.live_table import LiveTable
from heartsuit.server.hearts.new_table import action_for
from heartsuit.server.hearts.protocol import (
    HEARTS_MESSAGES,
    HeartsCreate,
    HeartsCreated,
    HeartsError,
    HeartsErrorCode,
    HeartsErrorReply,
    HeartsFree,
    HeartsHint,
    HeartsInvite,
    HeartsLeave,
    HeartsLobby,
    HeartsLook,
    HeartsMessage,
    HeartsMoon,
    HeartsNext,
    HeartsOpen,
    HeartsPace,
    HeartsPass,
    HeartsPlay,
    HeartsRematch,
    HeartsReplayAsk,
    HeartsSeated,
    HeartsSit,
    HeartsStart,
    HintReply,
)
from heartsuit.server.hearts.replay import Replays
from heartsuit.server.hearts.service import (
    HeartsService,
    SeatTaken,
    TableChanged,
    table_channel,
)


@dataclass(slots=True)
class _Seat:
    tokens: dict[int, str] = field(default_factory=dict)
    #: the seat whose hand this (shared) device shows now, after ``hearts.look``
    looking: int | None = None
    #: the hand number and phase when that person looked: a new hand or phase covers it again
    looked_at: tuple[int, str] | None = None
    #: the version of the last state sent, so a notice about it is not answered twice
    seen: int = -1
    #: what the table part of the last state sent was made from (a patch keeps it)
    shown: tuple[Any, ...] | None = None


class HeartsEndpoint:
    """Hearts tables as ``/ws`` sees them."""

    messages = HEARTS_MESSAGES

    def __init__(self, service: HeartsService) -> None:
        self.service = service
        #: finished matches' replays, shared by every socket of the process
        self.replays = Replays(service.store)

    def session(self, context: Context) -> HeartsSession:
        return HeartsSession(self.service, context, replays=self.replays)


class HeartsSession:
    """The Hearts side of one connection."""

    def __init__(
        self, service: HeartsService, link: Context, *, replays: Replays | None = None
    ) -> None:
        self.service = service
        self.link = link
        self.replays = replays if replays is not None else Replays(service.store)
        self._tables: dict[str, _Seat] = {}
        #: the connection's player, whose statistics count the seat its page holds
        self._player = ""

    # ------------------------------------------------------------------ dispatch

    async def hello(self, player: Player) -> Mapping[str, BaseModel]:
        return {}  # tables are reached by their seat tokens, whoever the player is

    async def notice(self, notice: Notice) -> None:
        return None  # a table's notices come on its own channel (see _sit_down)

    async def handle(self, player: Player, message: ClientMessage, req: int | None) -> None:
        if not isinstance(message, HEARTS_MESSAGES):
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, "not a Hearts message")
        self._player = player.id
        try:
            await self._handle(message, req)  # type: ignore[arg-type]
        except Stale as stale:
            table_id = stale.fresh  # Hearts' stale refusal names the table to read again
            assert isinstance(table_id, str)
            state = self._frame(await self.service.table(table_id), None)
            await self.link.send(self._error(stale, state), req)
        except HeartsError as err:
            await self.link.send(self._error(err, None), req)

    async def _handle(self, message: HeartsMessage, req: int | None) -> None:
        service = self.service
        if isinstance(message, HeartsCreate):
            created = await service.create(message, self._t("hearts.name.you"))
            live = created.live
            table_id = live.record.id
            await self.link.send(
                HeartsCreated(
                    table=table_id,
                    tokens=[{"seat": s, "token": t} for s, t in sorted(created.tokens.items())],
                    invite=live.record.invite,
                    invite_url=invite_url(live.record.invite),
                ),
                req,
            )
            await self._sit_down(live, created.tokens, take_over=False)
            await self._push(live)
        elif isinstance(message, HeartsOpen):
            live = await service.table(message.table)
            tokens = {service.seat_of(live, token): token for token in message.tokens}
            await self._sit_down(live, tokens, take_over=message.take_over)
            live = await service.current(message.table)  # this process's copy may be stale
            live = await self._settled(live)
            await self.link.send(self._frame(live, message.version), req)
        elif isinstance(message, HeartsInvite):
            live = await service.by_invite(message.invite)
            await service.refresh_presence(live.record.id)
            await self.link.send(
                HeartsLobby(
                    table=live.record.id,
                    status=live.status,
                    preset=live.record.preset,
                    seats=seat_infos(
                        live, service.connected(live.record.id), service.away(live.record.id)
                    ),
                    hints=live.hints,
                ),
                req,
            )
        elif isinstance(message, HeartsSit):
            live, token = await service.sit(message.table, message.seat, message.name)
            await self.link.send(
                HeartsSeated(table=live.record.id, seat=message.seat, token=token), req
            )
            await self._sit_down(live, {message.seat: token}, take_over=False)
            await self._push(live)
        elif isinstance(message, HeartsStart):
            await self._reply(await service.start_match(message.table, message.token), req)
        elif isinstance(message, HeartsPass | HeartsPlay | HeartsMoon):
            live = await service.table(message.table)
            seat = self._held_seat(live, message.token)
            if isinstance(message, HeartsPass):
                action = action_for(seat, "pass", message.cards)
            elif isinstance(message, HeartsMoon):
                action = Moon(seat, message.choice)
            else:
                action = action_for(seat, "play", message.card)
            live = await service.act(message.table, message.token, action, message.version)
            held = self._tables[live.record.id]
            if held.looking == seat and seat not in live.awaiting():
                held.looking = None
            await self._reply(live, req)
        elif isinstance(message, HeartsLook):
            live = await service.table(message.table)
            seat = self._held_seat(live, message.token)
            if seat not in live.awaiting():
                raise HeartsError(HeartsErrorCode.NOT_YOUR_TURN, "it is not this seat's turn")
            held = self._tables[live.record.id]
            held.looking, held.looked_at = seat, _moment(live)
            await self._reply(live, req)
        elif isinstance(message, HeartsLeave):
            live = await service.table(message.table)
            seat = self._held_seat(live, message.token)
            live = await service.leave(message.table, message.token)
            held = self._tables[live.record.id]
            held.tokens.pop(seat, None)
            await self._reply(live, req)
        elif isinstance(message, HeartsFree):
            self._held_seat(await service.table(message.table), message.token)
            await self._reply(await service.free(message.table, message.token, message.seat), req)
        elif isinstance(message, HeartsRematch):
            self._held_seat(await service.table(message.table), message.token)
            await self._reply(await service.rematch(message.table, message.token), req)
        elif isinstance(message, HeartsNext):
            self._held_seat(await service.table(message.table), message.token)
            await self._reply(await service.ready(message.table, message.token), req)
        elif isinstance(message, HeartsPace):
            self._held_seat(await service.table(message.table), message.token)
            live = await service.set_pace(message.table, message.token, message.pace)
            await self._reply(live, req)
        elif isinstance(message, HeartsHint):
            self._held_seat(await service.table(message.table), message.token)
            live, seat, action = await service.hint(message.table, message.token, message.version)
            await self.link.send(
                HintReply(
                    table=live.record.id, version=live.version, seat=seat, cards=hint_cards(action)
                ),
                req,
            )
        elif isinstance(message, HeartsReplayAsk):
            await self.link.send(await self.replays.get(message.table, message.match), req)

    # ------------------------------------------------------------------ seats held

    async def _sit_down(self, live: LiveTable, held: dict[int, str], *, take_over: bool) -> None:
        table_id = live.record.id
        seat_state = self._tables.setdefault(table_id, _Seat())
        for seat, token in held.items():
            displaced = await self.service.attach(table_id, seat, self, take_over=take_over)
            seat_state.tokens[seat] = token
            if isinstance(displaced, HeartsSession) and displaced is not self:
                await displaced.taken_over(table_id, seat)
        await self.link.follow(
            table_channel(table_id),
            self._notice_handler(table_id),
            self._notice_now(table_id),
        )
        await self.service.refresh_presence(table_id)
        if self.service.counting is not None and held:
            await self.service.counting.claim(live, held, self._player)

    def _held_seat(self, live: LiveTable, token: str) -> int:
        """The seat of ``token``, which this socket must have opened (or created)."""
        seat = self.service.seat_of(live, token)
        held = self._tables.get(live.record.id)
        if held is None or held.tokens.get(seat) != token:
            raise HeartsError(HeartsErrorCode.NOT_OPEN, "open the table with this seat first")
        return seat

    async def taken_over(self, table_id: str, seat: int) -> None:
        """Another socket took this seat over: stop playing it here, and say so."""
        held = self._tables.get(table_id)
        if held is None:
            return
        held.tokens.pop(seat, None)
        if held.looking == seat:
            held.looking = None
        err = HeartsError(
            HeartsErrorCode.TAKEN_OVER, "this seat is now played in another tab or device"
        )
        await self.link.send(self._error(err, None), None)

    async def close(self) -> None:
        """The socket is gone: let go of every seat (a computer steps in after the grace)."""
        for table_id, held in self._tables.items():
            for seat in held.tokens:
                self.service.detach(table_id, seat, self)
            self.link.unfollow(table_channel(table_id))
        self._tables.clear()

    # ------------------------------------------------------------------ states

    def _for_this_socket(
        self, table_id: str, held: _Seat | None, notice: Notice
    ) -> TableChanged | SeatTaken | None:
        """What ``notice`` on the table's channel asks of this socket, which holds ``held``
        there: a seat it holds taken on another process, a version (or a presence) it has not
        been shown, or nothing.

        The one decision for both ways a notice is answered: at once, as the bus delivers it
        (:meth:`_notice_now`, when nothing needs waiting for), or queued (:meth:`_on_notice`).
        """
        if held is None:
            return None
        if isinstance(notice, SeatTaken):
            mine = notice.seat in held.tokens and notice.by != self.service.process_id
            return notice if notice.table == table_id and mine else None
        if isinstance(notice, TableChanged) and notice.table == table_id:
            return notice if notice.version > held.seen or notice.presence else None
        return None

    def _notice_handler(self, table_id: str) -> Callable[[Notice], Awaitable[None]]:
        async def on_notice(notice: Notice) -> None:
            await self._on_notice(table_id, notice)

        return on_notice

    async def _on_notice(self, table_id: str, notice: Notice) -> None:
        """Answer a notice that waited its turn in the queue (it may need to read the store,
        the presence, or wait for a change under way)."""
        heard = self._for_this_socket(table_id, self._tables.get(table_id), notice)
        if isinstance(heard, SeatTaken):
            self.service.taken_elsewhere(table_id, heard.seat)
            await self.taken_over(table_id, heard.seat)
        elif heard is not None:
            try:
                live = await self.service.table(table_id, at_least=heard.version, heard=heard)
            except HeartsError:
                return
            if heard.presence:
                await self.service.refresh_presence(table_id)
            await self._push(live)

    def _notice_now(self, table_id: str) -> Callable[[Notice], bool]:
        """The bus's fast lane: answer a notice at once when nothing needs waiting for (the
        table in memory at that version, no presence to read from elsewhere, the frame written
        at once) and return True; else return False, having changed nothing, and the notice
        goes the queued way (:meth:`_on_notice`). This is what keeps a table's change from
        queueing behind every socket's task at a thousand tables (docs/site.md, "Notices")."""
        service = self.service

        def now(notice: Notice) -> bool:
            held = self._tables.get(table_id)
            heard = self._for_this_socket(table_id, held, notice)
            if heard is None:
                return True  # nothing to answer
            if isinstance(heard, SeatTaken):
                return False
            if heard.presence and not service.ownership.local_presence:
                return False  # the presence is read from elsewhere first
            live = service.table_now(table_id, heard.version)
            if live is None:
                return False
            assert held is not None  # a notice is for this socket only while it holds seats
            return self._push_now(live, held)

        return now

    def _push_now(self, live: LiveTable, held: _Seat) -> bool:
        """:meth:`_push` through :meth:`Context.send_now`; False, having changed nothing (what
        counts as sent is put back), when the frame cannot be written at once."""
        before = held.seen, held.shown, held.looking
        if self.link.send_now(self._next(live)):
            return True
        held.seen, held.shown, held.looking = before
        return False

    async def _push(self, live: LiveTable) -> None:
        await self.link.send(self._next(await self._settled(live)), None)

    async def _settled(self, live: LiveTable) -> LiveTable:
        """The table as nobody is changing it: a copy is changed in memory before its entry
        is written, so a frame made meanwhile could show a version not yet in the log (the
        computers' turns change tables while these replies are made); this waits for the
        change under way, if any, and is the copy itself otherwise."""
        return await self.service.table(live.record.id)

    def _next(self, live: LiveTable) -> Encoded:
        """What this socket is sent of ``live`` next: a patch when one will do, else the whole
        state (either counts as sent from now on)."""
        patch = self._patch(live)
        return patch if patch is not None else self._frame(live, self._seen(live))

    def _patch(self, live: LiveTable) -> Encoded | None:
        """A ``hearts.patch`` from the last state sent to this one, when one will do: the
        socket saw the version just before, and its table part and seats are as they were."""
        table_id = live.record.id
        held = self._tables.get(table_id)
        if held is None or held.seen != live.version - 1 or live.record.mode == "hotseat":
            return None
        you = set(held.tokens)
        service = self.service
        patch = service.frames.patch(live, view_seat=min(you) if you else None)
        if patch is None:
            return None
        shown = self._table_part(live, you, service.connected(table_id), service.away(table_id))
        if shown != held.shown:
            return None
        held.seen = live.version
        return patch

    @staticmethod
    def _table_part(
        live: LiveTable, you: set[int], connected: set[int], away: set[int]
    ) -> tuple[Any, ...]:
        """What the table part of a state to this socket is made from (the seats it holds
        and is shown too), but the version."""
        facts = live.facts()  # status, seats, seed and host: the same for every socket
        return (tuple(sorted(you)), facts[3] in you, connected, away, facts, live.pace)

    async def _reply(self, live: LiveTable, req: int | None) -> None:
        """The answer to this socket's intent: a patch when one will do (the socket acted on
        the version before, e.g. played a card within a trick), else the whole state."""
        await self.link.send(self._next(await self._settled(live)), req)

    def _seen(self, live: LiveTable) -> int | None:
        held = self._tables.get(live.record.id)
        return None if held is None or held.seen < 0 else held.seen

    def _frame(self, live: LiveTable, since: int | None) -> Encoded:
        """The state for this socket as a frame whose shared parts are encoded once for the
        table: the text :func:`~heartsuit.server.hearts.frames.table_state`'s model would be
        written as (tests/test_server_hearts_frames.py holds the two equal)."""
        return self.service.frames.text(live, **self._shown(live, since))

    def _shown(self, live: LiveTable, since: int | None) -> dict[str, Any]:
        """What this socket is shown of the table (and it counts as sent from now on)."""
        table_id = live.record.id
        held = self._tables.get(table_id) or _Seat()
        you = set(held.tokens)
        awaiting = live.awaiting()
        if live.record.mode == "hotseat":
            # a shared screen shows one hand: the awaited person's, once they asked to look
            if held.looking is not None and (
                held.looking not in awaiting or held.looked_at != _moment(live)
            ):
                # the person has acted, or the hand or its phase moved on (their next hand,
                # the play after the pass): the device is covered until someone looks again
                held.looking = None
            view_seat = held.looking
        else:
            view_seat = min(you) if you else None
        connected = self.service.connected(table_id)
        away = self.service.away(table_id)
        if table_id in self._tables:
            self._tables[table_id].seen = live.version
            self._tables[table_id].shown = self._table_part(live, you, connected, away)
        return {
            "you": you,
            "view_seat": view_seat,
            "host": live.facts()[3] in you,
            "connected": connected,
            "away": away,
            "since": since,
        }

    # ------------------------------------------------------------------ words

    def _t(self, key: str, **values: Any) -> str:
        return i18n.translate(self.link.lang, key, **values)

    def _error(self, err: ProtocolError, state: Encoded | None) -> Encoded:
        """The ``error`` reply (:class:`HeartsErrorReply`), with the fresh ``state`` frame of a
        stale intent written in as it is (every state is written one way: :meth:`_frame`)."""
        reason = err.values.get("reason")
        if err.code is HeartsErrorCode.ILLEGAL and isinstance(reason, str):
            text = self._t(f"hearts.reason.{reason}")
        else:
            text = self._t(err.message_key, **err.values)
        reply = HeartsErrorReply(
            code=err.code, message=text, reason=reason if isinstance(reason, str) else None
        )
        return error_frame(reply, state)


def hint_cards(action: object) -> list[str]:
    """The cards of a hint: the one to play, or those to pass."""
    if isinstance(action, Pass):
        return [card.code for card in action.cards]
    if isinstance(action, Play):
        return [action.card.code]
    return []


def _moment(live: LiveTable) -> tuple[int, str] | None:
    match = live.match
    return None if match is None else (match.hand_number, match.hand.phase.value)
