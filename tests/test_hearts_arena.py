"""The duplicate-deal arena and its command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from heartsuit.cards import Card
from heartsuit.cli import main
from heartsuit.hearts.bots import Bot, RandomBot, UnknownBot, make_bot
from heartsuit.hearts.bots.arena import ArenaError, play_hand, run_arena
from heartsuit.hearts.bots.arena_suite import SUITES, Comparison
from heartsuit.hearts.rules import PRESET_NAMES, Rules
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


# --- matches, moons, workers, the results file, JSON, suites --------------------------------


def test_match_mode_plays_whole_matches_and_shares_the_wins() -> None:
    result = run_arena(["heuristic", "random", "random", "random"], deals=2, seed=3,
                       mode="matches")
    assert result.mode == "matches" and result.hands > 2 * 4
    shares = {w.name: w.mean * w.seats for w in result.wins}
    assert sum(shares.values()) == pytest.approx(1.0)  # ties are shared, so shares add up
    assert "matches won by heuristic" in result.table()


def test_moons_are_counted_per_seat_hand() -> None:
    result = run_arena(["random"] * 4, deals=12, seed=5)
    (moons,) = result.moons
    assert moons.seat_hands == 12 * 4 * 4
    # every moon shot by one random seat is one let through by each of the three others
    assert moons.conceded == 3 * moons.shot
    moon_deals = [mean for (mean,) in result.per_deal if mean != 6.5]
    assert moons.shot == round(sum((m - 6.5) / 3.25 for m in moon_deals))


def test_a_results_file_lets_a_run_go_on_where_it_stopped(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    names = ["heuristic", "random", "random", "random"]
    played: list[int] = []

    def counting(name: str, seed: int) -> Bot:
        played.append(seed)
        return make_bot(name, seed)

    run_arena(names, deals=3, seed=4, out=out, factory=counting)
    first = len(played)
    resumed = run_arena(names, deals=5, seed=4, out=out, factory=counting)
    # the three deals in the file were not played again: two more deals' worth of decisions
    assert 0 < len(played) - first < first
    whole = run_arena(names, deals=5, seed=4)
    assert resumed.per_deal == whole.per_deal and resumed.moons == whole.moons
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["settings"]["bots"] == names and len(lines) == 1 + 5
    # a deal cut off mid-line (a killed run) is dropped and played again
    out.write_text(out.read_text() + '{"deal": 5, "ga')
    again = run_arena(names, deals=6, seed=4, out=out)
    assert again.per_deal == run_arena(names, deals=6, seed=4).per_deal
    assert all(line.endswith("}") for line in out.read_text().splitlines())


def test_a_results_file_from_other_settings_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    run_arena(["random"] * 4, deals=1, seed=1, out=out)
    with pytest.raises(ArenaError, match=r"other settings.*seed"):
        run_arena(["random"] * 4, deals=1, seed=2, out=out)
    with pytest.raises(ArenaError, match=r"other settings.*bots"):
        run_arena(["heuristic", "random", "random", "random"], deals=1, seed=1, out=out)
    with pytest.raises(ArenaError, match=r"other settings.*mode"):
        run_arena(["random"] * 4, deals=1, seed=1, out=out, mode="matches")
    (tmp_path / "junk.jsonl").write_text("hello\n")
    with pytest.raises(ArenaError, match="not an arena results file"):
        run_arena(["random"] * 4, deals=1, out=tmp_path / "junk.jsonl")


def test_workers_give_the_same_deals_as_one_process(tmp_path: Path) -> None:
    names = ["heuristic", "random", "random", "random"]
    one = run_arena(names, deals=4, seed=6, mode="matches", rules=Rules(target=30))
    two = run_arena(names, deals=4, seed=6, mode="matches", rules=Rules(target=30), workers=2,
                    out=tmp_path / "two.jsonl")
    assert two.per_deal == one.per_deal and two.wins == one.wins and two.moons == one.moons
    with pytest.raises(ArenaError, match="module-level"):
        run_arena(names, deals=2, workers=2, factory=lambda name, seed: make_bot(name, seed))


def test_the_cli_writes_json_and_goes_on_from_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, report = tmp_path / "r.jsonl", tmp_path / "r.json"
    args = ["hearts", "arena", "--bots", "easy,random,random,random", "--hands", "2",
            "--no-progress", "--out", str(out)]
    assert main([*args, "--json", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["deals"] == 2 and data["points_per_hand"][0]["name"] == "easy"
    assert {"difference", "moons", "even_share"} <= set(data)
    capsys.readouterr()
    assert main([*args[:5], "3", *args[6:], "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["deals"] == 3
    assert len(out.read_text().splitlines()) == 1 + 3
    assert main([*args[:5], "3", *args[6:], "--seed", "9"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_a_suite_runs_each_comparison_into_its_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = (
        Comparison("easy-vs-random", "easy against random", ("easy",) + ("random",) * 3, 2),
        Comparison("three-matches", "matches, three players", ("heuristic", "random", "random"),
                   1, "three", "matches"),
    )
    monkeypatch.setitem(SUITES, "tiny", tiny)
    args = ["hearts", "arena", "--suite", "tiny", "--no-progress", "--out", str(tmp_path)]
    assert main([*args, "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["comparisons"]] == ["easy-vs-random", "three-matches"]
    assert data["comparisons"][1]["wins"] and data["comparisons"][1]["preset"] == "three"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["easy-vs-random.jsonl",
                                                          "three-matches.jsonl"]


def test_the_levels_plan_lists_every_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hearts", "arena", "--suite", "levels", "--plan", "--out", "runs"]) == 0
    out = capsys.readouterr().out
    for bots in ("hard,heuristic,heuristic,heuristic", "hard,normal,normal,normal",
                 "normal,easy,easy,easy", "easy,random,random,random"):
        assert f"--bots {bots} " in out
    assert out.count("--mode matches") == len(PRESET_NAMES)
    assert "--preset cancellation" in out and "runs/hard-vs-heuristic-close.jsonl" in out


def test_the_moons_plan_seats_each_level_against_three_moon_hunters_then_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["hearts", "arena", "--suite", "moons", "--plan", "--out", "runs"]) == 0
    out = capsys.readouterr().out
    for level in ("easy", "normal", "hard", "hard6000"):
        assert f"--bots {level},moonhunter,moonhunter,moonhunter --hands 120 " in out
        assert f"--bots {level},moonhunter,normal,normal --hands 120 " in out
        assert f"runs/{level}-vs-moonhunter-normal.jsonl" in out
    assert "runs/hard-vs-moonhunter-close.jsonl" in out  # not the file of the hard before
    assert out.count("--bots ") == 8


def test_no_suite_file_name_is_one_of_an_earlier_bot() -> None:
    # a suite run goes on from a results file of the same name: a name the files of an earlier
    # hard already have would mix two players' deals (the arena checks the names, not the code)
    earlier = {
        "hard-vs-heuristic", "hard-vs-normal", "hard100-vs-heuristic",
        "hard-vs-heuristic-pruned", "hard-vs-normal-pruned", "hard-vs-moonhunter",
        "hard-vs-heuristic-z15", "hard-vs-normal-z15", "hard-vs-moonhunter-z15",
    }
    names = [c.name for comparisons in SUITES.values() for c in comparisons]
    assert not earlier & set(names)
    assert len(names) == len(set(names))


def test_every_match_comparison_of_the_levels_plays_at_least_200_matches() -> None:
    matches = [c for c in SUITES["levels"] if c.mode == "matches"]
    assert {c.preset for c in matches} == set(PRESET_NAMES)
    for comparison in matches:
        assert comparison.deals * len(comparison.bots) >= 200, comparison.name
