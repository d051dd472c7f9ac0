"""Heart to Heart on the site: each player's games, their move logs, replay and statistics.

Players themselves are :mod:`heartsuit.server.players`'s; this service keeps their Heart to
Heart settings there (as :class:`PlayerSettings`, under ``"solitaire"``), and talks to a tab
through :mod:`heartsuit.server.solitaire_endpoint`.

The service is the only writer of solitaire games. Its rules of the house:

- A game is its deal code plus its move log. Every action that changes the game (a selection,
  a flip, a redeal, a pair, an undo) is appended to the log, with its time, *before* the caller
  is answered; taps that change nothing (a covered card) are not logged.
- Live games are kept in memory as engine objects for speed, but memory is only a cache: a
  game missing from it (evicted, or after a restart) is rebuilt by replaying its log, and a game
  whose log write failed is dropped from it so that the log stays the truth.
- One player's requests run one at a time (a per-player lock), so two tabs cannot interleave
  moves; the log's primary key (game, sequence number) refuses a second writer in any case.
- A new game (or a restart of the deal) closes the player's open game: a game under way (moves
  made, not over) counts as a loss, and only if the request names it in ``leave`` (else
  ``game_under_way``: the page asks the player first); a game with no moves is not counted; a
  deal dead from the start is shown as such and never counted (:mod:`solitaire_stats`).
- A won game is final: taps and undo are refused (``game_over``). A dead end is not final: the
  player may undo out of it, and it stays the game "continue" offers.
- Statistics are running totals, changed in the same transaction as the move or new game that
  changes them; a resume replays at most :data:`SNAPSHOT_EVERY` log entries after the newest
  snapshot of the engine, stored beside the log every that many entries.
- Time is *play time*: the game's clock runs only while at least one connection shows the
  game on a visible page (:meth:`SolitaireService.watch`; a hidden page, a closed tab and a
  lost connection all pause it). It is kept per game (``played_ms`` and ``running_since_ms``,
  stored with the game at each pause and start, so a restart or a second tab sees the same
  time), and each logged move carries the play time it was made at. The engine is given play
  time as its ``now``, so it stops its clock at a win or a dead end (and restarts it if undo
  leaves one) as before. A clock found running when a game is read back from storage with no
  viewer here (the server stopped while it ran) is paused at its last move.
- The deal of the day (:mod:`solitaire_daily`) is a code like any other; a win of it on its own
  UTC day also moves the player's daily streak.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

from heartsuit.server.bus import Bus, Notice, notice
from heartsuit.server.clock import Clock, wall_ms
from heartsuit.server.players import PlayerService, player_channel
from heartsuit.server.protocol import ErrorCode, ProtocolError
from heartsuit.server.solitaire_daily import ATTEMPTS, candidate, date_of, day_of
from heartsuit.server.solitaire_protocol import DailyStats, PlayerSettings, StatsReply
from heartsuit.server.solitaire_stats import (
    DEFAULT_PAGE,
    close_game,
    stats_reply,
    tally,
    under_way,
)
from heartsuit.server.solitaire_store import (
    SNAPSHOT_EVERY,
    DealAnalysis,
    GameRecord,
    GameStatus,
    MoveRecord,
    PlayerTotals,
    SolitaireStore,
    Tally,
    TallyKind,
)
from heartsuit.solitaire import Action, Game, GameError, GameOver, Outcome, TapKind, TapResult
from heartsuit.solitaire.codes import DealCodeError, normalize_code, random_code
from heartsuit.solitaire.taps import check_target

#: the name the player's Heart to Heart preferences are stored under
GAME = "solitaire"

Analyse = Callable[[str], bool]
"""Whether the deal of a code can be won (the solver); called in a worker thread."""


@notice("solitaire.game_changed")
@dataclass(frozen=True, slots=True)
class GameChanged(Notice):
    """One of the player's games changed (a move, an undo, a new deal): ``log_length`` says how
    far its move log now goes, so that a tab already showing that much need not look."""

    player: str
    game: str
    log_length: int


@dataclass(slots=True)
class LiveGame:
    """A game in memory: its row as stored and the engine replayed from its log."""

    record: GameRecord
    game: Game


@dataclass(frozen=True, slots=True)
class Played:
    """The answer to a request about a game: the game, and what the request did to it."""

    live: LiveGame
    kind: str
    result: TapResult | None = None


#: the log's words for the actions that are not heart positions
_NAMED_ACTIONS: dict[str, Action] = {"stock": "stock", "waste": "waste", "undo": "undo"}


def _action_value(text: str) -> Action:
    """A logged action back as the engine's value ("25" -> 25, "stock" -> "stock")."""
    if text.isdigit():
        return int(text)
    if text in _NAMED_ACTIONS:
        return _NAMED_ACTIONS[text]
    raise GameError(f"the move log holds an unknown action {text!r}", "bad_log")


def _checked_code(code: str) -> str:
    """``code`` normalised, or ``bad_code`` saying what is wrong (an empty text is refused: a
    random deal is asked for with no code at all)."""
    try:
        return normalize_code(code)
    except DealCodeError as err:
        shown = code.strip()
        if not shown:
            raise ProtocolError(ErrorCode.BAD_CODE, str(err), problem="empty") from None
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        raise ProtocolError(
            ErrorCode.BAD_CODE, str(err), problem=err.problem.value, code=repr(shown)
        ) from None


class SolitaireService:
    """Games, their preferences and statistics on top of a :class:`SolitaireStore`, the
    :class:`PlayerService` (and a :class:`Bus`)."""

    def __init__(
        self,
        store: SolitaireStore,
        players: PlayerService,
        *,
        bus: Bus | None = None,
        clock: Clock = wall_ms,
        analyse: Analyse | None = None,
        winnable_attempts: int = 40,
        live_games: int = 2000,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.store = store
        self.players = players
        self.bus = bus
        self.clock = clock
        self.analyse = analyse
        self.winnable_attempts = winnable_attempts
        self._live: OrderedDict[str, LiveGame] = OrderedDict()
        self._live_limit = live_games
        #: a snapshot of the engine is stored after every this many log entries
        self.snapshot_every = snapshot_every
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        #: the game each viewer (a connection showing a game on a visible page) watches, and
        #: the viewers of each game: a game's clock runs while it has any
        self._watching: dict[object, tuple[str, str]] = {}
        self._viewers: dict[str, set[object]] = {}
        #: the deal of the day, per UTC day already asked for
        self._daily: dict[int, str] = {}

    # ------------------------------------------------------------------ preferences

    async def preferences(self, player_id: str) -> PlayerSettings:
        return await self.players.preferences(player_id, GAME, PlayerSettings)

    async def set_preferences(
        self,
        player_id: str,
        *,
        move_errors: bool | None = None,
        placement_help: bool | None = None,
        winnable_only: bool | None = None,
    ) -> PlayerSettings:
        """Change some settings; the others keep their stored values. Returns all of them."""
        async with self._lock(player_id):
            prefs = await self.preferences(player_id)
            changes = {
                "move_errors": move_errors,
                "placement_help": placement_help,
                "winnable_only": winnable_only,
            }
            prefs = prefs.model_copy(update={k: v for k, v in changes.items() if v is not None})
            await self.players.save_preferences(player_id, GAME, prefs)
        return prefs

    # ------------------------------------------------------------------ games

    async def resume(self, player_id: str) -> Played | None:
        """The player's open game (playing or at a dead end), if any."""
        async with self._lock(player_id):
            record = await self.store.open_game(player_id)
            if record is None:
                return None
            return Played(await self._load(record.id, player_id), "resumed")

    async def new_game(
        self,
        player_id: str,
        code: str | None = None,
        winnable_only: bool | None = None,
        *,
        leave: str | None = None,
        daily: bool = False,
    ) -> Played:
        """Deal a new game (of ``code``, the deal of the day with ``daily``, or a random deal)
        and make it the player's game.

        A bad code (an empty one too) raises ``bad_code``; a game under way that ``leave``
        does not name raises ``game_under_way``; either way the current game stays.
        """
        if code is not None:
            code = _checked_code(code)
        elif daily:
            code = await self.daily_code()
        async with self._lock(player_id):
            return await self._deal(player_id, code, winnable_only, leave, "dealt")

    async def restart(self, player_id: str, game_id: str, *, leave: str | None = None) -> Played:
        """Deal the code of the player's game ``game_id`` again, from the start; the game in
        progress is left as by :meth:`new_game` (recorded once: a loss if under way)."""
        async with self._lock(player_id):
            record = await self.store.get_game(game_id)
            if record is None or record.player_id != player_id:
                raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
            return await self._deal(player_id, record.code, False, leave, "restarted")

    async def _deal(
        self,
        player_id: str,
        code: str | None,
        winnable_only: bool | None,
        leaving: str | None,
        kind: str,
    ) -> Played:
        """The body of :meth:`new_game` and :meth:`restart`, under the player's lock."""
        open_games = await self.store.open_games(player_id)
        for current in open_games:
            if under_way(current) and current.id != leaving:
                raise ProtocolError(
                    ErrorCode.GAME_UNDER_WAY,
                    f"game {current.id} is under way: name it in 'leave' to leave it",
                    game=current.id,
                )
        if code is None:
            if winnable_only is None:
                winnable_only = (await self.preferences(player_id)).winnable_only
            code = await self._draw_code(winnable_only)
        await self.players.ensure(player_id)  # the player's first game stores them
        now = self.clock()
        game = Game.from_code(code, now=0.0)  # the engine runs on play time, 0 at the deal
        record = GameRecord(secrets.token_urlsafe(12), player_id, code, now)
        tallies: list[Tally] = []
        if game.dead_end:
            # some deals can never be played (the tip's partners all lie in the heart)
            record = replace(record, status=GameStatus.DEAD_DEAL, ended_at_ms=now, elapsed_ms=0)
            tallies.append(Tally(TallyKind.DEAD_DEAL, record))
        closed: list[GameRecord] = []
        for current in open_games:
            after, counted = close_game(current, now)
            closed.append(after)
            if counted is not None:
                tallies.append(counted)
        await self.store.start_game(record, closed, tallies)
        for old in closed:
            self._live.pop(old.id, None)
        live = LiveGame(record, game)
        self._remember(live)
        await self._notify(record)
        return Played(live, kind)

    async def tap(self, player_id: str, game_id: str, target: object) -> Played:
        """Touch a card, the stock or the waste of the player's game ``game_id``."""
        try:
            checked = check_target(target)
        except GameError as err:
            raise ProtocolError(ErrorCode.BAD_TARGET, str(err)) from None
        async with self._lock(player_id):
            live = await self._playable(game_id, player_id)
            now = self.clock()
            played = live.record.play_ms(now)
            try:
                result = live.game.tap(checked, now=played / 1000)
            except GameOver as err:
                raise ProtocolError(ErrorCode.GAME_OVER, str(err)) from None
            if result.kind is not TapKind.IGNORED:
                await self._log(live, str(checked), now, played)
        if result.kind is not TapKind.IGNORED:
            await self._notify(live.record)
        return Played(live, result.kind.value, result)

    async def undo(self, player_id: str, game_id: str) -> Played:
        """Take back the last move of the player's game ``game_id``."""
        async with self._lock(player_id):
            live = await self._playable(game_id, player_id)
            now = self.clock()
            played = live.record.play_ms(now)
            undone = live.game.undo(now=played / 1000)
            if undone:
                await self._log(live, "undo", now, played)
        if undone:
            await self._notify(live.record)
        return Played(live, "undone" if undone else "nothing_to_undo")

    async def game_of(self, player_id: str, game_id: str) -> Played:
        """The current state of one of the player's games (after a notice from another tab)."""
        async with self._lock(player_id):
            return Played(await self._load(game_id, player_id), "synced")

    async def stats(
        self, player_id: str, offset: int = 0, limit: int = DEFAULT_PAGE
    ) -> StatsReply:
        """The player's statistics and one page of the per-deal list (an unknown player simply
        has none); two reads of the running totals, however many games were played."""
        totals = await self.store.totals(player_id)
        codes, count = await self.store.code_totals(player_id, offset, limit)
        reply = stats_reply(totals, codes, count, offset, limit)
        return reply.model_copy(update={"daily": await self.daily_stats(totals)})

    async def daily_stats(self, totals: PlayerTotals) -> DailyStats:
        """The deal of the day and its statistics (everyone's), with the player's daily streak
        (``totals``): a streak is current while its last win is today's or yesterday's."""
        today = day_of(self.clock())
        code = await self.daily_code(today)
        summary = await self.store.code_summary(code)
        last = totals.last_daily_day
        alive = last is not None and last >= today - 1
        return DailyStats(
            code=code,
            date=date_of(today).isoformat(),
            players=summary.players,
            winners=summary.winners,
            best_time_ms=summary.best_time_ms,
            fewest_moves=summary.fewest_moves,
            won_today=last == today,
            streak=totals.daily_streak if alive else 0,
            best_streak=totals.best_daily_streak,
        )

    async def daily_code(self, day: int | None = None) -> str:
        """The deal of the day (today's by the service's clock, UTC): its first candidate that
        the solver proves winnable, as :func:`solitaire_daily.daily_code` says."""
        if day is None:
            day = day_of(self.clock())
        code = self._daily.get(day)
        if code is None:
            code = candidate(day, 0)
            if self.analyse is not None:
                for attempt in range(ATTEMPTS):
                    if await self._winnable(candidate(day, attempt)):
                        code = candidate(day, attempt)
                        break
            while len(self._daily) >= 4:
                self._daily.pop(next(iter(self._daily)))
            self._daily[day] = code
        return code

    async def is_daily(self, code: str, day: int | None = None) -> bool:
        """Whether ``code`` is the deal of the day (today's by default). The solver is asked only
        about a code that is one of the day's candidates, so other games never wait for it."""
        if day is None:
            day = day_of(self.clock())
        known = self._daily.get(day)
        if known is not None:
            return code == known
        if all(code != candidate(day, attempt) for attempt in range(ATTEMPTS)):
            return False
        return code == await self.daily_code(day)

    # ------------------------------------------------------------------ the play clock

    async def watch(self, viewer: object, player_id: str, game_id: str | None) -> None:
        """``viewer`` (one connection) now shows the player's game ``game_id`` on a visible
        page, or (None) no game, or not visibly. A game's clock runs while it has a viewer: the
        first one starts it, the last one leaving pauses it (both stored at once)."""
        async with self._lock(player_id):
            old = self._watching.get(viewer)
            if old is not None and old[1] == game_id:
                return
            if game_id is not None:
                live = await self._load(game_id, player_id)  # unknown_game before any change
            if old is not None:
                del self._watching[viewer]
                viewers = self._viewers.get(old[1], set())
                viewers.discard(viewer)
                if not viewers:
                    self._viewers.pop(old[1], None)
                    await self._set_running(old[1], old[0], running=False)
            if game_id is None:
                return
            self._watching[viewer] = (player_id, game_id)
            viewers = self._viewers.setdefault(game_id, set())
            viewers.add(viewer)
            if len(viewers) == 1:
                await self._set_running(live.record.id, player_id, running=True)

    def clock_running(self, live: LiveGame) -> bool:
        """Whether the game's play clock is counting now (it also stops at a win or dead end)."""
        return live.record.running_since_ms is not None and live.game.outcome is Outcome.PLAYING

    def play_ms(self, live: LiveGame) -> int:
        """The game's play time now (the engine's ``now`` for it)."""
        return live.record.play_ms(self.clock())

    async def _set_running(self, game_id: str, player_id: str, *, running: bool) -> None:
        try:
            live = await self._load(game_id, player_id)
        except ProtocolError:
            return  # gone: nothing to count
        record, now = live.record, self.clock()
        if running and record.running_since_ms is None:
            changed = replace(record, running_since_ms=now)
        elif not running and record.running_since_ms is not None:
            changed = replace(record, played_ms=record.play_ms(now), running_since_ms=None)
        else:
            return
        await self.store.set_clock(changed)
        live.record = changed

    def under_way(self, live: LiveGame) -> bool:
        """Whether leaving this game now would count it as a loss."""
        return under_way(live.record)

    # ------------------------------------------------------------------ internals

    def _lock(self, player_id: str) -> asyncio.Lock:
        lock = self._locks.get(player_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[player_id] = lock
        return lock

    def _remember(self, live: LiveGame) -> None:
        self._live[live.record.id] = live
        self._live.move_to_end(live.record.id)
        while len(self._live) > self._live_limit:
            self._live.popitem(last=False)

    def forget(self, game_id: str | None = None) -> None:
        """Drop one game (or all) from memory; the next request replays the log."""
        if game_id is None:
            self._live.clear()
        else:
            self._live.pop(game_id, None)

    async def _load(self, game_id: str, player_id: str) -> LiveGame:
        live = self._live.get(game_id)
        if live is None:
            record = await self.store.get_game(game_id)
            if record is None or record.player_id != player_id:
                raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
            if record.running_since_ms is not None and not self._viewers.get(game_id):
                record = await self._settle(record)
            live = LiveGame(record, await self._rebuild(record))
        elif live.record.player_id != player_id:
            # another player's game id is as unknown to this player as a made-up one
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
        self._remember(live)
        return live

    async def _settle(self, record: GameRecord) -> GameRecord:
        """A game read back with its clock running and nobody here watching it (the server
        stopped while it ran): paused at its last move (or when it started running, if later),
        since nobody can say the player was there after that."""
        last = await self.store.moves(record.id, max(0, record.log_length - 1))
        until = max([record.running_since_ms or 0] + [move.at_ms for move in last])
        settled = replace(record, played_ms=record.play_ms(until), running_since_ms=None)
        await self.store.set_clock(settled)
        return settled

    async def _rebuild(self, record: GameRecord) -> Game:
        """The game of ``record`` from its newest snapshot and the log entries after it (at
        most ``snapshot_every``), or from the deal and the whole log without a usable one."""
        game: Game | None = None
        since = 0
        stored = await self.store.snapshot(record.id)
        if stored is not None and stored[0] <= record.log_length:
            try:
                game = Game.from_dict(json.loads(stored[1]))
                since = stored[0]
            except (ValueError, GameError):
                game = None  # a damaged snapshot: the log alone still says everything
        if game is None:
            game, since = Game.from_code(record.code, now=0.0), 0
        log = await self.store.moves(record.id, since)
        for index, move in enumerate(log, start=since):
            # play time; a move logged before there was play time counts from the deal
            played = move.play_ms if move.play_ms is not None else move.at_ms - record.started_at_ms
            action, now = _action_value(move.action), played / 1000
            try:
                if action == "undo":
                    game.undo(now=now)
                else:
                    game.tap(action, now=now)
            except GameError as err:
                raise GameError(f"action {index} ({action!r}) of the log: {err}", err.key) from None
        return game

    async def _playable(self, game_id: str, player_id: str) -> LiveGame:
        live = await self._load(game_id, player_id)
        if live.record.status not in (GameStatus.PLAYING, GameStatus.DEAD_END):
            raise ProtocolError(
                ErrorCode.GAME_OVER, f"game {game_id} is {live.record.status.value}"
            )
        return live

    async def _log(self, live: LiveGame, action: str, now: int, played: int) -> None:
        """Write the action and the game's new summary; on any failure forget the game."""
        game, old = live.game, live.record
        outcome = game.outcome
        status = {
            Outcome.PLAYING: GameStatus.PLAYING,
            Outcome.WON: GameStatus.WON,
            Outcome.DEAD_END: GameStatus.DEAD_END,
        }[outcome]
        finished = outcome is not Outcome.PLAYING
        summary = replace(
            old,
            status=status,
            moves=game.moves,
            score=game.score,
            ended_at_ms=now if finished else None,
            elapsed_ms=round(game.elapsed(played / 1000) * 1000) if finished else None,
            log_length=old.log_length + 1,
        )
        move = MoveRecord(old.id, old.log_length, action, now, played)
        counted = tally(old.status, summary)
        if counted is not None and counted.kind is TallyKind.WIN:
            today = day_of(now)
            if await self.is_daily(summary.code, today):
                counted = replace(counted, daily_day=today)
        snapshot = None
        if summary.log_length % self.snapshot_every == 0:
            snapshot = json.dumps(game.to_dict(), separators=(",", ":"))
        try:
            await self.store.append_move(move, summary, counted, snapshot)
        except BaseException:
            # the engine already moved: only a replay of the log can say where the game is
            self._live.pop(old.id, None)
            raise
        live.record = summary

    async def _notify(self, record: GameRecord) -> None:
        if self.bus is not None:
            changed = GameChanged(record.player_id, record.id, record.log_length)
            await self.bus.publish(player_channel(record.player_id), changed)

    async def _draw_code(self, winnable_only: bool) -> str:
        """A random deal; with ``winnable_only``, one the solver proves winnable if it can.

        Verdicts are cached in the store, shared by all players. If no winnable deal turns up
        within the attempts allowed, the last deal is used rather than keeping the player
        waiting (the documented limit of the option).
        """
        code = random_code()
        if not winnable_only or self.analyse is None:
            return code
        for _attempt in range(self.winnable_attempts):
            if await self._winnable(code):
                return code
            code = random_code()
        return code

    async def _winnable(self, code: str) -> bool:
        known = await self.store.deal_analysis(code)
        if known is not None:
            return known.winnable
        assert self.analyse is not None
        verdict = await asyncio.to_thread(self.analyse, code)
        await self.store.save_deal_analysis(DealAnalysis(code, verdict))
        return verdict
