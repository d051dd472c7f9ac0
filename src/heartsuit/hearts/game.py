"""One hand of Hearts as a state machine: deal, pass, play tricks, score.

A :class:`Hand` is its deal plus its list of actions; :meth:`Hand.to_dict` stores exactly that
and :meth:`Hand.from_dict` replays it. Every action is checked by one function per kind
(:meth:`Hand.why_illegal` for plays, :meth:`Hand.why_pass_illegal` for passes), shared by the
action itself, so an explanation shown to a player and the engine's refusal never disagree.
An illegal action raises :class:`IllegalMove` and changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from heartsuit.cards import Card, Suit
from heartsuit.hearts.deal import DealError, check_deal, deal_cards, deal_seed, sort_key
from heartsuit.hearts.rules import HOLD, QUEEN_OF_SPADES, PassDirection, Rules
from heartsuit.hearts.scoring import hand_points
from heartsuit.hearts.view import PhaseName, SeatView, TrickRecord

__all__ = ["DealError", "Hand", "IllegalMove", "Phase", "Reason", "deal_seed", "sort_key"]


class Phase(StrEnum):
    PASS = "pass"
    PLAY = "play"
    DONE = "done"


class Reason(StrEnum):
    """Why an action was refused; a UI translates these codes."""

    WRONG_PHASE = "wrong_phase"
    NO_SUCH_SEAT = "no_such_seat"
    NOT_YOUR_TURN = "not_your_turn"
    NOT_IN_HAND = "not_in_hand"
    MUST_LEAD_OPENING_CARD = "must_lead_opening_card"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    HEARTS_NOT_BROKEN = "hearts_not_broken"
    NO_POINTS_FIRST_TRICK = "no_points_first_trick"
    WRONG_PASS_COUNT = "wrong_pass_count"
    DUPLICATE_CARD = "duplicate_card"
    ALREADY_PASSED = "already_passed"


class IllegalMove(ValueError):
    """An action the rules refuse; ``reason`` is a :class:`Reason`, the message reads well."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(slots=True)
class _Trick:
    leader: int
    plays: list[tuple[int, Card]]


class Hand:
    """One hand: create with :meth:`deal` or :meth:`from_cards`, then pass and play."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        *,
        kitty: Sequence[Card] = (),
        pass_direction: PassDirection | str | None = None,
        hand_number: int = 0,
        scores: Sequence[int] | None = None,
    ) -> None:
        self.rules = rules
        self.hand_number = hand_number
        self.scores = tuple(scores) if scores is not None else (0,) * rules.players
        self.pass_direction = check_deal(rules, hands, kitty, pass_direction, hand_number)
        if len(self.scores) != rules.players:
            raise DealError(f"scores need one total per seat ({rules.players}), not {self.scores}")
        self.dealt = tuple(tuple(sorted(h, key=sort_key)) for h in hands)
        self.kitty = tuple(kitty)
        self.holdings: list[list[Card]] = [list(h) for h in self.dealt]
        self.passes: list[tuple[Card, ...] | None] = [None] * rules.players
        self.taken: list[list[Card]] = [[] for _ in range(rules.players)]
        self.tricks: list[TrickRecord] = []
        self.trick: _Trick | None = None
        self.held_over: list[Card] = []
        self.held_points = 0
        self.kitty_taker: int | None = None
        self.hearts_broken = False
        self.opening: Card | None = None
        self.actions: list[dict[str, Any]] = []
        self.phase = Phase.PASS
        if self.pass_direction is HOLD:
            self._start_play()

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        rules: Rules,
        seed: int,
        *,
        pass_direction: PassDirection | str | None = None,
        hand_number: int = 0,
        scores: Sequence[int] | None = None,
    ) -> Hand:
        """Hand ``hand_number`` of the match ``seed`` (see :func:`deal.deal_cards`)."""
        hands, kitty = deal_cards(rules, seed, hand_number)
        return cls(
            rules,
            hands,
            kitty=kitty,
            pass_direction=pass_direction,
            hand_number=hand_number,
            scores=scores,
        )

    @classmethod
    def from_cards(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        pass_direction: PassDirection | str | None = None,
        *,
        kitty: Sequence[Card] = (),
        hand_number: int = 0,
        scores: Sequence[int] | None = None,
    ) -> Hand:
        """An explicit deal (lists of cards per seat, plus the kitty for Cancellation)."""
        return cls(
            rules,
            hands,
            kitty=kitty,
            pass_direction=pass_direction,
            hand_number=hand_number,
            scores=scores,
        )

    # --- passing ---------------------------------------------------------------------------

    def why_pass_illegal(self, seat: int, cards: Sequence[Card]) -> Reason | None:
        """Why ``seat`` may not pass ``cards`` now, or None; :meth:`pass_cards` uses this."""
        return self._check_pass(seat, cards)[0]

    def _check_pass(self, seat: int, cards: Sequence[Card]) -> tuple[Reason | None, str]:
        if self.phase is not Phase.PASS:
            return Reason.WRONG_PHASE, f"there is no passing now (phase: {self.phase})"
        if not self._seat_ok(seat):
            return Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}"
        if self.passes[seat] is not None:
            return Reason.ALREADY_PASSED, f"seat {seat} has already passed"
        if len(cards) != self.rules.pass_count:
            return (
                Reason.WRONG_PASS_COUNT,
                f"pass exactly {self.rules.pass_count} cards, not {len(cards)}",
            )
        held = Counter(self.holdings[seat])
        for card, count in Counter(cards).items():
            if not isinstance(card, Card) or held[card] == 0:
                return Reason.NOT_IN_HAND, f"seat {seat} does not hold {card}"
            if count > held[card]:
                return Reason.DUPLICATE_CARD, f"{card} is listed {count} times"
        return None, ""

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> None:
        """Choose ``seat``'s pass. Nothing moves until every seat has chosen (simultaneous)."""
        cards = tuple(cards)
        reason, message = self._check_pass(seat, cards)
        if reason is not None:
            raise IllegalMove(reason, message)
        self.passes[seat] = cards
        self.actions.append({"seat": seat, "pass": [c.code for c in cards]})
        if all(p is not None for p in self.passes):
            for giver, given in enumerate(self.passes):
                assert given is not None
                receiver = self.rules.pass_target(giver, self.pass_direction)
                for card in given:
                    self.holdings[giver].remove(card)
                    self.holdings[receiver].append(card)
            for holding in self.holdings:
                holding.sort(key=sort_key)
            self._start_play()

    def received(self, seat: int) -> tuple[Card, ...]:
        """What ``seat`` received (empty until every seat has passed, or with no pass)."""
        if self.phase is Phase.PASS or self.pass_direction is HOLD:
            return ()
        n = self.rules.players
        giver = next(g for g in range(n) if self.rules.pass_target(g, self.pass_direction) == seat)
        return self.passes[giver] or ()

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        clubs = [c for h in self.holdings for c in h if c.suit is Suit.CLUBS]
        # the lowest club held leads: 2♣ normally, 3♣ when 2♣ is out (spec: five players);
        # with two packs the first seat in playing order holding it leads (house rule)
        self.opening = min(clubs) if clubs else None
        leader = 0
        if self.opening is not None:
            leader = next(s for s, h in enumerate(self.holdings) if self.opening in h)
        self.trick = _Trick(leader, [])

    # --- playing ---------------------------------------------------------------------------

    @property
    def to_play(self) -> int | None:
        """The seat whose turn it is to play, or None outside the play phase."""
        if self.phase is not Phase.PLAY or self.trick is None:
            return None
        return (self.trick.leader + len(self.trick.plays)) % self.rules.players

    @property
    def is_first_trick(self) -> bool:
        return self.phase is Phase.PLAY and not self.tricks

    def why_illegal(self, seat: int, card: Card) -> Reason | None:
        """Why ``seat`` may not play ``card`` now, or None; :meth:`play` uses the same check."""
        return self._check_play(seat, card)[0]

    def _check_play(self, seat: int, card: Card) -> tuple[Reason | None, str]:
        if self.phase is not Phase.PLAY or self.trick is None:
            return Reason.WRONG_PHASE, f"no card can be played now (phase: {self.phase})"
        if not self._seat_ok(seat):
            return Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}"
        if seat != self.to_play:
            return Reason.NOT_YOUR_TURN, f"it is seat {self.to_play}'s turn, not seat {seat}'s"
        hand = self.holdings[seat]
        if not isinstance(card, Card) or card not in hand:
            return Reason.NOT_IN_HAND, f"seat {seat} does not hold {card}"
        plays = self.trick.plays
        if not plays:
            if self.is_first_trick and self.opening is not None and card != self.opening:
                return Reason.MUST_LEAD_OPENING_CARD, f"the first trick is led with {self.opening}"
            if (
                card.suit is Suit.HEARTS
                and not self.hearts_broken
                and any(c.suit is not Suit.HEARTS for c in hand)
            ):
                return (
                    Reason.HEARTS_NOT_BROKEN,
                    "hearts are not broken yet: lead another suit",
                )
        else:
            led = plays[0][1].suit
            if card.suit is not led and any(c.suit is led for c in hand):
                return Reason.MUST_FOLLOW_SUIT, f"follow suit: play a {led.name.lower()[:-1]}"
        if (
            self.is_first_trick
            and not self.rules.first_trick_points
            and _first_trick_penalty(card)
            and self._has_clean_alternative(hand)
        ):
            return Reason.NO_POINTS_FIRST_TRICK, "no heart or Q♠ on the first trick"
        return None, ""

    def _has_clean_alternative(self, hand: list[Card]) -> bool:
        # a card that obeys the suit rules and carries no first-trick penalty
        assert self.trick is not None
        if self.trick.plays:
            led = self.trick.plays[0][1].suit
            if any(c.suit is led for c in hand):
                return any(c.suit is led and not _first_trick_penalty(c) for c in hand)
        return any(not _first_trick_penalty(c) for c in hand)

    def legal_plays(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now (distinct, in display order); empty if not its turn."""
        if self.to_play != seat:
            return []
        return [c for c in dict.fromkeys(self.holdings[seat]) if self.why_illegal(seat, c) is None]

    def play(self, seat: int, card: Card) -> None:
        """Play ``card`` for ``seat``; an illegal play raises :class:`IllegalMove`."""
        reason, message = self._check_play(seat, card)
        if reason is not None:
            raise IllegalMove(reason, message)
        assert self.trick is not None
        self.holdings[seat].remove(card)
        self.trick.plays.append((seat, card))
        self.actions.append({"seat": seat, "play": card.code})
        # any heart played breaks hearts: discarded, or led by a hand holding only hearts
        if card.suit is Suit.HEARTS or (
            self.rules.hearts_broken_by == "heart_or_queen" and card == QUEEN_OF_SPADES
        ):
            self.hearts_broken = True
        if len(self.trick.plays) == self.rules.players:
            self._finish_trick()

    def _finish_trick(self) -> None:
        assert self.trick is not None
        leader, plays = self.trick.leader, self.trick.plays
        cards = [c for _, c in plays]
        cancelled = _cancelled(self.rules, cards)
        led = cards[0].suit
        live = [(c, s) for i, (s, c) in enumerate(plays) if c.suit is led and i not in cancelled]
        last = not any(self.holdings)
        points = sum(map(self.rules.card_points, cards))
        if live:
            winner: int | None = max(live)[1]
        elif last:
            # an all-cancelled last trick goes to its leader (Wikipedia "Cancellation Hearts")
            winner = leader
        else:
            winner = None
        if winner is None:
            # held over: the cards wait for the next trick's winner, and the same seat leads
            # again (pagat "Hearts", two-pack section; bicyclecards "Cancellation Hearts")
            self.held_over.extend(cards)
            self.held_points += points
            self.tricks.append(TrickRecord(leader, tuple(plays), None, points, cancelled))
            self.trick = _Trick(leader, [])
            return
        points += self.held_points
        self.taken[winner].extend(cards + self.held_over)
        self.held_over, self.held_points = [], 0
        if self.kitty_taker is None:
            # the kitty is added to the first trick (bicyclecards "widow"), so it goes to the
            # first trick's winner, or with a held-over first trick to the next winner
            self.kitty_taker = winner
            self.taken[winner].extend(self.kitty)
        self.tricks.append(TrickRecord(leader, tuple(plays), winner, points, cancelled))
        if last:
            self.trick = None
            self.phase = Phase.DONE
        else:
            self.trick = _Trick(winner, [])

    # --- results and views -----------------------------------------------------------------

    def points(self) -> tuple[int, ...]:
        """Each seat's points for this hand, after the moon and bonuses; only when done."""
        if self.phase is not Phase.DONE:
            raise IllegalMove(Reason.WRONG_PHASE, "the hand is not finished yet")
        return hand_points(self.rules, self.taken, self.scores)

    def points_taken(self) -> tuple[int, ...]:
        """Penalty points taken so far per seat, from won tricks (the kitty not included)."""
        out = [0] * self.rules.players
        for trick in self.tricks:
            if trick.winner is not None:
                out[trick.winner] += trick.points
        return tuple(out)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: the only door to hidden information."""
        if not self._seat_ok(seat):
            raise IllegalMove(Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}")
        trick = None
        if self.trick is not None:
            cards = [c for _, c in self.trick.plays]
            trick = TrickRecord(
                self.trick.leader,
                tuple(self.trick.plays),
                None,
                sum(map(self.rules.card_points, cards)),
                _cancelled(self.rules, cards),
            )
        done = self.phase is Phase.DONE
        phase: PhaseName = self.phase.value
        return SeatView(
            seat=seat,
            rules=self.rules,
            phase=phase,
            hand_number=self.hand_number,
            hand=tuple(self.holdings[seat]),
            legal=tuple(self.legal_plays(seat)),
            to_play=self.to_play,
            pass_direction=self.pass_direction,
            must_pass=self.phase is Phase.PASS and self.passes[seat] is None,
            passed=self.passes[seat] or (),
            received=self.received(seat),
            trick=trick,
            tricks=tuple(self.tricks),
            points_taken=self.points_taken(),
            hearts_broken=self.hearts_broken,
            scores=self.scores,
            cards_left=tuple(len(h) for h in self.holdings),
            kitty_size=len(self.kitty),
            kitty=self.kitty if done else (),
            held_over=tuple(self.held_over),
            hand_points=self.points() if done else (),
        )

    # --- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The deal plus the actions, JSON-able; :meth:`from_dict` replays it exactly."""
        return {
            "rules": self.rules.to_dict(),
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "pass_direction": str(self.pass_direction),
            "deal": [[c.code for c in h] for h in self.dealt],
            "kitty": [c.code for c in self.kitty],
            "actions": [dict(a) for a in self.actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hand:
        """Rebuild a hand by replaying its actions; bad data raises DealError or IllegalMove."""
        try:
            rules = Rules.from_dict(data["rules"])
            hand = cls(
                rules,
                [[Card.parse(c) for c in h] for h in data["deal"]],
                kitty=[Card.parse(c) for c in data.get("kitty", [])],
                pass_direction=data["pass_direction"],
                hand_number=int(data.get("hand_number", 0)),
                scores=[int(s) for s in data.get("scores", [0] * rules.players)],
            )
            actions = list(data.get("actions", []))
        except (KeyError, TypeError) as exc:
            raise DealError(f"a stored hand needs rules, deal and pass_direction ({exc})") from exc
        hand.replay(actions)
        return hand

    def replay(self, actions: Sequence[dict[str, Any]]) -> None:
        """Apply stored actions (``{"seat": s, "pass": [...]}`` / ``{"seat": s, "play": "QS"}``)."""
        for action in actions:
            try:
                seat = action["seat"]
                if "pass" in action:
                    self.pass_cards(seat, [Card.parse(c) for c in action["pass"]])
                else:
                    self.play(seat, Card.parse(action["play"]))
            except (KeyError, TypeError) as exc:
                raise DealError(f"an action is {{'seat', 'pass'|'play'}}, not {action!r}") from exc

    def _seat_ok(self, seat: object) -> bool:
        return isinstance(seat, int) and not isinstance(seat, bool) and (
            0 <= seat < self.rules.players
        )


def _cancelled(rules: Rules, cards: Sequence[Card]) -> tuple[int, ...]:
    """Indices of cards cancelled by an identical card in the same trick (Cancellation)."""
    if not rules.cancellation:
        return ()
    counts = Counter(cards)
    return tuple(i for i, c in enumerate(cards) if counts[c] > 1)


def _first_trick_penalty(card: Card) -> bool:
    # the seed names hearts and Q♠ as the cards barred from the first trick
    return card.suit is Suit.HEARTS or card == QUEEN_OF_SPADES
