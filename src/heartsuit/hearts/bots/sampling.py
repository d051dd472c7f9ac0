"""Worlds consistent with one seat's view: what a search bot may assume about hidden cards.

:func:`knowledge` reads a :class:`~heartsuit.hearts.view.SeatView` — the only thing a bot is
given — into :class:`Knowledge`: the cards the seat has not seen, how many each other seat (and
the kitty) holds, which cards each seat *may* hold, and which it surely holds. :func:`sample`
then deals the unseen cards into one random world that agrees with all of it:

* the seat's own hand and every played card are known, so they are never dealt;
* a seat that did not follow suit is void in the led suit from then on;
* a seat that led a heart before hearts were broken held nothing but hearts (the engine
  refuses that lead otherwise); a seat that threw a heart or Q♠ on the first trick (where they
  are barred) held only such cards;
* the cards this seat passed are in the receiver's hand until the receiver plays them (the
  cards received are in this seat's own hand, so they are known like it);
* Cancellation: two packs (a card can be unseen twice) and a kitty of ``kitty_size`` unseen
  cards, which is the last "seat" of a world.

Besides these facts, :class:`Knowledge` keeps what the others' plays *suggest*
(:func:`unlikely_cards`: who probably has no Q♠); that only lowers the odds of dealing a card
there, it never rules it out.

Cards are fast-path indices (``suit * 13 + rank - 2``, suits C, D, H, S). The deal is
sequential: each card goes to a seat that may hold it, with odds proportional to the room left
(exactly uniform when nothing is known, times :data:`UNLIKELY_WEIGHT` where it is doubted);
a card with no room left moves others along a shortest augmenting path, so a world exists
whenever the knowledge is consistent.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from heartsuit.cards import Card, Suit
from heartsuit.hearts.fast_tables import card_index, index_card
from heartsuit.hearts.fast_worlds import deal_cards
from heartsuit.hearts.rules import HOLD, QUEEN_OF_SPADES
from heartsuit.hearts.view import SeatView, TrickRecord
from heartsuit.shuffle import Rng, _outputs

ALL = (1 << 52) - 1
HEART_MASK = 0x1FFF << 26
QUEEN_BIT = 1 << card_index(QUEEN_OF_SPADES)


class SamplingError(ValueError):
    """The knowledge read from a view admits no world (a bug, or a hand-made bad view)."""


def suit_mask(suit: Suit) -> int:
    return 0x1FFF << (13 * _suit_order(suit))


def _suit_order(suit: Suit) -> int:
    return (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES).index(suit)


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows about the hidden cards; slot ``players`` is the kitty."""

    seat: int
    players: int
    unseen: tuple[int, ...]  # card indices nobody has shown this seat (sorted; may repeat)
    need: tuple[int, ...]  # per slot (seats, then the kitty): cards it holds unseen; 0 for self
    allowed: tuple[int, ...]  # per slot: 52-bit mask of the cards it may hold
    pinned: tuple[tuple[int, ...], ...]  # per slot: cards it surely holds (this seat's pass)
    # per slot: 52-bit mask of cards it probably does not hold (see :func:`unlikely_cards`)
    unlikely: tuple[int, ...] = ()


def played_cards(view: SeatView) -> list[Card]:
    out = [c for t in view.tricks for _, c in t.plays]
    if view.trick is not None:
        out.extend(c for _, c in view.trick.plays)
    return out


def knowledge(view: SeatView, soft: bool = True, hints: bool = False) -> Knowledge:
    """Read everything ``view``'s seat knows about where the unseen cards are.

    ``soft`` also reads what the other seats' plays suggest about Q♠ (:func:`unlikely_cards`);
    ``hints`` (with ``soft``) also what their ducks and discards suggest (:func:`play_hints`).
    """
    rules = view.rules
    n = rules.players
    me = view.seat
    allowed = [ALL] * (n + 1)
    broken = False
    breaks_on_queen = rules.hearts_broken_by == "heart_or_queen"
    records = [*view.tricks, *([view.trick] if view.trick is not None else [])]
    played_by: list[Counter[int]] = [Counter() for _ in range(n)]
    for number, record in enumerate(records):
        plays = record.plays
        if not plays:
            continue
        led = plays[0][1].suit
        lead_seat, lead_card = plays[0]
        if number > 0 and lead_card.suit is Suit.HEARTS and not broken:
            allowed[lead_seat] &= HEART_MASK  # an unbroken heart lead: only hearts were held
        for seat, card in plays:
            played_by[seat][card_index(card)] += 1
            if card.suit is not led:
                allowed[seat] &= ~suit_mask(led)  # did not follow: void from now on
                if (
                    number == 0
                    and not rules.first_trick_points
                    and (card.suit is Suit.HEARTS or card == QUEEN_OF_SPADES)
                ):
                    # points on the first trick are legal only with nothing else to play
                    allowed[seat] &= HEART_MASK | QUEEN_BIT
            if card.suit is Suit.HEARTS or (breaks_on_queen and card == QUEEN_OF_SPADES):
                broken = True
    unseen = Counter(card_index(c) for c in rules.deck())
    unseen.subtract(card_index(c) for c in view.hand)
    unseen.subtract(card_index(c) for c in played_cards(view))
    pinned: list[tuple[int, ...]] = [()] * (n + 1)
    if view.pass_direction is not HOLD and view.passed and view.phase != "pass":
        target = rules.pass_target(me, view.pass_direction)
        still = Counter(card_index(c) for c in view.passed)
        still.subtract(played_by[target])
        pinned[target] = tuple(sorted((+still).elements()))
    need = [0 if s == me else view.cards_left[s] for s in range(n)]
    kitty_hidden = view.kitty_size if not view.kitty else 0
    need.append(kitty_hidden)
    allowed[me] = 0
    unlikely = unlikely_cards(view, records) if soft else [0] * (n + 1)
    if soft and hints:
        for slot, mask in enumerate(play_hints(view, records)):
            unlikely[slot] |= mask
    return Knowledge(
        seat=me,
        players=n,
        unseen=tuple(sorted((+unseen).elements())),
        need=tuple(need),
        allowed=tuple(allowed),
        pinned=tuple(pinned),
        unlikely=tuple(unlikely),
    )


UNLIKELY_WEIGHT = 0.1  # odds of dealing a card to a seat whose plays suggest it lacks it
_SCALE = 1000  # _weighted_slot's integer weights: room times _SCALE, or times _LOW_WEIGHT
_LOW_WEIGHT = int(UNLIKELY_WEIGHT * _SCALE)
_MOST_CARDS = 64  # Sampler.deal batches its 2 * cards - 1 draws (shuffle._outputs: up to 128)
# the largest n of a below(n) in Sampler.deal: the shuffle's n <= cards, a seat's room <= cards,
# _weighted_slot's weights <= cards * _SCALE
_DRAW_BOUND = _MOST_CARDS * _SCALE


def unlikely_cards(view: SeatView, records: list[TrickRecord]) -> list[int]:
    """Per slot, the cards its plays suggest it does not hold (soft: worlds only weigh them).

    Nearly every player, and every bot here, gets rid of Q♠ at the first safe chance, so while
    Q♠ is still out:

    * a seat that did not follow suit and threw anything but Q♠ probably has no Q♠;
    * a seat that followed a spade trick already won by K♠ or A♠ with another spade than Q♠
      probably has no Q♠;
    * a seat that led a spade probably has no Q♠.

    Only the first trick, where Q♠ may not be thrown, is not read this way. None of this ever
    rules a card out: a world may still deal it there, with lower odds.
    """
    n = view.rules.players
    out = [0] * (n + 1)
    if view.rules.packs != 1:
        return out
    queen_out = True
    for number, record in enumerate(records):
        plays = record.plays
        if not plays:
            continue
        led = plays[0][1].suit
        best: Card | None = None
        for k, (seat, card) in enumerate(plays):
            if queen_out and seat != view.seat and card != QUEEN_OF_SPADES:
                threw = card.suit is not led and number > 0
                under = (
                    card.suit is Suit.SPADES
                    and led is Suit.SPADES
                    and (k == 0 or (best is not None and best.rank > QUEEN_OF_SPADES.rank))
                )
                if threw or under:
                    out[seat] |= QUEEN_BIT
            if card.suit is led and (best is None or card.rank > best.rank):
                best = card
            if card == QUEEN_OF_SPADES:
                queen_out = False
    return out


def _ranks(suit: Suit, low: int, high: int) -> int:
    """The mask of the cards of ``suit`` ranked strictly between ``low`` and ``high``."""
    if high - low < 2:
        return 0
    base = 13 * _suit_order(suit)
    return ((1 << (high - low - 1)) - 1) << (base + low - 1)


# what a seat running for the moon holds: every queen, king and ace, and J♥
RUNNER_CARDS = sum(1 << (suit * 13 + r) for suit in range(4) for r in range(10, 13)) | 1 << 35


def runner_hint(know: Knowledge, runner: int, cards: int = RUNNER_CARDS) -> Knowledge:
    """``know`` doubting (soft, as :func:`unlikely_cards`) that any seat but ``runner`` holds
    ``cards``: a seat running for the moon holds the cards that win the tricks it needs."""
    unlikely = list(know.unlikely) or [0] * (know.players + 1)
    for seat in range(know.players):
        if seat not in (know.seat, runner):
            unlikely[seat] |= cards
    return replace(know, unlikely=tuple(unlikely))


def play_hints(view: SeatView, records: list[TrickRecord]) -> list[int]:
    """Per slot, the cards its ducks and discards suggest it does not hold (soft, like
    :func:`unlikely_cards`).

    They read the other seats as players who follow the common advice (as every bot here and
    the guided playouts do): duck under the trick's winner with the highest card that still
    loses, shed the highest clean card where nothing can hurt (the first trick, last to a trick
    without points), win only when forced; and when void, discard Q♠ first, then A♠/K♠ while
    Q♠ is out (always with spade penalties), then the top heart, and only then anything else.
    So, read trick by trick (never for this seat, nor on a lead):

    * followed under the winner with card *c*, where a duck was wanted: nothing of the suit
      between *c* and the winner;
    * followed over the winner where a duck was wanted: nothing of the suit below the winner;
    * followed with *c* where a high card was shed: no clean card of the suit above *c*;
    * threw something other than A♠/K♠ while Q♠ was out: no A♠ or K♠;
    * threw a heart: no higher heart; threw a clean card that is not a spade above Q♠: no heart.

    Discards on the first trick (where points may be barred) are not read. One pack only.
    """
    rules = view.rules
    n = rules.players
    out = [0] * (n + 1)
    if rules.packs != 1:
        return out
    spade_base = 13 * _suit_order(Suit.SPADES)
    high_spades = sum(1 << (spade_base + r - 2) for r in (13, 14))
    hearts_all = HEART_MASK
    queen_out = True
    for number, record in enumerate(records):
        plays = record.plays
        if not plays:
            continue
        led = plays[0][1].suit
        best = plays[0][1]
        points = rules.card_points(best)
        first = number == 0 and not rules.first_trick_points
        if best == QUEEN_OF_SPADES:
            queen_out = False
        for k in range(1, len(plays)):
            seat, card = plays[k]
            if seat != view.seat:
                if card.suit is led:
                    if first or (k == n - 1 and points <= 0):
                        base = 13 * _suit_order(led)
                        for rank in range(card.rank + 1, 15):
                            if rules.card_points(index_card(base + rank - 2)) <= 0:
                                out[seat] |= 1 << (base + rank - 2)
                    elif card.rank < best.rank:
                        out[seat] |= _ranks(led, card.rank, best.rank)
                    else:
                        out[seat] |= _ranks(led, 1, best.rank)
                elif number > 0:
                    spade_high = card.suit is Suit.SPADES and card.rank > QUEEN_OF_SPADES.rank
                    keeps_high = queen_out or rules.spade_penalties
                    if keeps_high and card != QUEEN_OF_SPADES and not spade_high:
                        out[seat] |= high_spades
                    if card.suit is Suit.HEARTS:
                        out[seat] |= _ranks(Suit.HEARTS, card.rank, 15)
                    elif rules.card_points(card) <= 0 and not spade_high:
                        out[seat] |= hearts_all
            if card.suit is led and card.rank > best.rank:
                best = card
            points += rules.card_points(card)
            if card == QUEEN_OF_SPADES:
                queen_out = False
    return out


def sample(know: Knowledge, rng: Rng) -> list[list[int]]:
    """One random world: per slot (seats, then the kitty), the unseen cards it holds.

    The viewer's own slot is empty. Raises :class:`SamplingError` if no world fits. The same
    world, and the same draws from ``rng``, as :func:`sample_plain`; a search that deals many
    worlds from one knowledge keeps a :class:`Sampler` instead.
    """
    return Sampler(know).deal(rng)


_TWO64 = 1 << 64
_MASK64 = _TWO64 - 1
_GAMMA = 0x9E3779B97F4A7C15


class Sampler:
    """:func:`sample_plain` for many worlds of one :class:`Knowledge`, written for speed.

    What does not change from world to world (the cards to deal, each card's seats, how
    constrained it is) is worked out once. :meth:`deal` then computes the generator's next
    outputs together (``heartsuit.shuffle``'s lanes) and reads each ``Rng.below(n)`` as
    ``output % n``, which is what ``below`` returns unless it rejects the output (only an output
    within ``n`` of ``2**64``; such a world is dealt by :func:`sample_plain` instead). So it
    makes exactly the draws, and deals exactly the world, that :func:`sample_plain` does.
    """

    __slots__ = ("cards", "doubted", "error", "know", "movable", "order", "room", "slots")

    def __init__(self, know: Knowledge) -> None:
        self.know = know
        slots = know.players + 1
        room = [need - len(p) for need, p in zip(know.need, know.pinned, strict=True)]
        rest = Counter(know.unseen)
        for p in know.pinned:
            rest.subtract(p)
        self.cards = list((+rest).elements())
        self.error = sum(room) != len(self.cards) or min(room) < 0
        self.room = room
        allowed = know.allowed
        # per card: the slots that may hold it, in order, and how many (fewest dealt first)
        self.slots = {
            c: tuple(s for s in range(slots) if allowed[s] >> c & 1) for c in set(self.cards)
        }
        self.order = {c: len(seats) for c, seats in self.slots.items()}
        self.movable = [len(p) for p in know.pinned]
        doubted = 0
        for mask in know.unlikely:
            doubted |= mask
        self.doubted = doubted

    def deal(self, rng: Rng) -> list[list[int]]:
        """One world, as :func:`sample_plain` deals it (the same draws from ``rng``)."""
        if self.error:
            raise SamplingError("the unseen cards do not fill the hands that hold them")
        know = self.know
        cards = self.cards[:]
        size = len(cards)
        if size > _MOST_CARDS:
            return sample_plain(know, rng)  # two packs: more draws than one batch holds
        # at most 2 * size - 1 draws: size - 1 for the shuffle, one per card dealt (none for a
        # card placed by moving others); SplitMix64's next outputs, computed side by side
        outputs = _outputs(rng.state, 2 * size - 1) if size else ()
        # every draw is below(n) for n <= _DRAW_BOUND, which accepts any output under
        # 2**64 - _DRAW_BOUND; otherwise (odds under 2**-40 a world) deal draw by draw
        if outputs and max(outputs) >= _TWO64 - _DRAW_BOUND:
            return sample_plain(know, rng)
        hands: list[list[int]] = [list(p) for p in know.pinned]
        room = self.room[:]
        allowed = know.allowed
        movable = self.movable

        def augment(card: int) -> None:
            _augment(card, hands, room, allowed, movable)

        # the shuffle and the deal, compiled with the engine core (fast_worlds.deal_cards)
        used = deal_cards(
            cards,
            outputs,
            self.order,
            self.slots,
            hands,
            room,
            self.doubted,
            know.unlikely,
            _LOW_WEIGHT,
            _SCALE,
            augment,
        )
        rng.state = (rng.state + used * _GAMMA) & _MASK64
        return hands


def sample_plain(know: Knowledge, rng: Rng) -> list[list[int]]:
    """:func:`sample` as first written: the reference :class:`Sampler` must agree with."""
    slots = know.players + 1
    hands: list[list[int]] = [list(p) for p in know.pinned]
    room = [need - len(p) for need, p in zip(know.need, know.pinned, strict=True)]
    rest = Counter(know.unseen)
    for p in know.pinned:
        rest.subtract(p)
    cards = list((+rest).elements())
    if sum(room) != len(cards) or min(room) < 0:
        raise SamplingError("the unseen cards do not fill the hands that hold them")
    allowed = know.allowed
    # shuffle, then deal the most constrained cards first (a stable sort keeps the shuffle)
    for i in range(len(cards) - 1, 0, -1):
        j = rng.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    fits = {c: sum(1 for s in range(slots) if allowed[s] >> c & 1) for c in set(cards)}
    cards.sort(key=fits.__getitem__)
    movable = [len(p) for p in know.pinned]  # hands[s][movable[s]:] may move (not pinned)
    doubted = 0
    for mask in know.unlikely:
        doubted |= mask
    for card in cards:
        open_slots = [s for s in range(slots) if room[s] and allowed[s] >> card & 1]
        if open_slots:
            if doubted >> card & 1:
                s = _weighted_slot(card, open_slots, room, know.unlikely, rng)
            else:
                pick = rng.below(sum(room[s] for s in open_slots))
                for s in open_slots:
                    pick -= room[s]
                    if pick < 0:
                        break
            hands[s].append(card)
            room[s] -= 1
        else:
            _augment(card, hands, room, allowed, movable)
    return hands


def _weighted_slot(
    card: int, open_slots: list[int], room: list[int], unlikely: tuple[int, ...], rng: Rng
) -> int:
    """A slot for ``card``: odds by room, times :data:`UNLIKELY_WEIGHT` where it is doubted."""
    weights = [room[s] * (_LOW_WEIGHT if unlikely[s] >> card & 1 else _SCALE) for s in open_slots]
    pick = rng.below(sum(weights))
    for s, w in zip(open_slots, weights, strict=True):
        pick -= w
        if pick < 0:
            return s
    return open_slots[-1]


def _augment(
    card: int,
    hands: list[list[int]],
    room: list[int],
    allowed: tuple[int, ...],
    movable: list[int],
) -> None:
    """Place ``card`` by moving cards along a shortest path to a slot with room (BFS)."""
    slots = len(hands)
    start = [s for s in range(slots) if allowed[s] >> card & 1]
    parent: dict[int, tuple[int, int] | None] = dict.fromkeys(start)
    queue = list(start)
    head = 0
    while head < len(queue):
        s = queue[head]
        head += 1
        for k in range(movable[s], len(hands[s])):
            moved = hands[s][k]
            for t in range(slots):
                if t in parent or not allowed[t] >> moved & 1:
                    continue
                parent[t] = (s, k)
                if room[t]:
                    # unwind: t takes moved from s, s takes whatever it gave up to, and so on
                    room[t] -= 1
                    while True:
                        step = parent[t]
                        if step is None:
                            hands[t].append(card)
                            return
                        src, idx = step
                        hands[t].append(hands[src][idx])
                        hands[src][idx] = hands[src][-1]
                        hands[src].pop()
                        t = src
                queue.append(t)
    raise SamplingError(f"no seat that may hold card {card} has room, even after moving cards")


def consistent(know: Knowledge, world: list[list[int]]) -> str | None:
    """Why ``world`` breaks ``know``, or None (the tests' check, also handy when debugging)."""
    if len(world) != know.players + 1:
        return "a world lists every seat and the kitty"
    if Counter(c for h in world for c in h) != Counter(know.unseen):
        return "the world's cards are not exactly the unseen cards"
    for s, hand in enumerate(world):
        if len(hand) != know.need[s]:
            return f"slot {s} holds {len(hand)} cards, not {know.need[s]}"
        bad = [c for c in hand if not know.allowed[s] >> c & 1]
        if bad:
            return f"slot {s} holds card(s) {bad} it cannot hold"
        missing = Counter(know.pinned[s]) - Counter(hand)
        if missing:
            return f"slot {s} lacks the passed card(s) {sorted(missing.elements())}"
    return None
