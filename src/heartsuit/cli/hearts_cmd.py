"""`heartsuit hearts …` commands. `play` lives in :mod:`heartsuit.cli.hearts_play`."""

from __future__ import annotations

import argparse
from typing import Any

from heartsuit.cli import hearts_play


def register(sub: Any) -> None:
    """Add the `hearts` command group to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser("hearts", help="hearts commands")
    commands = parser.add_subparsers(dest="hearts_command", metavar="COMMAND")
    hearts_play.register(commands)

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)
