"""Choosing a pass by evaluation: candidate passes judged by guided playouts of the whole hand.

A pass is worth what the hand is worth after it, so each candidate is played out: the other
seats' cards are dealt at random from the cards this seat does not hold (before the pass nothing
else is known), every other seat passes by a scored rule of thumb (:func:`pass_scores`), the
candidate goes to the seat the direction names (:meth:`Rules.pass_target`), and the hand is
played to the end on the fast path with the guided policy, scored with the table's rules (moon
included) and the match situation. The same worlds serve every candidate (common random
numbers), and successive halving spends most playouts on the close contenders.

The candidates are the passes of the :class:`~heartsuit.hearts.bots.heuristic.HeuristicBot`
and every choice of ``pass_count`` cards among the most passable few by :func:`pass_scores`
(high spades when short of guards, high hearts, high cards of short suits, a short side suit to
void). ``method="heuristic"`` skips the playouts and passes the best-scored cards.
"""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass
from typing import Literal

from heartsuit.cards import Card
from heartsuit.hearts.bots.heuristic import HeuristicBot
from heartsuit.hearts.bots.utility import MOON_ALERT, Scorer
from heartsuit.hearts.fast_policy import policy_out
from heartsuit.hearts.fast_tables import BIT, JACK_MARK, POP, Table, card_index, index_card
from heartsuit.hearts.rules import JACK_OF_DIAMONDS, Rules
from heartsuit.hearts.view import SeatView

GUARDS = 4  # low spades that make Q♠ K♠ A♠ safe to keep (common advice)


@dataclass(frozen=True, slots=True)
class PassConfig:
    method: Literal["playouts", "heuristic"] = "playouts"
    playouts: int = 2000  # playouts for the whole pass decision
    candidates: int = 7  # the most passable cards whose combinations are tried
    noise: float = 0.1  # as SearchConfig.noise


def jack_index(rules: Rules) -> int:
    """The J♦'s index when it is a bonus card in these rules, else -1."""
    return card_index(JACK_OF_DIAMONDS) if rules.jack_of_diamonds else -1


def pass_scores(rules: Rules, hand: list[int]) -> dict[int, float]:
    """How much each card (fast-path index) wants to leave the hand; higher passes first."""
    counts = [0, 0, 0, 0]
    for i in hand:
        counts[i // 13] += 1
    low_spades = sum(1 for i in hand if i // 13 == 3 and i % 13 < 10)
    short_guard = low_spades < GUARDS or rules.spade_penalties
    jack = jack_index(rules)
    out: dict[int, float] = {}
    for i in hand:
        suit, r = divmod(i, 13)
        rank = r + 2
        if suit == 3:
            score = (30.0 if short_guard else -5.0) + rank if rank >= 12 else -10.0 + rank / 10
        elif i == jack:
            score = -30.0  # the J♦ is a bonus: keep it
        else:
            score = rank + (3.0 if suit == 2 else 0.0) + (3.0 if counts[suit] <= 3 else 0.0)
            if suit != 2 and counts[suit] <= 2:
                score += 4.0 - counts[suit]  # a near void: passing it makes a void
        out[i] = score
    return out


def _model_pass(rules: Rules, hand: list[int], count: int) -> list[int]:
    scores = pass_scores(rules, hand)
    return sorted(hand, key=lambda i: -scores[i])[:count]


@functools.cache
def _score_tables(spade_penalties: bool, jack: int) -> tuple[tuple[float, ...], ...]:
    """:func:`pass_scores` as lookups: ``[short_guard][cards in the suit * 52 + index]``."""
    out: list[tuple[float, ...]] = []
    for short_guard in (False, True):
        row = [0.0] * (14 * 52)
        for count in range(14):
            for i in range(52):
                suit, r = divmod(i, 13)
                rank = r + 2
                if suit == 3:
                    score = (
                        (30.0 if short_guard else -5.0) + rank if rank >= 12 else -10.0 + rank / 10
                    )
                elif i == jack:
                    score = -30.0
                else:
                    score = rank + (3.0 if suit == 2 else 0.0) + (3.0 if count <= 3 else 0.0)
                    if suit != 2 and count <= 2:
                        score += 4.0 - count
                row[count * 52 + i] = score
        out.append(tuple(row))
    return tuple(out)


def _model_pass_mask(
    tables: tuple[tuple[float, ...], ...],
    spade_penalties: bool,
    hand: list[int],
    mask: int,
    count: int,
) -> int:
    """:func:`_model_pass` of ``hand`` (whose cards are the 52-bit ``mask``) as a mask: the same
    cards (of equal scores the earlier in ``hand``), read from :func:`_score_tables`."""
    c, d, h, s = mask & 0x1FFF, mask >> 13 & 0x1FFF, mask >> 26 & 0x1FFF, mask >> 39
    short_guard = spade_penalties or POP[s & 0x3FF] < GUARDS
    row = tables[short_guard]
    offsets = (POP[c] * 52, POP[d] * 52, POP[h] * 52, POP[s] * 52)
    scores = [row[offsets[i // 13] + i] for i in hand]
    top = sorted(range(len(hand)), key=scores.__getitem__, reverse=True)[:count]
    return sum([BIT[hand[k]] for k in top])


def candidates(view: SeatView, width: int) -> list[tuple[int, ...]]:
    """Candidate passes as sorted index tuples, the heuristic's first."""
    rules = view.rules
    count = rules.pass_count
    hand = [card_index(c) for c in view.hand]
    scores = pass_scores(rules, hand)
    ranked = sorted(hand, key=lambda i: -scores[i])
    pool = ranked[: max(width, count)]
    heuristic = tuple(sorted(card_index(c) for c in HeuristicBot().choose_pass(view)))
    out = [heuristic]
    seen = {heuristic}
    for combo in itertools.combinations(sorted(pool), count):
        if combo not in seen:
            seen.add(combo)
            out.append(combo)
    return out


def choose_pass_by_playouts(
    view: SeatView, config: PassConfig, rng: random.Random
) -> tuple[tuple[Card, ...], int]:
    """The best candidate pass and the playouts spent (one pack only)."""
    rules = view.rules
    count = rules.pass_count
    if config.method == "heuristic":
        hand = [card_index(c) for c in view.hand]
        return tuple(index_card(i) for i in _model_pass(rules, hand, count)), 0
    pool = candidates(view, config.candidates)
    if len(pool) == 1 or config.playouts <= 0:
        return tuple(index_card(i) for i in pool[0]), 0
    table = Table.of(rules)
    n = rules.players
    me = view.seat
    size = rules.hand_size()
    mine = [card_index(c) for c in view.hand]
    held = set(mine)
    others = [i for i in table.deck if i not in held]
    scorer = Scorer(table, view.scores)
    moon_at = max(1, int(table.moon_total * MOON_ALERT)) if table.moon_total > 0 else 0
    rnd = rng.random
    bit = BIT.__getitem__
    pool_masks = [sum(map(bit, p)) for p in pool]
    targets = [rules.pass_target(giver, view.pass_direction) for giver in range(n)]
    alive = list(range(len(pool)))
    sums = [0.0] * len(pool)
    rounds = max(1, (len(pool) - 1).bit_length())
    used = 0
    tables = _score_tables(rules.spade_penalties, jack_index(rules))
    mine_mask = sum(map(bit, mine))
    to = targets[me]
    lead_bit = 1 << table.lead_index
    total = table.moon_total
    plain = not scorer.endgame  # a hand is worth minus its points (see play_world)
    for _ in range(rounds):
        worlds = max(1, config.playouts // rounds // len(alive))
        for _ in range(worlds):
            rng.shuffle(others)
            # the hands after every other seat's pass, this seat's cards not yet passed (52-bit
            # masks; one pack: every card once, so the passes can be applied in any order)
            after = [0] * n
            after[me] = mine_mask
            k = 0
            for seat in range(n):
                if seat != me:
                    hand = others[k : k + size]
                    k += size
                    mask = sum(map(bit, hand))
                    gone = _model_pass_mask(tables, rules.spade_penalties, hand, mask, count)
                    after[seat] |= mask & ~gone
                    after[targets[seat]] |= gone
            fixed: list[int] = []
            first_leader = 0
            for seat, mask in enumerate(after):
                if mask & lead_bit:
                    first_leader = seat
                fixed += (mask & 0x1FFF, mask >> 13 & 0x1FFF, mask >> 26 & 0x1FFF, mask >> 39)
            for c in alive:
                gift = pool_masks[c]
                mask = after[me] & ~gift
                split = fixed[:]
                split[me * 4 : me * 4 + 4] = (
                    mask & 0x1FFF, mask >> 13 & 0x1FFF, mask >> 26 & 0x1FFF, mask >> 39
                )
                mask = after[to] | gift
                split[to * 4 : to * 4 + 4] = (
                    mask & 0x1FFF, mask >> 13 & 0x1FFF, mask >> 26 & 0x1FFF, mask >> 39
                )
                leader = to if gift & lead_bit else first_leader
                tallies = [0] * n
                policy_out(
                    table, split, tallies, leader, (), False, True, rnd, config.noise, -1, moon_at
                )
                # hand_points' common case (no moon, no J♦ taken): the points are the tallies
                if plain and max(tallies) < JACK_MARK and (total <= 0 or total not in tallies):
                    sums[c] -= tallies[me]
                else:
                    sums[c] += scorer.utilities(tallies)[me]
                used += 1
        if len(alive) <= 2:
            continue
        alive.sort(key=lambda c: -sums[c])
        alive = alive[: max(2, (len(alive) + 1) // 2)]
    best = max(alive, key=lambda c: sums[c])
    return tuple(index_card(i) for i in pool[best]), used
