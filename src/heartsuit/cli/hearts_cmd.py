"""`heartsuit hearts …` commands. `play` lives in :mod:`heartsuit.cli.hearts_play`; `arena`
(duplicate-deal matches between computer players) is here."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from heartsuit.cli import hearts_play
from heartsuit.hearts.bots import BOTS
from heartsuit.hearts.bots.arena import run_arena
from heartsuit.hearts.bots.arena_result import MODES, ArenaResult
from heartsuit.hearts.bots.arena_suite import SUITES, Comparison, command, run_suite, suite
from heartsuit.hearts.bots.arena_suite import suite_dict as _suite_dict
from heartsuit.hearts.rules import PRESET_NAMES, Rules


def register(sub: Any) -> None:
    """Add the `hearts` command group to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser("hearts", help="hearts commands")
    commands = parser.add_subparsers(dest="hearts_command", metavar="COMMAND")
    hearts_play.register(commands)
    _register_arena(commands)

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)


def _register_arena(commands: Any) -> None:
    arena: argparse.ArgumentParser = commands.add_parser(
        "arena",
        help="play computer players against each other on duplicate deals",
        description=(
            "Play every deal once per seat rotation of the listed bots (so the luck of the "
            "cards cancels out) and print each bot's mean points per hand with a 95% "
            "confidence interval (lower is better), its share of matches won (--mode "
            "matches) and its moons. --suite runs a named set of comparisons."
        ),
    )
    arena.add_argument(
        "--bots",
        default="heuristic,random,random,random",
        help=f"comma-separated, one per seat; known: {', '.join(sorted(BOTS))} "
        "(default: %(default)s)",
    )
    arena.add_argument(
        "--hands", "--deals", dest="deals", type=int, default=None,
        help="deals to play (default: 100; with --suite, each comparison's own number)",
    )
    arena.add_argument("--seed", type=int, default=None, help="deal seed (default: 0; suite 1)")
    arena.add_argument(
        "--preset", default="standard", choices=PRESET_NAMES, metavar="PRESET",
        help=f"rules preset: {', '.join(PRESET_NAMES)} (default: standard)",
    )
    arena.add_argument(
        "--mode", default="hands", choices=MODES,
        help="a deal is one hand, or a whole match to the target (default: hands)",
    )
    arena.add_argument("--target", type=int, default=None, help="match target (default: 100)")
    arena.add_argument(
        "--workers", type=int, default=1,
        help="processes playing deals at once (default: 1; deals are independent)",
    )
    arena.add_argument(
        "--out", default=None,
        help="results file (JSON lines, one per deal) to go on from and add to; with --suite, "
        "a directory holding one file per comparison",
    )
    arena.add_argument(
        "--json", default=None, help="also write the results as JSON to this file (-: stdout)"
    )
    arena.add_argument("--suite", default=None, choices=sorted(SUITES), help="run a named suite")
    arena.add_argument(
        "--scale", type=float, default=1.0,
        help="with --suite: multiply each comparison's deals (default: 1)",
    )
    arena.add_argument(
        "--plan", action="store_true",
        help="with --suite: print the commands it runs, and run nothing",
    )
    arena.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    arena.set_defaults(handler=_arena)


def _arena(args: argparse.Namespace) -> int:
    try:
        if args.suite is not None:
            return _suite(args)
        rules = Rules.preset(args.preset)
        if args.target is not None:
            rules = Rules.preset(args.preset, target=args.target)
        names = [n for n in args.bots.split(",") if n.strip()]
        result = run_arena(
            names,
            deals=100 if args.deals is None else args.deals,
            seed=0 if args.seed is None else args.seed,
            rules=rules,
            progress=not args.no_progress,
            mode=args.mode,
            workers=args.workers,
            out=args.out,
        )
    except ValueError as exc:
        print(f"heartsuit hearts arena: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _stopped(args.out)
    if args.json != "-":
        print(f"preset {args.preset}: {', '.join(result.bots)}")
        print(result.table())
    if args.json is not None:
        _write_json(args.json, {"preset": args.preset, **result.to_dict()})
    return 0


def _suite(args: argparse.Namespace) -> int:
    seed = 1 if args.seed is None else args.seed
    if args.plan:
        for c in suite(args.suite):
            deals = args.deals if args.deals is not None else max(1, round(c.deals * args.scale))
            print(f"# {c.name}: {c.question}")
            print(command(c, deals, seed, args.out))
        return 0
    quiet = args.json == "-"

    def report(comparison: Comparison, result: ArenaResult) -> None:
        if not quiet:
            print(f"\n== {comparison.name}: {comparison.question}")
            print(f"preset {comparison.preset}: {', '.join(result.bots)}")
            print(result.table(), flush=True)

    try:
        results = run_suite(
            args.suite, out_dir=args.out, seed=seed, scale=args.scale, deals=args.deals,
            workers=args.workers, progress=not args.no_progress, report=report,
        )
    except KeyboardInterrupt:
        return _stopped(args.out)
    if args.json is not None:
        _write_json(args.json, _suite_dict(args.suite, results))
    return 0


def _write_json(path: str, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2)
    if path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as file:
            file.write(text + "\n")


def _stopped(out: str | None) -> int:
    where = f"the finished deals are in {out}; run the same command to go on" if out else (
        "nothing was kept (no --out)"
    )
    print(f"\nheartsuit hearts arena: stopped; {where}", file=sys.stderr)
    return 130
