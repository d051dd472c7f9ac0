"""The pure driver of a Hearts table: whose turn it is, and the computer players' turns.

One loop plays the computer seats for every front end — the terminal game, the arena and the
site's tables — so they cannot drift apart. It works on anything with the :class:`Playable`
shape: a :class:`~heartsuit.hearts.match.Match` (which deals the next hand by itself) or a lone
:class:`~heartsuit.hearts.game.Hand`.

A computer's choice is a pure function of ``(key, version, seat, view)``: each decision asks a
fresh bot seeded with ``derive_seed(f"{key}/{version}", seat)`` (:func:`computer_seed`) and shows
it only the seat's :class:`~heartsuit.hearts.view.SeatView`. So a replay of the same actions, a
restarted server or another process taking the table over makes the same choice (DESIGN.md, "A
computer's choice is seeded from (table, version, seat)"). ``key`` names the table (a table id,
``"arena/…"``).

:func:`decide` is that choice from what crosses into a process that thinks for the site: a
seat's view, a level and a seed, all picklable, never the game (it holds every hand). The
in-process path (:func:`computer_action`) calls it too, so both make the same choice.

No I/O, no clock, no asyncio: the server decides *when* to call :func:`advance`; this module
only decides *what* the computers do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from heartsuit.hearts.actions import Action, Moon, Pass, Play
from heartsuit.hearts.bots import BOTS, LEVELS, Bot, UnknownBot, make_bot, make_level
from heartsuit.hearts.events import Event
from heartsuit.hearts.game import IllegalMove, Reason
from heartsuit.hearts.scoring import best_moon_choice
from heartsuit.hearts.view import SeatView
from heartsuit.shuffle import derive_seed

__all__ = [
    "BotError",
    "BotFactory",
    "Playable",
    "SeatPlayer",
    "advance",
    "bot_action",
    "computer_action",
    "computer_seed",
    "computer_turns",
    "decide",
    "make_computer",
]


class Playable(Protocol):
    """What the driver needs of a game: a Match or a lone Hand."""

    @property
    def version(self) -> int: ...

    def awaiting(self) -> tuple[int, ...]: ...

    def view(self, seat: int) -> SeatView: ...

    def apply(self, action: Action) -> list[Event]: ...


BotFactory = Callable[[str, int], Bot]  # (level or bot name, seed) -> a new bot


class BotError(ValueError):
    """A bot chose something its view says is not allowed: a bug in the bot, never the player's.

    The driver does not quietly substitute another choice, so the arena and the tests see
    every such bug; a site table can catch this and ask the ``"easy"`` level instead.
    """


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Who sits in a seat: a person, or a computer playing at ``level``."""

    kind: Literal["human", "computer"]
    level: str | None = None  # a LEVELS name ("normal") or a bot name ("heuristic"); computers

    def __post_init__(self) -> None:
        if self.kind not in ("human", "computer"):
            raise ValueError(f"a seat is 'human' or 'computer', not {self.kind!r}")
        if (self.kind == "computer") != isinstance(self.level, str):
            raise ValueError("a computer seat has a level and a human seat has none")

    @classmethod
    def human(cls) -> SeatPlayer:
        return cls("human")

    @classmethod
    def computer(cls, level: str = "normal") -> SeatPlayer:
        return cls("computer", level)


def make_computer(name: str, seed: int) -> Bot:
    """A bot for a difficulty level (:data:`~heartsuit.hearts.bots.LEVELS`) or a registry bot
    name (:data:`~heartsuit.hearts.bots.BOTS`)."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key in LEVELS:
        return make_level(key, seed)
    if key in BOTS:
        return make_bot(key, seed)
    raise UnknownBot(
        f"no level or bot called {name!r}; choose one of {', '.join([*LEVELS, *sorted(BOTS)])}"
    )


def bot_action(bot: Bot, view: SeatView) -> Action:
    """Ask ``bot`` what the seat of ``view`` does now, checked against the view (a moon's
    scoring is chosen by :func:`~heartsuit.hearts.scoring.best_moon_choice`, not the bot)."""
    seat = view.seat
    if view.must_pass:
        cards = tuple(bot.choose_pass(view))
        count = view.rules.pass_count
        if len(cards) != count or Counter(cards) - Counter(view.hand):
            raise BotError(f"bot {bot.name!r} passed {_codes(cards)} from seat {seat}: "
                           f"that is not {count} cards of its hand")
        return Pass(seat, cards)
    if view.to_play == seat:
        card = bot.choose_play(view)
        if card not in view.legal:
            raise BotError(f"bot {bot.name!r} played {card} from seat {seat}: "
                           f"the legal cards are {_codes(view.legal)}")
        return Play(seat, card)
    if view.phase == "moon" and view.shooter == seat:
        # every level takes the better option for its match standing: a rule, not a bot's
        # judgement (docs/hearts-rules.md, "Shooting the moon")
        return Moon(seat, best_moon_choice(view.rules, seat, view.scores, dict(view.moon_options)))
    raise IllegalMove(Reason.NOT_YOUR_TURN, f"seat {seat} has nothing to do now")


def computer_seed(key: str, version: int, seat: int) -> int:
    """The seed of the decision of ``seat`` at ``version`` of the game that ``key`` names."""
    return derive_seed(f"{key}/{version}", seat)


def decide(view: SeatView, level: str, seed: int, *, bots: BotFactory = make_computer) -> Action:
    """What a fresh computer at ``level`` (a level or bot name), seeded with ``seed``, does from
    ``view``: the whole of a decision, for this process or a worker process that receives only
    these three values."""
    return bot_action(bots(level, seed), view)


def computer_action(
    game: Playable, seat: int, level: str, key: str, *, bots: BotFactory = make_computer
) -> Action:
    """What the computer in ``seat`` does now: a fresh bot for ``level`` seeded from
    ``(key, version, seat)``, shown only ``game.view(seat)``."""
    return decide(game.view(seat), level, computer_seed(key, game.version, seat), bots=bots)


def computer_turns(game: Playable, is_computer: Callable[[int], bool]) -> tuple[int, ...]:
    """The seats that must act now and are played by the computer."""
    return tuple(seat for seat in game.awaiting() if is_computer(seat))


def advance(
    game: Playable,
    players: Sequence[SeatPlayer],
    key: str,
    *,
    max_actions: int | None = None,
    bots: BotFactory = make_computer,
) -> list[tuple[Action, list[Event]]]:
    """Play computer turns until a person must act, the game ends, or ``max_actions`` were
    taken; each action taken with the events it caused. ``players[s]`` sits in seat ``s``.
    While passing, computers pass in seat order (a fixed order, so the versions that seed
    them are fixed too).
    """
    seats_in_play = game.view(0).rules.players
    if len(players) != seats_in_play:
        raise ValueError(f"name a player for each of the {seats_in_play} seats, not {len(players)}")
    taken: list[tuple[Action, list[Event]]] = []
    while max_actions is None or len(taken) < max_actions:
        seats = computer_turns(game, lambda s: players[s].kind == "computer")
        if not seats:
            break
        seat = seats[0]
        level = players[seat].level
        assert level is not None  # SeatPlayer guarantees it for computers
        action = computer_action(game, seat, level, key, bots=bots)
        taken.append((action, game.apply(action)))
    return taken


def _codes(cards: Sequence[object]) -> str:
    return " ".join(str(c) for c in cards) or "nothing"
