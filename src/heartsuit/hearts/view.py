"""What one seat may know: :class:`SeatView` and :class:`TrickRecord`.

A seat view is the only thing a bot, a client or a log ever receives about a hand in progress
(DESIGN.md, principle 3). It holds the seat's own cards, every card already played and by whom,
the seat's own pass, scores and counts — never another seat's unplayed cards, and never the
kitty before the hand is over. The views are built by :meth:`heartsuit.hearts.game.Hand.view`;
this module only defines their shape and their JSON form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from heartsuit.cards import Card
from heartsuit.hearts.actions import MoonChoice
from heartsuit.hearts.rules import PassDirection, Rules

PhaseName = Literal["pass", "play", "moon", "done"]


def _codes(cards: tuple[Card, ...]) -> list[str]:
    return [c.code for c in cards]


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """One trick: who led, the plays in order, who took it and the points they took with it."""

    leader: int
    plays: tuple[tuple[int, Card], ...]  # (seat, card) in playing order
    # None while the trick is open, or when all of it was cancelled and it is held over
    winner: int | None
    # points the winner takes with this trick (J♦ -10 included when on), with the cards held
    # over from an earlier cancelled trick; for a held-over trick, the points it carries
    # forward; never the kitty's
    points: int
    # indices into ``plays`` of the cards cancelled by an identical card (Cancellation only)
    cancelled: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {
            "leader": self.leader,
            "plays": [[seat, card.code] for seat, card in self.plays],
            "winner": self.winner,
            "points": self.points,
            "cancelled": list(self.cancelled),
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything ``seat`` may know about the current hand, and nothing more."""

    seat: int
    rules: Rules
    phase: PhaseName
    hand_number: int  # 0-based within the match (0 for a lone Hand)
    hand: tuple[Card, ...]  # this seat's own cards, sorted by suit then rank
    legal: tuple[Card, ...]  # legal plays now; empty unless it is this seat's turn to play
    to_play: int | None
    pass_direction: PassDirection
    must_pass: bool  # True while this seat still has to choose its pass
    passed: tuple[Card, ...]  # what this seat passed (empty if none yet / no pass)
    received: tuple[Card, ...]  # what it received (empty until every seat has passed)
    trick: TrickRecord | None  # the trick in progress (None between tricks)
    tricks: tuple[TrickRecord, ...]  # completed tricks, in order
    points_taken: tuple[int, ...]  # points taken so far this hand, per seat (no kitty, no moon)
    hearts_broken: bool
    scores: tuple[int, ...]  # match totals before this hand
    cards_left: tuple[int, ...]  # unplayed cards per seat (counts only)
    # --- additions beyond the shared contract (all defaulted) ---
    kitty_size: int = 0  # cards in the kitty (Cancellation), known to all
    kitty: tuple[Card, ...] = ()  # the kitty's cards, shown only once the hand is done
    held_over: tuple[Card, ...] = ()  # cancelled cards waiting for the next trick's winner
    hand_points: tuple[int, ...] = ()  # final points per seat (moon, bonuses), once done
    shooter: int | None = None  # the seat that shot the moon, once every card is played
    # each way to score that moon and the points per seat it gives (phase "moon" and after)
    moon_options: tuple[tuple[MoonChoice, tuple[int, ...]], ...] = ()
    moon_choice: MoonChoice | None = None  # how the moon was scored, once the hand is done

    def to_dict(self) -> dict[str, object]:
        """A JSON-able dict; cards as ASCII codes ("QS", "10H")."""
        return {
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "phase": self.phase,
            "hand_number": self.hand_number,
            "hand": _codes(self.hand),
            "legal": _codes(self.legal),
            "to_play": self.to_play,
            "pass_direction": str(self.pass_direction),
            "must_pass": self.must_pass,
            "passed": _codes(self.passed),
            "received": _codes(self.received),
            "trick": None if self.trick is None else self.trick.to_dict(),
            "tricks": [t.to_dict() for t in self.tricks],
            "points_taken": list(self.points_taken),
            "hearts_broken": self.hearts_broken,
            "scores": list(self.scores),
            "cards_left": list(self.cards_left),
            "kitty_size": self.kitty_size,
            "kitty": _codes(self.kitty),
            "held_over": _codes(self.held_over),
            "hand_points": list(self.hand_points),
            "shooter": self.shooter,
            "moon_options": {choice: list(points) for choice, points in self.moon_options},
            "moon_choice": self.moon_choice,
        }
