"""Heart to Heart's part of a server's configuration."""

from __future__ import annotations

from dataclasses import dataclass

from heartsuit.server.core.settings import SettingsError


@dataclass(frozen=True, slots=True)
class SolitaireSettings:
    """How a server runs Heart to Heart games."""

    #: how many random deals "winnable deals only" may try before settling for an unproven one
    winnable_attempts: int = 40
    #: how many games the service keeps replayed in memory (others are replayed from the log)
    live_games: int = 2000

    def __post_init__(self) -> None:
        if self.winnable_attempts < 1 or self.live_games < 1:
            raise SettingsError("winnable_attempts and live_games must be at least 1")
