"""What a seat can do in Hearts: the typed actions :class:`Pass`, :class:`Play` and :class:`Moon`.

An action is a small frozen value with a JSON form (``to_dict``), and :func:`action_from_dict`
is the one way back from JSON: a server's event log, a stored match and a client's intent all
go through it, so malformed input is refused here, with a message saying what is wrong, before
the engine ever sees it. Whether an action is *legal* is the engine's question
(:meth:`heartsuit.hearts.game.Hand.why_illegal` / ``why_pass_illegal``), not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from heartsuit.cards import Card

__all__ = [
    "MOON_CHOICES",
    "Action",
    "ActionError",
    "Moon",
    "MoonChoice",
    "Pass",
    "Play",
    "action_from_dict",
    "action_from_stored",
]

#: what a seat that shot the moon may choose under ``moon="shooter_chooses"``: everyone else
#: takes the hand's penalty total, or the shooter subtracts it (the names of the fixed options;
#: the amount is the variant's total, 52 with two packs)
MoonChoice = Literal["others_plus_26", "self_minus_26"]
MOON_CHOICES: Final[tuple[MoonChoice, ...]] = ("others_plus_26", "self_minus_26")


class ActionError(ValueError):
    """An action dict that is not an action (wrong shape, unknown type, bad card text …)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """``seat`` chooses the cards it passes (passing is simultaneous: nothing moves yet)."""

    seat: int
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        # a list given by a caller would make the value unhashable and unequal to its replay
        object.__setattr__(self, "cards", tuple(self.cards))

    def to_dict(self) -> dict[str, Any]:
        return {"type": "pass", "seat": self.seat, "cards": [c.code for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Play:
    """``seat`` plays ``card`` to the trick in progress."""

    seat: int
    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"type": "play", "seat": self.seat, "card": self.card.code}


@dataclass(frozen=True, slots=True)
class Moon:
    """``seat``, which shot the moon, chooses how it scores (``moon="shooter_chooses"``)."""

    seat: int
    choice: MoonChoice

    def to_dict(self) -> dict[str, Any]:
        return {"type": "moon", "seat": self.seat, "choice": self.choice}


Action = Pass | Play | Moon

_FIELDS = {
    "pass": {"type", "seat", "cards"},
    "play": {"type", "seat", "card"},
    "moon": {"type", "seat", "choice"},
}


def action_from_dict(data: object) -> Action:
    """The action a JSON dict names (``{"type": "play", "seat": 1, "card": "10H"}``,
    ``{"type": "moon", "seat": 2, "choice": "self_minus_26"}``).

    Refuses, with :class:`ActionError`, anything that is not exactly an action: not a dict, an
    unknown or missing ``type``, missing or unexpected fields, a seat that is not a whole number
    from 0 (``true`` is not a seat), card text that is not a card. Seat range, pass size and
    whether the seat holds the cards are the engine's checks.
    """
    if not isinstance(data, Mapping):
        raise ActionError(f"an action is a JSON object, not {type(data).__name__}")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise ActionError(f"an action's type is 'pass', 'play' or 'moon', not {kind!r}")
    fields = _FIELDS[kind]
    missing = sorted(fields - set(data))
    if missing:
        raise ActionError(f"a {kind} action needs {', '.join(missing)}")
    extra = sorted(str(k) for k in set(data) - fields)
    if extra:
        raise ActionError(f"a {kind} action has no field {', '.join(map(repr, extra))}")
    seat = _seat(data["seat"])
    if kind == "play":
        return Play(seat, _card(data["card"]))
    if kind == "moon":
        return Moon(seat, moon_choice(data["choice"]))
    cards = data["cards"]
    if not isinstance(cards, list | tuple):
        raise ActionError(f"a pass's cards are a list of card codes, not {cards!r}")
    return Pass(seat, tuple(_card(c) for c in cards))


def action_from_stored(data: object) -> Action:
    """Like :func:`action_from_dict`, also reading the format-1 form of stored hands and
    matches (``{"seat": 0, "pass": [...]}`` / ``{"seat": 0, "play": "QS"}``)."""
    if isinstance(data, Mapping) and "type" not in data:
        if set(data) == {"seat", "pass"}:
            return action_from_dict({"type": "pass", "seat": data["seat"], "cards": data["pass"]})
        if set(data) == {"seat", "play"}:
            return action_from_dict({"type": "play", "seat": data["seat"], "card": data["play"]})
    return action_from_dict(data)


def moon_choice(value: object) -> MoonChoice:
    """``value`` when it names a moon choice; anything else is an :class:`ActionError`."""
    for choice in MOON_CHOICES:
        if value == choice and isinstance(value, str):
            return choice
    raise ActionError(f"a moon choice is 'others_plus_26' or 'self_minus_26', not {value!r}")


def _seat(value: object) -> int:
    # bool is an int subclass; JSON true must not become seat 1
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ActionError(f"a seat is a whole number from 0, not {value!r}")
    return value


def _card(value: object) -> Card:
    if not isinstance(value, str):
        raise ActionError(f"a card is written as text such as 'QS' or '10H', not {value!r}")
    try:
        return Card.parse(value)
    except ValueError as exc:
        raise ActionError(str(exc)) from exc  # Card.parse already names the text
