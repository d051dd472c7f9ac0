"""`heartsuit solitaire …` commands: `solve` and `stats` here; `play` lives in
:mod:`heartsuit.cli.solitaire_play`.

`solve CODE` prints whether a deal can be won and a winning line of fewest moves; `stats` decides
a run of consecutive deals and reports the share that can be won (with a Wilson 95% interval)
and how long the solver took per deal.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from heartsuit.cli import solitaire_play
from heartsuit.solitaire.codes import DEAL_COUNT, DealCodeError, deal_cards, format_code, parse_code
from heartsuit.solitaire.solver import DEFAULT_BUDGET_S, decide, solve

#: z for a two-sided 95% interval
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a share (good near 0 and 1, unlike the normal one)."""
    if trials <= 0:
        return 0.0, 1.0
    share = successes / trials
    denom = 1 + z * z / trials
    centre = (share + z * z / (2 * trials)) / denom
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by linear interpolation; values need not be sorted."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def _times(label: str, seconds: Sequence[float]) -> str:
    return (
        f"{label}: median {_ms(statistics.median(seconds))}, "
        f"p99 {_ms(percentile(seconds, 99))}, max {_ms(max(seconds))}"
    )


def _share(label: str, hits: int, total: int) -> str:
    low, high = wilson_interval(hits, total)
    return (
        f"{label}: {hits} of {total} = {100 * hits / total:.1f}% "
        f"(95% CI {100 * low:.1f}-{100 * high:.1f}%)"
    )


def run_solve(args: argparse.Namespace) -> int:
    try:
        number = parse_code(args.code)
    except DealCodeError as err:
        print(f"heartsuit solitaire solve: {err}", file=sys.stderr)
        return 2
    code = format_code(number)
    result = solve(deal_cards(number), budget_s=args.budget)
    if args.json:
        out: dict[str, Any] = {
            "code": code,
            "winnable": result.winnable,
            "move_count": result.move_count,
            "optimal": result.optimal,
            "seconds": round(result.seconds, 6),
            "cpu_seconds": round(result.cpu_seconds, 6),
            "nodes": result.nodes,
            "taps": list(result.moves),
            "steps": [step.to_dict() for step in result.steps],
        }
        print(json.dumps(out, ensure_ascii=False))
        return 0
    if not result.winnable:
        print(f"{code}: cannot be won (decided in {_ms(result.seconds)})")
        return 0
    proof = (
        "proven fewest"
        if result.optimal
        else f"best found within {args.budget:g} s CPU, not proven fewest"
    )
    print(f"{code}: can be won")
    print(f"moves: {result.move_count} ({proof})")
    print(
        f"time: {result.seconds:.3f} s ({result.cpu_seconds:.3f} s CPU, "
        f"{result.nodes} search states)"
    )
    width = len(str(len(result.steps)))
    for index, step in enumerate(result.steps, start=1):
        print(f"{index:>{width}}. {step}")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    if args.deals < 1 or args.start < 0 or args.start + args.deals > DEAL_COUNT:
        print(
            f"heartsuit solitaire stats: deals must be 1 or more and the range must lie in "
            f"0..{DEAL_COUNT - 1}",
            file=sys.stderr,
        )
        return 2
    numbers = range(args.start, args.start + args.deals)
    decide_times: list[float] = []
    winnable: list[int] = []
    for number in tqdm(numbers, desc="deciding", unit="deal", file=sys.stderr):
        deal = deal_cards(number)
        started = time.perf_counter()
        verdict = decide(deal)
        decide_times.append(time.perf_counter() - started)
        if verdict:
            winnable.append(number)
    print(f"deals {numbers.start}..{numbers.stop - 1} ({format_code(numbers.start)} on)")
    print(_share("winnable", len(winnable), len(numbers)))
    print(_times("decision time per deal", decide_times))
    if args.optimal and winnable:
        proven = 0
        solve_times: list[float] = []
        cpu_times: list[float] = []
        for number in tqdm(winnable, desc="fewest moves", unit="deal", file=sys.stderr):
            result = solve(deal_cards(number), budget_s=args.budget)
            solve_times.append(result.seconds)
            cpu_times.append(result.cpu_seconds)
            proven += result.optimal
        print(_share(f"fewest-move line proven within {args.budget:g} s CPU", proven,
                     len(winnable)))
        print(_times("fewest-move search CPU time per winnable deal", cpu_times))
        print(_times("fewest-move search wall time per winnable deal", solve_times))
    return 0


def register(sub: Any) -> None:
    """Add the `solitaire` command group to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser("solitaire", help="solitaire commands")
    commands = parser.add_subparsers(dest="solitaire_command", metavar="COMMAND")
    solitaire_play.register(commands)

    solve_parser = commands.add_parser(
        "solve", help="say whether a deal can be won and give a winning line of fewest moves"
    )
    solve_parser.add_argument("code", metavar="CODE", help="a deal code such as HH1-N-AAAAAAM")
    solve_parser.add_argument("--json", action="store_true", help="print one JSON object")
    solve_parser.add_argument(
        "--budget", type=float, default=DEFAULT_BUDGET_S, metavar="SECONDS",
        help=f"CPU time for proving the fewest moves (default {DEFAULT_BUDGET_S:g})",
    )
    solve_parser.set_defaults(handler=run_solve)

    stats_parser = commands.add_parser(
        "stats", help="decide a run of deals: share winnable, solver times"
    )
    stats_parser.add_argument("--deals", type=int, required=True, metavar="N")
    stats_parser.add_argument("--start", type=int, default=0, metavar="K",
                              help="first deal number (default 0)")
    stats_parser.add_argument("--optimal", action="store_true",
                              help="also search the fewest-move line of each winnable deal")
    stats_parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S,
                              metavar="SECONDS", help="per-deal CPU time for --optimal")
    stats_parser.set_defaults(handler=run_stats)

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)
