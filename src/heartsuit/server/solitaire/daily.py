"""The deal of the day: one Heart to Heart code for everyone on a given UTC day.

The code follows from the date alone (no table, no randomness): the candidates of a day are
deal numbers drawn from a SHA-256 of ``"heartsuit daily <YYYY-MM-DD> <n>"`` for n = 0, 1, …, and
the deal of the day is the first candidate the solver proves winnable (the exact decision of
:mod:`heartsuit.solitaire.decide`, so every process finds the same one). Without a solver, or if
none of :data:`ATTEMPTS` candidates is winnable, it is candidate 0.

Days are UTC days, counted from 1970-01-01 (day 0): the deal changes at 00:00 UTC everywhere.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from typing import Final

from heartsuit.solitaire.codes import DEAL_COUNT, format_code

#: candidates tried for a winnable deal before falling back to the first
ATTEMPTS: Final = 50
_DAY_MS: Final = 86_400_000
_EPOCH: Final = dt.date(1970, 1, 1)


def day_of(now_ms: int) -> int:
    """The UTC day of a wall-clock time in ms (days since 1970-01-01)."""
    return now_ms // _DAY_MS


def date_of(day: int) -> dt.date:
    return _EPOCH + dt.timedelta(days=day)


def candidate(day: int, attempt: int) -> str:
    """The ``attempt``-th candidate code of ``day``."""
    text = f"heartsuit daily {date_of(day).isoformat()} {attempt}".encode()
    number = int.from_bytes(hashlib.sha256(text).digest()[:8], "big") % DEAL_COUNT
    return format_code(number)


def daily_code(day: int, winnable: Callable[[str], bool] | None = None) -> str:
    """The deal of ``day``: its first candidate that ``winnable`` accepts (candidate 0 without
    a solver or when none of :data:`ATTEMPTS` is)."""
    if winnable is not None:
        for attempt in range(ATTEMPTS):
            code = candidate(day, attempt)
            if winnable(code):
                return code
    return candidate(day, 0)
