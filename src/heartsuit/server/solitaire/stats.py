"""A player's Heart to Heart statistics: what counts, as running totals kept as games change.

What counts (and what the statistics page says it counts):

- a **win** counts once the heart is cleared;
- a **loss** is a game at a dead end (while it stands there: an undo out of it takes the loss
  back, exactly, streak included) or a game **left under way** (another game or a restart of
  the deal started while it had moves and was not over);
- a game **with no moves** (an untouched deal, or every move undone) that is left is not a game
  played (``unplayed``);
- a deal **dead from the start** (no pair can ever be made) is shown as such and counted apart
  (``dead_deals``), never as a game played.

Each change is a :class:`Tally` that the store applies to the player's running totals in the
same transaction as the change itself (:func:`tally`, :func:`close_game`), so reading the
statistics costs the same at 5 games and 5,000: one row of totals and one page of the per-deal
list. :func:`recount` computes the same figures from the games' rows, the slow way; the tests
hold the two together and the migration that introduced the totals started them that way.
Wins and losses are ordered by when they were counted, for the streaks; best time and fewest
moves are over wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from heartsuit.server.solitaire.protocol import CodeStats, OverallStats, StatsReply
from heartsuit.server.solitaire.store import (
    COUNTED,
    CodeTotals,
    GameRecord,
    GameStatus,
    PlayerTotals,
    Tally,
    TallyKind,
)

#: the per-deal list is sent in pages of at most this many codes
PAGE_LIMIT = 100
#: the page size when none is asked for
DEFAULT_PAGE = 50


def under_way(game: GameRecord) -> bool:
    """Whether leaving ``game`` would count it as a loss: it has moves and is not over."""
    return game.status is GameStatus.PLAYING and game.moves > 0


def close_game(game: GameRecord, now_ms: int) -> tuple[GameRecord, Tally | None]:
    """``game`` (an open game) closed because another game starts, and its tally."""
    if game.status is GameStatus.DEAD_DEAL:
        return replace(game, status=GameStatus.UNPLAYABLE), None
    if game.status is GameStatus.DEAD_END:
        # already counted as a loss when it reached the dead end; its end time stays
        return replace(game, status=GameStatus.ABANDONED), None
    if game.status is GameStatus.PLAYING:
        if not under_way(game):
            return replace(game, status=GameStatus.UNPLAYED, ended_at_ms=now_ms), None
        closed = replace(game, status=GameStatus.ABANDONED, ended_at_ms=now_ms)
        return closed, Tally(TallyKind.LOSS, closed)
    return game, None  # not open: nothing to close


def tally(old: GameStatus, new: GameRecord) -> Tally | None:
    """What a move that took a game from ``old`` to ``new.status`` does to the totals."""
    if old is new.status:
        return None
    if new.status is GameStatus.WON:
        return Tally(TallyKind.WIN, new)
    if new.status is GameStatus.DEAD_END:
        return Tally(TallyKind.LOSS, new)
    if old is GameStatus.DEAD_END and new.status is GameStatus.PLAYING:
        return Tally(TallyKind.UNLOSS, new)
    return None


def _percent(wins: int, games: int) -> float:
    return round(100 * wins / games, 1) if games else 0.0


def stats_reply(
    totals: PlayerTotals, codes: Sequence[CodeTotals], code_count: int, offset: int, limit: int
) -> StatsReply:
    """The ``stats`` message from the running totals and one page of the per-deal list."""
    overall = OverallStats(
        games=totals.games,
        wins=totals.wins,
        win_pct=_percent(totals.wins, totals.games),
        current_streak=totals.current_streak,
        best_streak=totals.best_streak,
        best_time_ms=totals.best_time_ms,
        fewest_moves=totals.fewest_moves,
        dead_deals=totals.dead_deals,
    )
    rows = [
        CodeStats(
            code=row.code,
            games=row.games,
            wins=row.wins,
            best_time_ms=row.best_time_ms,
            fewest_moves=row.fewest_moves,
        )
        for row in codes
    ]
    return StatsReply(
        overall=overall, by_code=rows, by_code_total=code_count, offset=offset, limit=limit
    )


def _min(values: Iterable[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def recount(records: Iterable[GameRecord]) -> tuple[PlayerTotals, dict[str, CodeTotals]]:
    """The totals computed from every game's row (the slow way, for tests and migrations).

    ``last_at_ms`` of a code is the latest end of its counted games. The daily streak is not
    recounted (it needs the deal of each day; it is left at zero): it started with play time.
    """
    records = list(records)
    finished = sorted(
        (g for g in records if g.status in COUNTED),
        key=lambda g: (g.ended_at_ms or g.started_at_ms, g.started_at_ms, g.id),
    )
    wins = [g for g in finished if g.status is GameStatus.WON]
    best = run = 0
    for game in finished:
        run = run + 1 if game.status is GameStatus.WON else 0
        best = max(best, run)
    totals = PlayerTotals(
        games=len(finished),
        wins=len(wins),
        current_streak=run,
        best_streak=best,
        best_time_ms=_min(g.elapsed_ms for g in wins),
        fewest_moves=_min(g.moves for g in wins),
        dead_deals=sum(
            1 for g in records if g.status in (GameStatus.DEAD_DEAL, GameStatus.UNPLAYABLE)
        ),
    )
    by_code: dict[str, list[GameRecord]] = {}
    for game in finished:
        by_code.setdefault(game.code, []).append(game)
    codes = {}
    for code, played in by_code.items():
        won = [g for g in played if g.status is GameStatus.WON]
        codes[code] = CodeTotals(
            code=code,
            games=len(played),
            wins=len(won),
            best_time_ms=_min(g.elapsed_ms for g in won),
            fewest_moves=_min(g.moves for g in won),
            last_at_ms=max(g.ended_at_ms or g.started_at_ms for g in played),
        )
    return totals, codes
