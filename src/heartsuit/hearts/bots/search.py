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
import random
import time
from dataclasses import dataclass, field
from typing import Literal

from heartsuit.cards import Card
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
from heartsuit.hearts.fast_policy import policy_out
from heartsuit.hearts.fast_tables import BIT, card_index, index_card, split_suits
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


def decision_seed(seed: int, view: SeatView, what: str) -> int:
    """A seed for one decision: the bot's seed and what the view shows (not the call count)."""
    played = sum(len(t.plays) for t in view.tricks) + (len(view.trick.plays) if view.trick else 0)
    hand = "".join(c.code for c in view.hand)
    return derive_seed(f"{what}/{seed}/{view.seat}/{view.hand_number}/{played}/{hand}", 0)


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
        search = _Search(view, self.config, seed)
        if self.config.algorithm == "ismcts":
            index = search.ismcts([card_index(c) for c in legal])
        else:
            moves = [card_index(c) for c in legal]
            if self.config.merge_equivalent:
                groups = equivalent_groups(search.table, view, moves)
                moves = [group[0] for group in groups]
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
        return view.points_taken[self.me] > 0 or 3 * high >= len(view.hand)

    # --- determinized sampling ---------------------------------------------------------------

    def pimc(self, moves: list[int]) -> int:
        plans = (-1, self.me) if self.moon_possible() else (-1,)
        sums = [[0.0] * len(moves) for _ in plans]
        table = self.table
        base = self.base
        config = self.config
        budget = self.budget
        utilities = self.scorer.utilities
        rnd = self.rnd
        me = self.me
        # each move as the playout's start: this seat's card off its hand and onto the trick
        # (a trick it completes is passed whole: policy_out settles it as FastState.play does)
        trick = tuple(base.trick)
        starts = [
            (
                me * 4 + move // 13,
                1 << (move % 13),
                (*trick, move),
                base.broken or table.breaks[move],
            )
            for move in moves
        ]
        worlds = 0
        while worlds == 0 or not budget.spent():
            hands = self.next_hands()
            worlds += 1
            for k, (slot, bit, after, broken) in enumerate(starts):
                for p, shooter in enumerate(plans):
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
                    )
                    budget.used += 1
                    sums[p][k] += utilities(tallies)[me]
        best = max(range(len(moves)), key=lambda k: max(s[k] for s in sums))
        return moves[best]

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
