"""Random playouts through the research adapters, against OpenSpiel's own Hearts.

Usage: ``.venv/bin/python bench/adapters_playout.py [--runs 5] [--seconds 2.0]``

Each line times whole random hands (chance outcomes drawn by their probabilities, uniformly
random legal actions, the returns read at the end) in one process, one core, and prints the
median over the runs (min and max beside it) in hands and actions per CPU second:

- ``openspiel hearts``: OpenSpiel's Hearts (C++), driven from Python like the adapter;
- ``adapter standard`` …: ``python_heartsuit_hearts`` through pyspiel, for some presets;
- ``pettingzoo standard`` …: the AEC environment, ``agent_iter``/``last``/``step`` with the
  action mask (observations built at every step, as a learner would read them);
- ``resample …``: ``resample_from_infostate`` (what ISMCTS calls at every simulation) for the
  seat to act after 30 actions of a hand, in milliseconds.

Both OpenSpiel games pass cards (three per seat, one at a time). Needs the optional extras.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
import pyspiel

import heartsuit.adapters.openspiel  # noqa: F401  (registers the game)
from heartsuit.adapters.pettingzoo import env


def openspiel_hand(game: object, rng: random.Random) -> int:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    actions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    state.returns()
    return actions


def pettingzoo_hand(e: object, rng: random.Random, seed: int) -> int:
    e.reset(seed=seed)  # type: ignore[attr-defined]
    actions = 0
    for _agent in e.agent_iter():  # type: ignore[attr-defined]
        observation, _reward, terminated, truncated, _ = e.last()  # type: ignore[attr-defined]
        if terminated or truncated:
            e.step(None)  # type: ignore[attr-defined]
            continue
        e.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))  # type: ignore[attr-defined]
        actions += 1
    return actions


def rate(work: Callable[[], int], seconds: float) -> tuple[float, float]:
    """(hands, actions) per CPU second of ``work`` over about ``seconds`` of CPU time."""
    hands = actions = 0
    start = time.process_time()
    while True:
        actions += work()
        hands += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return hands / elapsed, actions / elapsed


def measure(label: str, work: Callable[[], int], runs: int, seconds: float) -> None:
    results = [rate(work, seconds) for _ in range(runs)]
    hands = [h for h, _ in results]
    per_action = statistics.median(1e6 / a for _, a in results)
    print(
        f"{label:<26} median {statistics.median(hands):>8,.1f} hands/s"
        f"   (min {min(hands):,.1f}, max {max(hands):,.1f}, {runs} runs)"
        f"   {per_action:,.0f} µs per action",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    args = parser.parse_args()
    rng = random.Random(2026)
    print("random hands per CPU second, one core")
    theirs = pyspiel.load_game("hearts")
    measure("openspiel hearts (C++)", lambda: openspiel_hand(theirs, rng), args.runs, args.seconds)
    for preset in ("standard", "black-maria", "cancellation"):
        game = pyspiel.load_game("python_heartsuit_hearts", {"preset": preset})
        measure(f"adapter {preset}", lambda g=game: openspiel_hand(g, rng), args.runs,
                args.seconds)
    seeds = iter(range(10**9))
    for preset in ("standard", "black-maria", "cancellation"):
        e = env(preset)
        measure(f"pettingzoo {preset}", lambda e=e: pettingzoo_hand(e, rng, next(seeds)),
                args.runs, args.seconds)
    for preset in ("standard", "black-maria", "cancellation"):
        state = pyspiel.load_game("python_heartsuit_hearts", {"preset": preset}).new_initial_state()
        played = 0
        while played < 30:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                played += 1
        seat, sampler = state.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0)
        times = []
        for _ in range(args.runs):
            start = time.process_time()
            for _ in range(20):
                state.resample_from_infostate(seat, sampler)
            times.append((time.process_time() - start) / 20 * 1000)
        print(f"resample {preset:<17} median {statistics.median(times):>8.1f} ms"
              f"   (min {min(times):.1f}, max {max(times):.1f}, {args.runs} runs of 20)")


if __name__ == "__main__":
    main()
