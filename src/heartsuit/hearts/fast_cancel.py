"""Random playouts of Cancellation Hearts (two packs): the general, slower fast path.

Two packs break the one-bit-per-card representation of :mod:`heartsuit.hearts.fast`, and the
game adds rules of its own: identical cards in a trick cancel, a fully cancelled trick is held
over for the next trick's winner (the same seat leads again; on the last trick its leader takes
it), and the kitty goes to the winner of the first trick that is won. So here a hand is a sorted
list of card indices (a card may appear twice) and a play is a card index; still no card
objects on the way, and the same :class:`~heartsuit.hearts.fast_draws.Draws` for randomness.
A random play is uniform among the *distinct* legal cards, as the engine lists them.

The rules are the engine's; a test plays random Cancellation hands for 6 to 10 players through
both and requires the same legal cards at every step and the same points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from heartsuit.cards import Card
from heartsuit.hearts.fast_draws import Draws
from heartsuit.hearts.fast_tables import (
    HEARTS,
    JACK_MARK,
    FastPathError,
    card_index,
    index_card,
)
from heartsuit.hearts.rules import QUEEN_OF_SPADES, Rules
from heartsuit.hearts.scoring import shooter_choice
from heartsuit.hearts.view import SeatView


@dataclass(frozen=True, slots=True)
class CancelTable:
    """A two-pack :class:`Rules` compiled for playouts."""

    rules: Rules
    players: int
    hand_size: int
    deck: tuple[int, ...]  # card indices in play (each usually twice)
    tally: tuple[int, ...]  # per card index: penalty points, or JACK_MARK for a bonus J♦
    breaks: tuple[bool, ...]  # per card index: playing it breaks hearts
    barred: tuple[bool, ...]  # per card index: kept off the first trick (hearts, Q♠)
    moon_total: int

    @classmethod
    def of(cls, rules: Rules) -> CancelTable:
        if not rules.cancellation:
            raise FastPathError("one-pack rules are played by heartsuit.hearts.fast.Table")
        queen = card_index(QUEEN_OF_SPADES)
        tally = [0] * 52
        for i in range(52):
            points = rules.card_points(index_card(i))
            tally[i] = points if points > 0 else (JACK_MARK if points < 0 else 0)
        return cls(
            rules=rules,
            players=rules.players,
            hand_size=rules.hand_size(),
            deck=tuple(sorted(card_index(c) for c in rules.deck())),
            tally=tuple(tally),
            breaks=tuple(
                i // 13 == HEARTS or (rules.hearts_broken_by == "heart_or_queen" and i == queen)
                for i in range(52)
            ),
            barred=tuple(
                not rules.first_trick_points and (i // 13 == HEARTS or i == queen)
                for i in range(52)
            ),
            moon_total=rules.total_points(),
        )


def _indices(cards: Iterable[Card]) -> tuple[int, ...]:
    return tuple(sorted(card_index(c) for c in cards))


@dataclass(frozen=True, slots=True)
class CancelPosition:
    """A Cancellation hand in progress, every card known (a sampled world, for search)."""

    hands: tuple[tuple[int, ...], ...]  # per seat: sorted card indices (duplicates allowed)
    leader: int
    trick: tuple[int, ...]  # card indices played to the open trick, in order
    hearts_broken: bool
    first_trick: bool  # no trick has been completed (won or held over) yet
    taken: tuple[tuple[int, ...], ...]  # per seat: cards taken so far (kitty included)
    held_over: tuple[int, ...] = ()  # cancelled cards waiting for the next trick's winner
    kitty: tuple[int, ...] = ()  # the kitty, if no trick has been won yet
    scores: tuple[int, ...] = ()  # match totals before the hand (for the moon choice)

    @classmethod
    def from_cards(
        cls,
        hands: Sequence[Iterable[Card]],
        *,
        leader: int,
        trick: Sequence[Card] = (),
        hearts_broken: bool = False,
        first_trick: bool = True,
        taken: Sequence[Iterable[Card]] = (),
        held_over: Iterable[Card] = (),
        kitty: Iterable[Card] = (),
        scores: Sequence[int] = (),
    ) -> CancelPosition:
        return cls(
            hands=tuple(_indices(h) for h in hands),
            leader=leader,
            trick=tuple(card_index(c) for c in trick),
            hearts_broken=hearts_broken,
            first_trick=first_trick,
            taken=tuple(_indices(t) for t in taken) if taken else ((),) * len(hands),
            held_over=_indices(held_over),
            kitty=_indices(kitty),
            scores=tuple(scores),
        )


class CancelState:
    """A Cancellation hand that steps one play at a time; :meth:`playout` finishes a copy."""

    __slots__ = (
        "broken",
        "first",
        "hands",
        "held",
        "kitty",
        "leader",
        "scores",
        "table",
        "tallies",
        "trick",
    )

    def __init__(self, table: CancelTable, pos: CancelPosition) -> None:
        n = table.players
        if len(pos.hands) != n or len(pos.taken) != n:
            raise FastPathError(f"a position of this table has {n} hands and {n} taken piles")
        if not 0 <= pos.leader < n or len(pos.trick) >= n:
            raise FastPathError("the leader is not a seat, or the open trick is too long")
        every = sorted(
            [
                *(i for h in pos.hands for i in h),
                *(i for t in pos.taken for i in t),
                *pos.trick,
                *pos.held_over,
                *pos.kitty,
            ]
        )
        if every != list(table.deck):
            raise FastPathError("the position's cards are not exactly the cards in play")
        self.table = table
        self.hands = [list(h) for h in pos.hands]
        self.tallies = [sum(table.tally[i] for i in t) for t in pos.taken]
        self.leader = pos.leader
        self.trick = list(pos.trick)
        self.broken = pos.hearts_broken
        self.first = pos.first_trick
        self.held = sum(table.tally[i] for i in pos.held_over)  # tally of held-over cards
        self.kitty = sum(table.tally[i] for i in pos.kitty)  # tally of the kitty, until won
        self.scores = pos.scores

    def copy(self) -> CancelState:
        other = CancelState.__new__(CancelState)
        other.table = self.table
        other.hands = [h[:] for h in self.hands]
        other.tallies = self.tallies[:]
        other.leader = self.leader
        other.trick = self.trick[:]
        other.broken = self.broken
        other.first = self.first
        other.held = self.held
        other.kitty = self.kitty
        other.scores = self.scores
        return other

    @property
    def done(self) -> bool:
        return not any(self.hands)

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.trick)) % self.table.players

    def legal(self) -> list[int]:
        """The distinct legal cards of the seat to play, ascending."""
        hand = self.hands[self.to_play]
        table = self.table
        if not self.trick:
            if self.first:
                opening = min(i for h in self.hands for i in h if i < 13)
                return [opening] if opening in hand else []
            if not self.broken and any(i // 13 != HEARTS for i in hand):
                return sorted({i for i in hand if i // 13 != HEARTS})
            return sorted(set(hand))
        led = self.trick[0] // 13
        allowed = [i for i in hand if i // 13 == led] or hand
        if self.first:
            clean = [i for i in allowed if not table.barred[i]]
            if clean:
                allowed = clean
        return sorted(set(allowed))

    def play(self, index: int) -> None:
        """Play card ``index`` for :attr:`to_play`; an illegal card raises FastPathError."""
        if self.done or index not in self.legal():
            raise FastPathError(f"{index_card(index)} is not a legal play now")
        self._apply(index)

    def _apply(self, index: int) -> None:
        # play a card already known to be legal (the playout loop's path)
        table = self.table
        self.hands[self.to_play].remove(index)
        self.trick.append(index)
        if table.breaks[index]:
            self.broken = True
        if len(self.trick) < table.players:
            return
        trick = self.trick
        led = trick[0] // 13
        live = [(i, k) for k, i in enumerate(trick) if i // 13 == led and trick.count(i) == 1]
        points = sum(table.tally[i] for i in trick)
        last = self.done
        self.trick = []
        self.first = False
        if not live and not last:
            self.held += points  # held over: the same seat leads again
            return
        # an all-cancelled last trick goes to its leader (the engine's rule)
        winner = (self.leader + max(live)[1]) % table.players if live else self.leader
        self.tallies[winner] += points + self.held + self.kitty
        self.held = 0
        self.kitty = 0
        self.leader = winner

    def points(self) -> list[int]:
        if not self.done:
            raise FastPathError("the hand is not finished yet")
        return cancel_points(self.table, self.tallies, self.scores)

    def playout(self, draws: Draws) -> list[int]:
        """Finish a copy of this hand with uniformly random legal plays; the points per seat."""
        state = self.copy()
        below = draws.below
        hands = state.hands
        while any(hands):
            options = state.legal()
            state._apply(options[below(len(options))] if len(options) > 1 else options[0])
        return state.points()


QUEEN = 49  # Q♠ as a card index
KING_ACE = (50, 51)  # K♠ A♠
SPADES = 3


def guided_choice(state: CancelState, rnd: Callable[[], float], noise: float = 0.1) -> int:
    """A rule-of-thumb play for the seat to play (the guided policy of Cancellation playouts).

    The one-pack policy of :mod:`heartsuit.hearts.fast_policy`, on two packs: lead the lowest
    card of a random suit (spades kept back while holding Q♠, K♠ or A♠); follow by ducking under
    the trick's highest card that is not cancelled, unless last to a trick without points; when
    the trick cannot be ducked, win with the highest card but Q♠; when void, throw Q♠, then A♠
    or K♠, then the highest heart, then the top card of the shortest suit. With chance
    ``noise`` any legal card instead. Always one of :meth:`CancelState.legal`.
    """
    options = state.legal()
    if len(options) == 1:
        return options[0]
    if rnd() < noise:
        return options[int(rnd() * len(options))]
    trick = state.trick
    table = state.table
    if not trick:
        hand = state.hands[state.to_play]
        suits = sorted({i // 13 for i in options})
        high_spade = QUEEN in hand or KING_ACE[0] in hand or KING_ACE[1] in hand
        safe = [s for s in suits if s != SPADES or not high_spade] or suits
        suit = safe[int(rnd() * len(safe))]
        return min(i for i in options if i // 13 == suit)
    led = trick[0] // 13
    if options[0] // 13 == led:
        live = [i for i in trick if i // 13 == led and trick.count(i) == 1]
        best = max(live) if live else -1
        points = sum(table.tally[i] for i in trick) + state.held + state.kitty
        last = len(trick) == table.players - 1
        below = [i for i in options if i < best]
        if below and not (last and points % JACK_MARK <= 0):
            return max(below)  # duck as high as possible
        clean = [i for i in options if i != QUEEN] or options
        return max(clean)
    if QUEEN in options:
        return QUEEN
    for high in (KING_ACE[1], KING_ACE[0]):
        if high in options:
            return high
    hearts = [i for i in options if i // 13 == HEARTS]
    if hearts:
        return max(hearts)
    counts = {i // 13: 0 for i in options}
    for i in state.hands[state.to_play]:
        if i // 13 in counts:
            counts[i // 13] += 1
    short = min(counts, key=lambda suit: (counts[suit], suit))
    return max(i for i in options if i // 13 == short)


def guided_playout(
    state: CancelState,
    rnd: Callable[[], float],
    noise: float = 0.1,
    record: list[int] | None = None,
) -> None:
    """Finish ``state`` itself with :func:`guided_choice` for every seat (``record``: the plays)."""
    while any(state.hands):
        choice = guided_choice(state, rnd, noise)
        if record is not None:
            record.append(choice)
        state._apply(choice)


def cancel_points(table: CancelTable, tallies: Sequence[int], scores: Sequence[int]) -> list[int]:
    """Points from tallies, as :func:`heartsuit.hearts.scoring.hand_points` scores them."""
    total = table.moon_total
    penalties = [t % JACK_MARK for t in tallies]
    bonus = [-10 * (t // JACK_MARK) for t in tallies]
    if total <= 0 or total not in penalties:
        return [p + b for p, b in zip(penalties, bonus, strict=True)]
    shooter = penalties.index(total)
    others = tuple(b + (0 if s == shooter else total) for s, b in enumerate(bonus))
    minus = tuple(b - (total if s == shooter else 0) for s, b in enumerate(bonus))
    if table.rules.moon == "others_plus_26":
        return list(others)
    if table.rules.moon == "self_minus_26":
        return list(minus)
    before = tuple(scores) if scores else (0,) * table.players
    return list(shooter_choice(table.rules, shooter, before, others, minus))


def random_cancel_hand(table: CancelTable, draws: Draws) -> list[int]:
    """Deal two packs, play every trick at random and score: one hand's points per seat."""
    cards = list(table.deck)
    below = draws.below
    for i in range(len(cards) - 1, 0, -1):
        j = below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    size = table.hand_size
    n = table.players
    hands = tuple(tuple(sorted(cards[s * size : (s + 1) * size])) for s in range(n))
    opening = min(i for h in hands for i in h if i < 13)
    leader = next(s for s, h in enumerate(hands) if opening in h)
    pos = CancelPosition(
        hands=hands,
        leader=leader,
        trick=(),
        hearts_broken=False,
        first_trick=True,
        taken=((),) * n,
        kitty=tuple(sorted(cards[n * size :])),
    )
    return CancelState(table, pos).playout(draws)


def cancel_position_from_view(
    view: SeatView, hidden: Sequence[Iterable[Card]], kitty: Iterable[Card] = ()
) -> CancelPosition:
    """A full Cancellation position from ``view`` plus a guess at the hidden cards.

    ``hidden[seat]`` guesses another seat's unplayed cards (the viewer's entry is ignored);
    ``kitty`` guesses the kitty, which matters only while no trick has been won (after that its
    cards are counted with the first winner's, so pass the guess that was used then, or any
    cards: the kitty is never seen before the hand ends).
    """
    n = view.rules.players
    if len(hidden) != n:
        raise FastPathError(f"a guess lists every seat's cards ({n} seats), not {len(hidden)}")
    kitty_cards = list(kitty)
    hands = [view.hand if seat == view.seat else tuple(hidden[seat]) for seat in range(n)]
    taken: list[list[Card]] = [[] for _ in range(n)]
    held: list[Card] = []
    kitty_open = True
    for record in view.tricks:
        cards = [card for _, card in record.plays]
        if record.winner is None:
            held.extend(cards)
            continue
        taken[record.winner].extend(cards + held)
        held = []
        if kitty_open:
            taken[record.winner].extend(kitty_cards)
            kitty_open = False
    if view.trick is None:
        raise FastPathError("the view has no trick in play")
    return CancelPosition.from_cards(
        hands,
        leader=view.trick.leader,
        trick=[card for _, card in view.trick.plays],
        hearts_broken=view.hearts_broken,
        first_trick=not view.tricks,
        taken=taken,
        held_over=held,
        kitty=kitty_cards if kitty_open else (),
        scores=view.scores,
    )
