"""A match of Hearts: hands in sequence until someone reaches the target.

A match is its rules, its seed and its actions. Hand ``k`` is dealt from the seed with
:func:`heartsuit.hearts.game.deal_seed` and passes in the direction ``rules.pass_direction(k)``;
so ``(rules, seed)`` is a game code that replays the same deals, and the flat list of actions
replays the play (:meth:`Match.from_actions`, :meth:`Match.to_dict` / :meth:`Match.from_dict`).

Every action goes through :meth:`Match.apply`, which counts it (:attr:`Match.version`) and, when
it ends a hand and the match goes on, deals the next hand at once (events ``HandDone`` then
``HandDealt``). So :meth:`Match.awaiting` names the seats that must act at every moment and is
empty only once the match is over; finished hands stay readable in :attr:`Match.hands` and
:meth:`Match.score_sheet`. A hand of a match refuses actions given to it directly, so the count
and the dealing can never be skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from heartsuit.cards import Card
from heartsuit.hearts.actions import (
    Action,
    Moon,
    MoonChoice,
    Pass,
    Play,
    action_from_dict,
    action_from_stored,
)
from heartsuit.hearts.codes import parse_code
from heartsuit.hearts.events import Event, HandDealt, MatchOver
from heartsuit.hearts.game import DealError, Hand, IllegalMove, Phase, Reason
from heartsuit.hearts.rules import PassDirection, Rules
from heartsuit.hearts.scoring import add_hand, match_over, winners
from heartsuit.hearts.view import SeatView

# 3: one flat list of typed actions, with the shooter's moon choice (shooter_chooses);
# 2 and 1 (still read): written before the shooter chose (the engine applied the better
# option then), 1 as a list of format-1 actions per hand
FORMAT_VERSION = 3


@dataclass(frozen=True, slots=True)
class HandScore:
    """One finished hand's line on the score sheet."""

    hand_number: int
    pass_direction: PassDirection
    points: tuple[int, ...]  # this hand's points per seat, moon and bonuses applied
    totals: tuple[int, ...]  # running totals after this hand (exactly-100 reset applied)
    shooter: int | None  # the seat that shot the moon, if one did
    moon: MoonChoice | None = None  # how that moon was scored (fixed, or the shooter's choice)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand_number": self.hand_number,
            "pass_direction": str(self.pass_direction),
            "points": list(self.points),
            "totals": list(self.totals),
            "shooter": self.shooter,
            "moon": self.moon,
        }


class Match:
    """Hands in sequence with running totals; create with :meth:`new` or :meth:`from_dict`."""

    def __init__(self, rules: Rules, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise DealError(f"a match seed is a non-negative whole number, not {seed!r}")
        self.rules = rules
        self.seed = seed
        self._hands: list[Hand] = []
        self._totals_before: list[tuple[int, ...]] = []
        self._version = 0
        self._deal(0, (0,) * rules.players)

    @classmethod
    def new(cls, rules: Rules, seed: int) -> Match:
        return cls(rules, seed)

    @classmethod
    def from_code(cls, code: str, **overrides: Any) -> Match:
        """The match of a game code such as ``HE1-S-AAAAAAM`` (:mod:`heartsuit.hearts.codes`).

        ``overrides`` change options that do not change the deal (``moon=...``, ``target=...``).
        """
        parsed = parse_code(code)
        return cls(parsed.rules(**overrides), parsed.seed)

    @classmethod
    def from_actions(
        cls, rules: Rules, seed: int, actions: Iterable[Action | Mapping[str, Any]]
    ) -> Match:
        """Replay a match from its actions in order (typed, or their dicts as a server's log
        holds them). A malformed dict raises ActionError, a refused action IllegalMove; the
        error's note says which action it was.

        A log written before the shooter chose has no :class:`Moon` after a moon: when the
        next action is something else, the moon is settled as the engine settled it then
        (:meth:`settle_old_moon`)."""
        match = cls(rules, seed)
        for index, action in enumerate(actions):
            try:
                typed = action if isinstance(action, Pass | Play | Moon) else None
                match.replay(typed or action_from_dict(action))
            except ValueError as exc:
                exc.add_note(f"action {index} of the replay: {action!r}")
                raise
        return match

    def replay(self, action: Action) -> list[Event]:
        """:meth:`apply` for an action read from a log: an old log's moon without a choice is
        settled first (:meth:`settle_old_moon`) when ``action`` is not that choice."""
        events: list[Event] = []
        if self.hand.phase is Phase.MOON and not isinstance(action, Moon):
            events = self.settle_old_moon()
        return events + self.apply(action)

    def settle_old_moon(self) -> list[Event]:
        """Score a moon awaiting its shooter's choice by the better option for the shooter, as
        the engine did before the shooter chose, without counting an action (the old log has
        none, so :attr:`version` stays the log's length). Only for replaying such logs."""
        if self.hand.phase is not Phase.MOON:
            raise IllegalMove(Reason.WRONG_PHASE, "no moon awaits its shooter's choice")
        events = self.hand.settle_moon_unrecorded()
        return events + self._after_hand()

    def _deal(self, number: int, scores: tuple[int, ...]) -> Hand:
        hand = Hand.deal(self.rules, self.seed, hand_number=number, scores=scores)
        hand._in_match = True  # the match counts its actions and deals on: no direct play
        self._hands.append(hand)
        self._totals_before.append(scores)
        return hand

    # --- state -----------------------------------------------------------------------------

    @property
    def hands(self) -> tuple[Hand, ...]:
        """Every hand dealt so far: the finished ones, then the current one."""
        return tuple(self._hands)

    @property
    def hand(self) -> Hand:
        """The current hand (finished only once the match is over)."""
        return self._hands[-1]

    @property
    def hand_number(self) -> int:
        return len(self._hands) - 1

    @property
    def version(self) -> int:
        """How many actions the whole match has accepted (0 at the start): a client names the
        version it saw, and a computer's choice is seeded with it."""
        return self._version

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every accepted action in order; :meth:`from_actions` replays them."""
        return tuple(a for hand in self._hands for a in hand.actions)

    @property
    def scores(self) -> tuple[int, ...]:
        """Match totals after every finished hand (exactly-100 resets applied)."""
        totals = self._totals_before[-1]
        if self.hand.phase is Phase.DONE:
            totals = add_hand(self.rules, totals, self.hand.points())
        return totals

    def hand_points(self) -> list[tuple[int, ...]]:
        """Points of each finished hand, in order."""
        return [h.points() for h in self._hands if h.phase is Phase.DONE]

    def score_sheet(self) -> tuple[HandScore, ...]:
        """One line per finished hand: its points, the running totals and the moon shooter."""
        sheet = []
        for hand, before in zip(self._hands, self._totals_before, strict=True):
            if hand.phase is Phase.DONE:
                points = hand.points()
                totals = add_hand(self.rules, before, points)
                sheet.append(
                    HandScore(
                        hand.hand_number,
                        hand.pass_direction,
                        points,
                        totals,
                        hand.moon_shooter(),
                        hand.moon_choice,
                    )
                )
        return tuple(sheet)

    @property
    def is_over(self) -> bool:
        # asked many times per action (awaiting, status): a hand in play answers at once
        if self._hands[-1].phase is not Phase.DONE:
            return False
        return match_over(self.rules, self.scores)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats sharing the lowest total once the match is over; empty before."""
        return winners(self.rules, self.scores) if self.is_over else ()

    def awaiting(self) -> tuple[int, ...]:
        """The seats that must act now: every seat yet to pass while passing, the seat to
        play, the seat that shot the moon while it chooses how to score it
        (``shooter_chooses``), or none once the match is over."""
        return () if self.is_over else self.hand.awaiting()

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know of the current hand (a finished hand: ``hands[k].view``)."""
        return self.hand.view(seat)

    # --- actions ---------------------------------------------------------------------------

    def why_illegal(self, action: Action) -> Reason | None:
        """Why :meth:`apply` would refuse ``action`` now, or None (the same check)."""
        if self.is_over:
            return Reason.WRONG_PHASE
        return self.hand.why_action_illegal(action)

    def apply(self, action: Action) -> list[Event]:
        """Accept ``action`` in the current hand and return the public events it caused.

        A refused action raises :class:`IllegalMove` and changes nothing. When the action ends
        a hand the events end with ``HandDone`` and then ``MatchOver`` or, when the match goes
        on, ``HandDealt`` for the next hand, which is already current when this returns.
        """
        if self.is_over:
            raise IllegalMove(Reason.WRONG_PHASE, "the match is over")
        events = self.hand._apply(action)
        self._version += 1
        return events + self._after_hand()

    def _after_hand(self) -> list[Event]:
        # a finished hand ends the match or deals the next one
        if self.hand.phase is not Phase.DONE:
            return []
        if self.is_over:
            return [MatchOver(self.winners, self.scores)]
        hand = self._deal(len(self._hands), self.scores)
        return [HandDealt(hand.hand_number, hand.pass_direction)]

    def choose_moon(self, seat: int, choice: MoonChoice) -> list[Event]:
        return self.apply(Moon(seat, choice))

    def pass_cards(self, seat: int, cards: Iterable[Card]) -> list[Event]:
        return self.apply(Pass(seat, tuple(cards)))

    def play(self, seat: int, card: Card) -> list[Event]:
        return self.apply(Play(seat, card))

    # --- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Rules, seed and the actions: everything needed to replay the match."""
        return {
            "version": FORMAT_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "actions": [a.to_dict() for a in self.actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        """Replay a stored match (this format, or format 2 or 1); bad data raises DealError,
        ActionError or IllegalMove."""
        try:
            version = data.get("version", 1)
            if version not in (1, 2, FORMAT_VERSION):
                raise DealError(f"unknown match format version {version!r}")
            rules, seed = Rules.from_dict(data["rules"]), data["seed"]
            if version == 1:
                # one list per hand; the boundaries are implied, so they flatten to one list
                stored = [a for hand in data["hands"] for a in hand]
            else:
                stored = list(data["actions"])
        except (KeyError, TypeError, AttributeError) as exc:
            raise DealError(
                f"a stored match needs version, rules, seed and actions ({exc})"
            ) from exc
        match = cls.from_actions(rules, seed, [action_from_stored(a) for a in stored])
        if version < FORMAT_VERSION and match.hand.phase is Phase.MOON:
            match.settle_old_moon()  # the old engine had scored this last moon already
        return match
