"""A player's Hearts statistics: what counts, how it is kept, and ``GET /api/hearts/stats``.

Whose match it is. A table never names a player: a person's seat is reached by its token.
So the page that creates a table, sits down at one or opens one *claims* a seat for its player
id (:meth:`HeartsStats.claim`): the lowest seat whose token the page holds, once per player per
table. On a shared device (one player id, several people) that is seat 1, the person who set the
table up: the others at that device play as guests, and a shared-device match counts once.
Online, each friend's browser claims their own seat. A token opened on a second device (a
person moving their seat) does not claim it again: the first claim holds.

What counts, for a claimed seat:

- a match **won** (the lowest total, ties shared, as the engine's winners) or **lost** once it
  is over, in the same transaction as the log entry that ends it;
- a match **left**: the person gave up their seat to a computer while the match was under way
  (the leave button, or the host freed the seat of a friend who had gone), counted when the
  seat changes hands. A left match is never won or lost, whatever the computer does after;
- a person who drops out and whose seat a computer plays for a while is still at the table:
  the match is theirs when it ends;
- **hands** are the finished hands while the seat was the player's (those of a left match
  too); points per hand, moons shot and suffered and Q♠ taken (each Q♠: two in a two-pack
  match) are over those hands;
- the **best** and **worst** match are over finished matches, by the margin: the lowest of
  the others' final totals less the player's own (positive: how far ahead of everyone the
  player finished; negative: how far behind the winner). Ties go to the later match.

Matches finished before a seat was claimed (a table from before the statistics existed, or
a claim that a crash lost and the page's next visit makes) are counted at the claim: it
replays the table's log, off the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from heartsuit.hearts import Match
from heartsuit.hearts.game import Phase
from heartsuit.hearts.rules import QUEEN_OF_SPADES
from heartsuit.server.core.player import PLAYER_ID, header_player
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.stats_store import (
    COUNTERS,
    Outcome,
    PresetTotals,
    SeatResult,
    SqlHeartsStatsStore,
    result_steps,
    unclaim_step,
)
from heartsuit.server.hearts.store import TableStore
from heartsuit.server.storage.db import Step, StoreError

log = logging.getLogger("heartsuit.server.hearts")

#: how many (table, player) claims a process remembers, so that a page opening a table again
#: asks the store nothing
REMEMBERED_CLAIMS = 20_000


# --- what a seat's match adds up to (pure) ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatFigures:
    """A seat's finished hands in a match, and what it took in them."""

    hands: int = 0
    points: int = 0
    moons_shot: int = 0
    moons_suffered: int = 0
    queens: int = 0


def seat_figures(match: Match, seat: int) -> SeatFigures:
    hands = points = shot = suffered = queens = 0
    for hand in match.hands:
        if hand.phase is not Phase.DONE:
            continue  # the hand under way (or a moon not yet chosen) is not finished
        hands += 1
        points += hand.points()[seat]
        shooter = hand.moon_shooter()
        if shooter == seat:
            shot += 1
        elif shooter is not None:
            suffered += 1
        queens += sum(1 for card in hand.taken[seat] if card == QUEEN_OF_SPADES)
    return SeatFigures(hands, points, shot, suffered, queens)


def seat_result(
    live: LiveTable, seat: int, player_id: str, at_ms: int, *, left: bool = False
) -> SeatResult:
    """The row of ``seat``'s current match: won or lost if it is over, else ``left``."""
    match = live.match
    if match is None:
        raise ValueError("a table in its lobby has no match to count")
    figures = seat_figures(match, seat)
    total = others_best = margin = None
    outcome: Outcome = "left"
    if not left:
        if not match.is_over:
            raise ValueError("only a finished match is won or lost")
        scores = match.scores
        total = scores[seat]
        others_best = min(s for other, s in enumerate(scores) if other != seat)
        margin = others_best - total
        outcome = "won" if seat in match.winners else "lost"
    return SeatResult(
        table_id=live.record.id,
        match_no=live.match_no,
        seat=seat,
        player_id=player_id,
        mode=live.record.mode,
        preset=live.record.preset,
        players=live.rules.players,
        outcome=outcome,
        hands=figures.hands,
        points=figures.points,
        total=total,
        others_best=others_best,
        margin=margin,
        moons_shot=figures.moons_shot,
        moons_suffered=figures.moons_suffered,
        queens=figures.queens,
        ended_at_ms=at_ms,
    )


def finished_results(
    record: TableRecord, seats: Sequence[SeatRecord], entries: Sequence[LogEntry], seat: int,
    player_id: str,
) -> list[SeatResult]:
    """Every match of the log that ``seat`` finished as a person's seat, replayed (a claim's
    backfill)."""
    table = LiveTable.replay(record, seats, [])
    counted: list[SeatResult] = []

    def count(at_ms: int) -> None:
        if table.seats[seat].kind == "human":
            counted.append(seat_result(table, seat, player_id, at_ms))

    for entry in entries:
        match = table.match
        if entry.kind == "rematch" and match is not None and match.hand.phase is Phase.MOON:
            # a log from before shooters chose: its moon was scored as the engine did then
            match.settle_old_moon()
            count(entry.at_ms)
        table.apply(entry, replaying=True)
        if entry.kind == "action" and table.status == "over":
            count(entry.at_ms)
    match = table.match
    if record.status == "over" and match is not None and match.hand.phase is Phase.MOON:
        match.settle_old_moon()
        count(entries[-1].at_ms if entries else record.created_at_ms)
    return counted


# --- the totals as the page shows them --------------------------------------------------------


def _per_hand(points: int, hands: int) -> float | None:
    return round(points / hands, 2) if hands else None


def _group(totals: PresetTotals) -> dict[str, Any]:
    figures = {name: getattr(totals, name) for name in COUNTERS}
    figures["points_per_hand"] = _per_hand(totals.points, totals.hands)
    return figures


def _match(result: SeatResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "preset": result.preset,
        "mode": result.mode,
        "players": result.players,
        "outcome": result.outcome,
        "hands": result.hands,
        "total": result.total,
        "others_best": result.others_best,
        "margin": result.margin,
        "ended_at_ms": result.ended_at_ms,
    }


def combined(per_preset: Iterable[PresetTotals]) -> PresetTotals:
    """Every preset's totals added up."""
    rows = list(per_preset)
    return PresetTotals(
        "all", *(sum(getattr(row, name) for row in rows) for name in COUNTERS)
    )


def stats_document(
    per_preset: Sequence[PresetTotals], best: SeatResult | None, worst: SeatResult | None
) -> dict[str, Any]:
    """What ``GET /api/hearts/stats`` answers."""
    return {
        "overall": _group(combined(per_preset)),
        "by_preset": [{"preset": row.preset, **_group(row)} for row in per_preset],
        "best": _match(best),
        "worst": _match(worst),
    }


def recount(counted: Iterable[SeatResult]) -> list[PresetTotals]:
    """The totals computed from the rows of the matches (the slow way, for tests): the running
    totals must always equal it."""
    by_preset: dict[str, PresetTotals] = {}
    for r in counted:
        old = by_preset.get(r.preset, PresetTotals(r.preset))
        by_preset[r.preset] = PresetTotals(
            r.preset,
            matches=old.matches + 1,
            won=old.won + (r.outcome == "won"),
            lost=old.lost + (r.outcome == "lost"),
            left=old.left + (r.outcome == "left"),
            hands=old.hands + r.hands,
            points=old.points + r.points,
            moons_shot=old.moons_shot + r.moons_shot,
            moons_suffered=old.moons_suffered + r.moons_suffered,
            queens=old.queens + r.queens,
        )
    return [by_preset[name] for name in sorted(by_preset)]


# --- keeping them ------------------------------------------------------------------------------


@dataclass(slots=True)
class HeartsStats:
    """Counts the matches of claimed seats as the tables' logs grow; answers the page."""

    store: SqlHeartsStatsStore
    tables: TableStore
    #: (table, player) pairs known to be claimed (or not to be claimable: someone else's seat)
    _claimed: OrderedDict[tuple[str, str], None] = field(default_factory=OrderedDict)

    async def steps(self, live: LiveTable, entry: LogEntry) -> Sequence[Step]:
        """What ``entry``, just applied to ``live``, adds to the statistics: the steps that the
        store writes with the entry, in its transaction. Reads the store only when the entry
        ends a match or gives a person's seat away (never for a card that leaves the match
        under way)."""
        if entry.kind == "action":
            if live.status != "over":
                return ()
            claims = await self.store.claims(live.record.id)
            counted = [
                seat_result(live, seat, player, entry.at_ms)
                for seat, player in sorted(claims.items())
                if seat < len(live.seats) and live.seats[seat].kind == "human"
            ]
            return result_steps(counted, postgres=self.store.postgres)
        if entry.kind == "seat":
            seat = int(entry.data["seat"])
            if live.seats[seat].kind == "human":
                return ()  # someone sat down: their page claims the seat
            steps = [unclaim_step(live.record.id, seat)]
            if live.status == "playing":
                player = (await self.store.claims(live.record.id)).get(seat)
                if player is not None:
                    left = seat_result(live, seat, player, entry.at_ms, left=True)
                    steps += result_steps([left], postgres=self.store.postgres)
            return steps
        return ()

    async def claim(self, live: LiveTable, seats: Iterable[int], player_id: str) -> None:
        """The page of ``player_id`` holds the tokens of ``seats``: the lowest is theirs, unless
        they hold another seat of this table already or someone else claimed it first. A
        failure is logged and changes nothing (the next open claims again)."""
        held = sorted(seats)
        table_id = live.record.id
        key = (table_id, player_id)
        if not held or not PLAYER_ID.fullmatch(player_id) or key in self._claimed:
            return
        try:
            claims = await self.store.claims(table_id)
            seat = held[0]
            if player_id not in claims.values() and seat not in claims:
                counted: list[SeatResult] = []
                if live.match_no > 0 or live.status == "over":
                    counted = await self._backfill(table_id, seat, player_id)
                await self.store.claim(table_id, seat, player_id, counted)
        except (StoreError, OSError) as exc:
            log.warning("table %s: the seat of a player was not claimed: %s", table_id, exc)
            return
        self._claimed[key] = None
        if len(self._claimed) > REMEMBERED_CLAIMS:
            self._claimed.popitem(last=False)

    async def _backfill(self, table_id: str, seat: int, player_id: str) -> list[SeatResult]:
        found = await self.tables.get_table(table_id)
        if found is None:
            return []
        record, seat_rows, entries = found
        # replaying a table is CPU work: off the event loop
        return await asyncio.to_thread(
            finished_results, record, seat_rows, entries, seat, player_id
        )

    async def document(self, player_id: str) -> dict[str, Any]:
        """The player's statistics as ``GET /api/hearts/stats`` answers them."""
        if not player_id:
            return stats_document([], None, None)
        per_preset = await self.store.totals(player_id)
        best, worst = await self.store.best_and_worst(player_id)
        return stats_document(per_preset, best, worst)

    def routes(self, player_header: str) -> list[Route]:
        """``GET /api/hearts/stats``: the statistics of the player named by ``player_header``
        (the same header as ``/api/stats``)."""

        async def api_hearts_stats(request: Request) -> Response:
            # the id is the player's only credential: a header, never the URL; an absent or
            # unknown id simply has no matches yet
            player = header_player(request.headers.get(player_header))
            document = await self.document(player)
            # one player's own figures: no cache keeps them
            return JSONResponse(document, headers={"Cache-Control": "no-store"})

        return [Route("/api/hearts/stats", api_hearts_stats)]


__all__ = [
    "HeartsStats",
    "SeatFigures",
    "combined",
    "finished_results",
    "recount",
    "seat_figures",
    "seat_result",
    "stats_document",
]
