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

from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from heartsuit.cards import Card, Suit
from heartsuit.hearts.actions import (
    Action,
    ActionError,
    Moon,
    MoonChoice,
    Pass,
    Play,
    action_from_stored,
)
from heartsuit.hearts.deal import (
    DealError,
    check_direction,
    deal_seed,
    shuffled_positions,
    sort_key,
)
from heartsuit.hearts.events import (
    Event,
    HandDone,
    MoonChosen,
    Passed,
    PassesExchanged,
    Played,
    TrickDone,
    trick_done,
    trick_done_setters,
)
from heartsuit.hearts.facts import CLUBS, facts, first_trick_penalty
from heartsuit.hearts.hand_state import (
    Dealt,
    HandState,
    IllegalMove,
    OpenTrick,
    Phase,
    Reason,
    TrickFields,
    cancelled_indices,
    seat_of,
)
from heartsuit.hearts.legal import legal_positions
from heartsuit.hearts.rules import HOLD, PassDirection, Rules
from heartsuit.hearts.scoring import best_moon_choice, moon_options, points_from, shooter_of
from heartsuit.hearts.view import PhaseName, SeatView, seat_view_on_read

# what events.trick_done uses, read here without its call at each trick of simple rules
_new = object.__new__
_set_winner, _set_points, _set_cancelled, _set_plays = trick_done_setters

__all__ = ["DealError", "Hand", "IllegalMove", "Phase", "Reason", "deal_seed", "sort_key"]


class Hand(HandState):
    """One hand: create with :meth:`deal` or :meth:`from_cards`, then pass and play."""

    __slots__ = ()

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[Card]],
        *,
        kitty: Sequence[Card] = (),
        pass_direction: PassDirection | str | None = None,
        hand_number: int = 0,
        scores: Sequence[int] | None = None,
        _dealt: Dealt | None = None,
    ) -> None:
        super().__init__(
            rules,
            hands,
            kitty=kitty,
            pass_direction=pass_direction,
            hand_number=hand_number,
            scores=scores,
            _dealt=_dealt,
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
        # the rules' own deck, shuffled: no deal check needed, only the direction and scores
        direction = check_direction(rules, pass_direction, hand_number)
        totals = tuple(scores) if scores is not None else (0,) * rules.players
        if len(totals) != rules.players:
            raise DealError(f"scores need one total per seat ({rules.players}), not {totals}")
        table = facts(rules)
        # deal_positions, with the label kept in the facts and the pack's cards as positions
        positions = shuffled_positions(table.deal_label, table.from_pack, seed, hand_number)
        size = table.hand_size
        # positions sort as their cards do for display (facts.py)
        holdings = [sorted(positions[k * size : (k + 1) * size]) for k in range(rules.players)]
        kitty = positions[size * rules.players :]
        return cls(rules, (), _dealt=(holdings, kitty, direction, hand_number, totals))

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
            return self._play(seat_of(action), action.card, action)
        if isinstance(action, Moon):
            return self._moon(action)
        raise ActionError(f"an action is a Pass, a Play or a Moon, not {action!r}")

    def pass_cards(self, seat: object, cards: Sequence[Card]) -> list[Event]:
        """Choose ``seat``'s pass. Nothing moves until every seat has chosen (simultaneous).

        A seat is an int; anything else is refused like a seat the table does not have (the
        seats here are typed ``object`` because the engine checks them itself)."""
        return self.apply(Pass(cast(Any, seat), tuple(cards)))

    def play(self, seat: object, card: Card) -> list[Event]:
        """Play ``card`` for ``seat``; an illegal play raises :class:`IllegalMove`."""
        legal = self._legal
        turn = self._turn
        if legal is not None and seat is turn and turn is not None and not self._in_match:
            # the common case: the seat to play (the very int the hand keeps, so an int and
            # no bool) plays a card of this deck listed a moment ago
            table = self._facts
            position = table.by_id.get(id(card))
            if position in legal:
                return self._move(turn, position, None)
        if self._in_match:
            return self.apply(Play(cast(Any, seat), card))  # refused there, with the reason
        return self._play(seat, card, None)

    def why_action_illegal(self, action: Action) -> Reason | None:
        """Why ``action`` would be refused now, or None: the check :meth:`apply` makes."""
        if isinstance(action, Pass):
            return self.why_pass_illegal(seat_of(action), action.cards)
        if isinstance(action, Play):
            return self.why_illegal(seat_of(action), action.card)
        if isinstance(action, Moon):
            return self._check_moon(action)[0]
        raise ActionError(f"an action is a Pass, a Play or a Moon, not {action!r}")

    # --- passing ---------------------------------------------------------------------------

    def why_pass_illegal(self, seat: object, cards: Sequence[Card]) -> Reason | None:
        """Why ``seat`` may not pass ``cards`` now, or None; :meth:`pass_cards` uses this."""
        return self._check_pass(seat, cards)[0]

    def _check_pass(self, seat: object, cards: Sequence[Card]) -> tuple[Reason | None, str]:
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
        held = Counter(self._held(seat))
        for card, count in Counter(cards).items():
            if not isinstance(card, Card) or held[card] == 0:
                return Reason.NOT_IN_HAND, f"seat {seat} does not hold {card}"
            if count > held[card]:
                return Reason.DUPLICATE_CARD, f"{card} is listed {count} times"
        return None, ""

    def _pass(self, action: Pass) -> list[Event]:
        seat, cards = seat_of(action), action.cards
        reason, message = self._check_pass(seat, cards)
        if reason is not None:
            raise IllegalMove(reason, message)
        assert self._seat_ok(seat)
        self._passes[seat] = cards
        self._actions.append(action)
        events: list[Event] = [Passed(seat)]
        if all(p is not None for p in self._passes):
            for giver, given in enumerate(self._passes):
                assert given is not None
                receiver = self._rules.pass_target(giver, self._pass_direction)
                for card in given:
                    position = self._facts.by_card[card]
                    self._holdings[giver].remove(position)
                    self._holdings[receiver].append(position)
            for holding in self._holdings:
                holding.sort()
            self._start_play()
            events.append(PassesExchanged(self._pass_direction))
        return events

    def _start_play(self) -> None:
        self._phase = Phase.PLAY
        # the lowest club held leads: 2♣ normally, 3♣ when 2♣ is out (spec: five players);
        # with two packs the first seat in playing order holding it leads (house rule).
        # Hands are sorted clubs first, low to high, so each seat's lowest club is its first card
        table = self._facts
        suit = table.suit
        opening: int | None = None
        leader = 0
        for seat, held in enumerate(self._holdings):
            # positions sort as their cards do (facts.py): the lower club is the lower number
            if held and suit[held[0]] == CLUBS and (opening is None or held[0] < opening):
                opening, leader = held[0], seat
        if opening is not None:
            self._opening = table.deck[opening]
        self._opening_position = opening
        self._trick = OpenTrick(leader, [], [])
        self._turn = leader
        self._legal = None
        if table.simple:
            # each suit's positions are one run of numbers, and a holding is sorted
            _, one, two, three, _ = table.suit_start
            deck = table.deck
            split, split_cards = [], []
            for held in self._holdings:
                a, b, c = bisect_left(held, one), bisect_left(held, two), bisect_left(held, three)
                cards = [deck[p] for p in held]
                split.append([held[:a], held[a:b], held[b:c], held[c:]])
                split_cards.append([cards[:a], cards[a:b], cards[b:c], cards[c:]])
            self._suits = split
            self._suit_cards = split_cards

    # --- playing ---------------------------------------------------------------------------

    def why_illegal(self, seat: object, card: Card) -> Reason | None:
        """Why ``seat`` may not play ``card`` now, or None; :meth:`play` uses the same check."""
        return self._play_refusal(seat, card)[0]

    def _play_refusal(self, seat: object, card: Card) -> tuple[Reason | None, str]:
        if self._legal_position(seat, card) is not None:
            return None, ""
        return self._explain(seat, card)

    def _legal_position(self, seat: object, card: Card) -> int | None:
        # the card's deck position when it is one of the listed legal cards, else None
        turn = self._turn
        # the class first: a seat equal to an int is taken for an int from then on
        if turn is None or not (type(seat) is int or self._seat_ok(seat)) or seat != turn:
            return None
        table = self._facts
        position = table.by_id.get(id(card))
        if position is None:
            if not isinstance(card, Card):
                return None
            position = table.by_card.get(card)
        return position if position in self._legal_now() else None

    def _explain(self, seat: object, card: Card) -> tuple[Reason, str]:
        # why an unlisted card is refused: the card-by-card check names the rule it breaks
        reason, message = self._check_play(seat, card)
        if reason is None:
            raise AssertionError(f"{card} for seat {seat}: allowed by the check, not listed")
        return reason, message

    def _legal_now(self) -> list[int]:
        """The legal cards (positions) of the seat to play, kept until the next play."""
        if self._legal is None:
            assert self._turn is not None
            self.legal_plays(self._turn)  # lists them (in self._legal)
        assert self._legal is not None
        return self._legal

    def _check_play(self, seat: object, card: Card) -> tuple[Reason | None, str]:
        if self._phase is not Phase.PLAY or self._trick is None:
            return Reason.WRONG_PHASE, f"no card can be played now (phase: {self._phase})"
        if not self._seat_ok(seat):
            return Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}"
        if seat != self.to_play:
            return Reason.NOT_YOUR_TURN, f"it is seat {self.to_play}'s turn, not seat {seat}'s"
        hand = self._held(seat)
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
            and first_trick_penalty(card)
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
                return any(c.suit is led and not first_trick_penalty(c) for c in hand)
        return any(not first_trick_penalty(c) for c in hand)

    def legal_plays(self, seat: object) -> list[Card]:
        """The cards ``seat`` may play now (distinct, in display order); empty if not its turn."""
        turn = self._turn
        # the class first: a seat equal to an int is taken for an int from then on (compiled)
        if turn is None or not (type(seat) is int or self._seat_ok(seat)) or seat != turn:
            return []
        if self._legal is None:
            trick, suits = self._trick, self._suits
            assert trick is not None
            legal: list[int]
            if suits is not None and self._tricks:
                # simple rules after the first trick (what legal_positions does then): the led
                # suit when the seat holds it, else any card; a lead may be a heart once hearts
                # are broken or when the seat holds nothing else. The lists are the hand's own
                # (or its suit's): never handed out, and dropped at the next play
                mine, cards = suits[turn], self._suit_cards[turn]
                if trick.positions:
                    led = self._facts.suit[trick.positions[0]]
                    legal = mine[led]
                    if legal:
                        self._legal_cards = cards[led]
                    else:
                        legal = self._holdings[turn]
                        self._legal_cards = cards[0] + cards[1] + cards[2] + cards[3]
                elif self._hearts_broken or not (mine[0] or mine[1] or mine[2]):
                    legal = self._holdings[turn]
                    self._legal_cards = cards[0] + cards[1] + cards[2] + cards[3]
                else:
                    legal = mine[0] + mine[1] + mine[2]
                    self._legal_cards = cards[0] + cards[1] + cards[2]
            else:
                legal = legal_positions(
                    self._facts,
                    self._holdings[turn],
                    trick.positions,
                    not self._tricks,
                    self._opening_position,
                    self._hearts_broken,
                    self._rules.first_trick_points,
                    self._rules.packs > 1,
                )
                deck = self._facts.deck
                self._legal_cards = [deck[p] for p in legal]
            self._legal = legal
        return self._legal_cards.copy()

    def _play(self, seat: object, card: Card, action: Play | None) -> list[Event]:
        position = self._legal_position(seat, card)
        if position is None:
            raise IllegalMove(*self._explain(seat, card))
        assert self._seat_ok(seat)  # the seat to play: a listed card was found for it
        return self._move(seat, position, action)

    def _move(self, seat: int, position: int, action: Play | None) -> list[Event]:
        # play the checked card at ``position`` (one of the listed legal cards) for ``seat``
        trick = self._trick
        assert trick is not None
        table = self._facts
        self._legal = None
        if type(seat) is int:
            # the same values as Play(seat, card) and Played(seat, card), made once per rules
            made, event, pair, suit, breaks = table.moves[seat][position]
            self._actions.append(action or made)
            events: list[Event] = [event]
        else:
            card = table.deck[position]
            self._actions.append(action or Play(seat, card))
            events = [Played(seat, card)]
            pair, suit, breaks = (seat, card), table.suit[position], table.breaks_hearts[position]
        self._holdings[seat].remove(position)
        suits = self._suits
        if suits is not None:
            # the card leaves its suit's positions and the same place of its suit's cards
            mine = suits[seat][suit]
            at = mine.index(position)
            del mine[at]
            del self._suit_cards[seat][suit][at]
        plays, positions = trick.plays, trick.positions
        plays.append(pair)
        positions.append(position)
        # any heart played breaks hearts: discarded, or led by a hand holding only hearts
        if breaks:
            self._hearts_broken = True
        count = len(plays)
        if count != self._players:
            self._turn = (trick.leader + count) % self._players
            return events
        if not table.simple:
            done = self._finish_any_trick(trick)
            events.append(trick_done(done[2], done[3], done[4], done[1]))
        else:
            # every card differs: the highest card of the led suit wins, and a trick is never
            # held over; every seat holds as many cards as the winner
            leader = trick.leader
            ranks, worth = table.led_rank[table.suit[positions[0]]], table.points
            best = points = index = 0
            for i, p in enumerate(positions):
                points += worth[p]
                if ranks[p] > best:
                    best, index = ranks[p], i
            winner = plays[index][0]
            self._raw[winner] += points
            self._plus[winner] += (
                sum(map(table.positive.__getitem__, positions)) if table.bonus else points
            )
            self._points_taken[winner] += points
            self._taken[winner].extend(positions)
            if self._kitty_taker is None:
                self._take_kitty(winner)
            cards = tuple(plays)
            self._tricks.append((leader, cards, winner, points, ()))
            # TrickDone(winner, points, (), cards), made as events.trick_done makes it
            done_event = _new(TrickDone)
            _set_winner(done_event, winner)
            _set_points(done_event, points)
            _set_cancelled(done_event, ())
            _set_plays(done_event, cards)
            events.append(done_event)
            if self._holdings[winner]:
                # the next trick in the same (private) object: its cards are copied above
                trick.leader = winner
                plays.clear()
                positions.clear()
                self._turn = winner
                return events
            self._trick = None
            self._turn = None
            self._phase = Phase.DONE
        if self._turn is None:  # the hand's last trick
            self._shooter = shooter_of(table.total, self._plus)
            if self._shooter is not None and self._rules.moon == "shooter_chooses":
                self._phase = Phase.MOON  # the shooter chooses before the hand is scored
            else:
                events.append(HandDone(self._hand_number, self.points(), self._shooter))
        return events

    def _take_kitty(self, winner: int) -> None:
        # the kitty is added to the first trick (bicyclecards "widow"), so it goes to the
        # first trick's winner, or with a held-over first trick to the next winner
        self._kitty_taker = winner
        if self._kitty:
            table, kitty = self._facts, self._kitty_positions
            self._taken[winner].extend(kitty)
            self._raw[winner] += sum(map(table.points.__getitem__, kitty))
            self._plus[winner] += sum(map(table.positive.__getitem__, kitty))

    def _finish_any_trick(self, trick: OpenTrick) -> TrickFields:
        # any rules: two packs, cancelled cards, held-over tricks
        leader, plays, positions = trick.leader, trick.plays, trick.positions
        cards = [c for _, c in plays]
        cancelled = cancelled_indices(self._rules, cards) if self._rules.cancellation else ()
        table = self._facts
        suit, rank = table.suit, table.rank
        led = suit[positions[0]]
        # the highest uncancelled card of the led suit wins (of two identical ones, the later
        # seat's: the order of (card, seat) pairs, read by rank as the suit is the same)
        live = [
            (rank[p], plays[i][0])
            for i, p in enumerate(positions)
            if suit[p] == led and i not in cancelled
        ]
        last = not any(self._holdings)
        points = sum(map(table.points.__getitem__, positions))
        plus = sum(map(table.positive.__getitem__, positions)) if table.bonus else points
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
            self._held_plus += plus
            held: TrickFields = (leader, tuple(plays), None, points, cancelled)
            self._tricks.append(held)
            self._trick = OpenTrick(leader, [], [])
            self._turn = leader
            return held
        points += self._held_points
        self._raw[winner] += points
        self._plus[winner] += plus + self._held_plus
        self._points_taken[winner] += points
        taken = self._taken[winner]
        taken.extend(positions)
        if self._held_over:
            taken.extend([table.by_card[c] for c in self._held_over])
            self._held_over, self._held_points, self._held_plus = [], 0, 0
        if self._kitty_taker is None:
            self._take_kitty(winner)
        record: TrickFields = (leader, tuple(plays), winner, points, cancelled)
        self._tricks.append(record)
        if last:
            self._trick = None
            self._turn = None
            self._phase = Phase.DONE
        else:
            self._trick = OpenTrick(winner, [], [])
            self._turn = winner
        return record

    # --- the moon --------------------------------------------------------------------------

    def _check_moon(self, action: Moon) -> tuple[Reason | None, str]:
        if self._phase is not Phase.MOON:
            return Reason.WRONG_PHASE, f"no moon to score now (phase: {self._phase})"
        seat = seat_of(action)
        if not self._seat_ok(seat):
            return Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}"
        if seat != self._shooter:
            return Reason.NOT_YOUR_TURN, f"seat {self._shooter} shot the moon and chooses"
        return None, ""

    def _moon(self, action: Moon) -> list[Event]:
        reason, message = self._check_moon(action)
        if reason is not None:
            raise IllegalMove(reason, message)
        if action.choice not in self.moon_options():
            raise ActionError(
                f"a moon choice is 'others_plus_26' or 'self_minus_26', not {action.choice!r}"
            )
        self._moon_choice = action.choice
        self._phase = Phase.DONE
        self._actions.append(action)
        return [
            MoonChosen(action.seat, action.choice),
            HandDone(self._hand_number, self.points(), self._shooter),
        ]

    def settle_moon_unrecorded(self) -> list[Event]:
        """Score a moon that awaits its shooter's choice by the better option for the shooter,
        without recording an action: how a log written before the shooter chose is replayed
        (the engine then decided by this rule, and the log has no choice). Only for replays."""
        if self._phase is not Phase.MOON:
            raise IllegalMove(Reason.WRONG_PHASE, "no moon awaits its shooter's choice")
        assert self._shooter is not None
        self._moon_choice = self.best_moon_choice()
        self._phase = Phase.DONE
        return [HandDone(self._hand_number, self.points(), self._shooter)]

    def moon_options(self) -> dict[MoonChoice, tuple[int, ...]]:
        """Each seat's points under each way to score the moon, once a seat shot it (while it
        chooses, and after); empty otherwise."""
        if self._phase not in (Phase.MOON, Phase.DONE) or self._shooter is None:
            return {}
        return moon_options(self._facts.total, self._raw, self._plus, self._shooter)

    def best_moon_choice(self) -> MoonChoice:
        """The shooter's better option for its match standing (what a computer chooses)."""
        if self._shooter is None:
            raise IllegalMove(Reason.WRONG_PHASE, "nobody shot the moon")
        return best_moon_choice(self._rules, self._shooter, self._scores, self.moon_options())

    @property
    def moon_choice(self) -> MoonChoice | None:
        """How this finished hand's moon was scored (the fixed option, or what the shooter
        chose), or None without a moon."""
        if self._phase is not Phase.DONE or self._shooter is None:
            return None
        if self._rules.moon != "shooter_chooses":
            return self._rules.moon
        return self._moon_choice or self.best_moon_choice()

    # --- results and views -----------------------------------------------------------------

    def points(self) -> tuple[int, ...]:
        """Each seat's points for this hand, after the moon and bonuses; only when done."""
        if self._phase is not Phase.DONE:
            raise IllegalMove(Reason.WRONG_PHASE, "the hand is not finished yet")
        return points_from(
            self._rules, self._facts.total, self._raw, self._plus, self._scores, self._moon_choice
        )

    def moon_shooter(self) -> int | None:
        """The seat that shot the moon in this finished hand, or None; only when done."""
        if self._phase is not Phase.DONE:
            raise IllegalMove(Reason.WRONG_PHASE, "the hand is not finished yet")
        return shooter_of(self._facts.total, self._plus)

    def view(self, seat: object) -> SeatView:
        """What ``seat`` may know: the only door to hidden information."""
        if not self._seat_ok(seat):
            raise IllegalMove(Reason.NO_SUCH_SEAT, f"there is no seat {seat!r}")
        phase_now = self._phase
        if (phase_now is Phase.PLAY or phase_now is Phase.PASS) and not self._rules.cancellation:
            # the usual case: a view whose cards and tricks are made when read, from copies
            # taken now (view.SeatViewOnRead); what a hand in play shows of its moon, kitty
            # and final points is empty, as in the full build below
            return self._view_on_read(seat, phase_now)
        done = self._phase is Phase.DONE
        # every card is played once a moon awaits its choice: the kitty is no secret then
        played_out = done or self._phase is Phase.MOON
        phase: PhaseName = self._phase.value
        return SeatView(
            seat=seat,
            rules=self._rules,
            phase=phase,
            hand_number=self._hand_number,
            hand=tuple(self._held(seat)),
            legal=tuple(self.legal_plays(seat)),
            to_play=self.to_play,
            pass_direction=self._pass_direction,
            must_pass=self._phase is Phase.PASS and self._passes[seat] is None,
            passed=self._passes[seat] or (),
            received=self.received(seat),
            trick=self.trick,
            tricks=self._trick_records(),
            points_taken=self.points_taken(),
            hearts_broken=self._hearts_broken,
            scores=self._scores,
            cards_left=tuple(len(h) for h in self._holdings),
            kitty_size=len(self._kitty),
            kitty=self._kitty if played_out else (),
            held_over=tuple(self._held_over),
            hand_points=self.points() if done else (),
            shooter=self._shooter if played_out else None,
            moon_options=tuple(self.moon_options().items()),
            moon_choice=self.moon_choice,
        )

    def _view_on_read(self, seat: int, phase: Phase) -> SeatView:
        trick = self._trick
        turn = self._turn
        table = self._facts
        passes = self._passes
        direction = self._pass_direction
        received_at = None
        if phase is not Phase.PASS and direction is not HOLD:
            target = self._rules.pass_target
            giver = next(g for g in range(self._players) if target(g, direction) == seat)
            received_at = (giver, tuple(passes))
        phase_name: PhaseName = "play" if phase is Phase.PLAY else "pass"
        built = (
            seat,
            self._rules,
            phase_name,
            self._hand_number,
            turn,
            direction,
            phase is Phase.PASS and passes[seat] is None,
            passes[seat] or (),
            tuple(self._points_taken),
            self._hearts_broken,
            self._scores,
            tuple(map(len, self._holdings)),
            self._trick_records(),
            len(self._kitty),
            (),  # the kitty, shown once the hand is done
            tuple(self._held_over),
            (),  # the hand's points, once done
            None,  # the moon's shooter, once every card is played
            (),  # the moon's options, from then on
            None,  # the moon's choice, once done
        )
        return seat_view_on_read(
            built,
            table.deck,
            tuple(self._holdings[seat]),
            tuple(self._legal_now()) if seat == turn else (),
            received_at,
            None
            if trick is None
            else (trick.leader, tuple(trick.plays), tuple(trick.positions), table.points),
        )

    # --- storage ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The deal plus the actions, JSON-able; :meth:`from_dict` replays it exactly."""
        return {
            "rules": self._rules.to_dict(),
            "hand_number": self._hand_number,
            "scores": list(self._scores),
            "pass_direction": str(self._pass_direction),
            "deal": [[c.code for c in h] for h in self.dealt],
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
            self.apply(
                action if isinstance(action, Pass | Play | Moon) else action_from_stored(action)
            )
