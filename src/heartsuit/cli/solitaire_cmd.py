"""`heartsuit solitaire …` commands. `play` lives in :mod:`heartsuit.cli.solitaire_play`."""

from __future__ import annotations

import argparse
from typing import Any

from heartsuit.cli import solitaire_play


def register(sub: Any) -> None:
    """Add the `solitaire` command group to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser("solitaire", help="solitaire commands")
    commands = parser.add_subparsers(dest="solitaire_command", metavar="COMMAND")
    solitaire_play.register(commands)

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)
