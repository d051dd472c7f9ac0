"""Benchmark: the full Hearts engine (``Hand``) playing random legal hands, per preset.

Prints hands per second (median of several runs) for a whole hand played through
``legal_plays``/``play`` — and, separately, with every seat's ``view`` built before each card,
which is what a server or a bot loop pays.
Usage: ``.venv/bin/python bench/engine_hearts_playout.py``
"""

from __future__ import annotations

import statistics
import sys
import time

from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.rules import PRESET_NAMES
from heartsuit.shuffle import Rng

RUNS = 5
HANDS = 40


def play(rules: Rules, seed: int, rng: Rng, views: bool) -> None:
    hand = Hand.deal(rules, seed, pass_direction="hold")
    while hand.to_play is not None:
        seat = hand.to_play
        if views:
            hand.view(seat)
        legal = hand.legal_plays(seat)
        hand.play(seat, legal[rng.below(len(legal))])


def rate(rules: Rules, views: bool) -> float:
    rates = []
    for run in range(RUNS):
        rng = Rng(run)
        start = time.perf_counter()
        for seed in range(HANDS):
            play(rules, seed + run * HANDS, rng, views)
        rates.append(HANDS / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> int:
    print(f"python {sys.version.split()[0]}; median of {RUNS} runs of {HANDS} hands each")
    print(f"{'preset':<14}{'hands/s':>10}{'with views':>12}")
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        print(f"{name:<14}{rate(rules, False):>10.0f}{rate(rules, True):>12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
