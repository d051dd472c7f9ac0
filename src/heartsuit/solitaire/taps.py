"""The vocabulary of taps in Heart to Heart: targets, what a tap did, and why.

These are the values the engine (:mod:`heartsuit.solitaire.game`) hands to a UI: a UI renders a
:class:`TapResult` and translates its ``reason``/``message_key`` with its own catalog.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Literal

from heartsuit.cards import Card
from heartsuit.solitaire.errors import GameError

#: what a tap may name: a heart position 1..25, the stock or the waste
Target = int | Literal["stock", "waste"]
#: what may be selected: a heart position or the waste top
Selection = int | Literal["waste"]
#: one entry of a replayable action log: a tap target or an undo
Action = int | Literal["stock", "waste", "undo"]

#: the move-error message of the seed ("Harus bernilai sama"), by language; key ``must_match``
MUST_MATCH: Final = {"id": "Harus bernilai sama", "en": "Must be the same rank"}


class Outcome(StrEnum):
    PLAYING = "playing"
    WON = "won"  # all 25 heart cards removed, even with cards left in the stock
    DEAD_END = "dead_end"  # no free heart card has any possible partner


class TapKind(StrEnum):
    SELECTED = "selected"
    DESELECTED = "deselected"
    RESELECTED = "reselected"  # a mismatch: the second card becomes the selection
    PAIRED = "paired"
    FLIPPED = "flipped"
    REDEALT = "redealt"
    IGNORED = "ignored"


class Reason(StrEnum):
    """Why a tap did what it did, as an i18n key a UI can translate."""

    COVERED = "covered"
    EMPTY_PLACE = "empty_place"
    EMPTY_WASTE = "empty_waste"
    NOTHING_TO_FLIP = "nothing_to_flip"
    MUST_MATCH = "must_match"


class GameOver(GameError):
    """A tap on a game that is already won or dead-ended (undo is still allowed)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(
            f"the game is over ({outcome.value}); undo a move or start a new game", "game_over"
        )


@dataclass(frozen=True, slots=True)
class TapResult:
    """What one tap did.

    ``cards``/``positions`` are the cards involved (for a pair: the heart cards' positions and
    all removed cards, waste card last; for a flip: the card turned). ``points`` is the score
    gained. ``reason`` says why for ``ignored`` and ``reselected`` taps; ``message`` and
    ``message_key`` are set only when the move-errors setting is on and the tap was a mismatch.
    """

    kind: TapKind
    target: Target
    cards: tuple[Card, ...] = ()
    positions: tuple[int, ...] = ()
    points: int = 0
    reason: Reason | None = None
    message: str | None = None
    message_key: str | None = None
    outcome: Outcome = Outcome.PLAYING

    @property
    def is_move(self) -> bool:
        """A flip, a redeal or a pair: something undo can take back and ``moves`` counts."""
        return self.kind in (TapKind.PAIRED, TapKind.FLIPPED, TapKind.REDEALT)


def check_target(target: object) -> Target:
    """``target`` itself if it is 1..25, "stock" or "waste"; GameError otherwise."""
    if isinstance(target, bool):
        raise GameError(f"a target is a position 1..25, 'stock' or 'waste', not {target!r}")
    if isinstance(target, int):
        if 1 <= target <= 25:
            return target
        raise GameError(f"there is no heart position {target}: positions are 1..25")
    if target == "stock":
        return "stock"
    if target == "waste":
        return "waste"
    raise GameError(f"a target is a position 1..25, 'stock' or 'waste', not {target!r}")
