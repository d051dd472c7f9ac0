"""What both adapters share: card numbers, one hand driven one action at a time, the encodings
of a seat's view, and drawing hidden cards again for search (ISMCTS).

Nothing here imports OpenSpiel, PettingZoo, Gymnasium or numpy: encodings are lists of floats
that each adapter turns into its own arrays.

**Card numbers.** A card is ``(rank - 2) * 4 + suit`` with clubs 0, diamonds 1, hearts 2,
spades 3: 2♣ is 0, Q♠ is 43, A♠ is 51 — OpenSpiel's own Hearts numbers its cards this way. With
two packs (Cancellation) both copies of a card have the same number: they are the same card to
every rule, so playing "7♥" while holding two plays one of them, and a seat's hand is a count
per number (0, 1 or 2).

**One action at a time.** The engine passes three cards as one action; here a seat picks its
pass one card at a time, seat 0 first, and the engine is given the whole pass once the last
card is picked (:class:`Table`). Nobody sees another seat's picks, so this sequential passing
is the engine's simultaneous one; OpenSpiel's Hearts passes the same way.

**Encodings.** :class:`Encoding` turns a :class:`~heartsuit.hearts.SeatView` (and the seat's own
pass picks) into a flat vector and a text — nothing else reaches them, so they can hold no card
the seat may not know.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeVar

from heartsuit.cards import Card, Suit
from heartsuit.hearts import Hand, Pass, Phase, Play, Rules, RulesError, SeatView
from heartsuit.hearts.facts import facts
from heartsuit.hearts.rules import PRESET_NAMES, PassDirection

__all__ = [
    "CARDS",
    "DIRECTIONS",
    "NUM_CARDS",
    "Encoding",
    "Table",
    "card_id",
    "hand_rules",
    "resample_actions",
    "returns_of",
    "utility_bounds",
]

NUM_CARDS = 52
_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_INDEX = {s: i for i, s in enumerate(_SUITS)}
# every card by its number
CARDS: tuple[Card, ...] = tuple(Card(i // 4 + 2, _SUITS[i % 4]) for i in range(NUM_CARDS))
# a pass direction's number when chance draws it (OpenSpiel's Hearts: no pass, left, across, right)
DIRECTIONS: tuple[PassDirection, ...] = (
    PassDirection.HOLD,
    PassDirection.LEFT,
    PassDirection.ACROSS,
    PassDirection.RIGHT,
)
_DIRECTION_ID = {d: i for i, d in enumerate(DIRECTIONS)}

# the named options of one hand; the match's options (target, ties, exactly_100_reset) change
# nothing in a single hand, so they are refused rather than silently ignored
HAND_OPTIONS = (
    "players",
    "moon",
    "hearts_broken_by",
    "jack_of_diamonds",
    "spade_penalties",
    "passing",
    "first_trick_points",
)
MATCH_OPTIONS = ("target", "ties", "exactly_100_reset")
RETURNS = ("openspiel", "negated")


def card_id(card: Card) -> int:
    """The card's number, 0..51 (2♣ 0, 2♦ 1, 2♥ 2, 2♠ 3, 3♣ 4, …, A♠ 51)."""
    known = _KNOWN.get(id(card))
    if known is not None and known[0] is card:
        return known[1]
    return (card.rank - 2) * 4 + _SUIT_INDEX[card.suit]


# the engine hands out its deck's own Card values (facts.py): their numbers by id(), without
# hashing a card each time; the entries keep the cards alive, so an id stays its card's
_KNOWN: dict[int, tuple[Card, int]] = {}


@lru_cache(maxsize=64)
def _remember(rules: Rules) -> None:
    for card in facts(rules).deck:
        if id(card) not in _KNOWN:
            _KNOWN[id(card)] = (card, (card.rank - 2) * 4 + _SUIT_INDEX[card.suit])


def hand_rules(preset: str, options: Mapping[str, Any]) -> Rules:
    """The rules of one hand: a preset and named options; a clear ValueError for anything else."""
    if preset not in PRESET_NAMES:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESET_NAMES)}")
    for name in options:
        if name in MATCH_OPTIONS:
            raise ValueError(
                f"{name} is an option of a whole match; an episode here is one hand, so it "
                "would change nothing"
            )
        if name not in HAND_OPTIONS:
            raise ValueError(f"unknown option {name!r}; options: {', '.join(HAND_OPTIONS)}")
    if "players" in options and preset != "cancellation":
        base = Rules.preset(preset).players
        if options["players"] != base:
            raise ValueError(f"the {preset} preset is for {base} players; only cancellation "
                             "takes 6 to 10")
    try:
        return Rules.preset(preset, **options)
    except RulesError as exc:
        raise ValueError(str(exc)) from exc


def utility_bounds(rules: Rules, returns: str) -> tuple[float, float]:
    """The lowest and highest return of a hand under ``returns`` (see :func:`returns_of`)."""
    total = rules.total_points()
    jacks = sum(1 for c in rules.deck() if rules.card_points(c) < 0)
    low_points = -10 * jacks - (total if rules.moon != "others_plus_26" else 0)
    high_points = total
    if returns == "negated":
        return float(-high_points), float(-low_points)
    return float(total - high_points), float(total - low_points)


def returns_of(rules: Rules, points: Sequence[int], returns: str) -> list[float]:
    """``openspiel``: the hand's penalty total minus each seat's points (26 − points in the
    standard game, as OpenSpiel's Hearts); ``negated``: minus each seat's points."""
    if returns == "negated":
        return [float(-p) for p in points]
    total = rules.total_points()
    return [float(total - p) for p in points]


def _counts(cards: Sequence[Card]) -> Counter[int]:
    return Counter(card_id(c) for c in cards)


@lru_cache(maxsize=64)
def _deck_counts(rules: Rules) -> Counter[int]:
    # shared by every table of these rules: read, never changed
    return _counts(rules.deck())


class Table:
    """One hand, one action at a time: chance draws the pass direction (when the rules pass
    and none is fixed) and deals card by card; seats pick their passes card by card; then they
    play. Card ``k`` of the deal goes to seat ``k % players``, the last ``kitty_size`` to the
    kitty. :meth:`from_hand` starts from a hand the engine dealt from its own seed."""

    def __init__(self, rules: Rules, direction: PassDirection | None = None) -> None:
        self.rules = rules
        self.players = rules.players
        if not rules.passing:
            direction = PassDirection.HOLD
        self.direction: PassDirection | None = direction
        self.drew_direction = direction is None
        self.dealt: list[int] = []
        self.hand: Hand | None = None
        self.picks: list[list[int]] = [[] for _ in range(rules.players)]
        self.deck_counts = _deck_counts(rules)
        self.undealt = dict(sorted(self.deck_counts.items()))  # card number: copies not dealt
        _remember(rules)

    @classmethod
    def from_hand(cls, hand: Hand) -> Table:
        """A table whose deal is done: a lone :class:`Hand` not yet passed or played."""
        if hand.version:
            raise ValueError("a table starts from a hand nobody has acted in yet")
        table = cls(hand.rules, hand.pass_direction)
        table.hand = hand
        table.undealt = {}
        return table

    def copy(self) -> Table:
        """An independent copy: the hand is dealt again and its actions replayed, through the
        engine's public interface (several times faster than a deep copy)."""
        other = Table.__new__(Table)
        other.rules, other.players = self.rules, self.players
        other.direction, other.drew_direction = self.direction, self.drew_direction
        other.dealt = list(self.dealt)
        other.picks = [list(p) for p in self.picks]
        other.deck_counts = self.deck_counts
        other.undealt = dict(self.undealt)
        hand = self.hand
        if hand is not None:
            copied = Hand.from_cards(
                self.rules, hand.dealt, hand.pass_direction, kitty=hand.kitty,
                hand_number=hand.hand_number, scores=hand.scores,
            )
            copied.replay(hand.actions)
            hand = copied
        other.hand = hand
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self.copy()

    # --- chance ----------------------------------------------------------------------------

    def is_chance(self) -> bool:
        return self.hand is None

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(action, probability) of the chance node; empty outside the deal."""
        if self.hand is not None:
            return []
        if self.direction is None:
            cycle = Counter(_DIRECTION_ID[d] for d in self.rules.pass_cycle)
            size = sum(cycle.values())
            return [(a, n / size) for a, n in sorted(cycle.items())]
        remaining = len(self.rules.deck()) - len(self.dealt)
        return [(a, n / remaining) for a, n in self.undealt.items()]

    def apply_chance(self, action: int) -> None:
        if self.hand is not None:
            raise ValueError("no chance node now: the deal is done")
        if self.direction is None:
            if not any(a == action for a, _ in self.chance_outcomes()):
                raise ValueError(f"{action} is not a pass direction of these rules")
            self.direction = DIRECTIONS[action]
            return
        left = self.undealt.get(action)
        if left is None:
            raise ValueError(f"{action} is not an undealt card")
        if left == 1:
            del self.undealt[action]
        else:
            self.undealt[action] = left - 1
        self.dealt.append(action)
        if len(self.dealt) == len(self.rules.deck()):
            n, size = self.players, self.rules.hand_size()
            hands = [[CARDS[a] for a in self.dealt[s : n * size : n]] for s in range(n)]
            kitty = [CARDS[a] for a in self.dealt[n * size :]]
            self.hand = Hand.from_cards(self.rules, hands, self.direction, kitty=kitty)

    # --- the seats ---------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.phase is Phase.DONE

    def current_player(self) -> int | None:
        """The seat to act; None at a chance node or at the end."""
        hand = self.hand
        if hand is None or hand.phase is Phase.DONE:
            return None
        if hand.phase is Phase.PASS:
            return next(s for s in range(self.players) if len(self.picks[s]) < self._pass_size())
        return hand.to_play

    def _pass_size(self) -> int:
        return self.rules.pass_count

    def legal_actions(self, seat: int | None = None) -> list[int]:
        """The card numbers ``seat`` (the seat to act) may pick or play now, ascending."""
        current = self.current_player()
        if current is None or (seat is not None and seat != current):
            return []
        hand = self.hand
        assert hand is not None
        if hand.phase is Phase.PASS:
            left = _counts(hand.view(current).hand) - Counter(self.picks[current])
            return sorted(left)
        return sorted({card_id(c) for c in hand.legal_plays(current)})

    def apply(self, action: int) -> None:
        """The seat to act picks a pass card or plays the card numbered ``action``; anything
        else raises ValueError and changes nothing."""
        seat = self.current_player()
        if seat is None:
            raise ValueError("nobody acts now: " + ("chance deals" if self.hand is None
                                                     else "the hand is over"))
        legal = self.legal_actions()
        if action not in legal:
            shown = CARDS[action].code if 0 <= action < NUM_CARDS else str(action)
            raise ValueError(f"seat {seat} may not {self._verb()} {shown} now")
        hand = self.hand
        assert hand is not None
        if hand.phase is Phase.PASS:
            picks = self.picks[seat]
            picks.append(action)
            if len(picks) == self._pass_size():
                hand.apply(Pass(seat, tuple(CARDS[a] for a in picks)))
            return
        hand.apply(Play(seat, CARDS[action]))

    def _verb(self) -> str:
        return "pass" if self.hand is not None and self.hand.phase is Phase.PASS else "play"

    def points(self) -> tuple[int, ...]:
        """The finished hand's points per seat (moon and bonuses applied)."""
        if self.hand is None or self.hand.phase is not Phase.DONE:
            raise ValueError("the hand is not finished yet")
        return self.hand.points()

    def view(self, seat: int) -> SeatView | None:
        """``seat``'s view, or None while chance still deals."""
        return None if self.hand is None else self.hand.view(seat)

    def own_picks(self, seat: int) -> list[int]:
        """The cards ``seat`` picked for a pass it has not finished (its own choice)."""
        if self.hand is None or self.hand.phase is not Phase.PASS:
            return []
        return list(self.picks[seat]) if len(self.picks[seat]) < self._pass_size() else []

    def dealt_to(self, seat: int) -> list[int]:
        """The cards chance has dealt ``seat`` so far (during the deal)."""
        n = self.players
        limit = n * self.rules.hand_size()
        return [a for k, a in enumerate(self.dealt) if k < limit and k % n == seat]

    def __str__(self) -> str:
        """The whole table, hidden cards included (OpenSpiel's ``str(state)``)."""
        direction = "?" if self.direction is None else str(self.direction)
        if self.hand is None:
            return f"pass {direction}; dealing: {len(self.dealt)}/{len(self.rules.deck())}"
        hand = self.hand
        lines = [f"pass {direction}; phase {hand.phase}"]
        for seat, cards in enumerate(hand.holdings):
            lines.append(f"seat {seat}: {_text(cards)}")
        if hand.kitty:
            lines.append(f"kitty: {_text(hand.kitty)}")
        for seat, picks in enumerate(self.picks):
            if picks:
                lines.append(f"seat {seat} picked: {' '.join(CARDS[a].code for a in picks)}")
        for k, trick in enumerate(hand.tricks):
            lines.append(f"trick {k + 1}: {_plays(trick.plays)} -> {trick.winner}")
        if hand.trick is not None and hand.trick.plays:
            lines.append(f"now: {_plays(hand.trick.plays)}")
        lines.append("points taken: " + " ".join(map(str, hand.points_taken())))
        if hand.phase is Phase.DONE:
            lines.append("points: " + " ".join(map(str, hand.points())))
        return "\n".join(lines)


def _text(cards: Sequence[Card]) -> str:
    return " ".join(c.code for c in cards) or "-"


def _plays(plays: Sequence[tuple[int, Card]]) -> str:
    return " ".join(f"{seat}:{card.code}" for seat, card in plays)


class Encoding:
    """A seat's view as a flat vector and as text, for one set of rules.

    The observation (what the seat sees now) is, in order: the seat (one-hot, ``players``);
    the pass direction (one-hot: hold, left, across, right); three flags (the seat must pick
    its pass, hearts are broken, the seat plays now); per card number (52 each): the cards in
    hand (a count: 0, 1 or 2 with two packs), the cards picked or passed, the cards received,
    every card played so far; the open trick (52 per seat, by absolute seat); its leader
    (one-hot); the held-over cards (52); the points each seat has taken this hand divided by
    the hand's penalty total; the cards each seat has left divided by the hand size.

    The information state is the observation followed by every trick of the hand, finished or
    not, in order: its leader (one-hot) and the card each seat played in it (52 per seat) —
    everything the seat has seen, in the order it saw it.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        n = self.players = rules.players
        self.tricks = rules.hand_size()
        self.observation_size = n + 4 + 3 + 4 * NUM_CARDS + n * NUM_CARDS + n + NUM_CARDS + 2 * n
        self.trick_size = n + n * NUM_CARDS
        self.information_size = self.observation_size + self.tricks * self.trick_size
        self.total = rules.total_points() or 1
        _remember(rules)

    # --- vectors ---------------------------------------------------------------------------

    def observation(
        self, seat: int, view: SeatView | None, picks: Sequence[int] = (),
        dealt: Sequence[int] = (), direction: PassDirection | None = None, *, out: Any = None,
    ) -> Any:
        """The observation vector; ``view`` None while chance deals (then ``dealt`` are the
        seat's cards so far and ``direction`` the pass, if drawn). Written into ``out`` when
        given (zeros, at least ``observation_size`` long, such as a numpy array), which is
        returned; else into a new list."""
        n = self.players
        if out is None:
            out = [0.0] * self.observation_size
        out[seat] = 1.0
        at = n
        shown = view.pass_direction if view is not None else direction
        if shown is not None:
            out[at + _DIRECTION_ID[shown]] = 1.0
        at += 4
        if view is None:
            at += 3
            for a in dealt:
                out[at + a] += 1.0
            return out
        out[at] = float(view.must_pass)
        out[at + 1] = float(view.hearts_broken)
        out[at + 2] = float(view.to_play == seat)
        at += 3
        for c in view.hand:
            out[at + card_id(c)] += 1.0
        at += NUM_CARDS
        for a in (picks if view.must_pass else [card_id(c) for c in view.passed]):
            out[at + a] += 1.0
        at += NUM_CARDS
        for c in view.received:
            out[at + card_id(c)] += 1.0
        at += NUM_CARDS
        trick = view.trick
        for record in (*view.tricks, *((trick,) if trick is not None else ())):
            for _, c in record.plays:
                out[at + card_id(c)] += 1.0
        at += NUM_CARDS
        if trick is not None:
            for s, c in trick.plays:
                out[at + s * NUM_CARDS + card_id(c)] = 1.0
        at += n * NUM_CARDS
        if trick is not None and trick.plays:
            out[at + trick.leader] = 1.0
        at += n
        for c in view.held_over:
            out[at + card_id(c)] += 1.0
        at += NUM_CARDS
        total = self.total
        for s, p in enumerate(view.points_taken):
            out[at + s] = p / total
        at += n
        for s, k in enumerate(view.cards_left):
            out[at + s] = k / self.tricks
        return out

    def information(
        self, seat: int, view: SeatView | None, picks: Sequence[int] = (),
        dealt: Sequence[int] = (), direction: PassDirection | None = None, *, out: Any = None,
    ) -> Any:
        """The information-state vector (the observation, then the hand's tricks so far);
        ``out`` as for :meth:`observation`, ``information_size`` long."""
        if out is None:
            out = [0.0] * self.information_size
        self.observation(seat, view, picks, dealt, direction, out=out)
        if view is None:
            return out
        trick = view.trick
        records = (*view.tricks, *((trick,) if trick is not None and trick.plays else ()))
        n = self.players
        for k, record in enumerate(records):
            at = self.observation_size + k * self.trick_size
            out[at + record.leader] = 1.0
            for s, c in record.plays:
                out[at + n + s * NUM_CARDS + card_id(c)] = 1.0
        return out

    # --- text ------------------------------------------------------------------------------

    def text(
        self, seat: int, view: SeatView | None, picks: Sequence[int] = (),
        dealt: Sequence[int] = (), direction: PassDirection | None = None,
        *, history: bool = True,
    ) -> str:
        """The seat's view as text: with ``history`` every trick (information state), without
        it the cards played so far and the open trick (observation)."""
        shown = view.pass_direction if view is not None else direction
        head = f"seat {seat} of {self.players}; pass {shown or '?'}"
        if view is None:
            cards = sorted(dealt)
            return f"{head}\ndealt so far: {' '.join(CARDS[a].code for a in cards) or '-'}"
        lines = [head, f"hand: {_text(view.hand)}"]
        if view.must_pass:
            lines.append(f"picked: {' '.join(CARDS[a].code for a in sorted(picks)) or '-'}")
        elif view.passed:
            lines.append(f"passed: {_text(sorted(view.passed, key=card_id))}")
        if view.received:
            lines.append(f"received: {_text(sorted(view.received, key=card_id))}")
        if history:
            for k, record in enumerate(view.tricks):
                lines.append(f"trick {k + 1}: {_plays(record.plays)} -> {record.winner}")
        else:
            played = sorted(
                (card_id(c) for r in view.tricks for _, c in r.plays)
            )
            lines.append(f"played: {' '.join(CARDS[a].code for a in played) or '-'}")
        if view.trick is not None and view.trick.plays:
            lines.append(f"now: {_plays(view.trick.plays)}")
        if view.held_over:
            lines.append(f"held over: {_text(view.held_over)}")
        lines.append("points taken: " + " ".join(map(str, view.points_taken)))
        lines.append("cards left: " + " ".join(map(str, view.cards_left)))
        if view.hearts_broken:
            lines.append("hearts broken")
        if view.hand_points:
            lines.append("points: " + " ".join(map(str, view.hand_points)))
        return "\n".join(lines)


T = TypeVar("T")


def resample_actions(
    table: Table,
    seat: int,
    rng: random.Random,
    build: Callable[[list[int]], T],
    *,
    tries: int = 500,
) -> T:
    """A world ``seat`` cannot tell from ``table``: the same view for ``seat``, the other
    seats' hidden cards drawn again. Returns ``build(actions)`` for the first drawn world
    whose actions (chance's included, from the start) ``build`` accepts; ``build`` raises
    ValueError for a world the rules refuse, and a new one is drawn.

    Hidden cards are drawn at random among the cards ``seat`` has not seen, keeping what the
    seat knows: its own cards, its pass (held by the receiver until played), what it received
    (from the passer), every card played and by whom, each suit a seat has shown it lacks,
    and the first lead (nobody held a lower club; no seat before the leader held that card).
    A world that still breaks a rule (a seat that led hearts before they were broken holding
    another suit, say) is refused by ``build`` and drawn again; so is one whose actions, card
    numbers without seats, would be taken by other seats than in ``table``, which ``build``
    must check (the OpenSpiel adapter compares the seat's information state).
    """
    last: ValueError | None = None
    for _ in range(tries):
        actions = _draw_world(table, seat, rng)
        if actions is None:
            continue
        try:
            return build(actions)
        except ValueError as exc:
            last = exc
    raise RuntimeError(f"no world consistent with seat {seat}'s view was found ({last})")


def _draw_world(table: Table, seat: int, rng: random.Random) -> list[int] | None:
    rules, n = table.rules, table.players
    drawn = table.direction if table.drew_direction else None
    prefix = [] if drawn is None else [_DIRECTION_ID[drawn]]
    hand = table.hand
    if hand is None:
        own = table.dealt_to(seat)
        pool = list((table.deck_counts - Counter(own)).elements())
        rng.shuffle(pool)
        limit = n * rules.hand_size()
        out = []
        for k in range(len(table.dealt)):
            out.append(table.dealt[k] if k < limit and k % n == seat else pool.pop())
        return prefix + out
    direction = hand.pass_direction
    view = hand.view(seat)
    size = rules.hand_size()
    own_now = _counts(view.hand)
    records = [*view.tricks, *((view.trick,) if view.trick is not None else ())]
    plays = [(s, card_id(c)) for r in records for s, c in r.plays]
    played_by: list[Counter[int]] = [Counter() for _ in range(n)]
    for s, a in plays:
        played_by[s][a] += 1
    passing_now = hand.phase is Phase.PASS
    fixed: list[Counter[int]] = [Counter() for _ in range(n)]
    my_pass = _counts(view.passed)
    if not passing_now and direction is not PassDirection.HOLD:
        target = rules.pass_target(seat, direction)
        fixed[target] = my_pass - played_by[target]
    voids: list[set[int]] = [set() for _ in range(n)]
    for r in records:
        if r.plays:
            led = _SUIT_INDEX[r.plays[0][1].suit]
            for s, c in r.plays[1:]:
                if _SUIT_INDEX[c.suit] != led:
                    voids[s].add(led)
    # the first card led is the lowest club held when play began, by the first seat in seat
    # order holding it: nobody held a lower club, and no seat before the leader held that card
    forbidden: list[set[int]] = [set() for _ in range(n)]
    if records and records[0].plays:
        leader, first = records[0].plays[0]
        opening = card_id(first)
        if opening % 4 == 0:
            lower = set(range(0, opening, 4))
            for s in range(n):
                forbidden[s] = lower | ({opening} if s < leader else set())
    known_kitty = _counts(view.kitty)
    pool_counts = table.deck_counts - own_now - known_kitty
    for s in range(n):
        pool_counts = pool_counts - played_by[s] - fixed[s]
    capacity = [view.cards_left[s] - sum(fixed[s].values()) for s in range(n)]
    capacity[seat] = 0
    kitty_left = view.kitty_size - sum(known_kitty.values())
    pool = list(pool_counts.elements())
    if sum(capacity) + kitty_left != len(pool) or min(capacity) < 0:
        return None
    rng.shuffle(pool)

    def barred(a: int, s: int) -> bool:
        return a % 4 in voids[s] or a in forbidden[s]

    pool.sort(key=lambda a: sum(1 for s in range(n) if barred(a, s)), reverse=True)
    assigned: list[Counter[int]] = [Counter() for _ in range(n)]
    kitty = list(known_kitty.elements())
    for a in pool:
        options = [s for s in range(n) if capacity[s] > 0 and not barred(a, s)]
        weights = [capacity[s] for s in options]
        if kitty_left:
            options.append(-1)
            weights.append(kitty_left)
        if not options:
            return None
        dest = rng.choices(options, weights)[0]
        if dest == -1:
            kitty.append(a)
            kitty_left -= 1
        else:
            assigned[dest][a] += 1
            capacity[dest] -= 1
    now = [own_now if s == seat else fixed[s] + assigned[s] for s in range(n)]
    after = [now[s] + played_by[s] for s in range(n)]
    passes: list[list[int]] = [[] for _ in range(n)]
    if passing_now:
        dealt = after
        for s in range(n):
            count = len(table.picks[s]) if s != seat else 0
            if s == seat:
                passes[s] = list(table.picks[s])
            elif count:
                passes[s] = rng.sample(list(dealt[s].elements()), count)
    elif direction is not PassDirection.HOLD:
        given: list[Counter[int]] = [Counter() for _ in range(n)]
        for s in range(n):
            receiver = rules.pass_target(s, direction)
            if s == seat:
                chosen = list(table.picks[seat]) or list(my_pass.elements())
            elif receiver == seat:
                chosen = list(_counts(view.received).elements())
            else:
                chosen = rng.sample(list(after[receiver].elements()), rules.pass_count)
            passes[s] = chosen
            given[s] = Counter(chosen)
        dealt = []
        for s in range(n):
            giver = next(g for g in range(n) if rules.pass_target(g, direction) == s)
            if given[giver] - after[s]:
                return None
            dealt.append(after[s] - given[giver] + given[s])
    else:
        dealt = after
    rows = []
    for s in range(n):
        cards = list(dealt[s].elements())
        if len(cards) != size:
            return None
        rng.shuffle(cards)
        rows.append(cards)
    deal = [rows[s][k] for k in range(size) for s in range(n)] + kitty
    actions = prefix + deal
    for s in range(n):
        actions.extend(passes[s])
    actions.extend(a for _, a in plays)
    return actions
