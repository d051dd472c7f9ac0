"""Hearts: the trick-taking game. Pure rules, no I/O.

``Rules`` (options and presets), ``Hand`` (one hand's state machine), ``Match`` (hands to the
target), ``SeatView`` (what one seat may know; the only thing bots and clients receive).
"""

from heartsuit.hearts.game import DealError, Hand, IllegalMove, Phase, Reason
from heartsuit.hearts.match import Match
from heartsuit.hearts.rules import PassDirection, Rules, RulesError
from heartsuit.hearts.view import SeatView, TrickRecord

__all__ = [
    "DealError",
    "Hand",
    "IllegalMove",
    "Match",
    "PassDirection",
    "Phase",
    "Reason",
    "Rules",
    "RulesError",
    "SeatView",
    "TrickRecord",
]
