"""Hearts: the trick-taking game. Pure rules, no I/O.

``Rules`` (options and presets), ``SeatView`` (what one seat may know); the hand and match state
machines follow in :mod:`heartsuit.hearts.game`.
"""

from heartsuit.hearts.rules import PassDirection, Rules, RulesError
from heartsuit.hearts.view import SeatView, TrickRecord

__all__ = ["PassDirection", "Rules", "RulesError", "SeatView", "TrickRecord"]
