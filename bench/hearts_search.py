"""Decision times of the Hearts bot levels, and small arena comparisons between them.

Usage (one process; the machine is shared, so run it under ``nice -n 19``)::

    .venv/bin/python bench/hearts_search.py times [--hands 8] [--levels easy,normal,hard100,hard]
    .venv/bin/python bench/hearts_search.py arena --bots search,heuristic,heuristic,heuristic \\
        --deals 50 [--seed 1] [--preset standard]
    .venv/bin/python bench/hearts_search.py algorithms --deals 20 --seconds 0.1
    .venv/bin/python bench/hearts_search.py moons --bots normal,heuristic,heuristic,heuristic
    .venv/bin/python bench/hearts_search.py variants --variants plain,hard100 --deals 30 \
        --seed 11 [--workers 2]
    .venv/bin/python bench/hearts_search.py speed [--hands 4] [--runs 5] [--playouts 1000]
    .venv/bin/python bench/hearts_search.py profile [--hands 3] [--levels hard]

``times`` seats the level in seat 0 against three heuristic players for ``--hands`` deals
(every seat rotation is not needed for timing) and prints the median, p95, p99 and mean CPU
time (``time.process_time``) of its card choices with at least two legal cards, and of its
passes. ``arena`` is :func:`heartsuit.hearts.bots.arena.run_arena` (duplicate deals, every seat
rotation, 95% intervals). ``algorithms`` pits PIMC against ISMCTS at the same CPU time per
decision, each against heuristic players on the same duplicate deals. ``moons`` counts the
moons each listed bot shoots (a bot counted once per seat it holds). ``variants`` plays
``SearchConfig`` variants of the search (:data:`VARIANTS`), each against three heuristic
players on the same duplicate deals, and prints each variant's paired difference with the
heuristic seats and, deal by deal, each variant's difference from the first one listed (results
files in ``/tmp``, so a stopped comparison goes on). ``speed`` replays the same card choices
(seat 0 of ``--hands`` deals played by four heuristic players, choices with two or more legal
cards) through the PIMC search at ``--playouts`` per choice, ``--runs`` times, and prints the
playouts per CPU second and the CPU time per choice of each run and their medians: run it once
with ``PYTHONPATH`` on another checkout's ``src`` to compare two versions on the same choices.
``profile`` runs the first listed level's card choices of those deals under cProfile and
prints where the time goes (functions by their own time). Every figure says whether the
compiled modules ran (``HEARTSUIT_PURE=1`` runs the Python ones).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from heartsuit.cards import Card
from heartsuit.hearts.bots import Bot, make_bot
from heartsuit.hearts.bots.arena import run_arena
from heartsuit.hearts.bots.levels import HARD_100MS
from heartsuit.hearts.bots.passing import PassConfig
from heartsuit.hearts.bots.search import SearchBot, SearchConfig
from heartsuit.hearts.game import Hand, Phase
from heartsuit.hearts.rules import Rules
from heartsuit.hearts.scoring import moon_shooter
from heartsuit.hearts.view import SeatView

# the search as it was before equivalent cards and Q♠ inference, and as it is (hard100); its
# options (plays: hard100 with worlds weighing the others' ducks and discards)
VARIANTS = {
    "plain": SearchConfig(
        playouts=1000, passing=PassConfig(playouts=1100), merge_equivalent=False, infer=False
    ),
    "merged": SearchConfig(playouts=1000, passing=PassConfig(playouts=1100), infer=False),
    "both": SearchConfig(playouts=1000, passing=PassConfig(playouts=1100)),
    "flush": SearchConfig(playouts=1000, passing=PassConfig(playouts=1100), flush_queen=True),
    "leads": SearchConfig(playouts=1000, passing=PassConfig(playouts=1100), safe_leads=True),
    "hard100": HARD_100MS,
    # hard100 as it was before the search was made faster (1,000 playouts, pass 750)
    "old100": SearchConfig(playouts=1000, passing=PassConfig(playouts=750)),
    "plays": replace(HARD_100MS, infer_plays=True),
}


def variant_bot(name: str, seed: int) -> Bot:
    """The arena's factory for ``variants``: a variant by name, else a registry bot."""
    if name in VARIANTS:
        return SearchBot(seed, VARIANTS[name])
    return make_bot(name, seed)


def variants(names: list[str], deals: int, rules: Rules, seed: int, workers: int) -> None:
    diffs: dict[str, list[float]] = {}
    for name in names:
        result = run_arena(
            [name, *["heuristic"] * (rules.players - 1)],
            deals=deals,
            seed=seed,
            rules=rules,
            factory=variant_bot,
            workers=workers,
            out=f"/tmp/hearts-variants-{name}-{rules.players}-s{seed}.jsonl",
        )
        print(result.table(), flush=True)
        order = [s.name for s in result.scores]
        mine, theirs = order.index(name), order.index("heuristic")
        diffs[name] = [row[mine] - row[theirs] for row in result.per_deal]
    for name in names[1:]:
        x = [a - b for a, b in zip(diffs[name], diffs[names[0]], strict=True)]
        half = 1.96 * statistics.stdev(x) / math.sqrt(len(x)) if len(x) > 1 else math.inf
        print(f"{name} - {names[0]}, deal by deal: {statistics.fmean(x):+.2f} ± {half:.2f}")


class Timed:
    """Wraps a bot and records the CPU time of each real decision."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name
        self.plays: list[float] = []
        self.passes: list[float] = []
        self.playouts: list[int] = []

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        start = time.process_time()
        out = self.bot.choose_pass(view)
        self.passes.append(time.process_time() - start)
        return out

    def choose_play(self, view: SeatView) -> Card:
        start = time.process_time()
        out = self.bot.choose_play(view)
        if len(set(view.legal)) > 1:
            self.plays.append(time.process_time() - start)
            used = getattr(self.bot, "last_playouts", None)
            if isinstance(used, int):
                self.playouts.append(used)
        return out


def quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(label: str, values: Sequence[float]) -> str:
    if not values:
        return f"{label:<22} (none)"
    ms = [v * 1000 for v in values]
    return (
        f"{label:<22} n={len(ms):>4}  median {statistics.median(ms):8.1f} ms  "
        f"p95 {quantile(ms, 0.95):8.1f}  p99 {quantile(ms, 0.99):8.1f}  "
        f"mean {statistics.fmean(ms):8.1f}  max {max(ms):8.1f}"
    )


def times(levels: list[str], hands: int, rules: Rules, seed: int) -> None:
    print(
        f"CPU time per decision, {rules.players} players, {hands} deals, seed {seed} "
        f"({compiled_note()})"
    )
    for level in levels:
        timed = Timed(make_bot(level, seed))
        for number in range(hands):
            bots: list[Bot] = [timed, *(make_bot("heuristic", s) for s in range(rules.players - 1))]
            play_out(Hand.deal(rules, seed, hand_number=number), bots)
        print(summary(f"{level} play", timed.plays), flush=True)
        print(summary(f"{level} pass", timed.passes), flush=True)
        if timed.playouts:
            print(f"{level:<22} playouts per play: mean {statistics.fmean(timed.playouts):.0f}")


def speed(hands: int, runs: int, playouts: int, rules: Rules, seed: int) -> None:
    """Playouts per CPU second of the PIMC search on a fixed set of card choices."""
    views = choice_views(hands, rules, seed)
    if runs < 1:
        raise SystemExit("speed needs --runs 1 or more")
    config = SearchConfig(playouts=playouts)
    rates: list[float] = []
    means: list[float] = []
    print(f"{len(views)} choices, {playouts} playouts each, {runs} runs", flush=True)
    for run in range(runs):
        bot = SearchBot(seed, config)
        used = 0
        start = time.process_time()
        for view in views:
            bot.choose_play(view)
            used += bot.last_playouts
        elapsed = time.process_time() - start
        rates.append(used / elapsed)
        means.append(elapsed / len(views))
        print(f"run {run}: {used / elapsed:8.0f} playouts/s  {1000 * means[-1]:6.1f} ms a choice")
    print(
        f"median {statistics.median(rates):.0f} playouts/s, "
        f"{1000 * statistics.median(means):.1f} ms a choice",
        flush=True,
    )


def choice_views(hands: int, rules: Rules, seed: int) -> list[SeatView]:
    """Seat 0's card choices with two or more legal cards, in deals played by heuristics."""
    views: list[SeatView] = []

    def keep(view: SeatView) -> None:
        if view.seat == 0 and len(set(view.legal)) > 1:
            views.append(view)

    for number in range(hands):
        bots = [make_bot("heuristic", s) for s in range(rules.players)]
        play_out(Hand.deal(rules, seed, hand_number=number), bots, keep)
    return views


def play_out(
    hand: Hand, bots: Sequence[Bot], seen: Callable[[SeatView], None] | None = None
) -> None:
    """Play ``hand`` to its end, ``bots[s]`` in seat ``s`` (passes first); ``seen`` is shown
    each view a card is chosen from."""
    if hand.phase is Phase.PASS:
        for seat, bot in enumerate(bots):
            hand.pass_cards(seat, bot.choose_pass(hand.view(seat)))
    while hand.phase is Phase.PLAY:
        turn = hand.to_play
        assert turn is not None
        view = hand.view(turn)
        if seen is not None:
            seen(view)
        hand.play(turn, bots[turn].choose_play(view))


def profile(level: str, hands: int, rules: Rules, seed: int) -> None:
    import cProfile
    import pstats

    views = choice_views(hands, rules, seed)
    bot = make_bot(level, seed)
    profiler = cProfile.Profile()
    profiler.enable()
    for view in views:
        bot.choose_play(view)
    profiler.disable()
    print(f"{level}: {len(views)} card choices ({compiled_note()})")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(12)


def compiled_note() -> str:
    import heartsuit.hearts as hearts

    return "compiled modules" if hearts.COMPILED else f"Python modules: {hearts.CORE}"


def arena(bots: list[str], deals: int, rules: Rules, seed: int) -> None:
    start = time.monotonic()
    result = run_arena(bots, deals=deals, seed=seed, rules=rules, progress=True)
    print(result.table())
    print(f"({time.monotonic() - start:.0f} s wall)", flush=True)


def algorithms(deals: int, seconds: float, rules: Rules, seed: int) -> None:
    for algorithm in ("pimc", "ismcts"):
        config = SearchConfig(
            algorithm=algorithm,
            playouts=None,
            seconds=seconds,
            passing=PassConfig(playouts=1500),
        )

        def factory(name: str, bot_seed: int, config: SearchConfig = config) -> Bot:
            return SearchBot(bot_seed, config) if name == "search" else make_bot(name, bot_seed)

        names = ["search", *["heuristic"] * (rules.players - 1)]
        result = run_arena(names, deals=deals, seed=seed, rules=rules, factory=factory)
        print(f"{algorithm} at {seconds} s/decision vs heuristic")
        print(result.table(), flush=True)


def moons(bots: list[str], deals: int, rules: Rules, seed: int) -> None:
    """How often each listed bot shoots the moon, over every seat rotation of each deal."""
    n = rules.players
    shot = dict.fromkeys(bots, 0)
    hands = 0
    for deal in range(deals):
        for rotation in range(n):
            slots = [(s - rotation) % n for s in range(n)]
            seats = [make_bot(bots[k], seed * 1000 + deal * 10 + k) for k in slots]
            hand = Hand.deal(rules, seed, hand_number=deal)
            if hand.phase is Phase.PASS:
                for seat, bot in enumerate(seats):
                    hand.pass_cards(seat, bot.choose_pass(hand.view(seat)))
            while hand.phase is Phase.PLAY:
                turn = hand.to_play
                assert turn is not None
                hand.play(turn, seats[turn].choose_play(hand.view(turn)))
            hands += 1
            shooter = moon_shooter(rules, hand.taken)
            if shooter is not None:
                shot[bots[slots[shooter]]] += 1
    listed = ", ".join(f"{name}: {count}" for name, count in shot.items())
    print(f"moons shot in {hands} hands ({deals} deals × {n} rotations): {listed}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "what",
        choices=("times", "arena", "algorithms", "moons", "variants", "speed", "profile"),
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--playouts", type=int, default=1000)
    parser.add_argument("--variants", default="plain,hard100")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--levels", default="easy,normal,hard,hard100,hard6000")
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--bots", default="search,heuristic,heuristic,heuristic")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--preset", default="standard")
    args = parser.parse_args()
    rules = Rules.preset(args.preset)
    if args.what == "times":
        times(args.levels.split(","), args.hands, rules, args.seed)
    elif args.what == "arena":
        arena(args.bots.split(","), args.deals, rules, args.seed)
    elif args.what == "variants":
        variants(args.variants.split(","), args.deals, rules, args.seed, args.workers)
    elif args.what == "speed":
        speed(args.hands, args.runs, args.playouts, rules, args.seed)
    elif args.what == "profile":
        profile(args.levels.split(",")[0], args.hands, rules, args.seed)
    elif args.what == "moons":
        moons(args.bots.split(","), args.deals, rules, args.seed)
    else:
        algorithms(args.deals, args.seconds, rules, args.seed)


if __name__ == "__main__":
    main()
