"""Hearts: the trick-taking game. Pure rules, no I/O.

``Rules`` (options and presets), ``Hand`` (one hand's state machine), ``Match`` (hands to the
target), ``Pass`` / ``Play`` / ``Moon`` (the typed actions; ``apply`` returns public events, see
:mod:`heartsuit.hearts.events`), ``SeatView`` (what one seat may know; the only thing bots and
clients receive). The driver of computer turns is :mod:`heartsuit.hearts.driver`.

``COMPILED`` says whether the engine's core runs compiled (mypyc) or as the Python modules
(:mod:`heartsuit.hearts.compiled` says when and why; ``CORE`` names it, with the reason when
it runs as Python).
"""

from heartsuit.hearts.compiled import select

# before any engine module is imported: a build that is missing, stale or switched off
# (HEARTSUIT_PURE=1) leaves the Python modules to run
COMPILED, _why_not = select()
CORE = "compiled (mypyc)" if COMPILED else f"Python ({_why_not})"

from heartsuit.hearts.actions import Action, ActionError, Moon, Pass, Play, action_from_dict  # noqa: E402
from heartsuit.hearts.events import Event  # noqa: E402
from heartsuit.hearts.game import DealError, Hand, IllegalMove, Phase, Reason  # noqa: E402
from heartsuit.hearts.match import HandScore, Match  # noqa: E402
from heartsuit.hearts.rules import PassDirection, Rules, RulesError  # noqa: E402
from heartsuit.hearts.view import SeatView, TrickRecord  # noqa: E402

__all__ = [
    "COMPILED",
    "CORE",
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
