"""The errors the Heart to Heart engine raises when it refuses a request."""

from __future__ import annotations


class GameError(ValueError):
    """A request the game refuses; the game is unchanged. ``key`` names the problem for i18n."""

    def __init__(self, message: str, key: str = "invalid_target") -> None:
        super().__init__(message)
        self.key = key


class SnapshotError(GameError):
    """A snapshot (``Game.to_dict()`` output) that cannot be read back; nothing is built."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "bad_snapshot")
