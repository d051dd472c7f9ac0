"""How the pruned search's stopping rules trade strength for playouts, measured offline.

Usage (one process; a few minutes at 150 deals, compiled)::

    .venv/bin/python bench/hearts_stopping.py [--hands 150] [--seed 1] \\
        [--rules 2.5/24/0.35,1.5/12,2/16,2.5/24,none]

A rule is ``z/after[/close]``: drop a card ``z`` standard errors of the paired difference worse
than the best from ``after`` worlds on, and stop when every card left is within ``close`` points
of the best (:class:`~heartsuit.hearts.bots.search.SearchConfig`'s ``prune_z``, ``prune_after``
and ``prune_close``); ``none`` plays every card in every world.

For every card choice of seat 0 with two or more cards to compare, in ``--hands`` deals played
by four heuristic players, `hard`'s search (its worlds, guided playouts and scoring) plays every
card in twice as many worlds as its budget allows a card. A rule is replayed on the first half,
checking where the search checks and stopping where it stops, and its card is scored on the
second half, which it never saw: its **regret** is how many points that card is worse there
than the best one. The script prints, for each rule, the regret a hand (the sum over a deal's
choices), its paired difference with the first rule listed (95% interval over the choices) and
the playouts a choice would cost (mean and median). Choices the search makes another way (a
moon plan of its own, one card left after the moon defence's rules) are not counted.

Replayed values are not the pruned search's own (it plays only the live cards, so its playouts
draw differently), so this ranks rules; the arena and ``bench/hearts_external.py`` measure the
strength of the one chosen.
"""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass, replace

from hearts_search import choice_views, compiled_note
from heartsuit.hearts.bots.levels import HARD
from heartsuit.hearts.bots.search import (
    SearchConfig,
    _Search,
    _survivors,
    compared_moves,
    decision_seed,
    defended,
)
from heartsuit.hearts.rules import Rules
from heartsuit.hearts.view import SeatView

DEFAULT_RULES = "2.5/24/0.35,1.5/12,2/16,2.5/24,none"


@dataclass(frozen=True)
class Rule:
    name: str
    z: float
    after: int
    close: float

    @classmethod
    def parse(cls, text: str) -> Rule:
        if text == "none":
            return cls(text, 0.0, 0, 0.0)
        parts = text.split("/")
        if len(parts) not in (2, 3):
            raise ValueError(f"a rule is z/after[/close] or none, not {text!r}")
        z, after = float(parts[0]), int(parts[1])
        close = float(parts[2]) if len(parts) == 3 else 0.0
        if z <= 0 or after < 2 or close < 0:
            raise ValueError(f"{text!r}: z must be positive, after at least 2, close not negative")
        return cls(text, z, after, close)


def record(view: SeatView, config: SearchConfig, seed: int) -> list[list[float]] | None:
    """Every card's value in twice the worlds ``config``'s budget allows a card, as the pruned
    search would compare them (None: the search chooses this card another way)."""
    legal = defended(view, list(dict.fromkeys(view.legal)), config)
    search = _Search(view, config, decision_seed(seed, view, "play"))
    moves = compared_moves(search, legal)
    if len(moves) < 2 or search.moon_possible() or config.playouts is None:
        return None
    worlds = -(-config.playouts // len(moves))
    starts = search.starts(moves)
    everything = list(range(len(moves)))
    values: list[list[float]] = [[] for _ in moves]
    for world in range(1, 2 * worlds + 1):
        got = search.play_world(search.next_hands(), starts, everything, search.shooter(world))
        for k, value in enumerate(got):
            values[k].append(value)
    return values


def replay(values: list[list[float]], rule: Rule, config: SearchConfig) -> tuple[float, int]:
    """The regret (points) and the playouts of ``rule`` on one recorded choice: the checks and
    stops of the pruned search on the first half of the worlds, scored on the second half."""
    seen = len(values[0]) // 2
    rules = replace(config, prune_z=rule.z, prune_after=rule.after, prune_close=rule.close)
    alive = list(range(len(values)))
    worlds = used = 0
    check = rule.after
    while len(alive) > 1 and worlds < seen:
        worlds += 1
        used += len(alive)
        if rule.z > 0 and worlds == check:
            so_far = [v[:worlds] for v in values]
            alive, close = _survivors(so_far, alive, worlds, rules)
            if close:
                break
            check = max(check + rules.prune_every, check * 5 // 4)
    chosen = max(alive, key=lambda k: sum(values[k][:worlds]))
    truth = [statistics.fmean(v[seen:]) for v in values]
    return max(truth) - truth[chosen], used


def interval(xs: list[float]) -> float:
    return 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default=DEFAULT_RULES)
    args = parser.parse_args()
    try:
        rules = [Rule.parse(r) for r in args.rules.split(",")]
    except ValueError as error:
        parser.error(str(error))
    recorded = [
        values
        for view in choice_views(args.hands, Rules(), args.seed)
        if (values := record(view, HARD, args.seed)) is not None
    ]
    print(
        f"{len(recorded)} choices of hard in {args.hands} deals, seed {args.seed}, "
        f"{HARD.playouts} playouts a choice at most ({compiled_note()})"
    )
    print("rule               regret a hand   against the first        playouts: mean  median")
    first: list[float] = []
    for rule in rules:
        results = [replay(values, rule, HARD) for values in recorded]
        regrets = [r for r, _ in results]
        used = [u for _, u in results]
        if not first:
            first = regrets
        diffs = [(a - b) * len(regrets) / args.hands for a, b in zip(regrets, first, strict=True)]
        print(
            f"{rule.name:18s} {sum(regrets) / args.hands:13.3f}   "
            f"{statistics.fmean(diffs):+.3f} ± {interval(diffs):.3f}"
            f"{statistics.fmean(used):22.0f} {statistics.median(used):7.0f}"
        )


if __name__ == "__main__":
    main()
