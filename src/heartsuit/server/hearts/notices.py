"""What a Hearts table tells the processes following it, on its channel (``table:<id>``)."""

from __future__ import annotations

from dataclasses import dataclass

from heartsuit.server.core.bus import Notice, notice
from heartsuit.server.hearts.live_table import LogEntry


@notice("hearts.table_changed")
@dataclass(frozen=True, slots=True)
class TableChanged(Notice):
    """Table ``table`` is at ``version`` (``presence``: only who is at the table changed).

    When the entry that made ``version`` is a card played (face up: every seat sees it at
    that version), the notice carries it — ``seat``, ``card`` and the entry's ``at_ms`` — so
    that a process whose copy is one version behind applies it without reading the log. No
    other entry travels (a pass names hidden cards, a rematch's seed deals every hand, a seat
    change carries a token's hash): ``card`` is then empty and the log is read."""

    table: str
    version: int
    presence: bool = False
    seat: int = -1
    card: str = ""
    at_ms: int = 0

    def entry(self) -> LogEntry | None:
        """The log entry that made ``version``, when the notice carries it."""
        if not self.card or self.seat < 0 or self.version < 1:
            return None
        data = {"type": "play", "seat": self.seat, "card": self.card}
        return LogEntry(self.version - 1, "action", data, self.at_ms)


@notice("hearts.seat_taken")
@dataclass(frozen=True, slots=True)
class SeatTaken(Notice):
    """A socket of process ``by`` took ``seat`` of ``table`` over (its holder elsewhere stops)."""

    table: str
    seat: int
    by: str


def table_channel(table_id: str) -> str:
    return f"table:{table_id}"
