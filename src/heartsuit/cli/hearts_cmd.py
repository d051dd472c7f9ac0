"""`heartsuit hearts` commands."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add the `hearts` command group to the top-level subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser("hearts", help="hearts commands")

    def show_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=show_help)
