"""A player's Heart to Heart statistics, computed from their games' rows.

A game counts once it has an end: won, at a dead end, or abandoned (a new game was started
while it was unfinished). Wins and losses are ordered by when they ended, for the streaks. A
dead end that the player later undoes out of stops counting until the game ends again, so the
statistics always describe where the games stand now. Best time and fewest moves are over wins.
"""

from __future__ import annotations

from collections.abc import Iterable

from heartsuit.server.solitaire_protocol import CodeStats, OverallStats, StatsReply
from heartsuit.server.solitaire_store import GameRecord, GameStatus

COUNTED = (GameStatus.WON, GameStatus.DEAD_END, GameStatus.ABANDONED)


def _min(values: Iterable[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return min(present) if present else None


def _percent(wins: int, games: int) -> float:
    return round(100 * wins / games, 1) if games else 0.0


def player_stats(records: Iterable[GameRecord]) -> StatsReply:
    """Overall and per-deal-code figures of one player's games."""
    finished = sorted(
        (g for g in records if g.status in COUNTED),
        key=lambda g: (g.ended_at_ms or g.started_at_ms, g.started_at_ms, g.id),
    )
    wins = [g for g in finished if g.status is GameStatus.WON]
    best = run = 0
    for game in finished:
        run = run + 1 if game.status is GameStatus.WON else 0
        best = max(best, run)
    overall = OverallStats(
        games=len(finished),
        wins=len(wins),
        win_pct=_percent(len(wins), len(finished)),
        current_streak=run,
        best_streak=best,
        best_time_ms=_min(g.elapsed_ms for g in wins),
        fewest_moves=_min(g.moves for g in wins),
    )
    by_code: dict[str, list[GameRecord]] = {}
    # most recently finished code first: that is the one a player looks for
    for game in reversed(finished):
        by_code.setdefault(game.code, []).append(game)
    rows = []
    for code, played in by_code.items():
        won = [g for g in played if g.status is GameStatus.WON]
        rows.append(
            CodeStats(
                code=code,
                games=len(played),
                wins=len(won),
                best_time_ms=_min(g.elapsed_ms for g in won),
                fewest_moves=_min(g.moves for g in won),
            )
        )
    return StatsReply(overall=overall, by_code=rows)
