"""One hand of Hearts as a state machine: deal, pass, play tricks, score.

A :class:`Hand` is its deal plus its list of actions; :meth:`Hand.to_dict` stores exactly that
and :meth:`Hand.from_dict` replays it. Every action is checked by one function per kind
(:meth:`Hand.why_illegal` for plays, :meth:`Hand.why_pass_illegal` for passes), shared by the
action itself, so an explanation shown to a player and the engine's refusal never disagree.
An illegal action raises :class:`IllegalMove` and changes nothing.

Actions come in as typed values (:mod:`heartsuit.hearts.actions`) through :meth:`Hand.apply`,
which returns the public events they caused (:mod:`heartsuit.hearts.events`); ``pass_cards`` and
``play`` are shorthands for it. The state is private: callers read it through read-only
properties that return immutable copies, so nothing outside can move a card behind the rules.
A hand dealt by a :class:`~heartsuit.hearts.match.Match` is played through the match only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from heartsuit.cards import Card, Suit
from heartsuit.hearts.actions import Action, ActionError, Pass, Play, action_from_stored
from heartsuit.hearts.deal import DealError, deal_cards, deal_seed, sort_key
from heartsuit.hearts.events import Event, HandDone, Passed, PassesExchanged, Played, TrickDone
from heartsuit.hearts.hand_state import (
    HandState,
    IllegalMove,
    OpenTrick,
    Phase,
    Reason,
    cancelled_indices,
)
from heartsuit.hearts.rules import HOLD, QUEEN_OF_SPADES, PassDirection, Rules
from heartsuit.hearts.scoring import hand_points, moon_shooter
from heartsuit.hearts.view import PhaseName, SeatView, TrickRecord

__all__ = ["DealError", "Hand", "IllegalMove", "Phase", "Reason", "deal_seed", "sort_key"]


class Hand(HandState):
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
        super().__init__(
            rules,
            hands,
            kitty=kitty,
            pass_direction=pass_direction,
            hand_number=hand_number,
            scores=scores,
        )
        if self._pass_direction is HOLD:
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

    # --- actions -------------------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Accept ``action`` and return the public events it caused.

        The same checks as :meth:`why_pass_illegal` / :meth:`why_illegal`; a refused action
        raises :class:`IllegalMove` and changes nothing.
        """
        if self._in_match:
            raise RuntimeError(
                f"hand {self._hand_number} belongs to a match: play it with Match.apply"
            )
        return self._apply(action)

    def _apply(self, action: Action) -> list[Event]:
        # Match calls this directly; everything else goes through apply
        if isinstance(action, Pass):
            return self._pass(action)
        if isinstance(action, Play):
            return self._play(action)
        raise ActionError(f"an action is a Pass or a Play, not {action!r}")

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        """Choose ``seat``'s pass. Nothing moves until every seat has chosen (simultaneous)."""
        return self.apply(Pass(seat, tuple(cards)))

    def play(self, seat: int, card: Card) -> list[Event]:
        """Play ``card`` for ``seat``; an illegal play raises :class:`IllegalMove`."""
        return self.apply(Play(seat, card))

    def why_action_illegal(self, action: Action) -> Reason | None:
        """Why ``action`` would be refused now, or None: the check :meth:`apply` makes."""
        if isinstance(action, Pass):
            return self.why_pass_illegal(action.seat, action.cards)
        if isinstance(action, Play):
            return self.why_illegal(action.seat, action.card)
        raise ActionError(f"an action is a Pass or a Play, not {action!r}")

    # --- passing ---------------------------------------------------------------------------

    def why_pass_illegal(self, seat: int, cards: Sequence[Card]) -> Reason | None:
        """Why ``seat`` may not pass ``cards`` now, or None; :meth:`pass_cards` uses this."""
        return self._check_pass(seat, cards)[0]

    def _check_pass(self, seat: int, cards: Sequence[Card]) -> tuple[Reason | None, str]:
        if self._phase is not Phase.PASS:
            return Reason.WRONG_PHASE, f"there is no passing now (phase: {self._phase})"
        if not self._seat_ok(seat):
            return Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}"
        if self._passes[seat] is not None:
            return Reason.ALREADY_PASSED, f"seat {seat} has already passed"
        if len(cards) != self._rules.pass_count:
            return (
                Reason.WRONG_PASS_COUNT,
                f"pass exactly {self._rules.pass_count} cards, not {len(cards)}",
            )
        held = Counter(self._holdings[seat])
        for card, count in Counter(cards).items():
            if not isinstance(card, Card) or held[card] == 0:
                return Reason.NOT_IN_HAND, f"seat {seat} does not hold {card}"
            if count > held[card]:
                return Reason.DUPLICATE_CARD, f"{card} is listed {count} times"
        return None, ""

    def _pass(self, action: Pass) -> list[Event]:
        seat, cards = action.seat, action.cards
        reason, message = self._check_pass(seat, cards)
        if reason is not None:
            raise IllegalMove(reason, message)
        self._passes[seat] = cards
        self._actions.append(action)
        events: list[Event] = [Passed(seat)]
        if all(p is not None for p in self._passes):
            for giver, given in enumerate(self._passes):
                assert given is not None
                receiver = self._rules.pass_target(giver, self._pass_direction)
                for card in given:
                    self._holdings[giver].remove(card)
                    self._holdings[receiver].append(card)
            for holding in self._holdings:
                holding.sort(key=sort_key)
            self._start_play()
            events.append(PassesExchanged(self._pass_direction))
        return events

    def _start_play(self) -> None:
        self._phase = Phase.PLAY
        clubs = [c for h in self._holdings for c in h if c.suit is Suit.CLUBS]
        # the lowest club held leads: 2♣ normally, 3♣ when 2♣ is out (spec: five players);
        # with two packs the first seat in playing order holding it leads (house rule)
        self._opening = min(clubs) if clubs else None
        leader = 0
        if self._opening is not None:
            leader = next(s for s, h in enumerate(self._holdings) if self._opening in h)
        self._trick = OpenTrick(leader, [])

    # --- playing ---------------------------------------------------------------------------

    def why_illegal(self, seat: int, card: Card) -> Reason | None:
        """Why ``seat`` may not play ``card`` now, or None; :meth:`play` uses the same check."""
        return self._check_play(seat, card)[0]

    def _check_play(self, seat: int, card: Card) -> tuple[Reason | None, str]:
        if self._phase is not Phase.PLAY or self._trick is None:
            return Reason.WRONG_PHASE, f"no card can be played now (phase: {self._phase})"
        if not self._seat_ok(seat):
            return Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}"
        if seat != self.to_play:
            return Reason.NOT_YOUR_TURN, f"it is seat {self.to_play}'s turn, not seat {seat}'s"
        hand = self._holdings[seat]
        if not isinstance(card, Card) or card not in hand:
            return Reason.NOT_IN_HAND, f"seat {seat} does not hold {card}"
        plays = self._trick.plays
        if not plays:
            if self.is_first_trick and self._opening is not None and card != self._opening:
                return Reason.MUST_LEAD_OPENING_CARD, f"the first trick is led with {self._opening}"
            if (
                card.suit is Suit.HEARTS
                and not self._hearts_broken
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
            and not self._rules.first_trick_points
            and _first_trick_penalty(card)
            and self._has_clean_alternative(hand)
        ):
            return Reason.NO_POINTS_FIRST_TRICK, "no heart or Q♠ on the first trick"
        return None, ""

    def _has_clean_alternative(self, hand: list[Card]) -> bool:
        # a card that obeys the suit rules and carries no first-trick penalty
        assert self._trick is not None
        if self._trick.plays:
            led = self._trick.plays[0][1].suit
            if any(c.suit is led for c in hand):
                return any(c.suit is led and not _first_trick_penalty(c) for c in hand)
        return any(not _first_trick_penalty(c) for c in hand)

    def legal_plays(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now (distinct, in display order); empty if not its turn."""
        if self.to_play != seat:
            return []
        return [c for c in dict.fromkeys(self._holdings[seat]) if self.why_illegal(seat, c) is None]

    def _play(self, action: Play) -> list[Event]:
        seat, card = action.seat, action.card
        reason, message = self._check_play(seat, card)
        if reason is not None:
            raise IllegalMove(reason, message)
        assert self._trick is not None
        self._holdings[seat].remove(card)
        self._trick.plays.append((seat, card))
        self._actions.append(action)
        events: list[Event] = [Played(seat, card)]
        # any heart played breaks hearts: discarded, or led by a hand holding only hearts
        if card.suit is Suit.HEARTS or (
            self._rules.hearts_broken_by == "heart_or_queen" and card == QUEEN_OF_SPADES
        ):
            self._hearts_broken = True
        if len(self._trick.plays) == self._rules.players:
            record = self._finish_trick()
            events.append(TrickDone(record.winner, record.points, record.cancelled, record.plays))
            if self._phase is Phase.DONE:
                events.append(HandDone(self._hand_number, self.points(), self.moon_shooter()))
        return events

    def _finish_trick(self) -> TrickRecord:
        assert self._trick is not None
        leader, plays = self._trick.leader, self._trick.plays
        cards = [c for _, c in plays]
        cancelled = cancelled_indices(self._rules, cards)
        led = cards[0].suit
        live = [(c, s) for i, (s, c) in enumerate(plays) if c.suit is led and i not in cancelled]
        last = not any(self._holdings)
        points = sum(map(self._rules.card_points, cards))
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
            self._held_over.extend(cards)
            self._held_points += points
            record = TrickRecord(leader, tuple(plays), None, points, cancelled)
            self._tricks.append(record)
            self._trick = OpenTrick(leader, [])
            return record
        points += self._held_points
        self._taken[winner].extend(cards + self._held_over)
        self._held_over, self._held_points = [], 0
        if self._kitty_taker is None:
            # the kitty is added to the first trick (bicyclecards "widow"), so it goes to the
            # first trick's winner, or with a held-over first trick to the next winner
            self._kitty_taker = winner
            self._taken[winner].extend(self._kitty)
        record = TrickRecord(leader, tuple(plays), winner, points, cancelled)
        self._tricks.append(record)
        if last:
            self._trick = None
            self._phase = Phase.DONE
        else:
            self._trick = OpenTrick(winner, [])
        return record

    # --- results and views -----------------------------------------------------------------

    def points(self) -> tuple[int, ...]:
        """Each seat's points for this hand, after the moon and bonuses; only when done."""
        if self._phase is not Phase.DONE:
            raise IllegalMove(Reason.WRONG_PHASE, "the hand is not finished yet")
        return hand_points(self._rules, self._taken, self._scores)

    def moon_shooter(self) -> int | None:
        """The seat that shot the moon in this finished hand, or None; only when done."""
        if self._phase is not Phase.DONE:
            raise IllegalMove(Reason.WRONG_PHASE, "the hand is not finished yet")
        return moon_shooter(self._rules, self._taken)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: the only door to hidden information."""
        if not self._seat_ok(seat):
            raise IllegalMove(Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}")
        done = self._phase is Phase.DONE
        phase: PhaseName = self._phase.value
        return SeatView(
            seat=seat,
            rules=self._rules,
            phase=phase,
            hand_number=self._hand_number,
            hand=tuple(self._holdings[seat]),
            legal=tuple(self.legal_plays(seat)),
            to_play=self.to_play,
            pass_direction=self._pass_direction,
            must_pass=self._phase is Phase.PASS and self._passes[seat] is None,
            passed=self._passes[seat] or (),
            received=self.received(seat),
            trick=self.trick,
            tricks=tuple(self._tricks),
            points_taken=self.points_taken(),
            hearts_broken=self._hearts_broken,
            scores=self._scores,
            cards_left=tuple(len(h) for h in self._holdings),
            kitty_size=len(self._kitty),
            kitty=self._kitty if done else (),
            held_over=tuple(self._held_over),
            hand_points=self.points() if done else (),
        )

    # --- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The deal plus the actions, JSON-able; :meth:`from_dict` replays it exactly."""
        return {
            "rules": self._rules.to_dict(),
            "hand_number": self._hand_number,
            "scores": list(self._scores),
            "pass_direction": str(self._pass_direction),
            "deal": [[c.code for c in h] for h in self._dealt],
            "kitty": [c.code for c in self._kitty],
            "actions": [a.to_dict() for a in self._actions],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hand:
        """Rebuild a hand by replaying its actions; bad data raises DealError, ActionError or
        IllegalMove."""
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

    def replay(self, actions: Sequence[Action | dict[str, Any]]) -> None:
        """Apply actions in order: typed, their dicts, or the format-1 dicts
        (``{"seat": s, "pass": [...]}`` / ``{"seat": s, "play": "QS"}``)."""
        for action in actions:
            self.apply(action if isinstance(action, Pass | Play) else action_from_stored(action))



def _first_trick_penalty(card: Card) -> bool:
    # the seed names hearts and Q♠ as the cards barred from the first trick
    return card.suit is Suit.HEARTS or card == QUEEN_OF_SPADES
