"""The terminal games' shared edges: Ctrl+C and the end of the input say goodbye, the language
(``--lang``, else ``HEARTSUIT_LANG``, else Indonesian) and lines that break between words."""

from __future__ import annotations

import contextlib
import io
import os
import pty
import re
import select
import signal
import sys
import time
from collections.abc import Sequence

import pytest

from heartsuit.cards import Card
from heartsuit.cli import build_parser, main
from heartsuit.cli.hearts_play import STRINGS as HEARTS_STRINGS
from heartsuit.cli.hearts_play import Terminal, parse_cards
from heartsuit.cli.solitaire_play import STRINGS as SOLITAIRE_STRINGS
from heartsuit.cli.solitaire_play import play
from heartsuit.cli.terminal import LANG_ENV, LanguageError, default_lang, pick_lang, wrap
from heartsuit.hearts import Rules, SeatView
from heartsuit.hearts.bots import Bot
from tests.test_solitaire_game import EXAMPLE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Interrupted:
    """Input where the person presses Ctrl+C at the first prompt."""

    def readline(self) -> str:
        raise KeyboardInterrupt


class InterruptingBot:
    """A computer player that is thinking when Ctrl+C comes."""

    name = "interrupted"

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        raise KeyboardInterrupt

    def choose_play(self, view: SeatView) -> Card:
        raise KeyboardInterrupt


def interrupting(level: str, seed: int) -> Bot:
    return InterruptingBot()


def _hearts(stdin: object, lang: str = "en", width: int = 80, **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    terminal = Terminal(Rules(), 1, stdin, out, lang=lang, width=width, **kw)  # type: ignore[arg-type]
    return terminal.run(), out.getvalue()


# --- Ctrl+C and the end of the input -------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "id"])
def test_ctrl_c_at_a_prompt_of_hearts_says_goodbye(lang: str) -> None:
    status, out = _hearts(Interrupted(), lang=lang)
    assert status == 0
    assert out.rstrip().endswith(HEARTS_STRINGS[lang]["bye"])  # type: ignore[index]


def test_ctrl_c_while_the_computers_think_says_goodbye() -> None:
    status, out = _hearts(io.StringIO("\n" * 5), bots=interrupting)
    assert status == 0
    assert out.rstrip().endswith("Goodbye.")


@pytest.mark.parametrize("text", ["", "\n\n", "q\n", "keluar\n"])
def test_the_end_of_the_input_or_q_says_goodbye(text: str) -> None:
    status, out = _hearts(io.StringIO(text), lang="id")
    assert status == 0
    assert out.rstrip().endswith("Sampai jumpa.")


def _run_in_a_terminal(args: Sequence[str], prompt: bytes, env: dict[str, str]) -> bytes:
    """Start ``heartsuit *args`` on a pseudo-terminal, interrupt it at ``prompt`` as Ctrl+C does
    (SIGINT to the game), return all it wrote. A game that does not end is killed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the game, on the terminal
        # Ctrl+C at its default, as a terminal gives a game it starts: a shell that runs the
        # tests in the background ignores SIGINT, an exec keeps that, and Python then installs
        # no KeyboardInterrupt handler, so the game would never hear Ctrl+C
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "heartsuit", *args], env)
    output = b""
    deadline = time.monotonic() + 60
    sent = False
    resend_at = 0.0
    status = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # the game ended and closed the terminal
                    chunk = b""
                output += chunk
            if prompt in output and time.monotonic() >= resend_at:
                # Ctrl+C again after a while, as a person would: a signal that lands between
                # the prompt's write and the game's read (microseconds) is only acted on when
                # the read returns, which on a terminal nobody types in is never (measured: 2
                # runs in 135 on a loaded machine). A game that ignores Ctrl+C still hangs.
                os.kill(pid, signal.SIGINT)
                sent = True
                resend_at = time.monotonic() + 5
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = code
                break
    finally:
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, 65536):
                output += chunk
        os.close(fd)
    text = output.decode(errors="replace")
    assert sent, text
    assert status is not None, f"still running a minute later: {text}"
    assert os.waitstatus_to_exitcode(status) == 0, text
    return output


@pytest.mark.parametrize(
    ("args", "prompt", "bye"),
    [
        (["hearts", "play", "--seed", "1"], "]: ", "Sampai jumpa."),
        (["hearts", "play", "--seed", "1", "--lang", "en"], "]: ", "Goodbye."),
        (["solitaire", "play", EXAMPLE], "> ", "Sampai jumpa."),
    ],
)
def test_ctrl_c_in_a_real_terminal_says_goodbye_without_a_traceback(
    args: list[str], prompt: str, bye: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != LANG_ENV}
    env["PYTHONPATH"] = os.path.join(ROOT, "src")
    out = _run_in_a_terminal(args, prompt.encode(), env).decode("utf-8", errors="replace")
    assert bye in out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out


# --- the language --------------------------------------------------------------------------


def test_the_language_is_the_option_then_the_variable_then_indonesian() -> None:
    assert default_lang({}) == "id"
    assert default_lang({LANG_ENV: ""}) == "id"
    assert default_lang({LANG_ENV: "en"}) == "en"
    assert default_lang({LANG_ENV: " EN "}) == "en"
    assert default_lang({"LANG": "en_US.UTF-8"}) == "id"  # the system locale is not asked
    assert pick_lang("id", {LANG_ENV: "en"}) == "id"
    assert pick_lang(None, {LANG_ENV: "en"}) == "en"
    with pytest.raises(LanguageError, match=r"HEARTSUIT_LANG must be id or en, not 'fr'"):
        default_lang({LANG_ENV: "fr"})


def _command(
    args: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], lang_env: str | None = None,
) -> tuple[int, str, str]:
    if lang_env is None:
        monkeypatch.delenv(LANG_ENV, raising=False)
    else:
        monkeypatch.setenv(LANG_ENV, lang_env)
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    ("args", "env", "expected", "unexpected"),
    [
        (["hearts", "play", "--seed", "1"], None, "Kode permainan HE1-S-", "Game code"),
        (["hearts", "play", "--seed", "1", "--lang", "id"], "en", "Babak 1", "Hand 1"),
        (["hearts", "play", "--seed", "1"], "en", "=== Hand 1 — pass left", "Babak"),
        (["hearts", "play", "--seed", "1", "--lang", "en"], None, "Game code HE1-S-", "Kode"),
        # the match seed in Indonesian words, not the English "Seed"
        (["hearts", "play", "--seed", "1"], None, "Nomor kocokan 1 (", "Seed"),
        (["solitaire", "play", EXAMPLE], None, "Permainan baru", "New game"),
        (["solitaire", "play", EXAMPLE], "en", "New game", "Permainan baru"),
        (["solitaire", "play", EXAMPLE, "--lang", "en"], "id", "New game", "Permainan baru"),
    ],
)
def test_each_game_speaks_the_chosen_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    args: list[str], env: str | None, expected: str, unexpected: str,
) -> None:
    status, out, _ = _command(args, "q\n", monkeypatch, capsys, env)
    assert status == 0
    assert expected in out
    assert unexpected not in out


@pytest.mark.parametrize("game", [["hearts", "play", "--seed", "1"], ["solitaire", "play"]])
def test_an_unknown_language_is_refused_before_anything_is_played(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], game: list[str]
) -> None:
    status, out, err = _command(game, "1\n", monkeypatch, capsys, "fr")
    assert status == 2
    assert out == ""
    assert "HEARTSUIT_LANG must be id or en, not 'fr'" in err
    with pytest.raises(SystemExit):
        main([*game, "--lang", "fr"])
    assert "invalid choice: 'fr'" in capsys.readouterr().err


def test_hearts_in_indonesian_says_why_a_card_is_refused() -> None:
    # no passing; seat 0 holds 2♣ and must lead it: 9♣ is refused, in the site's words
    out = io.StringIO()
    terminal = Terminal(Rules(passing=False), 6, io.StringIO("9C\n99\nZZ\nq\n"), out, lang="id")
    assert terminal.run() == 0
    text = out.getvalue()
    assert "Tidak boleh: Trik pertama harus dibuka dengan keriting terendah." in text
    assert "99 bukan nomor kartu (1..13)" in text
    assert "'ZZ' bukan kartu" in text
    assert "Kamu membuka trik. Hati belum pecah." in text
    assert "Not allowed" not in text and "Hand" not in text


def test_every_hearts_message_exists_in_both_languages() -> None:
    english, indonesian = HEARTS_STRINGS["en"], HEARTS_STRINGS["id"]
    assert set(english) <= set(indonesian)
    for key, text in english.items():
        fields = set(re.findall(r"\{(\w+)", text))
        assert fields == set(re.findall(r"\{(\w+)", indonesian[key])), key
    assert set(SOLITAIRE_STRINGS["en"]) <= set(SOLITAIRE_STRINGS["id"])


def test_card_errors_in_indonesian() -> None:
    hand = [Card.parse("2C"), Card.parse("QS")]
    assert parse_cards("2 qs", hand, "id") == [hand[1], hand[1]]
    with pytest.raises(ValueError, match=r"^3 bukan nomor kartu \(1\.\.2\)$"):
        parse_cards("3", hand, "id")
    with pytest.raises(ValueError, match="not a card"):
        parse_cards("XY", hand)  # English keeps the cards module's words


# --- lines that fit the terminal -----------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("width", [20, 33, 40, 60, 80])
def test_wrap_breaks_between_words_only(width: int) -> None:
    text = (HEARTS_STRINGS["id"]["help"] + "\n" + SOLITAIRE_STRINGS["id"]["help"] + "\n"
            + "  ♠  1:2♠  2:3♠  3:4♠  4:5♠  5:6♠  6:7♠  7:8♠  8:9♠  9:10♠  10:J♠  11:Q♠")
    wrapped = wrap(text, width)
    assert _words(wrapped) == _words(text)  # nothing split, lost or added
    longest_word = max(len(w) for w in _words(text))
    for line in wrapped.split("\n"):
        assert len(line) <= max(width, longest_word + 10), line


def test_the_solitaire_help_speaks_of_typed_commands_not_taps() -> None:
    # a command is typed, not tapped: "pilih" and "buka", never "ketuk"
    out = io.StringIO()
    play(EXAMPLE, language="id", stdin=io.StringIO("h\nq\n"), stdout=out)
    text = out.getvalue()
    assert "1..25   pilih kartu di tempat itu pada hati" in text
    assert "ketuk" not in text.lower()


def test_wrap_continues_a_command_line_under_its_description() -> None:
    line = "  s       buka satu kartu dari tumpukan ambil (kalau habis, buangan dibalik lagi)"
    wrapped = wrap(line, 60).split("\n")
    assert len(wrapped) == 2
    assert wrapped[0].startswith("  s       buka")
    assert wrapped[1].startswith(" " * 10) and not wrapped[1].startswith(" " * 11)
    assert wrap("short", 60) == "short"
    assert wrap("a\n\nb", 10) == "a\n\nb"


@pytest.mark.parametrize("lang", ["en", "id"])
def test_the_hearts_help_fits_a_narrow_terminal(lang: str) -> None:
    status, out = _hearts(io.StringIO("?\nq\n"), lang=lang, width=40)
    assert status == 0
    # what is typed after a prompt ends its line on a real terminal
    for line in out.replace("]: ", "]:\n").split("\n"):
        assert len(line) <= 40, line
    help_text = HEARTS_STRINGS[lang]["help"]  # type: ignore[index]
    assert " ".join(_words(help_text)) in " ".join(_words(out))


@pytest.mark.parametrize("lang", ["en", "id"])
def test_the_solitaire_help_fits_80_columns(lang: str) -> None:
    out = io.StringIO()
    play(EXAMPLE, language=lang, stdin=io.StringIO("h\nq\n"), stdout=out, width=80)  # type: ignore[arg-type]
    lines = out.getvalue().split("\n")
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert " ".join(_words(SOLITAIRE_STRINGS[lang]["help"])) in " ".join(  # type: ignore[index]
        _words(out.getvalue())
    )


def _all_parsers() -> list[list[str]]:
    return [[], ["serve"], ["hearts"], ["hearts", "play"], ["hearts", "arena"], ["solitaire"],
            ["solitaire", "play"], ["solitaire", "solve"], ["solitaire", "stats"]]


@pytest.mark.parametrize("command", _all_parsers())
def test_command_help_fits_80_columns_and_breaks_between_words(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    texts = {}
    for columns in (80, 300):
        monkeypatch.setenv("COLUMNS", str(columns))
        with pytest.raises(SystemExit):
            build_parser().parse_args([*command, "--help"])
        texts[columns] = capsys.readouterr().out
    for line in texts[80].split("\n"):
        assert len(line) <= 80, line
    # the same words at 80 columns as on one wide line: none was cut in two
    assert _words(texts[80]) == _words(texts[300])
