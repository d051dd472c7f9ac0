"""`heartsuit solitaire solve` and `heartsuit solitaire stats`."""

from __future__ import annotations

import json

import pytest

from heartsuit.cli import main
from heartsuit.cli.solitaire_cmd import percentile, wilson_interval
from heartsuit.solitaire import Game
from heartsuit.solitaire.codes import format_code
from heartsuit.solitaire.solver import decide


def first_deal(winnable: bool) -> str:
    codes = (format_code(n) for n in range(100))
    return next(code for code in codes if decide(Game.from_code(code)) == winnable)


def test_solve_prints_the_verdict_the_count_and_a_numbered_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = first_deal(True)
    assert main(["solitaire", "solve", code.lower()]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{code}: can be won"
    assert out[1].startswith("moves: ") and "proven fewest" in out[1]
    count = int(out[1].split()[1])
    steps = [line for line in out if line.lstrip()[:1].isdigit() and ". " in line]
    assert len(steps) == count
    assert steps[0].strip().startswith("1. ")
    assert any("pair" in line and "+ waste" in line for line in steps)


def test_solve_says_when_a_deal_cannot_be_won(capsys: pytest.CaptureFixture[str]) -> None:
    code = first_deal(False)
    assert main(["solitaire", "solve", code]) == 0
    assert capsys.readouterr().out.startswith(f"{code}: cannot be won")


def test_solve_json_gives_taps_that_win_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    code = first_deal(True)
    assert main(["solitaire", "solve", code, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["code"] == code and data["winnable"] is True and data["optimal"] is True
    assert len(data["steps"]) == data["move_count"]
    game = Game.from_code(code)
    for tap in data["taps"]:
        game.tap(tap)
    assert game.won and game.moves == data["move_count"]


def test_solve_refuses_a_bad_code_on_stderr_with_exit_code_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["solitaire", "solve", "HH1-N-AAAA"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "7" in captured.err and "letters" in captured.err


def test_stats_reports_the_share_with_an_interval_and_the_times(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["solitaire", "stats", "--deals", "40", "--start", "5", "--optimal"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    wins = sum(decide(Game.from_code(format_code(n))) for n in range(5, 45))
    assert lines[0].startswith("deals 5..44")
    assert lines[1].startswith(f"winnable: {wins} of 40 = ") and "95% CI" in lines[1]
    assert lines[2].startswith("decision time per deal: median ") and "p99" in lines[2]
    assert lines[3].startswith("fewest-move line proven within 2 s CPU: ")
    assert "p99" in lines[4]
    assert "deciding" in captured.err  # the progress bar


def test_stats_refuses_an_empty_or_out_of_range_run(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solitaire", "stats", "--deals", "0"]) == 2
    assert "deals must be 1 or more" in capsys.readouterr().err


def test_wilson_interval_matches_a_textbook_value() -> None:
    low, high = wilson_interval(30, 100)
    assert low == pytest.approx(0.2189, abs=1e-4) and high == pytest.approx(0.3958, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_percentile_interpolates() -> None:
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([0.0, 10.0], 99) == pytest.approx(9.9)
    assert percentile([5.0], 99) == 5.0


def test_solve_says_when_the_budget_ran_out_before_a_proof(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # deal 2989 needs about 2 s of CPU to prove; a tiny budget cannot
    assert main(["solitaire", "solve", format_code(2989), "--budget", "0.05"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("can be won")
    assert "not proven fewest" in out[1]
