"""What a finished hand is worth to each seat: :class:`Scorer`, shared by play and pass search.

Mid-match a hand is worth minus its points (after the moon and the J♦, by the table's rules).
Near the end of a match — when someone could reach the target this hand — it is worth what it
does to the match totals instead: the exactly-100 reset counts (landing on the target is a gain),
and ending the match among the winners earns :data:`WIN_BONUS`.
"""

from __future__ import annotations

from heartsuit.hearts.fast_cancel import CancelTable, cancel_points
from heartsuit.hearts.fast_tables import Table, hand_points
from heartsuit.hearts.scoring import add_hand, match_over, winners

WIN_BONUS = 50.0  # utility of ending the match among the winners, in hand points
MOON_ALERT = 0.35  # share of the hand's penalty points that makes a lone taker a shooter


class Scorer:
    """Hand points to utilities per seat: minus the points, and near a match's end its result."""

    def __init__(self, table: Table | CancelTable, scores: tuple[int, ...]) -> None:
        rules = table.rules
        self.table = table
        self.rules = rules
        self.scores = scores if scores else (0,) * table.players
        # the match can end, or a total land on the reset, only when someone is this close
        self.endgame = max(self.scores) + max(table.moon_total, 1) >= rules.target

    def utilities(self, tallies: list[int]) -> list[float]:
        if isinstance(self.table, CancelTable):
            points = cancel_points(self.table, tallies, self.scores)
        else:
            points = hand_points(self.table, tallies, self.scores)
        if not self.endgame:
            return [-float(p) for p in points]
        totals = add_hand(self.rules, self.scores, points)
        gains = [-float(t - s) for t, s in zip(totals, self.scores, strict=True)]
        if match_over(self.rules, totals):
            won = winners(self.rules, totals)
            for seat in won:
                gains[seat] += WIN_BONUS / len(won)
        return gains
