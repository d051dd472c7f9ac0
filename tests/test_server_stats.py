"""Statistics from game rows: what counts, streaks, bests, and per-code figures."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.server.solitaire_stats import player_stats
from heartsuit.server.solitaire_store import GameRecord, GameStatus

W, L, D, P = GameStatus.WON, GameStatus.ABANDONED, GameStatus.DEAD_END, GameStatus.PLAYING


def game(n: int, status: GameStatus, code: str = "HH1-N-AAAAAAM", moves: int = 80,
         elapsed: int | None = None) -> GameRecord:
    ended = None if status is P else 1000 * n + 500
    if status is W and elapsed is None:
        elapsed = 60_000 + n
    return GameRecord(f"g{n}", "p", code, 1000 * n, status, moves, 0, ended, elapsed)


def test_no_games_no_figures() -> None:
    stats = player_stats([])
    assert stats.overall.games == 0 and stats.overall.win_pct == 0.0
    assert stats.overall.best_time_ms is None and stats.by_code == []


def test_a_game_in_play_does_not_count_but_a_dead_end_and_an_abandoned_game_do() -> None:
    stats = player_stats([game(1, P), game(2, D), game(3, L)])
    assert (stats.overall.games, stats.overall.wins, stats.overall.win_pct) == (2, 0, 0.0)


def test_streaks_follow_the_order_games_ended_in() -> None:
    games = [game(1, W), game(2, W), game(3, L), game(4, W), game(5, W), game(6, W), game(7, L),
             game(8, W)]
    overall = player_stats(list(reversed(games))).overall
    assert (overall.best_streak, overall.current_streak) == (3, 1)
    assert overall.win_pct == 75.0


def test_bests_are_over_wins_only() -> None:
    games = [
        game(1, W, moves=90, elapsed=50_000),
        game(2, W, moves=70, elapsed=80_000),
        game(3, D, moves=10, elapsed=1_000),
    ]
    overall = player_stats(games).overall
    assert (overall.best_time_ms, overall.fewest_moves) == (50_000, 70)


def test_per_code_figures_latest_code_first() -> None:
    games = [game(1, W, "HH1-N-AAAAAAB", moves=75, elapsed=9_000), game(2, L, "HH1-N-AAAAAAC"),
             game(3, L, "HH1-N-AAAAAAB")]
    rows = [row.model_dump() for row in player_stats(games).by_code]
    assert rows == [
        {"code": "HH1-N-AAAAAAB", "games": 2, "wins": 1, "best_time_ms": 9_000,
         "fewest_moves": 75},
        {"code": "HH1-N-AAAAAAC", "games": 1, "wins": 0, "best_time_ms": None,
         "fewest_moves": None},
    ]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([W, L, D, P]), st.sampled_from("ABC")), max_size=30))
def test_the_figures_always_add_up(spec: list[tuple[GameStatus, str]]) -> None:
    games = [game(i, status, f"HH1-N-AAAAAA{c}") for i, (status, c) in enumerate(spec)]
    stats = player_stats(games)
    overall = stats.overall
    assert overall.games == sum(1 for s, _ in spec if s is not P)
    assert overall.wins == sum(1 for s, _ in spec if s is W)
    assert overall.current_streak <= overall.best_streak <= overall.wins <= overall.games
    assert sum(row.games for row in stats.by_code) == overall.games
    assert sum(row.wins for row in stats.by_code) == overall.wins
    assert 0.0 <= overall.win_pct <= 100.0
