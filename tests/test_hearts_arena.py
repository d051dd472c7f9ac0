"""The duplicate-deal arena and its command line."""

from __future__ import annotations

import math

import pytest

from heartsuit.cards import Card
from heartsuit.cli import main
from heartsuit.hearts.arena import ArenaError, play_hand, run_arena
from heartsuit.hearts.bots import Bot, RandomBot, UnknownBot
from heartsuit.hearts.rules import Rules
from heartsuit.hearts.view import SeatView


def test_every_deal_is_played_in_every_seat_rotation() -> None:
    seen: list[tuple[int, str]] = []

    class Spy(RandomBot):
        label = ""

        def choose_play(self, view: SeatView) -> Card:
            if not view.tricks and view.trick is not None and not view.trick.plays:
                seen.append((view.seat, self.label))
            return super().choose_play(view)

    def factory(name: str, seed: int) -> Bot:
        bot = Spy(seed)
        bot.label = name
        return bot

    rules = Rules(passing=False)  # no pass, so the same seat opens in every rotation
    result = run_arena(["a", "b", "c", "d"], deals=1, seed=4, factory=factory, rules=rules)
    # the same deal four times: the opening seat is fixed, the bot sitting there rotates
    assert len({seat for seat, _ in seen}) == 1
    assert sorted(label for _, label in seen) == ["a", "b", "c", "d"]
    assert result.hands == 4 and result.rotations == 4


def test_points_add_up_per_deal_and_identical_bots_get_the_same_mean() -> None:
    result = run_arena(["random"] * 4, deals=6, seed=1)
    assert [s.name for s in result.scores] == ["random"]
    (score,) = result.scores
    assert score.seats == 4
    for (mean,) in result.per_deal:
        # each of the 4 rotations' hands gives 26 points without a moon and 78 with one, so
        # the per-seat mean over a deal's 16 seat-hands is 6.5 + 3.25 per moon
        assert mean in {6.5 + 3.25 * moons for moons in range(5)}
    assert score.low <= score.mean <= score.high


def test_the_interval_is_the_normal_one_over_deals() -> None:
    result = run_arena(["heuristic", "random", "random", "random"], deals=8, seed=2)
    heuristic = result.score("heuristic")
    values = [row[0] for row in result.per_deal]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    assert heuristic.mean == pytest.approx(mean)
    assert heuristic.half_width == pytest.approx(1.96 * sd / math.sqrt(8))


def test_the_same_seed_gives_the_same_result() -> None:
    a = run_arena(["heuristic", "random", "random"], deals=3, seed=9, rules=Rules.preset("three"))
    b = run_arena(["heuristic", "random", "random"], deals=3, seed=9, rules=Rules.preset("three"))
    assert a.per_deal == b.per_deal


def test_one_deal_has_no_interval() -> None:
    result = run_arena(["random"] * 4, deals=1)
    assert math.isnan(result.scores[0].half_width)
    assert "no interval" in result.table()


def test_bad_settings_are_refused_clearly() -> None:
    with pytest.raises(ArenaError, match="4 players"):
        run_arena(["random"] * 3, deals=2)
    with pytest.raises(ArenaError, match="at least one deal"):
        run_arena(["random"] * 4, deals=0)
    with pytest.raises(UnknownBot):
        run_arena(["random", "random", "random", "nobody"], deals=1)


def test_play_hand_uses_views_only_and_scores() -> None:
    rules = Rules.preset("omnibus")
    points = play_hand(rules, 3, 0, ["heuristic"] * 4, "test")
    assert len(points) == 4
    assert play_hand(rules, 3, 0, ["random"] * 4, "test") == play_hand(
        rules, 3, 0, ["random"] * 4, "test"
    )


def test_the_cli_prints_each_bots_mean_and_interval(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["hearts", "arena", "--bots", "heuristic,random,random,random", "--hands", "3",
         "--seed", "5", "--no-progress"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "3 deals × 4 seat rotations = 12 hands" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert "±" in lines["heuristic"] and "±" in lines["random"]


def test_the_cli_shows_progress_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hearts", "arena", "--bots", "random,random,random", "--hands", "2",
                 "--preset", "black-maria"]) == 0
    captured = capsys.readouterr()
    assert "deals" in captured.err and "preset black-maria" in captured.out


def test_the_cli_reports_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hearts", "arena", "--bots", "heuristic,random", "--hands", "2"]) == 2
    assert "4 players" in capsys.readouterr().err
    assert main(["hearts", "arena", "--bots", "x,y,z,w", "--hands", "2"]) == 2
    assert "no bot called" in capsys.readouterr().err


def test_the_paired_difference_is_taken_deal_by_deal() -> None:
    result = run_arena(["heuristic", "random", "random", "random"], deals=6, seed=3)
    diff = result.difference("heuristic", "random")
    per_deal = [h - r for h, r in result.per_deal]
    assert diff.mean == pytest.approx(sum(per_deal) / 6)
    assert diff.name == "heuristic - random"
    assert "paired difference heuristic - random" in result.table()
    with pytest.raises(ArenaError, match="compare two"):
        result.difference("heuristic", "nobody")
