"""What the arena measured: per-deal records, and each bot's means with 95% intervals.

A deal's record (:class:`DealResult`) holds one :class:`Game` per seat rotation — a hand, or a
whole match to the target — with each seat's points, the hands played, the moons and (for a
match) the winners. :func:`summarize` turns the records into an :class:`ArenaResult`: per bot
name, mean points per hand; in match mode, the share of matches won; and the moons it shot and
let another seat shoot. Means are over deals, each deal first averaged over its rotations (and
over a name's seats), with a normal 95% interval over deals (``1.96 · sd / √deals``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import fmean, stdev
from typing import Any, Literal

from heartsuit.hearts.rules import Rules

Mode = Literal["hands", "matches"]
MODES: tuple[Mode, ...] = ("hands", "matches")
Z95 = 1.96  # two-sided 95% normal quantile; deals are many, so the t correction is negligible


class ArenaError(ValueError):
    """Arena settings that cannot be played (wrong number of bots, no deals, a results file
    written with other settings …)."""


@dataclass(frozen=True, slots=True)
class Game:
    """One seat rotation of one deal: a hand, or a whole match."""

    points: tuple[int, ...]  # per seat, summed over the game's hands (moon and bonuses applied)
    hands: int
    shooters: tuple[int, ...]  # the seat of each moon, in order
    winners: tuple[int, ...] = ()  # a match's seats with the lowest total; () for a hand

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": list(self.points),
            "hands": self.hands,
            "shooters": list(self.shooters),
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        return cls(
            tuple(int(p) for p in data["points"]),
            int(data["hands"]),
            tuple(int(s) for s in data["shooters"]),
            tuple(int(w) for w in data["winners"]),
        )


@dataclass(frozen=True, slots=True)
class DealResult:
    """Deal ``deal`` played once per seat rotation; ``games[r]`` is rotation ``r``."""

    deal: int
    games: tuple[Game, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "games": [g.to_dict() for g in self.games]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DealResult:
        return cls(int(data["deal"]), tuple(Game.from_dict(g) for g in data["games"]))


@dataclass(frozen=True, slots=True)
class BotScore:
    """A mean over deals and its 95% confidence interval."""

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

    def to_dict(self) -> dict[str, Any]:
        half = None if math.isnan(self.half_width) else self.half_width
        return {
            "name": self.name,
            "seats": self.seats,
            "mean": self.mean,
            "half_width": half,
            "low": None if half is None else self.low,
            "high": None if half is None else self.high,
        }


@dataclass(frozen=True, slots=True)
class Moons:
    """One bot name's moons: shot by its seats, and shot by another seat while it played."""

    name: str
    seat_hands: int  # hands played by seats of this name (a hand counts once per such seat)
    shot: int
    conceded: int  # of those seat-hands, how many another seat shot the moon in

    @property
    def shot_rate(self) -> float:
        return self.shot / self.seat_hands if self.seat_hands else 0.0

    @property
    def conceded_rate(self) -> float:
        return self.conceded / self.seat_hands if self.seat_hands else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "seat_hands": self.seat_hands,
            "shot": self.shot,
            "conceded": self.conceded,
            "shot_rate": self.shot_rate,
            "conceded_rate": self.conceded_rate,
        }


@dataclass(frozen=True, slots=True)
class ArenaResult:
    bots: tuple[str, ...]  # as listed (slot order)
    rules: Rules
    deals: int
    rotations: int
    seed: int
    scores: tuple[BotScore, ...]  # points per hand, one per distinct name in listing order
    per_deal: tuple[tuple[float, ...], ...]  # per deal: each name's points per hand
    mode: Mode = "hands"
    wins: tuple[BotScore, ...] = ()  # matches: each name's share of matches won, per seat
    moons: tuple[Moons, ...] = ()
    hands_played: int = 0

    @property
    def hands(self) -> int:
        """Hands played in all (deals × rotations in hand mode)."""
        return self.hands_played or self.deals * self.rotations

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
        unit = "deals" if self.mode == "hands" else "match deals"
        games = "hands" if self.mode == "hands" else f"matches ({self.hands} hands)"
        lines = [
            f"{self.deals} {unit} × {self.rotations} seat rotations = "
            f"{self.deals * self.rotations} {games}; seed {self.seed}",
            f"{'bot':<{width}}  seats  points/hand  95% interval",
        ]
        lines += [f"{s.name:<{width}}  {s.seats:>5}  {s.mean:>11.2f}  {_interval(s)}"
                  for s in self.scores]
        if len(self.scores) >= 2 and self.deals > 1:
            d = self.difference(self.scores[0].name, self.scores[1].name)
            lines.append(
                f"paired difference {d.name}: {d.mean:+.2f} ± {d.half_width:.2f} "
                f"[{d.low:+.2f}, {d.high:+.2f}]"
            )
        if self.wins:
            even = 1 / self.rules.players
            lines += [
                f"matches won by {w.name:<{width}}  {w.mean:6.1%} per seat (even {even:.1%})  "
                f"{_interval(w, percent=True)}"
                for w in self.wins
            ]
        lines += [
            f"moons of {m.name:<{width}}  shot {m.shot}/{m.seat_hands} ({m.shot_rate:.2%}); "
            f"another seat shot {m.conceded}/{m.seat_hands} ({m.conceded_rate:.2%})"
            for m in self.moons
        ]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON-able data (the per-deal records are in the results file)."""
        out: dict[str, Any] = {
            "bots": list(self.bots),
            "rules": self.rules.to_dict(),
            "mode": self.mode,
            "seed": self.seed,
            "deals": self.deals,
            "rotations": self.rotations,
            "hands": self.hands,
            "points_per_hand": [s.to_dict() for s in self.scores],
            "wins": [w.to_dict() for w in self.wins],
            "even_share": 1 / self.rules.players,
            "moons": [m.to_dict() for m in self.moons],
        }
        if len(self.scores) >= 2 and self.deals > 1:
            out["difference"] = self.difference(self.scores[0].name, self.scores[1].name).to_dict()
        return out


def summarize(
    names: tuple[str, ...], rules: Rules, seed: int, mode: Mode, results: list[DealResult]
) -> ArenaResult:
    """Each name's means over ``results`` (in deal order)."""
    n = rules.players
    distinct = tuple(dict.fromkeys(names))
    per_deal: list[tuple[float, ...]] = []
    per_deal_wins: list[tuple[float, ...]] = []
    seat_hands = dict.fromkeys(distinct, 0)
    shot = dict.fromkeys(distinct, 0)
    conceded = dict.fromkeys(distinct, 0)
    for result in results:
        points = dict.fromkeys(distinct, 0)
        hands = dict.fromkeys(distinct, 0)
        won = dict.fromkeys(distinct, 0.0)
        for rotation, game in enumerate(result.games):
            for slot, name in enumerate(names):
                seat = (slot + rotation) % n
                points[name] += game.points[seat]
                hands[name] += game.hands
                if seat in game.winners:
                    won[name] += 1 / len(game.winners)
                mine = game.shooters.count(seat)
                shot[name] += mine
                conceded[name] += len(game.shooters) - mine
        for name in distinct:
            seat_hands[name] += hands[name]
        per_deal.append(tuple(points[d] / hands[d] for d in distinct))
        per_deal_wins.append(tuple(won[d] / (len(result.games) * names.count(d)) for d in distinct))
    scores = tuple(
        _score(name, names.count(name), [row[k] for row in per_deal])
        for k, name in enumerate(distinct)
    )
    wins: tuple[BotScore, ...] = ()
    if mode == "matches":
        wins = tuple(
            _score(name, names.count(name), [row[k] for row in per_deal_wins])
            for k, name in enumerate(distinct)
        )
    moons = tuple(Moons(d, seat_hands[d], shot[d], conceded[d]) for d in distinct)
    hands_played = sum(g.hands for r in results for g in r.games)
    return ArenaResult(
        names, rules, len(results), n, seed, scores, tuple(per_deal), mode, wins, moons,
        hands_played,
    )


def _score(name: str, seats: int, values: list[float]) -> BotScore:
    """Mean of per-deal values with a normal 95% interval over deals (nan for one deal)."""
    half = Z95 * stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.nan
    return BotScore(name, seats, fmean(values), half)


def _interval(s: BotScore, *, percent: bool = False) -> str:
    if math.isnan(s.half_width):
        return "(one deal: no interval)"
    if percent:
        return f"± {s.half_width:.1%}  [{s.low:.1%}, {s.high:.1%}]"
    return f"± {s.half_width:.2f}  [{s.low:.2f}, {s.high:.2f}]"
