"""The ``heartsuit`` command line: ``serve``, ``solitaire …`` and ``hearts …``.

Each command group lives in its own module with a ``register(subparsers)`` function that adds its
parser and sets ``handler`` (a function taking the parsed arguments and returning an exit code).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from heartsuit import __version__
from heartsuit.cli import hearts_cmd, serve_cmd, solitaire_cmd
from heartsuit.cli.terminal import ArgumentParser


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="heartsuit", description="Hearts and the Heart to Heart solitaire."
    )
    parser.add_argument("--version", action="version", version=f"heartsuit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve_cmd.register(sub)
    solitaire_cmd.register(sub)
    hearts_cmd.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        result: int = handler(args)
    except BrokenPipeError:
        # the reader went away (``heartsuit … | head``): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return result
