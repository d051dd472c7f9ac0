"""Heart to Heart on the site: each player's games, their move logs, replay and statistics.

Players themselves are :mod:`heartsuit.server.players.service`'s; this service keeps their Heart to
Heart settings there (as :class:`PlayerSettings`, under ``"solitaire"``), and talks to a tab
through :mod:`heartsuit.server.solitaire.endpoint`.

The service is the only writer of solitaire games. Its rules of the house:

- A game is its deal code plus its move log. Every action that changes the game (a selection,
  a flip, a redeal, a pair, an undo) is appended to the log, with its time, *before* the caller
  is answered; taps that change nothing (a covered card) are not logged, but their intent ids
  are kept (``note_quiet_intent``) so that one sent again later is not applied then.
- Live games are kept in memory as engine objects for speed, but memory is only a cache: a
  game missing from it (evicted, or after a restart) is rebuilt by replaying its log, and a game
  whose log write failed is dropped from it so that the log stays the truth.
- One player's requests run one at a time (a per-player lock), so two tabs cannot interleave
  moves; the log's primary key (game, sequence number) refuses a second writer in any case.
  Each reply's view is built while that lock is held, so it is the game as the request left it.
- Another process may have written the game since this one cached it: the store then refuses
  the write (:class:`MoveConflict`), and the service catches up from the log and checks the
  action once more on the fresh game; if it still cannot be written, or the page's view
  (``base``) was already behind, the answer is ``stale`` with the fresh state (:class:`Stale`).
- Taps and undos may carry the page's id of the intent (``intent``), kept in the log: an intent
  sent again (a retry after a dropped connection, in any process, after a restart) is answered
  with the game as it is, marked ``repeat``, and never applied twice.
- A new game (or a restart of the deal) closes the player's open game: a game under way (moves
  made, not over) counts as a loss, and only if the request names it in ``leave`` (else
  ``game_under_way``: the page asks the player first); a game with no moves is not counted; a
  deal dead from the start is shown as such and never counted
  (:mod:`heartsuit.server.solitaire.stats`).
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
  viewer here (the server stopped while it ran) is paused at its last move; a game caught up
  from the log (another process wrote it) keeps its clock as stored, and a move made with no
  viewer here is timed by the clock as stored (another process's viewer may run it). Only the
  starts and pauses write the clock, never a move.
- The deal of the day (:mod:`heartsuit.server.solitaire.daily`) is a code like any other; a win of
  it on its own UTC day also moves the player's daily streak.

Why one module of this length: each public method runs under the player's lock over the same
copies in memory, and the rules above bind them (a new game closes the open one and counts it,
a move moves the clock, the totals and the streak). What needs none of that lives beside it:
what counts (``stats.py``), the deal of the day (``daily.py``), the views and frames
(``frames.py``), the locks, copies and conflicts (``storage/event_log.py``).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from heartsuit.server.core.bus import Bus, Notice, notice
from heartsuit.server.core.clock import Clock, wall_ms
from heartsuit.server.core.player import player_channel
from heartsuit.server.core.protocol import ProtocolError, Stale
from heartsuit.server.players.service import PlayerService
from heartsuit.server.solitaire.daily import ATTEMPTS, candidate, date_of, day_of
from heartsuit.server.solitaire.frames import ViewParts, view_parts
from heartsuit.server.solitaire.protocol import (
    DailyStats,
    GameView,
    PlayerSettings,
    SolitaireErrorCode,
    StatsReply,
)
from heartsuit.server.solitaire.stats import (
    DEFAULT_PAGE,
    close_game,
    stats_reply,
    tally,
    under_way,
)
from heartsuit.server.solitaire.store import (
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
from heartsuit.server.storage.event_log import LiveCache, Locks, retry_conflicts
from heartsuit.solitaire import (
    Action,
    Game,
    GameError,
    GameOver,
    Outcome,
    TapKind,
    TapResult,
    Target,
)
from heartsuit.solitaire.codes import DealCodeError, normalize_code, random_code
from heartsuit.solitaire.taps import check_target

#: how many of a game's latest intent ids are remembered in memory (older ones are still
#: refused by the store's unique index, and answered ``stale``)
INTENT_MEMORY = 256

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
    #: the latest intents logged for this game, each with what it did ("" when read back from
    #: the log, which keeps the action, not its result)
    intents: OrderedDict[str, str] = field(default_factory=OrderedDict)
    #: when the log's last entry was made (wall-clock ms), if known here (None: not known, or
    #: no entry yet)
    last_at_ms: int | None = None

    def saw(self, intent: str | None, kind: str) -> None:
        if intent is None:
            return
        self.intents[intent] = kind
        self.intents.move_to_end(intent)
        while len(self.intents) > INTENT_MEMORY:
            self.intents.popitem(last=False)


@dataclass(frozen=True, slots=True)
class Played:
    """The answer to a request about a game: the game, what the request did to it, and the
    view of the game as the request left it (worked out under the player's lock: ``parts``,
    from which the reply's frame is written; :attr:`view` is its model)."""

    live: LiveGame
    kind: str
    result: TapResult | None = None
    parts: ViewParts | None = None
    #: the request's intent was already applied: nothing was done again
    repeat: bool = False
    #: the request wrote to the move log
    logged: bool = False

    @property
    def view(self) -> GameView | None:
        """The view as the page's model (built once, when first asked for)."""
        return None if self.parts is None else self.parts.model()


#: the detail of a stale intent's refusal (:class:`Stale` carries the game as it is now)
_MOVED_ON = "the game moved on before that move arrived"

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
            raise ProtocolError(
                SolitaireErrorCode.BAD_CODE, str(err), message_key="server.code.empty"
            ) from None
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        # a bad code is explained by its problem, not by a generic text
        raise ProtocolError(
            SolitaireErrorCode.BAD_CODE,
            str(err),
            message_key=f"server.code.{err.problem.value}",
            problem=err.problem.value,
            code=repr(shown),
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
        #: the games in memory, replayed from their logs (storage/event_log.py)
        self._live: LiveCache[LiveGame] = LiveCache(live_games)
        #: a snapshot of the engine is stored after every this many log entries
        self.snapshot_every = snapshot_every
        #: one lock per player: a player's games, totals and preferences change one at a time
        self._locks = Locks()
        #: the game each viewer (a connection showing a game on a visible page) watches, and
        #: the viewers of each game: a game's clock runs while it has any
        self._watching: dict[object, tuple[str, str]] = {}
        self._viewers: dict[str, set[object]] = {}
        #: the lock of each player with a viewer here, and how many viewers: held on to, so that
        #: a player who keeps playing keeps one lock (not a new one for each request, which the
        #: weak mapping would otherwise forget as soon as the request is answered)
        self._pinned: dict[str, tuple[asyncio.Lock, int]] = {}
        #: the deal of the day, per UTC day already asked for
        self._daily: dict[int, str] = {}
        #: the candidates for the deal of the day, per UTC day a game was shown on
        self._day_candidates: dict[int, frozenset[str]] = {}

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

    async def resume(
        self, player_id: str, *, placement_help: bool = True, viewer: object | None = None
    ) -> Played | None:
        """The player's open game (playing or at a dead end), if any.

        Every request about a game may name a ``viewer`` (the connection, showing the game on a
        visible page): it then watches the game (:meth:`watch`) before the answer's view is
        built, under the same lock, so the view shows the clock as the request left it."""
        async with self._lock(player_id):
            record = await self.store.open_game(player_id)
            if record is None:
                return None
            live = await self._load(record.id, player_id)
            if live.record.log_length != record.log_length:
                # another process wrote the game since this one cached it
                live = await self._catch_up(record.id, player_id)
            await self._watch(viewer, player_id, live.record.id)
            return await self._played(live, "resumed", placement_help)

    async def new_game(
        self,
        player_id: str,
        code: str | None = None,
        winnable_only: bool | None = None,
        *,
        leave: str | None = None,
        placement_help: bool = True,
        daily: bool = False,
        viewer: object | None = None,
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
            played = await self._deal(player_id, code, winnable_only, leave, "dealt", viewer)
            await self._watch(viewer, player_id, played.live.record.id)
            played = await self._played(played.live, played.kind, placement_help)
        await self._notify(played.live.record)
        return played

    async def restart(
        self,
        player_id: str,
        game_id: str,
        *,
        leave: str | None = None,
        placement_help: bool = True,
        viewer: object | None = None,
    ) -> Played:
        """Deal the code of the player's game ``game_id`` again, from the start; the game in
        progress is left as by :meth:`new_game` (recorded once: a loss if under way)."""
        async with self._lock(player_id):
            record = await self.store.get_game(game_id)
            if record is None or record.player_id != player_id:
                raise ProtocolError(SolitaireErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
            played = await self._deal(player_id, record.code, False, leave, "restarted", viewer)
            await self._watch(viewer, player_id, played.live.record.id)
            played = await self._played(played.live, played.kind, placement_help)
        await self._notify(played.live.record)
        return played

    async def _deal(
        self,
        player_id: str,
        code: str | None,
        winnable_only: bool | None,
        leaving: str | None,
        kind: str,
        viewer: object | None,
    ) -> Played:
        """The body of :meth:`new_game` and :meth:`restart`, under the player's lock.

        What the ``viewer`` watching the new game (:meth:`_watch`, next) does to the clocks is
        written here, with the new game, when it can be: the new game's clock starts running
        at the deal, and the game the viewer leaves, closed now, is paused as it would be then
        (at its last move: :meth:`_settle`) if nobody else watches it and its copy in memory
        knows when that move was. So a new deal costs one read and one write, not five more
        round trips to the store for the same rows."""
        open_games = await self.store.open_games(player_id)
        for current in open_games:
            if under_way(current) and current.id != leaving:
                raise ProtocolError(
                    SolitaireErrorCode.GAME_UNDER_WAY,
                    f"game {current.id} is under way: name it in 'leave' to leave it",
                    game=current.id,
                )
        if code is None:
            if winnable_only is None:
                winnable_only = (await self.preferences(player_id)).winnable_only
            code = await self._draw_code(winnable_only)
        if not open_games:
            # the player's first game stores them (an open game says they are stored)
            await self.players.ensure(player_id)
        now = self.clock()
        game = Game.from_code(code, now=0.0)  # the engine runs on play time, 0 at the deal
        record = GameRecord(
            secrets.token_urlsafe(12),
            player_id,
            code,
            now,
            running_since_ms=None if viewer is None else now,
        )
        tallies: list[Tally] = []
        if game.dead_end:
            # some deals can never be played (the tip's partners all lie in the heart)
            record = replace(record, status=GameStatus.DEAD_DEAL, ended_at_ms=now, elapsed_ms=0)
            tallies.append(Tally(TallyKind.DEAD_DEAL, record))
        watched = None if viewer is None else self._watching.get(viewer)
        closed: list[GameRecord] = []
        settled: dict[str, LiveGame] = {}
        for current in open_games:
            after, counted = close_game(current, now)
            kept = self._live.get(current.id)
            if (
                watched is not None
                and watched[1] == current.id
                and self._viewers.get(current.id) == {viewer}
                and after.running_since_ms is not None
                and kept is not None
                and kept.record.log_length == current.log_length
                and (current.log_length == 0 or kept.last_at_ms is not None)
            ):
                until = max(after.running_since_ms, kept.last_at_ms or 0)
                after = replace(after, played_ms=after.play_ms(until), running_since_ms=None)
                settled[current.id] = kept
            closed.append(after)
            if counted is not None:
                tallies.append(counted)
        await self.store.start_game(record, closed, tallies)
        for old in closed:
            kept = settled.get(old.id)
            if kept is None:
                self._live.drop(old.id)
            else:
                kept.record = old  # as stored: closed, its clock paused
        live = LiveGame(record, game)
        self._remember(live)
        return Played(live, kind)

    async def tap(
        self,
        player_id: str,
        game_id: str,
        target: object,
        *,
        intent: str | None = None,
        base: int | None = None,
        placement_help: bool = True,
        viewer: object | None = None,
    ) -> Played:
        """Touch a card, the stock or the waste of the player's game ``game_id``.

        ``intent`` is the page's id of this tap (a repeat is answered, not applied again);
        ``base`` the log length of the view the page made it on (a view that has moved on is
        answered with :class:`Stale`). Both may be left out (older pages).
        """
        try:
            checked = check_target(target)
        except GameError as err:
            raise ProtocolError(SolitaireErrorCode.BAD_TARGET, str(err)) from None
        return await self._act(player_id, game_id, checked, intent, base, placement_help, viewer)

    async def undo(
        self,
        player_id: str,
        game_id: str,
        *,
        intent: str | None = None,
        base: int | None = None,
        placement_help: bool = True,
        viewer: object | None = None,
    ) -> Played:
        """Take back the last move of the player's game ``game_id`` (``intent`` and ``base``
        as for :meth:`tap`)."""
        return await self._act(player_id, game_id, None, intent, base, placement_help, viewer)

    async def _act(
        self,
        player_id: str,
        game_id: str,
        target: Target | None,
        intent: str | None,
        base: int | None,
        placement_help: bool,
        viewer: object | None,
    ) -> Played:
        """A tap on ``target`` (None: an undo), with its intent recognised, its base checked,
        and a write that another process got in first caught up with and tried once more.

        The ``viewer`` watches the game first, so that a move made on a visible page is timed
        with the clock running; a repeated intent only reads the clock (nothing is logged, the
        engine is not given a new time)."""
        async with self._lock(player_id):
            live = await self._load(game_id, player_id)
            await self._watch(viewer, player_id, game_id)
            if intent is not None and intent in live.intents:
                kind = live.intents[intent] or "repeat"
                return await self._played(live, kind, placement_help, repeat=True)
            if base is not None and base != live.record.log_length:
                # the page saw more (or less) than this process's copy: read the log again
                live = await self._catch_up(game_id, player_id)

            async def attempt() -> Played:
                if intent is not None and intent in live.intents:
                    kind = live.intents[intent] or "repeat"
                    return await self._played(live, kind, placement_help, repeat=True)
                if base is not None and base != live.record.log_length:
                    raise Stale(await self._played(live, "stale", placement_help), _MOVED_ON)
                return await self._apply(live, target, intent, placement_help)

            async def caught_up() -> None:
                # another process wrote this game since it was cached here (or the same
                # intent, at the same moment): catch up from the log and look again
                nonlocal live
                live = await self._catch_up(game_id, player_id)

            played = await retry_conflicts(attempt, caught_up, attempts=2)
            if played is None:
                if intent is not None and intent in live.intents:
                    kind = live.intents[intent] or "repeat"
                    return await self._played(live, kind, placement_help, repeat=True)
                raise Stale(await self._played(live, "stale", placement_help), _MOVED_ON)
        if played.logged:
            await self._notify(played.live.record)
        return played

    async def _apply(
        self, live: LiveGame, target: Target | None, intent: str | None, placement_help: bool
    ) -> Played:
        """Apply a tap on ``target`` (None: an undo) to the live game and log it."""
        if live.record.status not in (GameStatus.PLAYING, GameStatus.DEAD_END):
            raise ProtocolError(
                SolitaireErrorCode.GAME_OVER, f"game {live.record.id} is {live.record.status.value}"
            )
        if not self._viewers.get(live.record.id):
            # nobody here shows the game: its clock, if it runs, is another process's viewer's
            # (stored at each start and pause, and not told on the bus): read it as stored
            stored = await self.store.get_game(live.record.id)
            if stored is not None:
                live.record = replace(
                    live.record,
                    played_ms=stored.played_ms,
                    running_since_ms=stored.running_since_ms,
                )
        now = self.clock()
        played = live.record.play_ms(now)  # the engine runs on play time
        if target is None:
            undone = live.game.undo(now=played / 1000)
            kind = "undone" if undone else "nothing_to_undo"
            if undone:
                await self._log(live, "undo", now, played, intent)
            else:
                await self._quiet(live, intent)
            live.saw(intent, kind)
            return await self._played(live, kind, placement_help, logged=undone)
        try:
            result = live.game.tap(target, now=played / 1000)
        except GameOver as err:
            raise ProtocolError(SolitaireErrorCode.GAME_OVER, str(err)) from None
        logged = result.kind is not TapKind.IGNORED
        if logged:
            await self._log(live, str(target), now, played, intent)
        else:
            await self._quiet(live, intent)
        live.saw(intent, result.kind.value)
        return await self._played(
            live, result.kind.value, placement_help, result=result, logged=logged
        )

    async def _quiet(self, live: LiveGame, intent: str | None) -> None:
        """Keep an intent that changed nothing, before it is answered: it is not a move, but
        sent again later (when it could mean something) it must be a repeat, not applied."""
        if intent is not None:
            await self.store.note_quiet_intent(live.record.id, intent, live.record.log_length)

    async def game_of(
        self,
        player_id: str,
        game_id: str,
        *,
        log_length: int | None = None,
        placement_help: bool = True,
        viewer: object | None = None,
    ) -> Played:
        """The current state of one of the player's games (after a notice from another tab,
        which says how far the log goes: a copy behind that catches up from the log)."""
        async with self._lock(player_id):
            live = await self._load(game_id, player_id)
            if log_length is not None and live.record.log_length < log_length:
                live = await self._catch_up(game_id, player_id)
            await self._watch(viewer, player_id, game_id)
            return await self._played(live, "synced", placement_help)

    async def stats(self, player_id: str, offset: int = 0, limit: int = DEFAULT_PAGE) -> StatsReply:
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
        if code not in self._candidates(day):
            return False
        return code == await self.daily_code(day)

    def _candidates(self, day: int) -> frozenset[str]:
        """Every candidate code of ``day`` (hashed once per day, not once per view)."""
        codes = self._day_candidates.get(day)
        if codes is None:
            codes = frozenset(candidate(day, attempt) for attempt in range(ATTEMPTS))
            while len(self._day_candidates) >= 4:
                self._day_candidates.pop(next(iter(self._day_candidates)))
            self._day_candidates[day] = codes
        return codes

    # ------------------------------------------------------------------ the play clock

    async def watch(self, viewer: object, player_id: str, game_id: str | None) -> None:
        """``viewer`` (one connection) now shows the player's game ``game_id`` on a visible
        page, or (None) no game, or not visibly. A game's clock runs while it has a viewer: the
        first one starts it, the last one leaving pauses it (both stored at once)."""
        async with self._lock(player_id):
            await self._watch(viewer, player_id, game_id)

    async def _watch(self, viewer: object | None, player_id: str, game_id: str | None) -> None:
        """The body of :meth:`watch`, under the player's lock; a ``viewer`` of None (a request
        from a page not known to be visible) changes nothing."""
        if viewer is None:
            return
        old = self._watching.get(viewer)
        if old is not None and old[1] == game_id:
            return
        if game_id is not None:
            live = await self._load(game_id, player_id)  # unknown_game before any change
        if old is not None:
            del self._watching[viewer]
            self._unpin(old[0])
            viewers = self._viewers.get(old[1], set())
            viewers.discard(viewer)
            if not viewers:
                self._viewers.pop(old[1], None)
                await self._set_running(old[1], old[0], running=False)
        if game_id is None:
            return
        self._watching[viewer] = (player_id, game_id)
        lock, count = self._pinned.get(player_id) or (self._lock(player_id), 0)
        self._pinned[player_id] = (lock, count + 1)
        viewers = self._viewers.setdefault(game_id, set())
        viewers.add(viewer)
        if len(viewers) == 1:
            await self._set_running(live.record.id, player_id, running=True)

    def _unpin(self, player_id: str) -> None:
        lock, count = self._pinned[player_id]
        if count > 1:
            self._pinned[player_id] = (lock, count - 1)
        else:
            del self._pinned[player_id]

    def clock_running(self, live: LiveGame) -> bool:
        """Whether the game's play clock is counting now (it also stops at a win or dead end)."""
        return live.record.running_since_ms is not None and live.game.outcome is Outcome.PLAYING

    def play_ms(self, live: LiveGame) -> int:
        """The game's play time now (the engine's ``now`` for it)."""
        return live.record.play_ms(self.clock())

    async def _set_running(self, game_id: str, player_id: str, *, running: bool) -> None:
        if not running and game_id not in self._live:
            # a game no longer in memory (one just closed by a new deal, or evicted): what
            # reading it back would do to its clock is all there is to do (nobody watches it
            # now, so a running clock is settled at its last move), and its row says it all:
            # no engine is rebuilt from its log, and no live game is pushed out for it
            record = await self.store.get_game(game_id)
            if record is None or record.player_id != player_id:
                return  # gone: nothing to count
            if record.running_since_ms is not None and not self._viewers.get(game_id):
                await self._settle(record)
            return
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

    async def _played(
        self,
        live: LiveGame,
        kind: str,
        placement_help: bool,
        *,
        result: TapResult | None = None,
        repeat: bool = False,
        logged: bool = False,
    ) -> Played:
        """The answer to a request, its view built now (the caller holds the lock)."""
        view = view_parts(
            live.game,
            game_id=live.record.id,
            started_at_ms=live.record.started_at_ms,
            now_ms=self.play_ms(live),
            placement_help=placement_help,
            under_way=under_way(live.record),
            dead_deal=live.record.status in (GameStatus.DEAD_DEAL, GameStatus.UNPLAYABLE),
            log_length=live.record.log_length,
            clock_running=self.clock_running(live),
            daily=await self.is_daily(live.record.code),
        )
        return Played(live, kind, result, view, repeat, logged)

    async def _catch_up(self, game_id: str, player_id: str) -> LiveGame:
        """Forget the cached copy of a game and read it again from the store (another process
        wrote it: a clock found running there may be that process's viewer's, so it is kept)."""
        self._live.drop(game_id)
        return await self._load(game_id, player_id, settle=False)

    def _lock(self, player_id: str) -> asyncio.Lock:
        return self._locks(player_id)

    def _remember(self, live: LiveGame) -> None:
        self._live.put(live.record.id, live)

    def forget(self, game_id: str | None = None) -> None:
        """Drop one game (or all) from memory; the next request replays the log."""
        if game_id is None:
            self._live.clear()
        else:
            self._live.drop(game_id)

    async def _load(self, game_id: str, player_id: str, *, settle: bool = True) -> LiveGame:
        live = self._live.get(game_id)
        if live is None:
            record = await self.store.get_game(game_id)
            if record is None or record.player_id != player_id:
                raise ProtocolError(SolitaireErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
            if settle and record.running_since_ms is not None and not self._viewers.get(game_id):
                record = await self._settle(record)
            game, replayed = await self._rebuild(record)
            live = LiveGame(record, game)
            since = max(0, record.log_length - INTENT_MEMORY)
            logged = await self.store.intents(game_id, since)
            for intent, _seq in sorted(logged.items(), key=lambda item: item[1]):
                # what an intent did is known for the entries replayed after the snapshot
                live.saw(intent, replayed.get(intent, ""))
        elif live.record.player_id != player_id:
            # another player's game id is as unknown to this player as a made-up one
            raise ProtocolError(SolitaireErrorCode.UNKNOWN_GAME, f"no game {game_id[:40]!r}")
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

    async def _rebuild(self, record: GameRecord) -> tuple[Game, dict[str, str]]:
        """The game of ``record`` from its newest snapshot and the log entries after it (at
        most ``snapshot_every``), or from the deal and the whole log without a usable one;
        and what each replayed entry with an intent did."""
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
        kinds: dict[str, str] = {}
        for index, move in enumerate(log, start=since):
            # play time; a move logged before there was play time counts from the deal
            played = move.play_ms if move.play_ms is not None else move.at_ms - record.started_at_ms
            action, now = _action_value(move.action), played / 1000
            try:
                if action == "undo":
                    kind = "undone" if game.undo(now=now) else "nothing_to_undo"
                else:
                    kind = game.tap(action, now=now).kind.value
            except GameError as err:
                raise GameError(f"action {index} ({action!r}) of the log: {err}", err.key) from None
            if move.intent is not None:
                kinds[move.intent] = kind
        return game, kinds

    async def _log(
        self, live: LiveGame, action: str, now: int, played: int, intent: str | None = None
    ) -> None:
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
        move = MoveRecord(old.id, old.log_length, action, now, intent=intent, play_ms=played)
        counted = tally(old.status, summary)
        if counted is not None and counted.kind is TallyKind.WIN:
            today = day_of(now)
            if await self.is_daily(summary.code, today):
                counted = replace(counted, daily_day=today)
        snapshot = None
        if summary.log_length % self.snapshot_every == 0:
            snapshot = json.dumps(game.to_dict(), separators=(",", ":"))
        # the engine already moved: if the write fails, the copy is dropped
        await self._live.written(old.id, self.store.append_move(move, summary, counted, snapshot))
        live.record = summary
        live.last_at_ms = now

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
