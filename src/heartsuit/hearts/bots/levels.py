"""The search budgets behind the registry's levels (measured in docs/hearts-bots.md).

Budgets are counted in playouts, so a level's choice depends only on its seed and the view (a
replay or a takeover makes the same choice). ``HARD_6000`` is ``hard`` as it was before it
stopped searching clearly worse cards, and ``HARD_100MS`` that player cut to what about 0.1 CPU s
bought on the development machine (the arena's stand-in for it then; ``hard`` now costs less);
both stay for comparisons and for reading the earlier results files. ``TIMED`` is the
benchmark's fixed-time search; ``MOON_HUNTER`` the arena's moon-hunting opponent.
"""

from __future__ import annotations

from heartsuit.hearts.bots.passing import PassConfig
from heartsuit.hearts.bots.search import SearchConfig

MOON_GUARD = 0.5  # hard's share of worlds in which a moon threat runs for it
# the points a lone taker needs before hard treats it as running for the moon: from the first
# point, hard measured 0.43 ± 0.50 points per hand weaker against normal (100 deals)
GUARD_POINTS = 8

# p95 under 50 ms per decision on one core of the development machine
NORMAL = SearchConfig(playouts=180, passing=PassConfig(playouts=300))
# up to 2,500 playouts a card, but from 24 worlds on a card clearly worse than the best (2.5
# standard errors of the paired difference) stops being searched, and the search stops when
# one card is left or when every card left is within 0.35 points of the best (two standard
# errors allowed); pass 1,600 playouts; moon defence on (search.moon_threat,
# search.guarded_moves) against a lone taker of 8 points or more. A median card about 5 ms
# compiled and 11 ms as Python modules (mean 12 / 32 ms; in whole matches half as much again as
# the 1.5-error rule), a pass about 28 / 76 ms. As strong as the same search unpruned against a
# published C++ program, and half a point a hand stronger there than pruning at 1.5 errors from
# 12 worlds, which cost as much a median card (docs/hearts-bots.md, "Current figures" and
# "Against a published program")
HARD = SearchConfig(
    playouts=2500,
    prune_z=2.5,
    prune_after=24,
    prune_close=0.35,
    passing=PassConfig(playouts=1600),
    moon_guard=MOON_GUARD,
    guard_points=GUARD_POINTS,
)
# hard before pruning and moon defence: 6,000 playouts every card, pass 8,000 (mean 0.45 s)
HARD_6000 = SearchConfig(playouts=6000, passing=PassConfig(playouts=8000))
# hard6000's player with its budget cut to about 0.1 CPU s per decision, counted in playouts:
# 2,000 per card (mean 98 ms, median 96 ms; pass 1,100 playouts, mean 106 ms), measured by
# `bench/hearts_search.py times --hands 5 --levels hard100` (seed 1, load average about 11)
HARD_100MS = SearchConfig(playouts=2000, passing=PassConfig(playouts=1100))
# 0.1 CPU second per decision, whatever that buys
TIMED = SearchConfig(playouts=None, seconds=0.1, passing=PassConfig(playouts=1500))
# the arena's moon-hunting opponent: a search seat that keeps its high cards in the pass when
# five are above the jack (search.moon_hand), plans a moon whenever nobody else has points and
# a fifth of its cards are high, and goes for it when it lands in a fifth of the worlds (or
# scores better than the plain plan)
MOON_HUNTER = SearchConfig(
    playouts=500, moon_plans=True, moon_hunt=0.2, passing=PassConfig(playouts=500)
)
