"""Fast random playouts of a one-pack Hearts hand: bit masks, precomputed tables, no objects.

This module owns the hot path that search bots (ISMCTS, PIMC) stand on: from a position — every
seat's cards, the trick so far, hearts broken or not, whether the first trick is still to come,
and the cards each seat has taken — play the hand out with uniformly random legal plays and
return each seat's points for the hand (moon and J♦ included). :class:`FastState` also steps
one play at a time (legal moves as a mask, ``play``), for tree search.

Representation (a Python int is the cheapest set there is; popcounts and table lookups replace
loops over cards):

* a card is an index ``suit * 13 + rank - 2`` with suits in pack order C, D, H, S; a seat's hand
  in a :class:`Position` is one int with bit ``index`` set for each card it holds;
* inside the playout each seat's hand is four 13-bit suit masks (``hands[seat * 4 + suit]``), so
  following suit is one lookup, and ``_NTH`` turns "the k-th card of this suit" into a rank;
* randomness comes from :class:`~heartsuit.hearts.fast_draws.Draws` (the project's SplitMix64 spent
  on many small, exactly uniform choices), inlined in the loop.

The rules are the engine's (:mod:`heartsuit.hearts.game`); tests play random hands of every
preset through both and require the same legal moves at every step and the same points.
Cancellation (two packs) has its own, slower path in :mod:`heartsuit.hearts.fast_cancel`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from heartsuit.cards import Card, Suit
from heartsuit.hearts.fast_draws import TOP_UP, Draws
from heartsuit.hearts.rules import QUEEN_OF_SPADES, Rules
from heartsuit.hearts.scoring import shooter_choice

SUITS: tuple[Suit, ...] = tuple(Suit)  # C, D, H, S: the pack order and the index order
HEARTS = 2
SUIT_BITS = 0x1FFF
JACK_MARK = 1000  # a taken J♦ adds this to a seat's tally: penalties = tally % JACK_MARK
# the draw pool is topped up to this span before each trick: ten choices among at most 52 cards
# still leave it above TOP_UP, so a choice is rejected (and redrawn) with odds under 2**-26
TRICK_POOL = TOP_UP * 52**10

_POP: list[int] = [m.bit_count() for m in range(1 << 13)]
_BIT: list[int] = [1 << i for i in range(52)]


def _nth_table() -> list[int]:
    # _NTH[mask * 13 + k] = rank offset (0 = the two) of the k-th lowest card of a suit mask
    table = [0] * ((1 << 13) * 13)
    for mask in range(1, 1 << 13):
        k = 0
        for r in range(13):
            if mask >> r & 1:
                table[mask * 13 + k] = r
                k += 1
    return table


_NTH: list[int] = _nth_table()


class FastPathError(ValueError):
    """A position or play the fast path refuses (cards doubled or missing, an illegal card …)."""


def card_index(card: Card) -> int:
    """The card's bit index: ``suit * 13 + rank - 2`` (suits C, D, H, S)."""
    return SUITS.index(card.suit) * 13 + card.rank - 2


def index_card(index: int) -> Card:
    """The card of a bit index (inverse of :func:`card_index`)."""
    return Card(index % 13 + 2, SUITS[index // 13])


def cards_mask(cards: Iterable[Card]) -> int:
    """A 52-bit mask of distinct cards; a repeated card is an error (one pack only)."""
    mask = 0
    for card in cards:
        bit = 1 << card_index(card)
        if mask & bit:
            raise FastPathError(f"{card} appears twice; the fast path plays one pack")
        mask |= bit
    return mask


def mask_cards(mask: int) -> list[Card]:
    """The cards of a 52-bit mask in index order (suit C, D, H, S, then rank)."""
    return [index_card(i) for i in range(52) if mask >> i & 1]


def _split(mask: int) -> list[int]:
    return [mask & SUIT_BITS, mask >> 13 & SUIT_BITS, mask >> 26 & SUIT_BITS, mask >> 39]


@dataclass(frozen=True, slots=True)
class Table:
    """A one-pack :class:`Rules` compiled into the lookups the playout loop reads."""

    rules: Rules
    players: int
    hand_size: int
    deck: tuple[int, ...]  # card indices in play
    lead_index: int  # the card that opens the hand: the lowest club in play (engine rule)
    tally: tuple[int, ...]  # per card index: penalty points, or JACK_MARK for a bonus J♦
    breaks: tuple[bool, ...]  # per card index: playing it breaks hearts
    first_banned: tuple[int, ...]  # per suit: cards barred from the first trick (hearts, Q♠)
    moon_total: int  # penalty points that make a moon when one seat takes them all
    seats_after: tuple[tuple[int, ...], ...]  # seats_after[leader]: the other seats in order
    bases_after: tuple[tuple[int, ...], ...]  # the same seats times 4 (their slots in hands)
    suit_tally: tuple[tuple[int, ...], ...]  # suit_tally[suit][rank offset] = tally
    suit_breaks: tuple[tuple[bool, ...], ...]  # suit_breaks[suit][rank offset] = breaks hearts
    # Fisher–Yates steps of the deal grouped so each group's ranges multiply to under 2**64
    deal_steps: tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]

    @classmethod
    def of(cls, rules: Rules) -> Table:
        if rules.packs != 1:
            raise FastPathError("two packs (Cancellation) are played by fast_cancel")
        deck = tuple(card_index(c) for c in rules.deck())
        clubs = [i for i in deck if i < 13]
        tally = [0] * 52
        breaks = [False] * 52
        banned = [0, 0, 0, 0]
        queen = card_index(QUEEN_OF_SPADES)
        for i in deck:
            points = rules.card_points(index_card(i))
            tally[i] = points if points > 0 else (JACK_MARK if points < 0 else 0)
            # the engine bars exactly hearts and Q♠ from the first trick (seed "Dua batasan")
            if not rules.first_trick_points and (i // 13 == HEARTS or i == queen):
                banned[i // 13] |= 1 << (i % 13)
            breaks[i] = i // 13 == HEARTS or (
                rules.hearts_broken_by == "heart_or_queen" and i == queen
            )
        n = rules.players
        return cls(
            rules=rules,
            players=n,
            hand_size=rules.hand_size(),
            deck=deck,
            lead_index=min(clubs) if clubs else min(deck),
            tally=tuple(tally),
            breaks=tuple(breaks),
            first_banned=tuple(banned),
            moon_total=rules.total_points(),
            seats_after=tuple(tuple((s + i) % n for i in range(1, n)) for s in range(n)),
            bases_after=tuple(tuple((s + i) % n * 4 for i in range(1, n)) for s in range(n)),
            suit_tally=tuple(tuple(tally[s * 13 : s * 13 + 13]) for s in range(4)),
            suit_breaks=tuple(tuple(breaks[s * 13 : s * 13 + 13]) for s in range(4)),
            deal_steps=_deal_steps(len(deck), rules.hand_size()),
        )


def _deal_steps(
    size: int, hand_size: int
) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]:
    # the steps stop at the first hand: once every later slot holds a uniform pick of the
    # rest, seat 0's cards are the (uniform) remainder and their order does not matter
    groups: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
    steps: list[tuple[int, int]] = []
    product = 1
    for i in range(size - 1, max(hand_size, 1) - 1, -1):
        if product * (i + 1) >= 1 << 64:
            groups.append((product, (1 << 64) // product * product, tuple(steps)))
            steps, product = [], 1
        steps.append((i, i + 1))
        product *= i + 1
    if steps:
        groups.append((product, (1 << 64) // product * product, tuple(steps)))
    return tuple(groups)


@dataclass(frozen=True, slots=True)
class Position:
    """A one-pack hand in progress, as card masks (the fast path's input)."""

    hands: tuple[int, ...]  # per seat: 52-bit mask of unplayed cards
    leader: int  # the seat that led the current trick (or leads the next one)
    trick: tuple[int, ...]  # card indices played to the current trick, in order
    hearts_broken: bool
    first_trick: bool  # the current (or next) trick is the hand's first
    taken: tuple[int, ...]  # per seat: 52-bit mask of cards taken in tricks so far
    scores: tuple[int, ...] = ()  # match totals before the hand (only the moon choice reads it)

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
        scores: Sequence[int] = (),
    ) -> Position:
        masks = tuple(cards_mask(h) for h in hands)
        return cls(
            hands=masks,
            leader=leader,
            trick=tuple(card_index(c) for c in trick),
            hearts_broken=hearts_broken,
            first_trick=first_trick,
            taken=tuple(cards_mask(t) for t in taken) if taken else (0,) * len(masks),
            scores=tuple(scores),
        )

    def check(self, table: Table) -> None:
        """Raise :class:`FastPathError` unless this is a consistent position of ``table``."""
        n = table.players
        if len(self.hands) != n or len(self.taken) != n:
            raise FastPathError(f"a position of this table has {n} hands and {n} taken piles")
        if self.scores and len(self.scores) != n:
            raise FastPathError(f"scores need one total per seat ({n})")
        if not 0 <= self.leader < n:
            raise FastPathError(f"the leader must be a seat 0..{n - 1}, not {self.leader}")
        if len(self.trick) >= n:
            raise FastPathError("a trick in progress has fewer cards than there are players")
        seen = 0
        for mask in (*self.hands, *self.taken, *(1 << i for i in self.trick)):
            if seen & mask:
                raise FastPathError("a card is in two places at once")
            seen |= mask
        if seen != sum(1 << i for i in table.deck):
            raise FastPathError("the position's cards are not exactly the cards in play")
        # once the open trick is finished every seat holds the same number of cards
        played = table.seats_after[self.leader][: len(self.trick) - 1] if self.trick else ()
        in_trick = {self.leader, *played} if self.trick else set()
        left = {h.bit_count() - (seat not in in_trick) for seat, h in enumerate(self.hands)}
        if len(left) != 1:
            raise FastPathError("the seats hold unequal numbers of cards for this trick")
        if self.first_trick and (self.trick[:1] or (self.leader_card(table),))[0] != (
            table.lead_index
        ):
            raise FastPathError(f"the first trick is led with {index_card(table.lead_index)}")

    def leader_card(self, table: Table) -> int:
        """The opening card if the leader holds it, else -1 (a check for the first trick)."""
        return table.lead_index if self.hands[self.leader] >> table.lead_index & 1 else -1


def hand_points(table: Table, tallies: Sequence[int], scores: Sequence[int] = ()) -> list[int]:
    """Final points of a hand from each seat's tally (penalty points + JACK_MARK per J♦).

    Same scoring as :func:`heartsuit.hearts.scoring.hand_points`: the moon replaces penalty
    points only, a J♦ bonus stays with its taker.
    """
    total = table.moon_total
    if max(tallies) < JACK_MARK:
        if total not in tallies or total <= 0:
            return list(tallies)  # no moon, no J♦: the common case, kept cheap
        penalties = list(tallies)
    else:
        penalties = [t % JACK_MARK for t in tallies]
        if total not in penalties or total <= 0:
            # each J♦ taken: drop its mark, count -10
            return [t - t // JACK_MARK * (JACK_MARK + 10) for t in tallies]
    bonus = [-10 * (t // JACK_MARK) for t in tallies]
    shooter = penalties.index(total)
    others = tuple(b + (0 if s == shooter else total) for s, b in enumerate(bonus))
    minus = tuple(b - (total if s == shooter else 0) for s, b in enumerate(bonus))
    moon = table.rules.moon
    if moon == "others_plus_26":
        return list(others)
    if moon == "self_minus_26":
        return list(minus)
    before = tuple(scores) if scores else (0,) * table.players
    return list(shooter_choice(table.rules, shooter, before, others, minus))


class FastState:
    """A hand in progress that steps one play at a time; :meth:`playout` finishes a copy."""

    __slots__ = ("broken", "first", "hands", "leader", "scores", "table", "tallies", "trick")

    def __init__(self, table: Table, pos: Position) -> None:
        pos.check(table)
        self.table = table
        self.hands = [m for mask in pos.hands for m in _split(mask)]
        self.tallies = [sum(table.tally[i] for i in range(52) if t >> i & 1) for t in pos.taken]
        self.leader = pos.leader
        self.trick = list(pos.trick)
        self.broken = pos.hearts_broken
        self.first = pos.first_trick
        self.scores = pos.scores

    def copy(self) -> FastState:
        other = FastState.__new__(FastState)
        other.table = self.table
        other.hands = self.hands[:]
        other.tallies = self.tallies[:]
        other.leader = self.leader
        other.trick = self.trick[:]
        other.broken = self.broken
        other.first = self.first
        other.scores = self.scores
        return other

    @property
    def done(self) -> bool:
        return not any(self.hands)

    @property
    def to_play(self) -> int:
        """The seat to play next (meaningless once :attr:`done`)."""
        return (self.leader + len(self.trick)) % self.table.players

    def hand(self, seat: int) -> int:
        """``seat``'s unplayed cards as a 52-bit mask."""
        c, d, h, s = self.hands[seat * 4 : seat * 4 + 4]
        return c | d << 13 | h << 26 | s << 39

    def legal(self) -> int:
        """The legal plays of the seat to play, as a 52-bit mask (the rules in plain form)."""
        table = self.table
        held = self.hand(self.to_play)
        banned = table.first_banned
        barred = banned[0] | banned[1] << 13 | banned[2] << 26 | banned[3] << 39
        if not self.trick:
            if self.first:
                return _BIT[table.lead_index] & held
            hearts = SUIT_BITS << 26
            return held if self.broken or not held & ~hearts else held & ~hearts
        led = self.trick[0] // 13
        suited = held & SUIT_BITS << (13 * led)
        allowed = suited or held
        if self.first and allowed & ~barred:
            allowed &= ~barred
        return allowed

    def play(self, index: int) -> None:
        """Play card ``index`` for :attr:`to_play`; an illegal card raises FastPathError."""
        if self.done or not self.legal() >> index & 1:
            raise FastPathError(f"{index_card(index)} is not a legal play now")
        seat = self.to_play
        self.hands[seat * 4 + index // 13] ^= 1 << (index % 13)
        self.trick.append(index)
        if self.table.breaks[index]:
            self.broken = True
        if len(self.trick) == self.table.players:
            led = self.trick[0] // 13
            best = max((i, k) for k, i in enumerate(self.trick) if i // 13 == led)[1]
            winner = (self.leader + best) % self.table.players
            self.tallies[winner] += sum(self.table.tally[i] for i in self.trick)
            self.leader = winner
            self.trick = []
            self.first = False

    def points(self) -> list[int]:
        """Each seat's points for the finished hand."""
        if not self.done:
            raise FastPathError("the hand is not finished yet")
        return hand_points(self.table, self.tallies, self.scores)

    def playout(self, draws: Draws) -> list[int]:
        """Finish a copy of this hand with uniformly random legal plays; the points per seat."""
        hands = self.hands[:]
        tallies = self.tallies[:]
        _play(
            self.table, hands, tallies, self.leader, tuple(self.trick), self.broken, self.first,
            draws,
        )
        return hand_points(self.table, tallies, self.scores)


def playout(table: Table, pos: Position, draws: Draws) -> list[int]:
    """Play ``pos`` to the end with uniformly random legal plays; each seat's hand points."""
    return FastState(table, pos).playout(draws)


def deal(table: Table, draws: Draws) -> list[int]:
    """A uniformly random deal as split suit masks (``hands[seat * 4 + suit]``).

    Fisher–Yates whose swap indices are read as mixed-radix digits of one exactly uniform
    64-bit draw per group of steps (four draws for 52 cards).
    """
    cards = list(table.deck)
    next64 = draws.rng.next64
    for product, limit, steps in table.deal_steps:
        x = next64()
        while x >= limit:
            x = next64()
        x %= product
        for i, m in steps:
            x, j = divmod(x, m)
            cards[i], cards[j] = cards[j], cards[i]
    size = table.hand_size
    get = _BIT.__getitem__
    hands: list[int] = []
    for seat in range(table.players):
        hands += _split(sum(map(get, cards[seat * size : seat * size + size])))
    return hands


def random_hand(table: Table, draws: Draws) -> list[int]:
    """Deal, play every trick at random and score: one hand's points per seat."""
    hands = deal(table, draws)
    lead = table.lead_index
    slot, bit = lead // 13, 1 << (lead % 13)
    leader = 0
    while not hands[leader * 4 + slot] & bit:
        leader += 1
    tallies = [0] * table.players
    _play(table, hands, tallies, leader, (), False, True, draws)
    return hand_points(table, tallies)


def _play(
    table: Table,
    hands: list[int],
    tallies: list[int],
    leader: int,
    trick: tuple[int, ...],
    broken: bool,
    first: bool,
    draws: Draws,
) -> None:
    """The hot loop: the same rules as :meth:`FastState.legal`, unrolled, choices inlined.

    The pool is topped up once per trick (``Draws.reserve(TRICK_POOL)``), and then each random
    choice is ``Draws.below`` written out on local variables (pool ``value`` uniform in
    ``0 .. span-1``); the rare rejection falls back to the method. So the loop consumes exactly
    what ``reserve`` + ``below`` would (a test replays it). Mutates ``hands`` (emptied) and
    ``tallies`` (points taken added).
    """
    value, span = draws.value, draws.span
    next64 = draws.rng.next64
    pop = _POP
    nth = _NTH
    tally = table.tally
    breaks = table.breaks
    suit_tally = table.suit_tally
    suit_breaks = table.suit_breaks
    bases_after = table.bases_after
    ban_c, ban_d, ban_h, ban_s = table.first_banned
    # seats are carried as their base slot (seat * 4) so a hand's suit is one addition away
    base = leader * 4
    tricks_left = sum(pop[hands[base + s]] for s in range(4)) + (1 if trick else 0)
    while tricks_left:
        tricks_left -= 1
        followers = bases_after[base >> 2]
        while span < TRICK_POOL:
            # Draws.reserve(TRICK_POOL), inlined: enough pool for every choice of the trick
            value = value << 64 | next64()
            span <<= 64
        if trick:
            # resume the trick in progress: replay its cards into the running state
            led = trick[0] // 13
            best = 0
            winner = base
            points = 0
            for k, i in enumerate(trick):
                points += tally[i]
                if i // 13 == led and 1 << (i % 13) > best:
                    best = 1 << (i % 13)
                    winner = (base + 4 * k) % (4 * table.players)
            followers = followers[len(trick) - 1 :]
            trick = ()
        else:
            if first:
                i = table.lead_index
                led, r = divmod(i, 13)
            else:
                c, d, h, s = hands[base : base + 4]
                pc, pd, ps = pop[c], pop[d], pop[s]
                ph = pop[h] if broken or not pc + pd + ps else 0
                total = pc + pd + ph + ps
                k = 0
                if total > 1:
                    quotient, k = divmod(value, total)
                    rest = span // total
                    if quotient < rest:
                        value = quotient
                        span = rest
                    else:
                        limit = span // total * total
                        draws.value, draws.span = value - limit, span - limit
                        k = draws.below(total)
                        value, span = draws.value, draws.span
                if k < pc:
                    led, r = 0, nth[c * 13 + k]
                elif k < pc + pd:
                    led, r = 1, nth[d * 13 + k - pc]
                elif k < pc + pd + ph:
                    led, r = 2, nth[h * 13 + k - pc - pd]
                else:
                    led, r = 3, nth[s * 13 + k - pc - pd - ph]
                i = led * 13 + r
            best = 1 << r
            hands[base + led] ^= best
            winner = base
            points = tally[i]
            if breaks[i]:
                broken = True
        led_tally = suit_tally[led]
        led_breaks = suit_breaks[led]
        for base in followers:
            slot = base + led
            follow = hands[slot]
            if follow:
                count = pop[follow]
                k = 0
                if count > 1:
                    quotient, k = divmod(value, count)
                    rest = span // count
                    if quotient < rest:
                        value = quotient
                        span = rest
                    else:
                        limit = span // count * count
                        draws.value, draws.span = value - limit, span - limit
                        k = draws.below(count)
                        value, span = draws.value, draws.span
                r = nth[follow * 13 + k]
                bit = 1 << r
                hands[slot] = follow ^ bit
                points += led_tally[r]
                if led_breaks[r]:
                    broken = True
                if bit > best:
                    best = bit
                    winner = base
            else:
                c, d, h, s = hands[base : base + 4]
                if first and (c & ~ban_c or d & ~ban_d or h & ~ban_h or s & ~ban_s):
                    c &= ~ban_c
                    d &= ~ban_d
                    h &= ~ban_h
                    s &= ~ban_s
                pc, pd, ph, ps = pop[c], pop[d], pop[h], pop[s]
                total = pc + pd + ph + ps
                k = 0
                if total > 1:
                    quotient, k = divmod(value, total)
                    rest = span // total
                    if quotient < rest:
                        value = quotient
                        span = rest
                    else:
                        limit = span // total * total
                        draws.value, draws.span = value - limit, span - limit
                        k = draws.below(total)
                        value, span = draws.value, draws.span
                if k < pc:
                    suit, r = 0, nth[c * 13 + k]
                elif k < pc + pd:
                    suit, r = 1, nth[d * 13 + k - pc]
                elif k < pc + pd + ph:
                    suit, r = 2, nth[h * 13 + k - pc - pd]
                else:
                    suit, r = 3, nth[s * 13 + k - pc - pd - ph]
                hands[base + suit] ^= 1 << r
                i = suit * 13 + r
                points += tally[i]
                if breaks[i]:
                    broken = True
        tallies[winner >> 2] += points
        base = winner
        first = False
    draws.value, draws.span = value, span
