"""How fast the Heart to Heart solver decides deals and proves fewest-move lines.

Run: ``.venv/bin/python bench/solitaire_solver.py [--deals 100000] [--runs 3] [--sample 1000]``.

1. **Decision**: every deal number in ``start .. start + deals - 1`` is dealt, then decided; the
   decision alone is timed (dealing, i.e. shuffling, is not). Prints the winnable share with a
   Wilson 95% interval and the median / p99 / max decision time of each run, then the median of
   those figures over the runs. Each deal's time is the best of ``--repeat`` decisions (each from
   scratch, nothing cached between them), so that a pause while another process holds the core
   does not count as solver time; ``--repeat 1`` gives the plain wall clock.
2. **Fewest moves**: the first ``sample`` winnable deals from ``start`` on are solved with a
   per-deal budget (default 2 s of CPU time). Prints the share whose fewest-move line was proven
   within the budget, and the median / p99 CPU and wall-clock time per deal (the whole
   :func:`solve`: decision, first line and search), for each run and as medians over the runs.

Everything runs in this one process, so on one core. The machine may be shared: compare medians.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from heartsuit.cli.solitaire_cmd import percentile, wilson_interval
from heartsuit.solitaire.codes import deal_cards
from heartsuit.solitaire.solver import DEFAULT_BUDGET_S, decide, solve


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def share(hits: int, total: int) -> str:
    low, high = wilson_interval(hits, total)
    return f"{hits}/{total} = {100 * hits / total:.2f}% (95% CI {100 * low:.2f}-{100 * high:.2f}%)"


def decision_run(start: int, deals: int, repeat: int) -> tuple[int, list[float], list[int]]:
    times: list[float] = []
    winnable: list[int] = []
    for number in range(start, start + deals):
        deal = deal_cards(number)
        best = float("inf")
        for _ in range(repeat):
            began = time.perf_counter()
            verdict = decide(deal)
            best = min(best, time.perf_counter() - began)
        times.append(best)
        if verdict:
            winnable.append(number)
    return len(winnable), times, winnable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3, help="decision runs (default 3)")
    parser.add_argument(
        "--repeat", type=int, default=3,
        help="time each decision as the best of this many (filters out pauses when other "
        "processes take the core; 1 = plain wall clock)",
    )
    parser.add_argument("--sample", type=int, default=1000, help="winnable deals to solve")
    parser.add_argument("--optimal-runs", type=int, default=1)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S)
    args = parser.parse_args()

    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"load average at start {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    medians: list[float] = []
    p99s: list[float] = []
    maxes: list[float] = []
    winnable: list[int] = []
    for run in range(1, args.runs + 1):
        wins, times, winnable = decision_run(args.start, args.deals, args.repeat)
        medians.append(statistics.median(times))
        p99s.append(percentile(times, 99))
        maxes.append(max(times))
        print(f"decision run {run} (best of {args.repeat} per deal): {args.deals} deals from "
              f"{args.start}, winnable "
              f"{share(wins, args.deals)}; median {ms(medians[-1])}, p99 {ms(p99s[-1])}, "
              f"max {ms(maxes[-1])}", flush=True)
    print(f"decision, median of {args.runs} runs: median {ms(statistics.median(medians))}, "
          f"p99 {ms(statistics.median(p99s))}, max {ms(statistics.median(maxes))}")

    sample = winnable[: args.sample]
    if not sample:
        return
    proven_shares: list[float] = []
    cpu_medians: list[float] = []
    cpu_p99s: list[float] = []
    wall_medians: list[float] = []
    wall_p99s: list[float] = []
    for run in range(1, args.optimal_runs + 1):
        proven = 0
        cpu: list[float] = []
        wall: list[float] = []
        moves: list[int] = []
        for number in sample:
            result = solve(deal_cards(number), budget_s=args.budget)
            cpu.append(result.cpu_seconds)
            wall.append(result.seconds)
            moves.append(result.move_count or 0)
            proven += result.optimal
        proven_shares.append(proven / len(sample))
        cpu_medians.append(statistics.median(cpu))
        cpu_p99s.append(percentile(cpu, 99))
        wall_medians.append(statistics.median(wall))
        wall_p99s.append(percentile(wall, 99))
        print(f"fewest moves run {run}: first {len(sample)} winnable deals, proven within "
              f"{args.budget:g} s CPU: {share(proven, len(sample))}; CPU median "
              f"{ms(cpu_medians[-1])}, p99 {ms(cpu_p99s[-1])}, max {ms(max(cpu))}; wall median "
              f"{ms(wall_medians[-1])}, p99 {ms(wall_p99s[-1])}, max {ms(max(wall))}; "
              f"fewest moves median {statistics.median(moves)}, range {min(moves)}-{max(moves)}",
              flush=True)
    print(f"fewest moves, median of {args.optimal_runs} runs: proven "
          f"{100 * statistics.median(proven_shares):.2f}%, CPU median "
          f"{ms(statistics.median(cpu_medians))}, p99 {ms(statistics.median(cpu_p99s))}; wall "
          f"median {ms(statistics.median(wall_medians))}, p99 {ms(statistics.median(wall_p99s))}")


if __name__ == "__main__":
    main()
