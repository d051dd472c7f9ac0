"""What happened when an action was accepted: the public events of Hearts.

:meth:`Hand.apply <heartsuit.hearts.game.Hand.apply>` and :meth:`Match.apply
<heartsuit.hearts.match.Match.apply>` return a list of these. Every event is a fact every seat may
know, so a server can send them to all seats as they are: a :class:`Passed` names the seat and
never its cards, and nothing here names an unplayed card or the kitty. (What one seat may know
beyond that is its :class:`~heartsuit.hearts.view.SeatView`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from heartsuit.cards import Card
from heartsuit.hearts.actions import MoonChoice
from heartsuit.hearts.rules import PassDirection

__all__ = [
    "Event",
    "HandDealt",
    "HandDone",
    "MatchOver",
    "MoonChosen",
    "Passed",
    "PassesExchanged",
    "Played",
    "TrickDone",
]


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` has chosen its pass (which cards stays between it and its receiver)."""

    type: ClassVar[str] = "passed"
    seat: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class PassesExchanged:
    """Every seat has passed; the cards moved in ``direction`` and the play begins."""

    type: ClassVar[str] = "passes_exchanged"
    direction: PassDirection

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "direction": str(self.direction)}


@dataclass(frozen=True, slots=True)
class Played:
    type: ClassVar[str] = "played"
    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "card": self.card.code}


@dataclass(frozen=True, slots=True)
class TrickDone:
    """A trick is complete: its winner (None when every card was cancelled and it is held
    over), the points it carries, the indices into ``plays`` of its cancelled cards
    (Cancellation), and its plays (seat, card) in order — all already seen by every seat."""

    type: ClassVar[str] = "trick_done"
    winner: int | None
    points: int
    cancelled: tuple[int, ...]
    plays: tuple[tuple[int, Card], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "winner": self.winner,
            "points": self.points,
            "cancelled": list(self.cancelled),
            "plays": [[seat, card.code] for seat, card in self.plays],
        }


_new = object.__new__
#: the slot setters of TrickDone's winner, points, cancelled and plays, in that order
trick_done_setters = tuple(
    TrickDone.__dict__[name].__set__ for name in ("winner", "points", "cancelled", "plays")
)
_set_winner, _set_points, _set_cancelled, _set_plays = trick_done_setters


def trick_done(
    winner: int | None, points: int, cancelled: tuple[int, ...], plays: tuple[tuple[int, Card], ...]
) -> TrickDone:
    """``TrickDone(winner, points, cancelled, plays)``, made as the engine makes one per trick:
    its fields set through their slots, without the frozen class's ``__init__`` (which sets
    each through ``object.__setattr__``, and took a good part of a trick's time)."""
    done: TrickDone = _new(TrickDone)
    _set_winner(done, winner)
    _set_points(done, points)
    _set_cancelled(done, cancelled)
    _set_plays(done, plays)
    return done


@dataclass(frozen=True, slots=True)
class MoonChosen:
    """``seat`` shot the moon and chose how it scores (``moon="shooter_chooses"``); the
    ``HandDone`` with the points follows."""

    type: ClassVar[str] = "moon_chosen"
    seat: int
    choice: MoonChoice

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "choice": self.choice}


@dataclass(frozen=True, slots=True)
class HandDone:
    """Hand ``hand_number`` is over: each seat's points (moon and bonuses applied) and the seat
    that shot the moon, if one did."""

    type: ClassVar[str] = "hand_done"
    hand_number: int
    points: tuple[int, ...]
    shooter: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "hand_number": self.hand_number,
            "points": list(self.points),
            "shooter": self.shooter,
        }


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A match dealt hand ``hand_number``, which passes in ``pass_direction``."""

    type: ClassVar[str] = "hand_dealt"
    hand_number: int
    pass_direction: PassDirection

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "hand_number": self.hand_number,
            "pass_direction": str(self.pass_direction),
        }


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match has ended: the seats sharing the lowest total, and the final totals."""

    type: ClassVar[str] = "match_over"
    winners: tuple[int, ...]
    scores: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "winners": list(self.winners), "scores": list(self.scores)}


Event = (
    Passed | PassesExchanged | Played | TrickDone | MoonChosen | HandDone | HandDealt | MatchOver
)
