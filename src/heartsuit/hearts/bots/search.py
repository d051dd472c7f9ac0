"""The search player: information-set search over worlds sampled from the seat's view.

:class:`SearchBot` never sees a hidden card. For each decision it reads what its seat knows
(:mod:`heartsuit.hearts.bots.sampling`), deals the unseen cards into many consistent worlds, and
judges each legal card by guided playouts on the fast path (:mod:`heartsuit.hearts.fast_policy`),
scored with the table's real rules (moon, J♦, spade penalties) and, near the end of a match, by
what the hand does to the match (the exactly-100 reset, who wins). Two algorithms:

* ``"pimc"`` — determinized sampling (perfect-information Monte Carlo): every sampled world
  plays every legal card, each followed by a guided playout; the best mean wins. Cards worth
  the same (:func:`equivalent_groups`) are played once. Optionally (``moon_plans``, off), when
  the hand might shoot the moon, each card is also played out with this seat going for the
  moon, and a card is worth the better of the two plans.
* ``"ismcts"`` — single-observer information-set MCTS: one tree of this seat's and the others'
  plays, a fresh world per iteration, UCB with availability counts, guided rollouts.

Budgets: ``playouts`` (deterministic: the same seed and view give the same card) and/or
``seconds`` of CPU time (``time.process_time``; machine-dependent). Every random choice comes
from generators seeded by the bot's seed and the decision's view, never from earlier calls.

Cancellation (two packs, a kitty, held-over tricks) is searched by PIMC on the two-pack path
(:mod:`heartsuit.hearts.fast_cancel`'s guided playouts) with ``cancel_share`` of the playout
budget; its passes (when the table passes) are :class:`~heartsuit.hearts.bots.heuristic.
HeuristicBot`'s.
"""

from __future__ import annotations

import math
import operator
import random
import time
from dataclasses import dataclass, field
from typing import Literal

from heartsuit.cards import Card, Suit
from heartsuit.hearts.bots.heuristic import HeuristicBot
from heartsuit.hearts.bots.passing import PassConfig, choose_pass_by_playouts
from heartsuit.hearts.bots.sampling import Knowledge, Sampler, knowledge
from heartsuit.hearts.bots.utility import MOON_ALERT, Scorer
from heartsuit.hearts.fast import FastState, Table, position_from_view
from heartsuit.hearts.fast_cancel import (
    CancelState,
    CancelTable,
    cancel_position_from_view,
    guided_playout,
)
from heartsuit.hearts.fast_policy import play_world, policy_out
from heartsuit.hearts.fast_tables import BIT, JACK_MARK, card_index, index_card, split_suits
from heartsuit.hearts.view import SeatView
from heartsuit.shuffle import Rng, derive_seed

Algorithm = Literal["pimc", "ismcts"]


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """How hard the search works and how it plays out."""

    algorithm: Algorithm = "pimc"
    playouts: int | None = 1000  # playouts per decision (None: only the time budget)
    seconds: float | None = None  # CPU seconds per decision (None: only the playout budget)
    noise: float = 0.1  # chance that a guided playout player picks any legal card
    exploration: float = 0.7  # ISMCTS: UCB constant, on utilities scaled to about -1..0
    # PIMC: also judge each card with this seat shooting the moon (off: measured no better)
    moon_plans: bool = False
    # PIMC: judge one card of each set of equivalent cards (see :func:`equivalent_groups`)
    merge_equivalent: bool = True
    # worlds weigh what the other seats' plays suggest (sampling.unlikely_cards)
    infer: bool = True
    # with ``infer``: worlds also weigh what their ducks and discards suggest (play_hints)
    infer_plays: bool = False
    # Cancellation: search with guided two-pack playouts (False: play like HeuristicBot), on
    # this share of the playout budget (a two-pack playout costs several one-pack ones)
    cancellation: bool = True
    cancel_share: float = 0.2
    # guided playouts: lead low spades to flush Q♠ out (fast_policy.policy_out's ``flush``)
    flush_queen: bool = False
    # guided playouts: lead the suit the others can best beat (``policy_out``'s ``safe_leads``)
    safe_leads: bool = False
    # PIMC: after ``prune_after`` worlds, and then at checks spaced by ``prune_every`` worlds or
    # a quarter more, drop each card whose paired loss to the best card so far exceeds
    # ``prune_z`` standard errors; stop when one is left (0: off, every card plays every
    # world). Never more worlds than without pruning.
    prune_z: float = 0.0
    prune_after: int = 24
    prune_every: int = 8
    # PIMC with pruning, when positive: also stop at a check when every live card is within
    # this many points of the best one, counting ``close_z`` standard errors of the paired
    # difference (the choice among them is worth less than that; 0: off)
    prune_close: float = 0.0
    close_z: float = 2.0
    # PIMC: when one other seat may be running for the moon (:func:`moon_threat`), this share
    # of the worlds is played out with that seat shooting and only this seat defending (beat
    # it, feed it nothing), so a world where it can run the rest counts as a moon unless this
    # seat's own play stops it; and the plain rules of :func:`guarded_moves` apply (0: off)
    moon_guard: float = 0.0
    guard_points: int = 1
    # PIMC with ``moon_plans``, when positive: plan a moon whenever nobody else has points and
    # the hand holds a quarter of high cards (not only a third), play the plan out against
    # seats that defend only once the moon shows (``moon_at`` points), and go for it whenever
    # its best card lands the moon in this share of the worlds: the arena's moon hunter
    moon_hunt: float = 0.0
    passing: PassConfig = field(default_factory=PassConfig)


class Budget:
    """Counts playouts and CPU time against a :class:`SearchConfig`'s limits."""

    __slots__ = ("deadline", "limit", "used")

    def __init__(self, playouts: int | None, seconds: float | None) -> None:
        self.limit = playouts
        self.deadline = time.process_time() + seconds if seconds is not None else None
        self.used = 0

    def spent(self) -> bool:
        if self.limit is not None and self.used >= self.limit:
            return True
        return self.deadline is not None and time.process_time() >= self.deadline


def moon_threat(view: SeatView, least: int = 1) -> int:
    """The other seat that may be running for the moon, from the public play, or -1.

    A seat is a threat while it has taken every penalty point of the hand so far and at least
    ``least`` of them, or while it leads a heart above the jack to the trick in progress and
    nobody else has points (a shooter cashing its hearts). Once two seats have points nobody
    can take them all, so there is none.
    """
    taken = view.points_taken
    takers = [seat for seat, points in enumerate(taken) if points > 0]
    if len(takers) > 1:
        return -1
    if takers:
        seat = takers[0]
        if seat != view.seat and taken[seat] >= least:
            return seat
    trick = view.trick
    if trick is not None and trick.plays:
        seat, lead = trick.plays[0]
        if (
            seat != view.seat
            and lead.suit is Suit.HEARTS
            and lead.rank > 11
            and takers in ([], [seat])
        ):
            return seat
    return -1


def moon_hand(hand: tuple[Card, ...] | list[Card]) -> bool:
    """A hand a moon hunter plays for the moon from the pass: five cards above the jack, or
    four with A♥ and K♥."""
    high = sum(1 for c in hand if c.rank >= 12)
    hearts = {c.rank for c in hand if c.suit is Suit.HEARTS}
    return high >= 5 or (high >= 4 and {13, 14} <= hearts)


def guarded_moves(view: SeatView, legal: list[Card], threat: int) -> list[Card]:
    """The legal cards left to search while ``threat`` may be running for the moon.

    Plain rules of moon defence, which sampled worlds judge poorly (their defenders see every
    card): when the threat is winning a trick in progress that carries points (or is of
    hearts), beat it if possible, taking the points on purpose; otherwise give it no points;
    and when not following suit, keep the top heart as a stopper. Each rule applies only while
    it leaves some card to play.
    """
    trick = view.trick
    rules = view.rules
    out = legal
    if trick is not None and trick.plays:
        led = trick.plays[0][1].suit
        best_seat, best = trick.plays[0]
        for seat, card in trick.plays[1:]:
            if card.suit is led and card.rank > best.rank:
                best_seat, best = seat, card
        if best_seat == threat:
            points = sum(rules.card_points(c) for _, c in trick.plays)
            over = [c for c in out if c.suit is led and c.rank > best.rank]
            if over and (points > 0 or led is Suit.HEARTS):
                return over
            clean = [c for c in out if rules.card_points(c) <= 0]
            out = clean or out
        if led is not None and all(c.suit is not led for c in out):
            hearts = [c for c in out if c.suit is Suit.HEARTS]
            if hearts:
                top = max(hearts, key=lambda c: c.rank)
                out = [c for c in out if c != top] or out
    return out


def decision_seed(seed: int, view: SeatView, what: str) -> int:
    """A seed for one decision: the bot's seed and what the view shows (not the call count)."""
    played = sum(len(t.plays) for t in view.tricks) + (len(view.trick.plays) if view.trick else 0)
    hand = "".join(c.code for c in view.hand)
    return derive_seed(f"{what}/{seed}/{view.seat}/{view.hand_number}/{played}/{hand}", 0)


def defended(view: SeatView, legal: list[Card], config: SearchConfig) -> list[Card]:
    """The ``legal`` cards the search may choose from: with ``config.moon_guard`` and a seat
    running for the moon (:func:`moon_threat`), those :func:`guarded_moves` allows."""
    if config.moon_guard > 0:
        threat = moon_threat(view, config.guard_points)
        if threat >= 0:
            return guarded_moves(view, legal, threat)
    return legal


def compared_moves(search: _Search, legal: list[Card]) -> list[int]:
    """The moves PIMC compares for ``legal``: one card of each set of equivalent cards when
    the search merges them (:func:`equivalent_groups`)."""
    moves = [card_index(c) for c in legal]
    if search.config.merge_equivalent:
        moves = [group[0] for group in equivalent_groups(search.table, search.view, moves)]
    return moves


def equivalent_groups(table: Table, view: SeatView, moves: list[int]) -> list[list[int]]:
    """The legal ``moves`` in sets of cards that are worth the same, lowest card first.

    Two cards of one suit in the seat's hand are equivalent when they carry the same points,
    break hearts alike and are alike barred (or not) from the first trick, and no card that
    another seat may still play lies between them: every rank in between is in this hand or in
    a finished trick (a card on the trick in progress counts as still in play). Whichever of
    them is played, every other seat's cards beat or lose to it alike, so the rest of the hand
    can go exactly the same way; searching one of them is enough.
    """
    gone = sum(1 << card_index(c) for c in view.hand)
    for record in view.tricks:
        gone |= sum(1 << card_index(c) for _, c in record.plays)
    groups: list[list[int]] = []
    last = -2
    for move in sorted(moves):
        if groups and move // 13 == last // 13:
            suit, r = divmod(move, 13)
            head = groups[-1][0] % 13
            between = ((1 << move) - 1) & ~((1 << (last + 1)) - 1)
            if (
                between & ~gone == 0
                and table.suit_tally[suit][r] == table.suit_tally[suit][head]
                and table.suit_breaks[suit][r] == table.suit_breaks[suit][head]
                and (table.first_banned[suit] >> r & 1) == (table.first_banned[suit] >> head & 1)
            ):
                groups[-1].append(move)
                last = move
                continue
        groups.append([move])
        last = move
    return groups


class SearchBot:
    """Sampled-world search; see the module docstring. ``seed`` drives every random choice."""

    name = "search"

    def __init__(self, seed: int = 0, config: SearchConfig | None = None) -> None:
        self.seed = seed
        self.config = config if config is not None else SearchConfig()
        self.fallback = HeuristicBot(seed)
        self.last_playouts = 0  # playouts spent on the last decision (for benchmarks)

    # --- passing ---------------------------------------------------------------------------

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        if view.rules.packs != 1:
            return self.fallback.choose_pass(view)
        if self.config.moon_hunt > 0 and moon_hand(view.hand):
            # a hunter keeps its high cards: it passes its lowest ones
            low = sorted(view.hand, key=lambda c: (c.rank, c.suit.value))
            return tuple(low[: view.rules.pass_count])
        rng = random.Random(decision_seed(self.seed, view, "pass"))
        chosen, used = choose_pass_by_playouts(view, self.config.passing, rng)
        self.last_playouts = used
        return chosen

    # --- playing ---------------------------------------------------------------------------

    def choose_play(self, view: SeatView) -> Card:
        legal = list(dict.fromkeys(view.legal))
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal play: it is not its turn")
        self.last_playouts = 0
        if len(legal) == 1:
            return legal[0]
        seed = decision_seed(self.seed, view, "play")
        if view.rules.packs != 1:
            if not self.config.cancellation:
                return self.fallback.choose_play(view)
            cancel = _CancelSearch(view, self.config, seed)
            index = cancel.pimc(sorted(card_index(c) for c in legal))
            self.last_playouts = cancel.budget.used
            return index_card(index)
        legal = defended(view, legal, self.config)
        if len(legal) == 1:
            return legal[0]
        search = _Search(view, self.config, seed)
        if self.config.algorithm == "ismcts":
            index = search.ismcts([card_index(c) for c in legal])
        else:
            moves = compared_moves(search, legal)
            index = search.pimc(moves) if len(moves) > 1 else moves[0]
        self.last_playouts = search.budget.used
        return index_card(index)


class _Search:
    """One decision's worth of state: the knowledge, the base position, generators, budget."""

    def __init__(self, view: SeatView, config: SearchConfig, seed: int) -> None:
        self.view = view
        self.config = config
        self.me = view.seat
        self.table = Table.of(view.rules)
        self.know: Knowledge = knowledge(view, soft=config.infer, hints=config.infer_plays)
        self.sampler = Sampler(self.know)
        self.rng = Rng(seed)
        self.rnd = random.Random(seed).random
        self.scorer = Scorer(self.table, view.scores)
        self.budget = Budget(config.playouts, config.seconds)
        self.own = split_suits(sum(1 << card_index(c) for c in view.hand))
        first = self.world_masks()
        hidden = [[index_card(i) for i in first[s]] for s in range(self.table.players)]
        self.base = FastState(self.table, position_from_view(view, hidden))
        total = self.table.moon_total
        self.moon_at = max(1, int(total * MOON_ALERT)) if total > 0 else 0
        self.pending: list[list[int]] | None = first
        self.threat = moon_threat(view, config.guard_points) if config.moon_guard > 0 else -1

    def world_masks(self) -> list[list[int]]:
        return self.sampler.deal(self.rng)

    def next_hands(self) -> list[int]:
        """A fresh world's split suit masks (the first is the world the base was built on)."""
        world = self.pending if self.pending is not None else self.world_masks()
        self.pending = None
        bit = BIT.__getitem__
        hands: list[int] = []
        for seat in range(self.table.players):
            if seat == self.me:
                hands += self.own
            else:
                hands += split_suits(sum(map(bit, world[seat])))
        return hands

    def next_state(self) -> FastState:
        """A fresh world as a stepping state."""
        state = self.base.copy()
        state.hands = self.next_hands()
        return state

    def rollout(self, state: FastState, shooter: int = -1) -> list[float]:
        hands = state.hands[:]
        tallies = state.tallies[:]
        policy_out(
            self.table,
            hands,
            tallies,
            state.leader,
            tuple(state.trick),
            state.broken,
            state.first,
            self.rnd,
            self.config.noise,
            shooter,
            self.moon_at,
            flush=self.config.flush_queen,
            safe_leads=self.config.safe_leads,
        )
        self.budget.used += 1
        return self.scorer.utilities(tallies)

    def moon_possible(self) -> bool:
        """Worth planning a moon: nobody else has points, and the hand is strong or scoring."""
        view = self.view
        if not self.config.moon_plans or self.table.moon_total <= 0:
            return False
        if any(p > 0 for s, p in enumerate(view.points_taken) if s != self.me):
            return False
        high = sum(1 for c in view.hand if c.rank >= 12)
        share = 5 if self.config.moon_hunt > 0 else 3
        return view.points_taken[self.me] > 0 or share * high >= len(view.hand)

    def shooter(self, world: int) -> int:
        """The seat running for the moon in the playouts of the ``world``-th world (-1: none):
        the threat (:func:`moon_threat`) in a ``moon_guard`` share of the worlds."""
        if self.threat < 0:
            return -1
        share = self.config.moon_guard
        return self.threat if int(world * share) != int((world - 1) * share) else -1

    # --- determinized sampling ---------------------------------------------------------------

    def pimc(self, moves: list[int]) -> int:
        plans = (-1, self.me) if self.moon_possible() else (-1,)
        if self.config.prune_z > 0 and len(plans) == 1:
            return self.pruned_pimc(moves)
        sums = [[0.0] * len(moves) for _ in plans]
        table = self.table
        base = self.base
        config = self.config
        budget = self.budget
        utilities = self.scorer.utilities
        rnd = self.rnd
        me = self.me
        starts = self.starts(moves)
        moons = [0] * len(moves)  # per move: moon-plan playouts in which this seat shot
        everything = list(range(len(moves)))
        worlds = 0
        while worlds == 0 or not budget.spent():
            hands = self.next_hands()
            worlds += 1
            guard = self.shooter(worlds)
            if len(plans) == 1:
                got = self.play_world(hands, starts, everything, guard)
                budget.used += len(moves)
                for k, value in enumerate(got):
                    sums[0][k] += value
                continue
            for k, (slot, bit, after, broken) in enumerate(starts):
                for p, plan in enumerate(plans):
                    shooter = plan if plan >= 0 else guard
                    # a hunter's own moon plan: the others see it coming only at moon_at
                    defend_at = self.moon_at if plan >= 0 and config.moon_hunt > 0 else 0
                    out = hands[:]
                    out[slot] ^= bit
                    tallies = base.tallies[:]
                    policy_out(
                        table,
                        out,
                        tallies,
                        base.leader,
                        after,
                        broken,
                        base.first,
                        rnd,
                        config.noise,
                        shooter,
                        self.moon_at,
                        flush=config.flush_queen,
                        safe_leads=config.safe_leads,
                        defend_at=defend_at,
                    )
                    budget.used += 1
                    sums[p][k] += utilities(tallies)[me]
                    if plan >= 0 and tallies[me] % JACK_MARK == table.moon_total:
                        moons[k] += 1
        if len(plans) > 1 and config.moon_hunt > 0:
            best = max(range(len(moves)), key=lambda k: (moons[k], sums[1][k]))
            if moons[best] >= config.moon_hunt * worlds:
                return moves[best]
        best = max(range(len(moves)), key=lambda k: max(s[k] for s in sums))
        return moves[best]

    def starts(self, moves: list[int]) -> list[tuple[int, int, tuple[int, ...], bool]]:
        """Each move as a playout's start: this seat's card off its hand and onto the trick
        (a trick it completes is passed whole: policy_out settles it as FastState.play does)."""
        base = self.base
        me = self.me
        trick = tuple(base.trick)
        breaks = self.table.breaks
        return [
            (me * 4 + move // 13, 1 << (move % 13), (*trick, move), base.broken or breaks[move])
            for move in moves
        ]

    def play_world(
        self,
        hands: list[int],
        starts: list[tuple[int, int, tuple[int, ...], bool]],
        moves: list[int],
        shooter: int,
    ) -> list[float]:
        """:func:`~heartsuit.hearts.fast_policy.play_world` of this search: each of ``moves``
        (indices into ``starts``) played out in the sampled world ``hands``, ``shooter``
        running for the moon (-1: nobody) against this seat alone; this seat's utilities."""
        config = self.config
        base = self.base
        me = self.me
        return play_world(
            self.table,
            hands,
            starts,
            moves,
            base.tallies,
            base.leader,
            base.first,
            self.rnd,
            config.noise,
            shooter,
            self.moon_at,
            config.flush_queen,
            config.safe_leads,
            me,
            not self.scorer.endgame,
            self.scorer.utilities,
            me if shooter >= 0 else -1,
        )

    def pruned_pimc(self, moves: list[int]) -> int:
        """PIMC that drops the cards that are clearly worse as the worlds come in.

        Every live card plays every world, so two cards are compared world by world (paired):
        a card is dropped when its mean loss to the best card so far is more than
        ``prune_z`` standard errors of that loss. The search stops when one card is left, when
        every live card is within ``prune_close`` points of the best one (``close_z`` errors
        allowed), when the playout budget is spent, or after as many worlds as it would deal
        without pruning.
        """
        config = self.config
        budget = self.budget
        starts = self.starts(moves)
        values: list[list[float]] = [[] for _ in moves]
        alive = list(range(len(moves)))
        limit = budget.limit
        most = -(-limit // len(moves)) if limit is not None else None
        worlds = 0
        check = config.prune_after
        while len(alive) > 1 and (worlds == 0 or not budget.spent()):
            if most is not None and worlds >= most:
                break
            hands = self.next_hands()
            worlds += 1
            shooter = self.shooter(worlds)
            got = self.play_world(hands, starts, alive, shooter)
            budget.used += len(alive)
            for k, value in zip(alive, got, strict=True):
                values[k].append(value)
            if worlds == check:
                alive, close = _survivors(values, alive, worlds, config)
                if close:
                    break
                # checks grow apart (each costs a pass over every world so far)
                check = max(check + config.prune_every, check * 5 // 4)
        # every live card has played every world so far: the best sum is the best mean
        return moves[max(alive, key=lambda k: sum(values[k]))]

    # --- information-set MCTS ----------------------------------------------------------------

    def ismcts(self, moves: list[int]) -> int:
        root = _Node()
        scale = 1.0 / max(self.table.moon_total, 1)
        c = self.config.exploration
        rnd = self.rnd
        iterations = 0
        while iterations == 0 or not self.budget.spent():
            iterations += 1
            state = self.next_state()
            node = root
            path: list[tuple[_Node, int]] = []
            while not state.done:
                legal = state.legal()
                untried = []
                options = []
                m = legal
                while m:
                    low = m & -m
                    i = low.bit_length() - 1
                    m ^= low
                    known = node.children.get(i)
                    if known is None:
                        untried.append(i)
                    else:
                        known.avail += 1
                        options.append((i, known))
                mover = state.to_play
                if untried:
                    i = untried[int(rnd() * len(untried))]
                    fresh = node.children[i] = _Node()
                    fresh.avail = 1
                    state.play(i)
                    path.append((fresh, mover))
                    break
                best_value = -math.inf
                chosen = node
                for i_opt, opt in options:
                    # UCB over availability: a card is compared with the times it could be played
                    value = opt.total / opt.visits + c * math.sqrt(
                        math.log(opt.avail + 1) / opt.visits
                    )
                    if value > best_value:
                        best_value, i, chosen = value, i_opt, opt
                state.play(i)
                path.append((chosen, mover))
                node = chosen
            if state.done:
                gains = self.scorer.utilities(state.tallies)
                self.budget.used += 1
            else:
                gains = self.rollout(state)
            root.visits += 1
            for child, mover in path:
                child.visits += 1
                child.total += gains[mover] * scale
        visits = [root.children[m].visits if m in root.children else 0 for m in moves]
        return moves[max(range(len(moves)), key=visits.__getitem__)]


def _survivors(
    values: list[list[float]], alive: list[int], worlds: int, config: SearchConfig
) -> tuple[list[int], bool]:
    """The live cards not clearly worse than the best one (each has played all ``worlds``),
    and whether they are all close to it (``config.prune_close``: the search may stop)."""
    best = max(alive, key=lambda k: sum(values[k]))
    top = values[best]
    z = config.prune_z
    near = config.prune_close
    close = near > 0
    keep = []
    for k in alive:
        if k == best:
            keep.append(k)
            continue
        diffs = list(map(operator.sub, top, values[k]))
        mean = sum(diffs) / worlds
        var = (sum(map(operator.mul, diffs, diffs)) - mean * mean * worlds) / (worlds - 1)
        # a card that lost every world by the same amount (var 0) is clearly worse too
        if mean <= 0 or mean * mean * worlds <= z * z * var:
            keep.append(k)
            # its loss to the best is at most ``near``, allowing ``close_z`` standard errors
            if close and mean + config.close_z * math.sqrt(max(var, 0.0) / worlds) >= near:
                close = False
    return keep, close


class _CancelSearch:
    """PIMC for Cancellation: worlds with a kitty, guided playouts on the two-pack path."""

    def __init__(self, view: SeatView, config: SearchConfig, seed: int) -> None:
        self.view = view
        self.config = config
        self.me = view.seat
        self.table = CancelTable.of(view.rules)
        self.know: Knowledge = knowledge(view, soft=False)
        self.sampler = Sampler(self.know)
        self.rng = Rng(seed)
        self.rnd = random.Random(seed).random
        self.scorer = Scorer(self.table, view.scores)
        share = config.cancel_share
        playouts = None if config.playouts is None else max(1, int(config.playouts * share))
        seconds = None if config.seconds is None else config.seconds
        self.budget = Budget(playouts, seconds)

    def world(self) -> CancelState:
        world = self.sampler.deal(self.rng)
        n = self.table.players
        hidden = [[index_card(i) for i in world[s]] for s in range(n)]
        kitty = self.view.kitty or [index_card(i) for i in world[n]]
        return CancelState(self.table, cancel_position_from_view(self.view, hidden, kitty))

    def pimc(self, moves: list[int]) -> int:
        sums = [0.0] * len(moves)
        worlds = 0
        while worlds == 0 or not self.budget.spent():
            state = self.world()
            worlds += 1
            for k, move in enumerate(moves):
                after = state.copy()
                after.play(move)
                guided_playout(after, self.rnd, self.config.noise)
                self.budget.used += 1
                sums[k] += self.scorer.utilities(after.tallies)[self.me]
        return moves[max(range(len(moves)), key=sums.__getitem__)]


class _Node:
    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0
