"""Random Hearts hands per second on one core with the fast path (deal + play + score).

Usage: ``.venv/bin/python bench/hearts_playouts.py [--runs 7] [--seconds 1.0]``

For each preset it times whole random hands (deal, every trick with uniformly random legal
plays, scoring) and prints the median rate over the runs, plus the min and max, so noise on a
shared machine shows. A last line times playouts from a fixed mid-hand position (what a search
bot runs), which skips the deal.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

from heartsuit.hearts.fast import FastState, Position, Table, random_hand
from heartsuit.hearts.fast_cancel import CancelTable, random_cancel_hand
from heartsuit.hearts.fast_draws import Draws
from heartsuit.hearts.game import Hand
from heartsuit.hearts.rules import PRESET_NAMES, Rules


def rate(work: Callable[[], object], seconds: float) -> float:
    """Calls per CPU second of ``work`` over about ``seconds`` of CPU time (batches of 200).

    CPU time of this process, not wall time: on a shared machine the wait for a core is left
    out, which is what "per second on one core" means (contention for caches still shows).
    """
    done = 0
    start = time.process_time()
    while True:
        for _ in range(200):
            work()
        done += 200
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def measure(label: str, work: Callable[[], object], runs: int, seconds: float) -> None:
    rates = [rate(work, seconds) for _ in range(runs)]
    print(
        f"{label:<28} median {statistics.median(rates):>9,.0f}/s"
        f"   (min {min(rates):,.0f}, max {max(rates):,.0f}, {runs} runs)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    args = parser.parse_args()
    draws = Draws(2026)
    print("full random hands per CPU second, one core (deal + play all tricks + score)")
    for name in PRESET_NAMES:
        rules = Rules.preset(name)
        if rules.cancellation:
            work = partial(random_cancel_hand, CancelTable.of(rules), draws)
            name = f"{name} ({rules.players} players)"
        else:
            work = partial(random_hand, Table.of(rules), draws)
        measure(name, work, args.runs, args.seconds)
    # a search bot's unit of work: a playout from a position after the first trick
    rules = Rules()
    hand = Hand.deal(rules, 7, pass_direction="hold")
    for _ in range(rules.players):
        seat = hand.to_play
        assert seat is not None
        hand.play(seat, hand.legal_plays(seat)[0])
    assert hand.trick is not None
    state = FastState(
        Table.of(rules),
        Position.from_cards(
            hand.holdings,
            leader=hand.trick.leader,
            hearts_broken=hand.hearts_broken,
            first_trick=False,
            taken=hand.taken,
        ),
    )
    measure("standard, from trick 2", lambda: state.playout(draws), args.runs, args.seconds)


if __name__ == "__main__":
    main()
