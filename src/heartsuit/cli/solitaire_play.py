"""`heartsuit solitaire play [CODE]`: Heart to Heart in a terminal, one command per line.

The game reads commands from a text stream (stdin by default) and writes the board to another,
so a test can drive a whole game. The rules all live in :class:`heartsuit.solitaire.Game`; this
module only draws the board, reads commands and passes the time of each command to the engine.

The heart is drawn to scale: each card is two half-card steps wide, so a card sits half a card
to the side of the two it covers, exactly as ``layout.X2`` places it. Card marks:
``| 5♥|`` free, ``( 5♥)`` covered, ``* 5♥*`` selected, and with placement help ``[ 5♥]`` can
pair now and ``. 5♥.`` cannot pair with the selected card; an empty place is blank.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any, Final, Literal, Protocol, TextIO

from heartsuit.cards import Card, rank_name
from heartsuit.cli.terminal import (
    LANG_ENV,
    MIN_WIDTH,
    LanguageError,
    pick_lang,
    terminal_width,
    wrap,
)
from heartsuit.server.solitaire.daily import daily_code, day_of
from heartsuit.solitaire import Game, GameError, Outcome, Reason, TapKind, TapResult
from heartsuit.solitaire.codes import DealCodeError, deal_for_code, normalize_code, random_code
from heartsuit.solitaire.layout import ROW, ROW_SIZES, X2
from heartsuit.solitaire.solver import decide

Language = Literal["en", "id"]


class LineSource(Protocol):
    """Where commands come from: stdin, or anything a test makes that reads a line."""

    def readline(self) -> str: ...


# Strings of the terminal game. "must_match" and "dead_end" are the app's own messages (spec:
# "Harus bernilai sama", "Tidak ada lagi langkah yang bisa dilakukan"); the rest is ours.
STRINGS: Final[dict[Language, dict[str, str]]] = {
    "en": {
        "title": "Heart to Heart",
        "stock": "Stock",
        "waste": "Waste",
        "card": "card",
        "cards": "cards",
        "empty": "empty",
        "time": "Time",
        "score": "Score",
        "moves": "Moves",
        "legend": "| | free   ( ) covered   * * selected",
        "legend_help": "   [ ] can pair   . . no match",
        "prompt": "> ",
        "help": (
            "Commands:\n"
            "  1..25   touch the card at that place of the heart\n"
            "  s       touch the stock (turn a card, or turn the waste back when empty)\n"
            "  w       touch the top card of the waste\n"
            "  u       undo the last move (up to 100 moves)\n"
            "  n       new game (n CODE plays that deal)\n"
            "  h       this help\n"
            "  q       quit\n"
            "Pair two free cards of the same rank, or a free card with the waste's top card.\n"
            "Each heart card removed scores 10. Clear all 25 heart cards to win."
        ),
        "must_match": "Must be the same rank",
        "covered": "That card is still covered.",
        "empty_place": "That place is empty.",
        "empty_waste": "The waste is empty.",
        "nothing_to_flip": "The stock and the waste are both empty.",
        "undone": "Move undone.",
        "nothing_to_undo": "There is nothing to undo.",
        "dead_end": "No more moves possible",
        "dead_end_offer": "Type u to undo a move or n to start a new game.",
        "won": "You won! Time {time}, {moves} moves, score {score}.",
        "won_offer": "Type n for a new game or q to quit.",
        "over": "This game is over: type u to undo, n for a new game or q to quit.",
        "unknown": "I don't know {text!r}. Type h for help.",
        "no_position": "There is no place {number}: the places are numbered 1 to 25.",
        "bad_code": "That deal code is not valid: {error}",
        "new_game": "New game {code}.",
        "bye": "Goodbye.",
    },
    "id": {
        "title": "Heart to Heart",
        "stock": "Tumpukan ambil",
        "waste": "Buangan",
        "card": "kartu",
        "cards": "kartu",
        "empty": "kosong",
        "time": "Waktu",
        "score": "Skor",
        "moves": "Langkah",
        "legend": "| | bebas   ( ) tertindih   * * terpilih",
        "legend_help": "   [ ] bisa dipasangkan   . . tidak cocok",
        "prompt": "> ",
        "help": (
            "Perintah:\n"
            "  1..25   pilih kartu di tempat itu pada hati\n"
            "  s       buka satu kartu dari tumpukan ambil (kalau habis, buangan dibalik lagi)\n"
            "  w       pilih kartu teratas buangan\n"
            "  u       urungkan langkah terakhir (paling banyak 100 langkah)\n"
            "  n       permainan baru (n KODE memainkan susunan itu)\n"
            "  h       bantuan ini\n"
            "  q       keluar\n"
            "Pasangkan dua kartu bebas yang nilainya sama, atau kartu bebas dengan kartu teratas\n"
            "buangan. Tiap kartu hati yang diangkat bernilai 10. Angkat ke-25 kartu untuk menang."
        ),
        "must_match": "Harus bernilai sama",
        "covered": "Kartu itu masih tertindih.",
        "empty_place": "Tempat itu sudah kosong.",
        "empty_waste": "Buangan kosong.",
        "nothing_to_flip": "Tumpukan ambil dan buangan sama-sama kosong.",
        "undone": "Langkah diurungkan.",
        "nothing_to_undo": "Tidak ada langkah untuk diurungkan.",
        "dead_end": "Tidak ada lagi langkah yang bisa dilakukan",
        "dead_end_offer": "Ketik u untuk mengurungkan langkah atau n untuk permainan baru.",
        "won": "Kamu menang! Waktu {time}, {moves} langkah, skor {score}.",
        "won_offer": "Ketik n untuk permainan baru atau q untuk keluar.",
        "over": "Permainan ini sudah selesai: ketik u untuk mengurungkan, n untuk baru, q keluar.",
        "unknown": "Perintah {text!r} tidak dikenal. Ketik h untuk bantuan.",
        "no_position": "Tidak ada tempat {number}: tempat bernomor 1 sampai 25.",
        "bad_code": "Kode permainan itu tidak sah: {error}",
        # deal-code problems (codes.CodeProblem), since the codes module speaks English
        "code_not_text": "kode harus berupa teks",
        "code_parts": "kode terdiri atas tiga bagian yang dipisah '-', seperti HH1-N-AAAAAAM",
        "code_prefix": "kode Heart to Heart diawali HH, seperti HH1-N-AAAAAAM",
        "code_version": "versi kode ini tidak dikenal; gunakan HH1-…",
        "code_rule_set": "aturan permainan itu tidak dikenal; gunakan N",
        "code_length": "bagian terakhir kode terdiri atas tepat 7 huruf",
        "code_letter": "bagian terakhir kode hanya memuat huruf A sampai Z",
        "new_game": "Permainan baru {code}.",
        "bye": "Sampai jumpa.",
    },
}

#: characters per half-card step; a card is two steps wide
STEP: Final = 3
_CARD_WIDTH: Final = 2 * STEP - 1


def register(commands: Any) -> None:
    """Add `play` to the `solitaire` command group."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play",
        help="play Heart to Heart in the terminal",
        description="Play Heart to Heart in the terminal: type a place number, s, w, u, n, h, q.",
    )
    parser.add_argument("code", nargs="?", help="deal code like HH1-N-AAAAAAM (default: random)")
    parser.add_argument(
        "--daily", action="store_true",
        help="play the deal of the day (today's in UTC, the same as on the site)",
    )
    parser.add_argument(
        "--lang", choices=("id", "en"), default=None,
        help=f"language: id or en (default: ${LANG_ENV}, else id)",
    )
    parser.add_argument(
        "--move-errors", action="store_true", help='say "Must be the same rank" on a mismatch'
    )
    parser.add_argument(
        "--no-help", action="store_true", help="turn off placement help (outlines and dimming)"
    )
    parser.set_defaults(handler=_handle)


def _handle(args: argparse.Namespace) -> int:
    try:
        language = pick_lang(args.lang)
    except LanguageError as exc:
        print(f"heartsuit solitaire play: {exc}", file=sys.stderr)
        return 2
    code = args.code
    if args.daily:
        if code is not None:
            print("heartsuit solitaire play: give a code or --daily, not both", file=sys.stderr)
            return 2
        code = today_code()
    return play(
        code,
        language=language,
        move_errors=args.move_errors,
        placement_help=not args.no_help,
    )


def today_code() -> str:
    """The site's deal of the day for today (UTC): the same date, the same exact solver."""
    day = day_of(time.time_ns() // 1_000_000)
    return daily_code(day, lambda code: decide(deal_for_code(code)))


def play(
    code: str | None = None,
    *,
    language: Language = "id",
    move_errors: bool = False,
    placement_help: bool = True,
    stdin: LineSource | None = None,
    stdout: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
    width: int | None = None,
) -> int:
    """Run the game until ``q``, the end of the input or Ctrl+C; 0 on a normal end, 2 on a bad
    code. Lines longer than ``width`` (default: the terminal's) break between words."""
    session = Session(
        language=language,
        move_errors=move_errors,
        placement_help=placement_help,
        out=sys.stdout if stdout is None else stdout,
        clock=clock,
        width=terminal_width() if width is None else max(MIN_WIDTH, width),
    )
    source: LineSource = sys.stdin if stdin is None else stdin
    if not session.start(code):
        return 2
    try:
        while True:
            session.write(session.text["prompt"], end="")
            session.out.flush()
            line = source.readline()
            if not line:
                session.write("")
                return 0
            if not session.command(line):
                return 0
    except KeyboardInterrupt:  # Ctrl-C is a way to quit, not a crash
        session.write("")
        session.write(session.text["bye"])
        return 0


class Session:
    """One terminal session: the current game, the language, and where to write."""

    def __init__(
        self,
        *,
        language: Language,
        move_errors: bool,
        placement_help: bool,
        out: TextIO,
        clock: Callable[[], float],
        width: int = 80,
    ) -> None:
        self.text = STRINGS[language]
        self.width = width
        self.language: Language = language
        self.move_errors = move_errors
        self.placement_help = placement_help
        self.out = out
        self.clock = clock
        self.game: Game | None = None

    def write(self, line: str, end: str = "\n") -> None:
        self.out.write(wrap(line, self.width) + end)

    def start(self, code: str | None) -> bool:
        """Deal ``code`` (or a random deal) and draw it; False after a bad code."""
        try:
            normal = None if code is None else normalize_code(code)
        except DealCodeError as err:
            detail = self.text.get(f"code_{err.problem.value}", str(err))
            self.write(self.text["bad_code"].format(error=detail))
            return False
        self.game = Game.from_code(
            random_code() if normal is None else normal,
            move_errors=self.move_errors,
            placement_help=self.placement_help,
            language=self.language,
            now=self.clock(),
        )
        self.write(self.text["new_game"].format(code=self.game.code))
        self.show()
        return True

    def command(self, line: str) -> bool:
        """Carry out one line of input; False when the player quits."""
        words = line.split()
        if not words:
            return True
        head = words[0].lower()
        game = self.game
        assert game is not None
        if head in ("q", "quit", "exit"):
            self.write(self.text["bye"])
            return False
        if head in ("h", "help", "?"):
            self.write(self.text["help"])
        elif head in ("n", "new"):
            self.start(words[1] if len(words) > 1 else None)
        elif head in ("u", "undo"):
            undone = game.undo(now=self.clock())
            self.write(self.text["undone" if undone else "nothing_to_undo"])
            self.show()
        elif head in ("s", "stock", "w", "waste") or head.lstrip("-").isdigit():
            self.touch(head)
        else:
            self.write(self.text["unknown"].format(text=line.strip()))
        return True

    def touch(self, word: str) -> None:
        game = self.game
        assert game is not None
        target: int | Literal["stock", "waste"]
        if word in ("s", "stock"):
            target = "stock"
        elif word in ("w", "waste"):
            target = "waste"
        else:
            target = int(word)
            if not 1 <= target <= 25:
                self.write(self.text["no_position"].format(number=target))
                return
        if game.over:
            self.write(self.text["over"])
            return
        try:
            result = game.tap(target, now=self.clock())
        except GameError as err:  # not expected after the checks above; say it, change nothing
            self.write(str(err))
            return
        self.report(result)
        if result.kind is not TapKind.IGNORED:
            self.show()

    def report(self, result: TapResult) -> None:
        if result.kind is TapKind.IGNORED and result.reason is not None:
            self.write(self.text[result.reason.value])
        elif result.message_key == Reason.MUST_MATCH.value:
            self.write(self.text["must_match"])

    # ------------------------------------------------------------------ drawing
    def show(self) -> None:
        game = self.game
        assert game is not None
        for line in draw_heart(game):
            self.write(line)
        self.write(self.piles())
        self.write(self.info())
        help_marks = self.text["legend_help"] if game.placement_help else ""
        self.write(self.text["legend"] + help_marks)
        if game.outcome is Outcome.DEAD_END:
            self.write(f"*** {self.text['dead_end']} ***")
            self.write(self.text["dead_end_offer"])
        elif game.outcome is Outcome.WON:
            self.write(
                "*** "
                + self.text["won"].format(
                    time=clock_text(game.elapsed(self.clock())), moves=game.moves, score=game.score
                )
                + " ***"
            )
            self.write(self.text["won_offer"])

    def piles(self) -> str:
        game = self.game
        assert game is not None
        stock = f"{self.text['stock']} (s): {self.count(len(game.stock))}"
        if game.waste:
            top = card_mark(game.waste[-1], _mark(game, "waste")).strip()
            waste = f"{self.text['waste']} (w): {top}  ({self.count(len(game.waste))})"
        else:
            waste = f"{self.text['waste']} (w): {self.text['empty']}"
        return f"{stock}    {waste}"

    def count(self, cards: int) -> str:
        return f"{cards} {self.text['card' if cards == 1 else 'cards']}"

    def info(self) -> str:
        game = self.game
        assert game is not None
        return (
            f"{self.text['time']} {clock_text(game.elapsed(self.clock()))}  "
            f"{self.text['score']} {game.score}  {self.text['moves']} {game.moves}  {game.code}"
        )


Mark = Literal["selected", "outlined", "dimmed", "free", "covered"]
_BRACKETS: Final[dict[Mark, str]] = {
    "selected": "**",
    "outlined": "[]",
    "dimmed": "..",
    "free": "||",
    "covered": "()",
}


def card_mark(card: Card, mark: Mark) -> str:
    """A card as five characters, its brackets saying how it may be played: ``[10♥]``."""
    brackets = _BRACKETS[mark]
    return f"{brackets[0]}{rank_name(card.rank):>2}♥{brackets[1]}"


def _mark(game: Game, target: int | Literal["waste"]) -> Mark:
    if game.selected == target:
        return "selected"
    if target in game.dimmed():
        return "dimmed"
    if target in game.outlined():
        return "outlined"
    if target == "waste" or game.is_free(target):
        return "free"
    return "covered"


def draw_heart(game: Game) -> list[str]:
    """The heart to scale: per row, a line of place numbers over a line of cards."""
    width = (max(X2) - min(X2)) * STEP + _CARD_WIDTH
    lines: list[str] = []
    position = 1
    for row, size in enumerate(ROW_SIZES, start=1):
        numbers = [" "] * width
        cards = [" "] * width
        for p in range(position, position + size):
            assert ROW[p - 1] == row
            column = (X2[p - 1] - min(X2)) * STEP
            card = game.heart[p - 1]
            if card is None:
                continue  # emptied places stay empty
            numbers[column : column + _CARD_WIDTH] = f"{p:^{_CARD_WIDTH}}"
            cards[column : column + _CARD_WIDTH] = card_mark(card, _mark(game, p))
        position += size
        lines.append("".join(numbers).rstrip())
        lines.append("".join(cards).rstrip())
    return lines


def clock_text(seconds: float) -> str:
    """``mm:ss`` (minutes keep counting past 59)."""
    whole = int(seconds)
    return f"{whole // 60:02d}:{whole % 60:02d}"
