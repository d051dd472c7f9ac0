"""`heartsuit hearts play`: the game in a terminal."""

from __future__ import annotations

from typing import Any


def register(commands: Any) -> None:
    """Add `play` to the `hearts` command group."""
