"""What a game must be to live on the site: the seam between the core and the games.

A game is a :class:`Game`: its name, its pages and APIs, its end of ``/ws`` (a
:class:`GameService`), which of its messages the site's limits count, and its start and stop.
``site/app.py``'s ``create_app(settings, games=…)`` mounts each; the core never names one.

On ``/ws`` a game has one :class:`GameService`. It declares the client messages it
owns (their ``type`` strings must be new to the site) and, for every connection, opens a
:class:`Session`: that game's part of the conversation with one tab, holding whatever the tab
needs remembered (the settings it was last sent, the table it sits at). The connection
(:mod:`heartsuit.server.core.connection`) implements :class:`Context` for each session: the player,
the language, a way to send, and channels to follow. Services never import the connection or
the app; the connection knows games only through these protocols.

The connection itself answers ``hello`` and ``lang``, refuses a game message before ``hello``
(``no_player``), and follows the player's own channel for every session: each notice published
there reaches every session's :meth:`Session.notice`. A session follows further channels
(a Hearts table) with :meth:`Context.follow`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Protocol

from pydantic import BaseModel
from starlette.routing import BaseRoute

from heartsuit.i18n import Lang
from heartsuit.server.core.bus import Notice
from heartsuit.server.core.player import Player
from heartsuit.server.core.protocol import ClientMessage, Encoded, Reply

OnNotice = Callable[[Notice], Awaitable[None]]
"""Called with each notice of a followed channel; a ``ProtocolError`` it raises is ignored
(the thing it looked for may be gone), any other error closes the connection."""

NoticeNow = Callable[[Notice], bool]
"""Offered a notice first, when nothing of the channel is queued or being handled: answers it
at once without waiting (True, e.g. through :meth:`Context.send_now`), or declines having
changed nothing (False), and the notice goes to the ``OnNotice`` as usual."""


class Context(Protocol):
    """What a session may use of the connection it serves."""

    @property
    def player(self) -> Player | None:
        """The player after ``hello`` (a later ``hello`` may change it)."""
        ...

    @property
    def lang(self) -> Lang:
        """The language of this connection's server messages."""
        ...

    async def send(self, message: Reply | Encoded, req: int | None = None) -> None:
        """Send ``message``, echoing ``req`` when it answers a request (pushes carry none)."""
        ...

    def send_now(self, message: Reply | Encoded) -> bool:
        """Push ``message`` at once, without waiting; False (nothing sent) when it cannot."""
        ...

    async def follow(self, channel: str, on_notice: OnNotice, now: NoticeNow | None = None) -> None:
        """Hear every notice on ``channel`` from now on (replacing an earlier follower of the
        same channel) until :meth:`unfollow` or the end of the connection (``now``: offered
        each notice first, see :data:`NoticeNow`)."""
        ...

    def unfollow(self, channel: str) -> None:
        """Stop hearing ``channel``; not following it is fine."""
        ...


class Session(Protocol):
    """One game's part of one connection."""

    async def hello(self, player: Player) -> Mapping[str, BaseModel]:
        """The connection is now ``player``'s (forget anything about an earlier player); the
        fields this game adds to ``welcome`` (none: an empty mapping)."""
        ...

    async def handle(self, player: Player, message: ClientMessage, req: int | None) -> None:
        """Answer one of the game's messages (after ``hello``); a refusal raises
        ``ProtocolError``, which the connection turns into an ``error`` reply."""
        ...

    async def notice(self, notice: Notice) -> None:
        """A notice on the player's channel (every session hears every one: ignore others')."""
        ...

    async def close(self) -> None:
        """The connection has ended (let go of whatever this tab held)."""
        ...


class GameService(Protocol):
    """A game on the site, as ``/ws`` sees it."""

    @property
    def messages(self) -> tuple[type[ClientMessage], ...]:
        """The client messages this game answers."""
        ...

    def session(self, context: Context) -> Session:
        """This game's part of a new connection."""
        ...


class Game(Protocol):
    """A game as the site mounts it (made by the game's package from the site's parts)."""

    @property
    def name(self) -> str:
        """Its short name (``hearts``): its service is ``app.state.<name>``, its preferences
        are stored under it."""
        ...

    @property
    def service(self) -> object:
        """The game's service (for ``app.state``, the tests and the benches)."""
        ...

    @property
    def endpoint(self) -> GameService:
        """Its end of ``/ws``."""
        ...

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """Its pages and HTTP APIs."""
        ...

    @property
    def new_game_messages(self) -> tuple[str, ...]:
        """The message types that start a game (counted by ``new_games_per_minute``)."""
        ...

    @property
    def lookup_messages(self) -> tuple[str, ...]:
        """The message types that look up something by a short secret (``lookups_per_minute``)."""
        ...

    async def start(self) -> None:
        """The database is open: resume what was under way (a table's computers play on)."""
        ...

    async def stop(self) -> None:
        """The site is stopping: let go of tasks, workers and leases."""
        ...
