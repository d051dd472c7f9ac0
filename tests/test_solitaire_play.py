"""The terminal game, driven through its input and output streams like a player would."""

from __future__ import annotations

import io
import re
import time

import pytest

from heartsuit.cli import main
from heartsuit.cli.solitaire_play import STRINGS, clock_text, draw_heart, play
from heartsuit.server.solitaire.daily import daily_code, day_of
from heartsuit.server.solitaire.examples import deal_is_winnable
from heartsuit.solitaire import Game
from heartsuit.solitaire.layout import COVERED_BY, X2
from tests.test_solitaire_game import (
    DEAD_AFTER_ONE_PAIR,
    EXAMPLE,
    TIP_MATCHES_WASTE,
    WINNABLE,
    WINNING_LINE,
    taps,
)


class FakeClock:
    """Time the test controls: each reading is the current ``now``."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Slow:
    """Commands typed one by one, ``seconds`` apart."""

    def __init__(self, commands: list[str], clock: FakeClock, seconds: float) -> None:
        self.lines = [command + "\n" for command in commands]
        self.clock = clock
        self.seconds = seconds

    def readline(self) -> str:
        if not self.lines:
            return ""
        self.clock.now += self.seconds
        return self.lines.pop(0)


def run(
    lines: list[str], code: str | None = EXAMPLE, clock: FakeClock | None = None, **options: bool
) -> tuple[int, str]:
    out = io.StringIO()
    options.setdefault("language", "en")  # type: ignore[arg-type]
    status = play(
        code,
        stdin=io.StringIO("".join(line + "\n" for line in lines)),
        stdout=out,
        clock=clock or FakeClock(),
        **options,  # type: ignore[arg-type]
    )
    return status, out.getvalue()


def as_commands(line: str) -> list[str]:
    return ["s" if t == "stock" else "w" if t == "waste" else str(t) for t in taps(line)]


def test_a_full_win_from_the_terminal() -> None:
    status, text = run([*as_commands(WINNING_LINE), "q"], WINNABLE)
    assert status == 0
    assert "You won! Time 00:00, 96 moves, score 250." in text
    assert "Type n for a new game or q to quit." in text
    assert text.rstrip().endswith("Goodbye.")


def test_the_win_reports_the_time_played() -> None:
    clock = FakeClock()
    commands = as_commands(WINNING_LINE)
    out = io.StringIO()

    # every command comes two seconds after the one before
    source = Slow(commands, clock, 2.0)
    status = play(WINNABLE, language="en", stdin=source, stdout=out, clock=clock)
    assert status == 0
    seconds = 2 * len(commands)
    assert f"You won! Time {clock_text(seconds)}, 96 moves, score 250." in out.getvalue()


def test_a_dead_end_offers_undo_or_a_new_game_and_undo_works() -> None:
    status, text = run(["25", "w", "23", "u", "q"], DEAD_AFTER_ONE_PAIR)
    assert status == 0
    assert "*** No more moves possible ***" in text
    assert "Type u to undo a move or n to start a new game." in text
    assert "This game is over" in text
    after_undo = text.split("Move undone.")[1]
    assert "Score 0  Moves 0" in after_undo and "No more moves" not in after_undo


def test_a_new_game_from_a_dead_end() -> None:
    _, text = run(["25", "w", f"n {TIP_MATCHES_WASTE}", "q"], DEAD_AFTER_ONE_PAIR)
    assert f"New game {TIP_MATCHES_WASTE}." in text
    assert text.split(f"New game {TIP_MATCHES_WASTE}.")[1].count("No more moves") == 0


def test_n_without_a_code_deals_a_random_game() -> None:
    _, text = run(["n", "q"])
    codes = re.findall(r"New game (HH1-N-[A-Z]{7})\.", text)
    assert len(codes) == 2 and codes[0] == EXAMPLE


def test_a_pair_scores_and_empties_its_place() -> None:
    _, text = run(["25", "w", "q"], TIP_MATCHES_WASTE)
    last_board = text.split("> ")[-2]
    assert "Score 10  Moves 1" in last_board
    assert "25" not in last_board.split("Stock")[0].splitlines()[-2]  # the tip's place is blank


def test_bad_input_gets_a_clear_message_and_changes_nothing() -> None:
    _, text = run(["foo", "0", "26", "-3", "1.5", "", "   ", "q"])
    assert "I don't know 'foo'. Type h for help." in text
    assert "There is no place 0: the places are numbered 1 to 25." in text
    assert "There is no place 26" in text and "There is no place -3" in text
    assert "I don't know '1.5'" in text
    assert "Moves 1" not in text and "Score 10" not in text


def test_a_covered_card_says_so_and_the_mismatch_message_needs_move_errors() -> None:
    _, quiet = run(["1", "25", "w", "q"])
    assert "That card is still covered." in quiet
    assert "Must be the same rank" not in quiet
    _, told = run(["25", "w", "q"], move_errors=True)
    assert "Must be the same rank" in told


def test_help_lists_the_commands() -> None:
    _, text = run(["h", "q"])
    for word in ("1..25", "  s ", "  w ", "  u ", "  n ", "  h ", "  q "):
        assert word in text


def test_indonesian() -> None:
    out = io.StringIO()
    play(
        DEAD_AFTER_ONE_PAIR,
        language="id",
        move_errors=True,
        stdin=io.StringIO("25\n3\nw\nq\n"),
        stdout=out,
        clock=FakeClock(),
    )
    text = out.getvalue()
    assert "Harus bernilai sama" not in text  # 3 is covered, so no mismatch yet
    assert "Kartu itu masih tertindih." in text
    assert "*** Tidak ada lagi langkah yang bisa dilakukan ***" in text
    assert "Waktu 00:00  Skor 10  Langkah 1" in text
    assert set(STRINGS["en"]) <= set(STRINGS["id"])


def test_a_bad_code_is_explained_in_indonesian_too() -> None:
    out = io.StringIO()
    status = play("HH1-N-AAAAAA1", language="id", stdin=io.StringIO(""), stdout=out)
    assert status == 2
    assert "Kode permainan itu tidak sah: bagian terakhir kode hanya memuat huruf A sampai Z" in (
        out.getvalue()
    )


def test_the_end_of_the_input_ends_the_game_quietly() -> None:
    status, text = run(["s"])
    assert status == 0 and "Moves 1" in text


def test_a_bad_code_is_refused() -> None:
    status, text = run(["q"], "HH1-N-AAAAAA1")
    assert status == 2 and "That deal code is not valid" in text and "'1'" in text


def test_the_time_is_shown_as_minutes_and_seconds() -> None:
    clock = FakeClock()
    out = io.StringIO()

    play(EXAMPLE, language="en", stdin=Slow(["s", "q"], clock, 75.0), stdout=out, clock=clock)
    assert "Time 01:15  Score 0  Moves 1" in out.getvalue()
    assert clock_text(3599.9) == "59:59" and clock_text(3600) == "60:00"


# ---------------------------------------------------------------- the drawing
def test_the_heart_is_drawn_to_scale() -> None:
    lines = draw_heart(Game.from_code(EXAMPLE))
    assert len(lines) == 14  # seven rows of numbers over cards
    numbers = [int(n) for line in lines[0::2] for n in line.split()]
    assert numbers == list(range(1, 26))
    # where each card's ♥ is drawn, row by row from the top, left to right
    columns = [m.start() for line in lines[1::2] for m in re.finditer("♥", line)]
    assert len(columns) == 25
    for position in range(1, 26):
        for cover in COVERED_BY[position - 1]:
            # a covering card sits half a card to the side: 3 characters per half-card step
            offset = columns[cover - 1] - columns[position - 1]
            assert offset == 3 * (X2[cover - 1] - X2[position - 1]) and abs(offset) == 3
    # the two arches: a gap of one card between positions 2 and 3
    assert columns[2] - columns[1] == 12


def test_marks_show_free_covered_selected_outlined_and_dimmed() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    drawn = "\n".join(draw_heart(game))
    assert "[ 8♥]" in drawn and "( J♥)" in drawn  # the tip pairs with the waste; 23 covered
    game.tap(25)
    assert "* 8♥*" in "\n".join(draw_heart(game))
    game.tap("waste")
    drawn = "\n".join(draw_heart(game))
    assert drawn.count("[ J♥]") == 2  # 23 and 24 are free and pair
    game2 = Game.from_code(EXAMPLE)
    game2.tap(25)
    game2.tap("waste")
    assert ". 5♥." in "\n".join(draw_heart(game2))  # the tip cannot pair with the waste's 4♥
    game2.placement_help = False
    plain = "\n".join(draw_heart(game2))
    assert "| 5♥|" in plain and "." not in plain and "[" not in plain


def test_without_placement_help_no_outlines_are_drawn() -> None:
    _, text = run(["q"], TIP_MATCHES_WASTE, placement_help=False)
    assert "[ 8♥]" not in text and "can pair" not in text


# ---------------------------------------------------------------- the command line
def test_the_command_line_runs_the_game(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("25\nw\nq\n"))
    assert main(["solitaire", "play", TIP_MATCHES_WASTE.lower(), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert f"New game {TIP_MATCHES_WASTE}." in out and "Score 10  Moves 1" in out


def test_the_command_line_refuses_a_bad_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["solitaire", "play", "HH2-N-AAAAAAM", "--lang", "en"]) == 2
    assert "not valid" in capsys.readouterr().out


def test_the_command_line_plays_the_deal_of_the_day(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    day = day_of(time.time_ns() // 1_000_000)
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["solitaire", "play", "--daily", "--lang", "en"]) == 0
    shown = capsys.readouterr().out
    # the site's deal of that day (if the day turned at this very moment, the next day's)
    assert any(f"New game {daily_code(d, deal_is_winnable)}." in shown for d in (day, day + 1))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["solitaire", "play", "HH1-N-AAAAAAM", "--daily"]) == 2
    assert "not both" in capsys.readouterr().err


def test_ctrl_c_quits_quietly() -> None:
    class Interrupted:
        def readline(self) -> str:
            raise KeyboardInterrupt

    out = io.StringIO()
    assert play(EXAMPLE, language="en", stdin=Interrupted(), stdout=out, clock=FakeClock()) == 0
    assert out.getvalue().rstrip().endswith("Goodbye.")
