"""The server's one notion of time: wall-clock milliseconds, injectable so tests need no sleep."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], int]
"""Milliseconds since the epoch; every service takes one, the tests pass a scripted one."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000
