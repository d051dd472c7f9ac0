"""Benchmark: the full Hearts engine (``Hand``) playing random legal hands, per preset.

Prints hands per second (median of several runs) for a whole hand played through
``legal_plays``/``play`` — and, separately, with every seat's ``view`` built before each card,
which is what a server or a bot loop pays. ``--openspiel`` adds OpenSpiel's C++ Hearts driven
from Python (``pip install open_spiel``; passing off, the deal as chance moves, random legal
actions) for comparison; ``--preset standard`` limits the presets.
Usage: ``nice -n 19 .venv/bin/python bench/engine_hearts_playout.py [--openspiel] [--preset P]``
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.rules import PRESET_NAMES
from heartsuit.shuffle import Rng

RUNS = 7
HANDS = 100


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


def openspiel_rate() -> float:
    import pyspiel  # type: ignore[import-not-found]  # optional: pip install open_spiel

    game = pyspiel.load_game("hearts", {"pass_cards": False})
    rates = []
    for run in range(RUNS):
        rng = random.Random(run)
        start = time.perf_counter()
        for _ in range(HANDS):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
        rates.append(HANDS / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspiel", action="store_true")
    parser.add_argument("--preset", action="append", choices=PRESET_NAMES)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; median of {RUNS} runs of {HANDS} hands each")
    print(f"{'preset':<14}{'hands/s':>10}{'with views':>12}")
    for name in args.preset or PRESET_NAMES:
        rules = Rules.preset(name)
        print(f"{name:<14}{rate(rules, False):>10.0f}{rate(rules, True):>12.0f}", flush=True)
    if args.openspiel:
        print(f"{'openspiel':<14}{openspiel_rate():>10.0f}   (standard, C++ through Python)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
