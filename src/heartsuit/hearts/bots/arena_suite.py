"""Named sets of arena comparisons, run one after another: ``heartsuit hearts arena --suite``.

``levels`` is every strength comparison of the levels: ``hard`` against three heuristic
players, and each level one-against-three against the level below it, points per hand on
duplicate deals; ``hard`` one-against-the-rest in whole matches to 100 (share of matches won,
even being one seat's share) in the standard rules and in every other preset; and, from every
comparison, how often each bot shoots the moon and lets another seat shoot. ``moons`` seats
each level against three moon hunters (``moonhunter``: a search seat that goes for the moon
whenever it plausibly can) and counts the moons it lets through, and then against one moon
hunter and two ``normal`` players, who defend once the moon shows. Each comparison keeps its own
results file in the output directory, so a stopped suite goes on where it stopped; a file's
name says what it compares (``docs/README.md`` lists the committed ones).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heartsuit.hearts.bots.arena import run_arena
from heartsuit.hearts.bots.arena_result import ArenaError, ArenaResult, Mode
from heartsuit.hearts.rules import PRESET_NAMES, Rules

__all__ = ["SUITES", "Comparison", "command", "run_suite", "suite", "suite_dict"]


@dataclass(frozen=True, slots=True)
class Comparison:
    name: str  # also the results file's name
    question: str
    bots: tuple[str, ...]
    deals: int  # the default; a suite run can scale it
    preset: str = "standard"
    mode: Mode = "hands"

    def rules(self) -> Rules:
        return Rules.preset(self.preset)


def _one_against(bot: str, others: str, preset: str = "standard") -> tuple[str, ...]:
    return (bot, *[others] * (Rules.preset(preset).players - 1))


def _deals_for_200_matches(preset: str) -> int:
    """Enough match deals that every seat rotation together makes at least 200 matches."""
    return -(-200 // Rules.preset(preset).players)


MOON_LEVELS = ("hard", "hard6000", "normal", "easy")

SUITES: dict[str, tuple[Comparison, ...]] = {
    "levels": (
        # "-close": the files of today's hard, which stops searching a card 2.5 standard errors
        # worse than the best from 24 worlds and stops when the cards left are close (the
        # "-z15" files are of the hard that pruned at 1.5 errors from 12 worlds, "-pruned" of
        # the one that pruned at 2 from 16, and hard-vs-heuristic.jsonl and hard-vs-normal.jsonl
        # of the hard that searched every card on its full budget, now hard6000): a suite never
        # goes on from an earlier player's file
        Comparison(
            "hard-vs-heuristic-close",
            "hard against three heuristic players: points per hand",
            _one_against("hard", "heuristic"),
            500,
        ),
        Comparison(
            "hard-vs-normal-close",
            "hard against three normal players: points per hand",
            _one_against("hard", "normal"),
            # 2,000 seat-hands, as against the heuristic: at 400 the interval (about ±0.9)
            # is wider than the gap between these two levels
            500,
        ),
        Comparison(
            "normal-vs-easy",
            "normal against three easy players: points per hand",
            _one_against("normal", "easy"),
            200,
        ),
        Comparison(
            "easy-vs-random",
            "easy against three random players: points per hand",
            _one_against("easy", "random"),
            500,
        ),
        *(
            Comparison(
                f"hard-vs-heuristic-matches-{preset}",
                f"hard against heuristic players, whole matches to 100 ({preset}): "
                "share of matches won",
                _one_against("hard", "heuristic", preset),
                _deals_for_200_matches(preset),
                preset,
                "matches",
            )
            for preset in PRESET_NAMES
        ),
    ),
    "moons": (
        *(
            Comparison(
                # today's hard writes its own file (hard-vs-moonhunter.jsonl is the hard before)
                f"{level}-vs-moonhunter" + ("-close" if level == "hard" else ""),
                f"{level} against three moon hunters: moons let through, points per hand",
                _one_against(level, "moonhunter"),
                # 480 seat-hands: at 240 a difference of a dozen moons was within the noise
                120,
            )
            for level in MOON_LEVELS
        ),
        *(
            # one hunter among players that defend: the moons it lands are the ones the level
            # lets through (the two normal seats feed it nothing once it shows)
            Comparison(
                f"{level}-vs-moonhunter-normal",
                f"{level} against one moon hunter and two normal players: the hunter's moons, "
                "points per hand",
                (level, "moonhunter", "normal", "normal"),
                120,
            )
            for level in MOON_LEVELS
        ),
    ),
}


def command(comparison: Comparison, deals: int, seed: int, out_dir: str | None) -> str:
    """The single ``heartsuit hearts arena`` command that runs ``comparison``."""
    parts = [
        "heartsuit hearts arena",
        f"--bots {','.join(comparison.bots)}",
        f"--hands {deals}",
        f"--seed {seed}",
    ]
    if comparison.preset != "standard":
        parts.append(f"--preset {comparison.preset}")
    if comparison.mode != "hands":
        parts.append(f"--mode {comparison.mode}")
    if out_dir is not None:
        parts.append(f"--out {Path(out_dir) / (comparison.name + '.jsonl')}")
    return " ".join(parts)


def suite(name: str) -> tuple[Comparison, ...]:
    found = SUITES.get(name)
    if found is None:
        raise ArenaError(f"no suite called {name!r}; choose one of {', '.join(SUITES)}")
    return found


def run_suite(
    name: str,
    *,
    out_dir: str | Path | None,
    seed: int = 1,
    scale: float = 1.0,
    deals: int | None = None,
    workers: int = 1,
    progress: bool = False,
    report: Callable[[Comparison, ArenaResult], None] | None = None,
) -> list[tuple[Comparison, ArenaResult]]:
    """Run every comparison of suite ``name`` (``deals`` each, or the default × ``scale``)."""
    results = []
    for comparison in suite(name):
        count = deals if deals is not None else max(1, round(comparison.deals * scale))
        out = None if out_dir is None else Path(out_dir) / f"{comparison.name}.jsonl"
        result = run_arena(
            comparison.bots,
            deals=count,
            seed=seed,
            rules=comparison.rules(),
            progress=progress,
            mode=comparison.mode,
            workers=workers,
            out=out,
        )
        if report is not None:
            report(comparison, result)
        results.append((comparison, result))
    return results


def suite_dict(name: str, results: list[tuple[Comparison, ArenaResult]]) -> dict[str, Any]:
    return {
        "suite": name,
        "comparisons": [
            {"name": c.name, "question": c.question, "preset": c.preset, **r.to_dict()}
            for c, r in results
        ],
    }
