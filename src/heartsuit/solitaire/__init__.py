"""Heart to Heart: the all-hearts pyramid solitaire. Pure rules, no I/O.

:class:`Game` is the engine (:mod:`heartsuit.solitaire.game`); what a tap did is a
:class:`TapResult` (:mod:`heartsuit.solitaire.taps`); deal codes live in
:mod:`heartsuit.solitaire.codes` and the heart's geometry in :mod:`heartsuit.solitaire.layout`;
:func:`solve` (:mod:`heartsuit.solitaire.solver`) analyses a game or a deal.
"""

from heartsuit.solitaire.errors import GameError, SnapshotError
from heartsuit.solitaire.game import Game
from heartsuit.solitaire.solver import solve
from heartsuit.solitaire.taps import (
    Action,
    GameOver,
    Outcome,
    Reason,
    Selection,
    TapKind,
    TapResult,
    Target,
)

__all__ = [
    "Action",
    "Game",
    "GameError",
    "GameOver",
    "Outcome",
    "Reason",
    "Selection",
    "SnapshotError",
    "TapKind",
    "TapResult",
    "Target",
    "solve",
]
