"""How fast the Heart to Heart engine plays, undoes, snapshots and rebuilds games.

Run: ``.venv/bin/python bench/heart_to_heart_engine.py [--runs 7]``. Prints the median of the
runs for each figure; the machine may be shared, so compare medians, not single runs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from heartsuit.solitaire import Game, solve

#: deal 3; the winning line comes from the solver, so it is a real game's line
CODE = "HH1-N-AAAAAAD"


def median_seconds(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    line = list(solve(Game.from_code(CODE)).moves)
    games = 100
    snapshot = Game.replay(CODE, line[:60]).to_dict()
    won = Game.replay(CODE, line)
    assert won.won and won.score == 250

    def replays() -> None:
        for _ in range(games):
            Game.replay(CODE, line)

    def replays_and_undos() -> None:
        for _ in range(games):
            game = Game.replay(CODE, line)
            while game.undo():
                pass

    def snapshots() -> None:
        for _ in range(1000):
            won.to_dict()

    def restores() -> None:
        for _ in range(1000):
            Game.from_dict(snapshot)

    play = median_seconds(replays, runs)
    both = median_seconds(replays_and_undos, runs)
    print(f"runs per figure: {runs} (median shown)")
    print(f"replay of a {len(line)}-tap win:  {play / games * 1e3:8.2f} ms per game, "
          f"{len(line) * games / play:10,.0f} taps/s")
    print(f"undo:                       {(both - play) / (games * won.moves) * 1e6:8.1f} us")
    print(f"to_dict:                    {median_seconds(snapshots, runs) * 1e3:8.1f} us")
    print(f"from_dict (all checks):     {median_seconds(restores, runs) * 1e3:8.1f} us")


if __name__ == "__main__":
    main()
