"""Hearts: the trick-taking game. Pure rules, no I/O.

``Rules`` (options and presets), ``Hand`` (one hand's state machine), ``Match`` (hands to the
target), ``Pass`` / ``Play`` / ``Moon`` (the typed actions; ``apply`` returns public events, see
:mod:`heartsuit.hearts.events`), ``SeatView`` (what one seat may know; the only thing bots and
clients receive). The driver of computer turns is :mod:`heartsuit.hearts.table`.
"""

from heartsuit.hearts.actions import Action, ActionError, Moon, Pass, Play, action_from_dict
from heartsuit.hearts.events import Event
from heartsuit.hearts.game import DealError, Hand, IllegalMove, Phase, Reason
from heartsuit.hearts.match import HandScore, Match
from heartsuit.hearts.rules import PassDirection, Rules, RulesError
from heartsuit.hearts.view import SeatView, TrickRecord

__all__ = [
    "Action",
    "ActionError",
    "DealError",
    "Event",
    "Hand",
    "HandScore",
    "IllegalMove",
    "Match",
    "Moon",
    "Pass",
    "PassDirection",
    "Phase",
    "Play",
    "Reason",
    "Rules",
    "RulesError",
    "SeatView",
    "TrickRecord",
    "action_from_dict",
]
