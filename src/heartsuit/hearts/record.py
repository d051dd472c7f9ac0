"""A finished match face up: every hand as dealt, every pass, every trick and every score.

What a replay shows once nothing is hidden any more (the site's replay page, a bug report, a
study of a match): :func:`match_record` reads a :class:`~heartsuit.hearts.match.Match` and writes
each *finished* hand as plain JSON-able data — the cards each seat was dealt, what each seat
passed and to whom, the tricks in order (leader, plays, winner, points, cancelled cards), who
took the kitty, and the hand's line of the score sheet. A hand still being played is never
written, so a record of a running match holds only the hands everyone has already seen end.
Nothing here decides a rule: every field is read from the engine's own state.
"""

from __future__ import annotations

from typing import Any

from heartsuit.hearts.match import Match

__all__ = ["hand_records", "match_record"]


def hand_records(match: Match) -> list[dict[str, Any]]:
    """One record per finished hand of ``match``, in order (see the module's docstring)."""
    rules = match.rules
    lines = {line.hand_number: line for line in match.score_sheet()}
    records: list[dict[str, Any]] = []
    for hand in match.hands:
        line = lines.get(hand.hand_number)
        if line is None:
            continue  # still being played: nothing of it is written
        direction = hand.pass_direction
        passes = hand.passes
        records.append(
            {
                "number": hand.hand_number,
                "pass_direction": str(direction),
                "deal": [[c.code for c in cards] for cards in hand.dealt],
                "kitty": [c.code for c in hand.kitty],
                "kitty_taker": hand.kitty_taker,
                # None for a seat that passed nothing (a hand kept, or no passing)
                "passes": [None if p is None else [c.code for c in p] for p in passes],
                "pass_to": [rules.pass_target(seat, direction) for seat in range(rules.players)],
                "tricks": [trick.to_dict() for trick in hand.tricks],
                # the cards that count, as each seat took them (tricks, held-over cards, the
                # kitty): hearts, Q♠, J♦ or Black Maria's spades where the rules say so
                "penalties": [
                    [c.code for c in taken if rules.card_points(c) != 0] for taken in hand.taken
                ],
                "points": list(line.points),
                "totals": list(line.totals),
                "shooter": line.shooter,
                "moon": line.moon,
            }
        )
    return records


def match_record(match: Match) -> dict[str, Any]:
    """The whole match as :func:`hand_records` writes its hands, with its rules and end."""
    return {
        "rules": match.rules.to_dict(),
        "hands": hand_records(match),
        "over": match.is_over,
        "winners": list(match.winners) if match.is_over else [],
        "scores": list(match.scores),
    }
