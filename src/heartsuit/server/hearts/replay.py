"""Finished matches of a table, face up: what the replay page (``/hearts/replay/<table>/<n>``)
is sent.

A table's log holds its matches one after another (``start``, then each ``rematch``). Replaying
it with the same :meth:`LiveTable.apply` that serves the table gives each match as the engine
played it; a match that is over is written whole by :func:`heartsuit.hearts.record.hand_records`
(every deal, pass and trick), one still being played is refused with ``match_running`` and
nothing of it is sent — not even the finished hands of it, since its seed deals the rest. Nothing
needs a seat token: once a match is over, everyone may see everything of it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import anyio

from heartsuit.hearts import Match
from heartsuit.hearts.codes import code_of
from heartsuit.hearts.record import hand_records
from heartsuit.server.hearts.frames import sheet
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.protocol import HeartsError, HeartsErrorCode, HeartsReplay, ReplaySeat
from heartsuit.server.hearts.store import TableStore


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One match of a table: the engine's match and the seats as they were when it ended (or
    are now, while it runs)."""

    match: Match
    seats: tuple[SeatRecord, ...]

    @property
    def over(self) -> bool:
        return self.match.is_over


def matches_of(
    record: TableRecord, seats: Sequence[SeatRecord], log: Sequence[LogEntry]
) -> list[PlayedMatch]:
    """Every match of the table, in order, replayed from its log."""
    live = LiveTable.replay(record, seats, [])
    played: list[PlayedMatch] = []
    for entry in log:
        ended = live.match if entry.kind == "rematch" else None
        # (a rematch settles an old log's last moon itself, as the table does)
        live.apply(entry, replaying=True)
        if ended is not None:
            # a rematch changes no seat: these are the seats the match ended with
            played.append(PlayedMatch(ended, tuple(live.seats)))
    match = live.match
    if match is not None:
        if record.status == "over" and match.hand.phase == "moon":
            match.settle_old_moon()  # stored as over before shooters chose (LiveTable.replay)
        played.append(PlayedMatch(match, tuple(live.seats)))
    return played


def replay_of(
    record: TableRecord,
    seats: Sequence[SeatRecord],
    log: Sequence[LogEntry],
    number: int | None,
) -> HeartsReplay:
    """Match ``number`` (from 1; None: the last finished one) of the table, face up.

    Raises ``match_running`` when that match is not over (or none is yet), ``unknown_table``
    when the table has no such match.
    """
    played = matches_of(record, seats, log)
    finished = [m for m in played if m.over]
    if number is None:
        if not finished:
            raise HeartsError(HeartsErrorCode.MATCH_RUNNING, "no match of this table is over yet")
        number = played.index(finished[-1]) + 1
    if not 1 <= number <= len(played):
        raise HeartsError(HeartsErrorCode.UNKNOWN_TABLE, f"this table has no match {number}")
    chosen = played[number - 1]
    if not chosen.over:
        raise HeartsError(HeartsErrorCode.MATCH_RUNNING, f"match {number} is still being played")
    match = chosen.match
    return HeartsReplay(
        table=record.id,
        mode=record.mode,
        preset=record.preset,
        rules=match.rules.to_dict(),
        match=number,
        matches=len(finished),
        code=code_of(record.preset, match.seed, players=match.rules.players),
        seats=[
            ReplaySeat(seat=s.seat, name=s.name, kind=s.kind, level=s.level) for s in chosen.seats
        ],
        hands=hand_records(match),
        sheet=sheet(match),
        winners=list(match.winners),
    )


class Replays:
    """Replays of finished matches, each replayed once: a match that is over never changes, and
    replaying it is the table's whole log through the engine (about 11 ms of CPU for a match of
    nine hands). The latest :data:`KEPT` asked for are kept; a first one is made off the event
    loop. The log is still read for each request, for how many of the table's matches are over
    by now (cheap: its rematches are counted, nothing is replayed).
    """

    #: how many finished matches' replays are kept
    KEPT = 256

    def __init__(self, store: TableStore) -> None:
        self.store = store
        self._kept: OrderedDict[tuple[str, int], HeartsReplay] = OrderedDict()

    async def get(self, table_id: str, number: int | None) -> HeartsReplay:
        """:func:`replay_of` the table as the store holds it (the log is the truth)."""
        found = await self.store.get_table(table_id)
        if found is None:
            raise HeartsError(HeartsErrorCode.UNKNOWN_TABLE, "there is no such table")
        record, seats, log = found
        # each rematch follows a match that is over; the last match is over with the table
        finished = sum(entry.kind == "rematch" for entry in log) + (record.status == "over")
        kept = self._kept.get((table_id, number or finished))
        if kept is not None:
            self._kept.move_to_end((table_id, kept.match))
            return kept.model_copy(update={"matches": finished})
        made = await anyio.to_thread.run_sync(replay_of, record, seats, log, number)
        self._kept[(table_id, made.match)] = made
        while len(self._kept) > self.KEPT:
            self._kept.popitem(last=False)
        return made
