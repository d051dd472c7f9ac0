"""`heartsuit solitaire` commands."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add the `solitaire` command group to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser("solitaire", help="solitaire commands")

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)
