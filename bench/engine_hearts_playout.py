"""Benchmark: the full Hearts engine (``Hand``) playing random legal hands, per preset.

Prints hands per second (median of several runs) for a random player driving the public API,
and ``--openspiel`` adds OpenSpiel's C++ Hearts driven from Python (``pip install open_spiel``)
in the same run. What each side does per hand:

* ``hands/s``: ``Hand.deal(rules, seed, pass_direction="hold")`` (the exact seeded deal: 51
  SplitMix64 draws), then for each of the 52 cards ``to_play``, ``legal_plays(seat)``, a random
  index and ``play(seat, card)`` with every check, the events and the action log.
* ``with views``: the same, with ``view(seat)`` of the seat to play built before each card
  (not read), which is what a server or a bot loop pays per card.
* ``view.legal``: the same, the card chosen from ``view(seat).legal`` instead of
  ``legal_plays`` (a bot reading its view).
* ``openspiel``: ``game.new_initial_state()`` (``pass_cards`` off), then until
  ``is_terminal()``: ``legal_actions()``, a random index and ``apply_action`` — at the 53 chance
  nodes (the pass direction, whose only legal action is "No Pass", then the deal card by card)
  as at the 52 plays.
* ``openspiel chance_outcomes``: the same, with the chance nodes drawn from
  ``chance_outcomes()`` (a list of (action, probability)), as a generic OpenSpiel loop does.

Both sides draw their random indices the same cheap way (``int(random() * n)`` from a
:class:`random.Random`), so the benchmark's own choices cost little next to either engine.
Times are the process's CPU time by default (``--clock wall`` for wall time): on a shared
machine CPU time swings less, and both sides run in this one process.
Usage: ``nice -n 19 .venv/bin/python bench/engine_hearts_playout.py [--openspiel] [--preset P]``
(``--no-engine`` for OpenSpiel alone; ``--runs`` and ``--hands`` for longer, steadier runs;
``--head-to-head`` for the engine and OpenSpiel run by run in turn, with the median ratio).
The first line says which engine runs: compiled, or the Python modules (``HEARTSUIT_PURE=1``
runs those even where a build exists).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from heartsuit.hearts import CORE, Hand, Rules
from heartsuit.hearts.rules import PRESET_NAMES

RUNS = 7
HANDS = 100

Playout = Callable[[int, Callable[[], float]], None]  # (hand seed, random()) -> one hand


def engine(rules: Rules, mode: str) -> Playout:
    def plain(seed: int, rnd: Callable[[], float]) -> None:
        hand = Hand.deal(rules, seed, pass_direction="hold")
        while (seat := hand.to_play) is not None:
            legal = hand.legal_plays(seat)
            hand.play(seat, legal[int(rnd() * len(legal))])

    def with_views(seed: int, rnd: Callable[[], float]) -> None:
        hand = Hand.deal(rules, seed, pass_direction="hold")
        while (seat := hand.to_play) is not None:
            hand.view(seat)
            legal = hand.legal_plays(seat)
            hand.play(seat, legal[int(rnd() * len(legal))])

    def view_legal(seed: int, rnd: Callable[[], float]) -> None:
        hand = Hand.deal(rules, seed, pass_direction="hold")
        while (seat := hand.to_play) is not None:
            legal = hand.view(seat).legal
            hand.play(seat, legal[int(rnd() * len(legal))])

    return {"plain": plain, "views": with_views, "view.legal": view_legal}[mode]


def openspiel(chance_outcomes: bool) -> Playout:
    import pyspiel  # type: ignore[import-not-found]  # optional: pip install open_spiel

    game = pyspiel.load_game("hearts", {"pass_cards": False})

    def by_legal_actions(seed: int, rnd: Callable[[], float]) -> None:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rnd() * len(legal))])

    def by_chance_outcomes(seed: int, rnd: Callable[[], float]) -> None:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes: Any = state.chance_outcomes()
                state.apply_action(outcomes[int(rnd() * len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rnd() * len(legal))])

    return by_chance_outcomes if chance_outcomes else by_legal_actions


def rate(
    playout: Playout, clock: Callable[[], float], runs: int = RUNS, hands: int = HANDS
) -> float:
    rates = []
    for run in range(runs):
        rnd = random.Random(run).random
        start = clock()
        for seed in range(hands):
            playout(seed + run * hands, rnd)
        rates.append(hands / (clock() - start))
    return statistics.median(rates)


def head_to_head(
    rules: Rules, clock: Callable[[], float], runs: int, hands: int
) -> tuple[float, float, float]:
    """The engine (hands/s) and OpenSpiel through ``legal_actions``, one run of each in turn
    (the same seeds and random draws per run): their medians and the median of the per-run
    ratios, which a changing load moves less than either figure."""
    ours, theirs = engine(rules, "plain"), openspiel(chance_outcomes=False)
    pairs = []
    for run in range(runs):
        pair = []
        for playout in (ours, theirs):
            rnd = random.Random(run).random
            start = clock()
            for seed in range(hands):
                playout(seed + run * hands, rnd)
            pair.append(hands / (clock() - start))
        pairs.append((pair[0], pair[1]))
    return (
        statistics.median(a for a, _ in pairs),
        statistics.median(b for _, b in pairs),
        statistics.median(a / b for a, b in pairs),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--openspiel", action="store_true")
    parser.add_argument("--no-engine", action="store_true", help="OpenSpiel alone")
    parser.add_argument(
        "--head-to-head",
        action="store_true",
        help="the engine and OpenSpiel (legal_actions) run by run in turn, standard rules",
    )
    parser.add_argument("--preset", action="append", choices=PRESET_NAMES)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs per figure ({RUNS})")
    parser.add_argument("--hands", type=int, default=HANDS, help=f"hands per run ({HANDS})")
    args = parser.parse_args()
    if args.runs < 1 or args.hands < 1:
        parser.error("--runs and --hands are at least 1")
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    runs, hands = args.runs, args.hands
    print(
        f"python {sys.version.split()[0]}; engine: {CORE}; median of {runs} runs of {hands} "
        f"hands each, {args.clock} time"
    )
    if args.head_to_head:
        ours, theirs, ratio = head_to_head(Rules.preset("standard"), clock, runs, hands)
        print(f"engine {ours:.0f} hands/s, openspiel {theirs:.0f} hands/s, ratio {ratio:.2f}")
        return 0
    if not args.no_engine:
        print(f"{'preset':<14}{'hands/s':>10}{'with views':>12}{'view.legal':>12}")
        for name in args.preset or PRESET_NAMES:
            rules = Rules.preset(name)
            figures = [
                rate(engine(rules, mode), clock, runs, hands)
                for mode in ("plain", "views", "view.legal")
            ]
            print(
                f"{name:<14}{figures[0]:>10.0f}{figures[1]:>12.0f}{figures[2]:>12.0f}", flush=True
            )
    if args.openspiel or args.no_engine:
        fast = rate(openspiel(chance_outcomes=False), clock, runs, hands)
        print(f"{'openspiel':<14}{fast:>10.0f}   (standard, C++ through Python: legal_actions)")
        slow = rate(openspiel(chance_outcomes=True), clock, runs, hands)
        print(f"{'openspiel':<14}{slow:>10.0f}   (the deal drawn from chance_outcomes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
