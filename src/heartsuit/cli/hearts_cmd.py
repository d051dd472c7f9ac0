"""`heartsuit hearts …` commands. `play` lives in :mod:`heartsuit.cli.hearts_play`; `arena`
(duplicate-deal matches between computer players) is here."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from heartsuit.cli import hearts_play
from heartsuit.hearts.arena import run_arena
from heartsuit.hearts.bots import BOTS
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
            "cards cancels out) and print each bot's mean points per hand with a 95%% "
            "confidence interval. Lower is better."
        ),
    )
    arena.add_argument(
        "--bots",
        default="heuristic,random,random,random",
        help=f"comma-separated, one per seat; known: {', '.join(sorted(BOTS))} "
        "(default: %(default)s)",
    )
    arena.add_argument("--hands", type=int, default=100, help="deals to play (default: 100)")
    arena.add_argument("--seed", type=int, default=0, help="deal seed (default: 0)")
    arena.add_argument(
        "--preset",
        default="standard",
        choices=PRESET_NAMES,
        help="rules preset (default: standard)",
    )
    arena.add_argument(
        "--no-progress", action="store_true", help="no progress bar on stderr"
    )
    arena.set_defaults(handler=_arena)


def _arena(args: argparse.Namespace) -> int:
    try:
        rules = Rules.preset(args.preset)
        names = [n for n in args.bots.split(",") if n.strip()]
        result = run_arena(
            names,
            deals=args.hands,
            seed=args.seed,
            rules=rules,
            progress=not args.no_progress,
        )
    except ValueError as exc:
        print(f"heartsuit hearts arena: {exc}", file=sys.stderr)
        return 2
    print(f"preset {args.preset}: {', '.join(result.bots)}")
    print(result.table())
    return 0
