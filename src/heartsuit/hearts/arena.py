"""Duplicate-deal matches between bots, with confidence intervals.

Luck in Hearts is mostly the deal, so every deal is played once per seat rotation of the bots:
with ``n`` seats, rotation ``r`` puts the bot listed ``i``-th in seat ``(i + r) % n``. Each bot
name's points are averaged over the rotations (and over its seats when a name is listed more
than once) to one number per deal; the mean of those per-deal numbers and a 95% confidence
interval over deals (normal approximation, ``1.96 · sd / √deals``) are the result.

Every hand is driven through the real engine (:class:`~heartsuit.hearts.game.Hand`) by the
same driver as every table (:func:`heartsuit.hearts.table.advance`), so each bot receives only
its seat's view and each decision is a fresh bot seeded from the deal, rotation, version and
seat. Deal ``k`` is hand ``k`` of the match seeded ``seed``
(:func:`~heartsuit.hearts.game.deal_seed`), so it passes in that hand's direction of the cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev

from tqdm import tqdm

from heartsuit.hearts.bots import Bot, make_bot
from heartsuit.hearts.game import Hand
from heartsuit.hearts.rules import Rules
from heartsuit.hearts.table import BotFactory, SeatPlayer, advance

Z95 = 1.96  # two-sided 95% normal quantile; deals are many, so the t correction is negligible


class ArenaError(ValueError):
    """Arena settings that cannot be played (wrong number of bots, no deals …)."""


@dataclass(frozen=True, slots=True)
class BotScore:
    """One bot name's result: mean points per hand and its 95% confidence interval."""

    name: str
    seats: int  # how many of the listed bots have this name
    mean: float
    half_width: float  # the 95% interval is mean ± half_width (nan with a single deal)

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


@dataclass(frozen=True, slots=True)
class ArenaResult:
    bots: tuple[str, ...]  # as listed (slot order)
    rules: Rules
    deals: int
    rotations: int
    seed: int
    scores: tuple[BotScore, ...]  # one per distinct name, in order of first listing
    per_deal: tuple[tuple[float, ...], ...]  # per deal: each name's mean points (scores order)

    @property
    def hands(self) -> int:
        return self.deals * self.rotations

    def score(self, name: str) -> BotScore:
        return next(s for s in self.scores if s.name == name)

    def difference(self, a: str, b: str) -> BotScore:
        """``a``'s points minus ``b``'s, paired deal by deal (the sharper comparison: the luck
        of each deal cancels), with its 95% interval; named ``"a - b"``."""
        names = [s.name for s in self.scores]
        if a not in names or b not in names:
            raise ArenaError(f"compare two of the bots that played: {', '.join(names)}")
        ka, kb = names.index(a), names.index(b)
        return _score(f"{a} - {b}", 0, [row[ka] - row[kb] for row in self.per_deal])

    def table(self) -> str:
        """The result as an aligned text table."""
        width = max(len("bot"), *(len(s.name) for s in self.scores))
        lines = [
            f"{self.deals} deals × {self.rotations} seat rotations = {self.hands} hands; "
            f"seed {self.seed}",
            f"{'bot':<{width}}  seats  points/hand  95% interval",
        ]
        for s in self.scores:
            interval = (
                "(one deal: no interval)"
                if math.isnan(s.half_width)
                else f"± {s.half_width:.2f}  [{s.low:.2f}, {s.high:.2f}]"
            )
            lines.append(f"{s.name:<{width}}  {s.seats:>5}  {s.mean:>11.2f}  {interval}")
        if len(self.scores) >= 2 and self.deals > 1:
            d = self.difference(self.scores[0].name, self.scores[1].name)
            lines.append(
                f"paired difference {d.name}: {d.mean:+.2f} ± {d.half_width:.2f} "
                f"[{d.low:+.2f}, {d.high:+.2f}]"
            )
        return "\n".join(lines)


def _score(name: str, seats: int, values: list[float]) -> BotScore:
    """Mean of per-deal values with a normal 95% interval over deals (nan for one deal)."""
    half = Z95 * stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return BotScore(name, seats, fmean(values), half)


def play_hand(
    rules: Rules,
    seed: int,
    hand_number: int,
    names: Sequence[str],
    key: str,
    factory: BotFactory = make_bot,
) -> tuple[int, ...]:
    """One hand through the engine and the table driver, bot ``names[i]`` (built by
    ``factory``) in seat ``i``, decisions seeded under ``key``; each seat's points."""
    hand = Hand.deal(rules, seed, hand_number=hand_number)
    advance(hand, [SeatPlayer.computer(name) for name in names], key, bots=factory)
    return hand.points()


def run_arena(
    bot_names: Sequence[str],
    *,
    deals: int,
    seed: int = 0,
    rules: Rules | None = None,
    progress: bool = False,
    factory: Callable[[str, int], Bot] = make_bot,
) -> ArenaResult:
    """Play ``deals`` duplicate deals with every seat rotation of ``bot_names``."""
    rules = rules if rules is not None else Rules()
    names = tuple(n.strip().lower() for n in bot_names)
    n = rules.players
    if len(names) != n:
        raise ArenaError(f"these rules seat {n} players: list {n} bots, not {len(names)}")
    if not isinstance(deals, int) or deals < 1:
        raise ArenaError(f"play at least one deal, not {deals!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ArenaError(f"a seed is a non-negative whole number, not {seed!r}")
    for name in set(names):
        factory(name, 0)  # an unknown name fails here, before any hand is played
    distinct = tuple(dict.fromkeys(names))
    per_deal: list[tuple[float, ...]] = []
    for deal in tqdm(range(deals), desc="deals", unit="deal", disable=not progress):
        totals = dict.fromkeys(distinct, 0.0)
        for rotation in range(n):
            # seat s holds the bot listed (s - rotation) % n; seeds differ per deal and rotation
            seats = [names[(s - rotation) % n] for s in range(n)]
            points = play_hand(rules, seed, deal, seats, f"arena/{seed}/{deal}/{rotation}", factory)
            for slot, name in enumerate(names):
                totals[name] += points[(slot + rotation) % n]
        per_deal.append(tuple(totals[d] / (n * names.count(d)) for d in distinct))
    scores = tuple(
        _score(name, names.count(name), [row[k] for row in per_deal])
        for k, name in enumerate(distinct)
    )
    return ArenaResult(names, rules, deals, n, seed, scores, tuple(per_deal))
