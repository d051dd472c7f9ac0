"""Computer players for Hearts: the :class:`Bot` protocol and the registry :func:`make_bot`.

A bot sees exactly what a person in its seat sees — a :class:`~heartsuit.hearts.view.SeatView`
— and answers two questions: which cards to pass, and which legal card to play. Bots are
seeded so that a game with bots replays exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from heartsuit.cards import Card
from heartsuit.hearts.bots.easy import EasyBot
from heartsuit.hearts.bots.heuristic import HeuristicBot
from heartsuit.hearts.bots.levels import (
    HARD,
    HARD_100MS,
    HARD_6000,
    MOON_HUNTER,
    NORMAL,
    TIMED,
)
from heartsuit.hearts.bots.random_bot import RandomBot
from heartsuit.hearts.bots.search import SearchBot
from heartsuit.hearts.view import SeatView


class Bot(Protocol):
    """A computer player. It receives only views, never the hand itself."""

    name: str

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        """Exactly ``view.rules.pass_count`` distinct cards of ``view.hand``."""
        ...

    def choose_play(self, view: SeatView) -> Card:
        """One of ``view.legal``."""
        ...


class UnknownBot(ValueError):
    """A bot name that is not in the registry; the message lists the known names."""


BOTS: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    # levels offered to players (budgets and measured strength: docs/hearts-bots.md)
    "easy": EasyBot,
    "normal": lambda seed: SearchBot(seed, NORMAL),
    "hard": lambda seed: SearchBot(seed, HARD),
    # hard before it pruned and defended against the moon (comparisons, earlier results)
    "hard6000": lambda seed: SearchBot(seed, HARD_6000),
    # that hard cut to about 0.1 CPU s per decision then, as a playout count (earlier results)
    "hard100": lambda seed: SearchBot(seed, HARD_100MS),
    # the arena's moon-hunting opponent (plans a moon whenever it plausibly can)
    "moonhunter": lambda seed: SearchBot(seed, MOON_HUNTER),
    # the benchmark's search: 0.1 CPU s per decision (its choices depend on the machine)
    "search": lambda seed: SearchBot(seed, TIMED),
}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A new bot by registry name (``"random"``, ``"heuristic"``), seeded with ``seed``."""
    factory = BOTS.get(name.strip().lower()) if isinstance(name, str) else None
    if factory is None:
        raise UnknownBot(f"no bot called {name!r}; choose one of {', '.join(sorted(BOTS))}")
    return factory(seed)


# The site's difficulty levels, by the registry bot that plays each (docs/hearts-bots.md):
# easy = the heuristic with human-like slips, normal and hard = the search player at two budgets.
LEVELS: dict[str, str] = {"easy": "easy", "normal": "normal", "hard": "hard"}


def make_level(level: str, seed: int = 0) -> Bot:
    """A new bot for a difficulty level (``"easy"``, ``"normal"``, ``"hard"``), seeded."""
    name = LEVELS.get(level.strip().lower()) if isinstance(level, str) else None
    if name is None:
        raise UnknownBot(f"no level called {level!r}; choose one of {', '.join(LEVELS)}")
    return make_bot(name, seed)


__all__ = [
    "BOTS",
    "LEVELS",
    "Bot",
    "HeuristicBot",
    "RandomBot",
    "UnknownBot",
    "make_bot",
    "make_level",
]
