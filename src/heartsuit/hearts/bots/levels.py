"""The search budgets behind the registry's levels (measured in docs/hearts-bots.md).

Budgets are counted in playouts, so a level's choice depends only on its seed and the view (a
replay or a takeover makes the same choice). ``HARD_100MS`` is ``HARD`` cut to what about
0.1 CPU s buys on the development machine (the arena's evidence runs); ``TIMED`` is the
benchmark's fixed-time search.
"""

from __future__ import annotations

from heartsuit.hearts.bots.passing import PassConfig
from heartsuit.hearts.bots.search import SearchConfig

# p95 under 50 ms per decision on one core of the development machine
NORMAL = SearchConfig(playouts=180, passing=PassConfig(playouts=300))
# mean under 1 s, p99 under 2 s per decision
HARD = SearchConfig(playouts=6000, passing=PassConfig(playouts=8000))
# hard's player with its budget cut to about 0.1 CPU s per decision, counted in playouts:
# 2,000 per card (mean 98 ms, median 96 ms; pass 1,100 playouts, mean 106 ms), measured by
# `bench/hearts_search.py times --hands 5 --levels hard100` (seed 1, load average about 11)
HARD_100MS = SearchConfig(playouts=2000, passing=PassConfig(playouts=1100))
# 0.1 CPU second per decision, whatever that buys
TIMED = SearchConfig(playouts=None, seconds=0.1, passing=PassConfig(playouts=1500))
