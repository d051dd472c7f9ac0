"""The play clock of a solitaire game, driven by times the caller passes in.

The rules core never reads a clock (so that games replay exactly and tests need no sleeping):
every call that may move time takes ``now``, seconds on any monotonic scale the caller likes.
The clock runs while the game is being played, stops when it ends (won or dead end) and runs
again if an undo leaves the end; the time spent looking at the end screen is not counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


class ClockError(ValueError):
    """A clock snapshot that cannot be read."""


@dataclass(slots=True)
class Clock:
    """``played`` seconds were counted before ``since``; the clock runs from ``since`` when that
    is not None. ``last`` is the latest time seen, used when a call brings no ``now``."""

    played: float = 0.0
    since: float | None = None
    last: float | None = None

    def see(self, now: float | None, running: bool) -> None:
        """Note the time of a call; starts the clock on the first time seen while playing."""
        if now is None:
            return
        first = self.last is None
        self.last = now
        if running and first:
            self.since = now

    def stop(self) -> None:
        if self.since is not None and self.last is not None:
            self.played += max(0.0, self.last - self.since)
        self.since = None

    def restart(self) -> None:
        if self.since is None and self.last is not None:
            self.since = self.last

    def elapsed(self, now: float | None = None) -> float:
        """Seconds played up to ``now`` (or up to the latest time seen)."""
        if self.since is None:
            return self.played
        at = self.last if now is None else now
        if at is None:
            return self.played
        return self.played + max(0.0, at - self.since)

    def to_json(self) -> dict[str, Any]:
        return {"played": self.played, "since": self.since, "last": self.last}

    @classmethod
    def from_json(cls, data: object) -> Clock:
        if not isinstance(data, dict):
            raise ClockError(f"a clock is an object, not {data!r}")
        played, since, last = data.get("played"), data.get("since"), data.get("last")
        if not isinstance(played, int | float) or not _number(played) or played < 0:
            raise ClockError(f"a clock's 'played' is a number of seconds: {data!r}")
        if not (since is None or _number(since)) or not (last is None or _number(last)):
            raise ClockError(f"a clock's 'since' and 'last' are null or numbers: {data!r}")
        return cls(
            float(played),
            None if since is None else float(since),
            None if last is None else float(last),
        )


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
