"""Who a connection is, as the core and the games see it: an anonymous :class:`Player`, and the
:class:`Players` the connection asks about ``hello``.

``server/players/`` implements :class:`Players` on the store (``PlayerService``); the core and
the games know players only through this module, so the core imports nothing above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Protocol

#: what a player id looks like (``secrets.token_urlsafe(16)`` gives 22 such characters)
PLAYER_ID: Final = re.compile(r"[A-Za-z0-9_-]{16,64}")

#: the request header that carries the player's id to a game's ``/api/…`` (never the URL:
#: access logs keep URLs, and the id is the player's only credential)
PLAYER_HEADER: Final = "x-heartsuit-player"


@dataclass(frozen=True, slots=True)
class Player:
    """An anonymous player: an unguessable id the browser keeps, and when it was made (it
    holds nothing secret beyond the id itself)."""

    id: str
    created_at_ms: int


def player_channel(player_id: str) -> str:
    """The bus channel of one player's tabs: their preferences and their own games."""
    return f"player:{player_id}"


def header_player(value: str | None) -> str:
    """The player id a request's :data:`PLAYER_HEADER` names; "" when absent or malformed (an
    unknown id simply has no games yet: no error, and nothing to learn from)."""
    return value if value is not None and PLAYER_ID.fullmatch(value) else ""


class Players(Protocol):
    """What the connection needs of the players (``players.service.PlayerService``)."""

    async def hello(self, player_id: object) -> Player:
        """The player of a kept id, or a new (not yet stored) player."""
        ...

    def forget(self, player_id: str) -> None:
        """Forget an id :meth:`hello` gave out but that was then refused."""
        ...
