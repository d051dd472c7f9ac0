"""`heartsuit hearts play`: a match of Hearts in the terminal, you against computer players.

Line based (reads stdin, writes stdout) so that a test can drive it. You sit in seat 0; the
other seats are computers at a difficulty level (default ``"normal"``), played by the same
table driver as the site (:func:`heartsuit.hearts.driver.advance`), so they see only their
:class:`~heartsuit.hearts.view.SeatView`, like you, and choose the same way for the same match.
What is printed comes from the events the engine returns and from views; the suggestion in
brackets at each prompt is what a ``"normal"`` computer would do in your seat.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import Any, Final, TextIO

from heartsuit import i18n
from heartsuit.cards import Card, Suit
from heartsuit.cli.terminal import (
    LANG_ENV,
    MIN_WIDTH,
    LanguageError,
    pick_lang,
    terminal_width,
    wrap,
)
from heartsuit.hearts import IllegalMove, Match, Reason, Rules, RulesError, SeatView
from heartsuit.hearts.actions import MOON_CHOICES, Action, Moon, MoonChoice, Pass, Play
from heartsuit.hearts.codes import SEED_COUNT, format_code, parse_code
from heartsuit.hearts.driver import BotFactory, SeatPlayer, advance, computer_action, make_computer
from heartsuit.hearts.events import (
    Event,
    HandDealt,
    HandDone,
    MoonChosen,
    PassesExchanged,
    Played,
    TrickDone,
)
from heartsuit.hearts.rules import PRESET_NAMES, MoonOption
from heartsuit.i18n import LANGUAGES, Lang

YOU = 0
MOON_OPTIONS: tuple[MoonOption, ...] = ("others_plus_26", "self_minus_26", "shooter_chooses")
LEVEL = "normal"

#: what the terminal game says, in each language (the reasons a card is refused come from the
#: site's catalog, ``hearts.reason.*``, in Indonesian; English keeps the engine's own words)
STRINGS: Final[dict[Lang, dict[str, str]]] = {
    "en": {
        "intro": "Hearts: {players} players, {cards} cards each, match to {target}. "
        "You are seat {you}.",
        "help": "Type cards by their number in the list or as text (QS, 10H, 2C); several for "
        "a pass, separated by spaces. An empty line takes the suggestion in brackets; x marks "
        "a card you cannot play now. '?' shows this help, 'q' quits.",
        "bye": "Goodbye.",
        "over": "Match over. Final scores: {scores}. Winner: {winners}.",
        "you": "You",
        "seat": "Seat {n}",
        "hand": "=== Hand {n} — {passing}. Scores: {scores}",
        "pass.hold": "no pass",
        "pass.left": "pass left",
        "pass.right": "pass right",
        "pass.across": "pass across",
        "plays": "{name} plays {card}.",
        "exchanged": "You passed {passed} and received {received}.",
        "hand_over": "Hand over. Points: {points}",
        "moon": "{name} shot the moon!",
        "kitty": "The kitty was {cards}.",
        "cancelled": "Cancelled (identical cards): {cards}.",
        "held": "Every card cancelled: the trick is held over.",
        "you_take": "You take the trick ({points} {unit}).",
        "takes": "{name} takes the trick ({points} {unit}).",
        "point": "point",
        "points": "points",
        "pass_prompt": "Pass {n} cards to {name} [{suggested}]: ",
        "trick_so_far": "Trick so far: {plays}",
        "you_lead": "You lead.",
        "not_broken": "Hearts are not broken.",
        "play_prompt": "Your card [{card}]: ",
        "one_card": "play one card",
        "refused": "Not allowed: {reason}.",
        "not_held": "Not allowed: you do not hold {cards}.",
        "nothing": "nothing",
        "not_number": "{token} is not a card number (1..{count})",
        "seed": "Match seed {seed} (replay it with --seed {seed}).",
        "code": "Game code {code} (replay it with --code {code}).",
        "moon_rule": "Whoever shoots the moon chooses how it scores.",
        "moon_choose": "You shot the moon! Choose how it scores:",
        "moon_totals": "totals {totals}",
        "moon_prompt": "Your choice, 1 or 2 [{n}]: ",
        "moon_retry": "Type 1 or 2 (or press Enter for the suggestion).",
        "moon.others": "everyone else +{total}",
        "moon.self": "the shooter −{total}",
        "moon_chosen_you": "You shot the moon and choose: {choice}.",
        "moon_chosen": "{name} shot the moon and chooses: {choice}.",
    },
    "id": {
        "intro": "Hearts: {players} pemain, masing-masing {cards} kartu, sampai {target} poin. "
        "Kamu duduk di kursi {you}.",
        "help": "Ketik kartu dengan nomornya di daftar atau sebagai teks (QS, 10H, 2C); untuk "
        "mengoper, beberapa kartu dipisah spasi. Baris kosong memilih saran dalam kurung siku; "
        "x menandai kartu yang belum boleh dimainkan. '?' menampilkan bantuan ini, 'q' keluar.",
        "bye": "Sampai jumpa.",
        "over": "Permainan selesai. Skor akhir: {scores}. Pemenang: {winners}.",
        "you": "Kamu",
        "seat": "Kursi {n}",
        "hand": "=== Babak {n} — {passing}. Skor: {scores}",
        "pass.hold": "tanpa oper",
        "pass.left": "oper ke kiri",
        "pass.right": "oper ke kanan",
        "pass.across": "oper ke depan",
        "plays": "{name} memainkan {card}.",
        "exchanged": "Kamu mengoper {passed} dan menerima {received}.",
        "hand_over": "Babak selesai. Poin: {points}",
        "moon": "{name} menembak bulan!",
        "kitty": "Sisa kartunya: {cards}.",
        "cancelled": "Batal (kartu kembar): {cards}.",
        "held": "Semua kartu batal: trik ini ditahan untuk pemenang trik berikutnya.",
        "you_take": "Kamu mengambil trik ({points} {unit}).",
        "takes": "{name} mengambil trik ({points} {unit}).",
        "point": "poin",
        "points": "poin",
        "pass_prompt": "Oper {n} kartu kepada {name} [{suggested}]: ",
        "trick_so_far": "Trik sejauh ini: {plays}",
        "you_lead": "Kamu membuka trik.",
        "not_broken": "Hati belum pecah.",
        "play_prompt": "Kartumu [{card}]: ",
        "one_card": "mainkan satu kartu saja",
        "refused": "Tidak boleh: {reason}",
        "not_held": "Tidak boleh: kamu tidak memegang {cards}.",
        "nothing": "tidak ada",
        "not_number": "{token} bukan nomor kartu (1..{count})",
        "not_card": "{token!r} bukan kartu: tulis nilai lalu jenisnya, seperti QS, 10H atau 2C",
        "seed": "Nomor kocokan {seed} (mainkan lagi dengan --seed {seed}).",
        "code": "Kode permainan {code} (mainkan lagi dengan --code {code}).",
        "moon_rule": "Siapa yang menembak bulan memilih cara skornya dihitung.",
        "moon_choose": "Kamu menembak bulan! Pilih cara skornya dihitung:",
        "moon_totals": "total {totals}",
        "moon_prompt": "Pilihanmu, 1 atau 2 [{n}]: ",
        "moon_retry": "Ketik 1 atau 2 (atau tekan Enter untuk sarannya).",
        "moon.others": "semua pemain lain +{total}",
        "moon.self": "penembak −{total}",
        "moon_chosen_you": "Kamu menembak bulan dan memilih: {choice}.",
        "moon_chosen": "{name} menembak bulan dan memilih: {choice}.",
    },
}
QUIT_WORDS: Final = ("q", "quit", "exit", "keluar")
HELP_WORDS: Final = ("?", "help", "h", "bantuan")
#: kept for callers of the old constant: the English help
HELP: Final = STRINGS["en"]["help"]


class Quit(Exception):
    """The person typed 'q', the input ended or Ctrl+C was pressed."""


class Terminal:
    """One match at the terminal; :meth:`run` returns the exit code.

    ``bots`` builds the computer players (and your suggestions) from a level name and a seed;
    a test can give its own. ``lang`` is the language of everything said; ``width`` the
    columns lines are wrapped to (default: the terminal's).
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        stdin: TextIO,
        stdout: TextIO,
        *,
        level: str = LEVEL,
        bots: BotFactory = make_computer,
        lang: Lang = "id",
        width: int | None = None,
    ) -> None:
        self.match = Match.new(rules, seed)
        self.stdin, self.stdout = stdin, stdout
        self.players = [
            SeatPlayer.human() if seat == YOU else SeatPlayer.computer(level)
            for seat in range(rules.players)
        ]
        self.level, self.bots = level, bots
        self.key = f"terminal/{seed}"  # the computers' choices replay with the match seed
        self.lang: Lang = lang
        self.strings = STRINGS[lang]
        self.width = terminal_width() if width is None else max(MIN_WIDTH, width)

    def text(self, key: str, **values: object) -> str:
        return self.strings[key].format(**values)

    def say(self, text: str = "") -> None:
        print(wrap(text, self.width), file=self.stdout)

    def ask(self, prompt: str) -> str:
        self.stdout.write(wrap(prompt.rstrip(), self.width) + " ")
        self.stdout.flush()
        line = self.stdin.readline()
        if not line or line.strip().lower() in QUIT_WORDS:
            raise Quit
        if line.strip().lower() in HELP_WORDS:
            self.say(self.text("help"))
            return self.ask(prompt)
        return line.strip()

    def name(self, seat: int) -> str:
        return self.text("you") if seat == YOU else self.text("seat", n=seat)

    # --- the match -----------------------------------------------------------------------

    def run(self) -> int:
        """Play until the match ends, 'q', the end of the input or Ctrl+C; 0 either way."""
        rules = self.match.rules
        try:
            moon = " " + self.text("moon_rule") if rules.moon == "shooter_chooses" else ""
            self.say(self.text("intro", players=rules.players, cards=rules.hand_size(),
                               target=rules.target, you=YOU) + moon + " " + self.text("help"))
            self.announce_hand()
            while True:
                for _, events in advance(self.match, self.players, self.key, bots=self.bots):
                    self.report(events)
                if self.match.is_over:
                    break
                if self.match.view(YOU).must_pass:
                    self.your_pass()
                elif self.match.view(YOU).phase == "moon":
                    self.your_moon()
                else:
                    self.your_play()
        except (Quit, KeyboardInterrupt):  # Ctrl+C is a way to quit, not a crash
            self.say()
            self.say(self.text("bye"))
            return 0
        winners = ", ".join(self.name(s) for s in self.match.winners)
        self.say(self.text("over", scores=self.scores_text(), winners=winners))
        return 0

    def scores_text(self) -> str:
        return ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(self.match.scores))

    def announce_hand(self) -> None:
        view = self.match.view(YOU)
        passing = self.text(f"pass.{view.pass_direction}")
        self.say()
        self.say(self.text("hand", n=view.hand_number + 1, passing=passing,
                           scores=self.scores_text()))

    def report(self, events: Sequence[Event]) -> None:
        """Print what happened, from the engine's events (and the finished hand's view)."""
        for event in events:
            if isinstance(event, Played) and event.seat != YOU:
                self.say(self.text("plays", name=self.name(event.seat), card=event.card))
            elif isinstance(event, PassesExchanged):
                view = self.match.view(YOU)
                self.say(self.text("exchanged", passed=self.cards_text(view.passed),
                                   received=self.cards_text(view.received)))
            elif isinstance(event, TrickDone):
                self.report_trick(event)
            elif isinstance(event, MoonChosen):
                key = "moon_chosen_you" if event.seat == YOU else "moon_chosen"
                total = self.match.rules.total_points()
                self.say(self.text(key, name=self.name(event.seat),
                                   choice=self.moon_text(event.choice, total)))
            elif isinstance(event, HandDone):
                points = ", ".join(f"{self.name(s)} {p}" for s, p in enumerate(event.points))
                self.say(self.text("hand_over", points=points))
                if event.shooter is not None:
                    self.say(self.text("moon", name=self.name(event.shooter)))
                kitty = self.match.hands[event.hand_number].view(YOU).kitty
                if kitty:
                    self.say(self.text("kitty", cards=self.cards_text(kitty)))
            elif isinstance(event, HandDealt):
                self.announce_hand()

    def report_trick(self, trick: TrickDone) -> None:
        if trick.cancelled:
            cancelled = [trick.plays[i][1] for i in trick.cancelled]
            self.say(self.text("cancelled", cards=self.cards_text(cancelled)))
        if trick.winner is None:
            self.say(self.text("held"))
        else:
            unit = self.text("point" if abs(trick.points) == 1 else "points")
            if trick.winner == YOU:
                self.say(self.text("you_take", points=trick.points, unit=unit))
            else:
                self.say(self.text("takes", name=self.name(trick.winner), points=trick.points,
                                   unit=unit))

    def act(self, action: Action) -> None:
        self.report(self.match.apply(action))

    def suggestion(self) -> Action:
        return computer_action(self.match, YOU, self.level, self.key, bots=self.bots)

    def your_pass(self) -> None:
        view = self.match.view(YOU)
        target = view.rules.pass_target(YOU, view.pass_direction)
        self.show_hand(view)
        suggested = self.suggestion()
        assert isinstance(suggested, Pass)
        chosen: list[Card] = []
        while True:
            text = self.ask(self.text("pass_prompt", n=view.rules.pass_count,
                                      name=self.name(target),
                                      suggested=self.cards_text(suggested.cards)))
            try:
                chosen = parse_cards(text, view.hand, self.lang) if text else list(suggested.cards)
                self.act(Pass(YOU, tuple(chosen)))
                return
            except IllegalMove as refused:
                self.say(self.refusal(refused, chosen, view))
            except ValueError as bad:
                self.say(f"{bad}")

    def your_play(self) -> None:
        view = self.match.view(YOU)
        if view.trick and view.trick.plays:
            plays = ", ".join(f"{self.name(s)} {c}" for s, c in view.trick.plays)
            self.say(self.text("trick_so_far", plays=plays))
        else:
            broken = "" if view.hearts_broken else " " + self.text("not_broken")
            self.say(self.text("you_lead") + broken)
        self.show_hand(view)
        suggested = self.suggestion()
        assert isinstance(suggested, Play)
        chosen: list[Card] = []
        while True:
            text = self.ask(self.text("play_prompt", card=suggested.card))
            try:
                chosen = parse_cards(text, view.hand, self.lang) if text else [suggested.card]
                if len(chosen) != 1:
                    raise ValueError(self.text("one_card"))
                self.act(Play(YOU, chosen[0]))
                return
            except IllegalMove as refused:
                self.say(self.refusal(refused, chosen, view))
            except ValueError as bad:
                self.say(f"{bad}")

    def your_moon(self) -> None:
        """You shot the moon under ``shooter_chooses``: choose how it scores."""
        hand = self.match.hand
        options = hand.moon_options()
        total = self.match.rules.total_points()
        self.say(self.text("moon_choose"))
        for number, choice in enumerate(MOON_CHOICES, 1):
            totals = [before + gained for before, gained in zip(
                self.match.scores, options[choice], strict=True)]
            self.say(f"  {number}: {self.moon_text(choice, total)} — " + self.text(
                "moon_totals", totals=", ".join(
                    f"{self.name(s)} {t}" for s, t in enumerate(totals))))
        suggested = self.suggestion()
        assert isinstance(suggested, Moon)
        default = MOON_CHOICES.index(suggested.choice) + 1
        while True:
            text = self.ask(self.text("moon_prompt", n=default))
            if text in ("", "1", "2"):
                self.act(Moon(YOU, MOON_CHOICES[int(text or default) - 1]))
                return
            self.say(self.text("moon_retry"))

    def moon_text(self, choice: MoonChoice, total: int) -> str:
        key = "moon.others" if choice == "others_plus_26" else "moon.self"
        return self.text(key, total=total)

    def refusal(self, refused: IllegalMove, chosen: Sequence[Card], view: SeatView) -> str:
        """The engine's reason, addressed to you (its own words name the seat)."""
        if refused.reason is Reason.NOT_IN_HAND:
            missing = [card for card in chosen if card not in view.hand]
            return self.text("not_held", cards=self.cards_text(missing))
        if self.lang == "en":
            return self.text("refused", reason=refused)
        reason = i18n.translate(self.lang, f"hearts.reason.{refused.reason}")
        return self.text("refused", reason=reason)

    def cards_text(self, cards: Sequence[Card]) -> str:
        return cards_text(cards) or self.text("nothing")

    def show_hand(self, view: SeatView) -> None:
        number = 0
        for suit in (Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS):
            row = []
            for card in view.hand:
                if card.suit is suit:
                    number += 1
                    mark = "" if not view.legal or card in view.legal else "x"
                    row.append(f"{number}:{card}{mark}")
            if row:
                self.say(f"  {suit.symbol}  " + "  ".join(row))


def cards_text(cards: Sequence[Card]) -> str:
    """The cards, separated by spaces ("" for none)."""
    return " ".join(str(c) for c in cards)


def parse_cards(text: str, hand: Sequence[Card], lang: Lang = "en") -> list[Card]:
    """Numbers (1-based, in the shown order) or card texts; ValueError says what is wrong."""
    strings = STRINGS[lang]
    out = []
    for token in text.replace(",", " ").split():
        if token.isdigit():
            index = int(token)
            if not 1 <= index <= len(hand):
                raise ValueError(strings["not_number"].format(token=token, count=len(hand)))
            out.append(hand[index - 1])
        else:
            try:
                out.append(Card.parse(token))
            except ValueError:
                if "not_card" not in strings:
                    raise  # the cards module's own English words
                raise ValueError(strings["not_card"].format(token=token)) from None
    return out


def register(commands: Any) -> None:
    """Add `play` to the `hearts` command group."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play",
        help="play a match of Hearts against computer players",
        description="Play a match of Hearts in the terminal against computer players. "
        "Type cards by number or as text (QS, 10H, 2C); an empty line takes the suggestion; "
        "'?' shows the help, 'q' or Ctrl+C quits.",
    )
    parser.add_argument(
        "--preset", choices=PRESET_NAMES, default="standard", metavar="PRESET",
        help=f"the rules: {', '.join(PRESET_NAMES)} (default: standard)",
    )
    parser.add_argument("--players", type=int, help="number of players (Cancellation: 6-10)")
    parser.add_argument("--seed", type=int, default=None, help="match seed (default: random)")
    parser.add_argument("--target", type=int, default=None, help="points that end the match")
    parser.add_argument(
        "--code", default=None, help="a game code such as HE1-S-AAAAAAM (preset and seed)"
    )
    parser.add_argument(
        "--moon",
        choices=MOON_OPTIONS,
        default=None,
        metavar="MOON",
        help="how a moon scores: others_plus_26, self_minus_26 or shooter_chooses (the "
        "shooter is asked)",
    )
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=None,
        help=f"language: id or en (default: ${LANG_ENV}, else id)",
    )
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    try:
        lang = pick_lang(args.lang)
    except LanguageError as exc:
        print(f"heartsuit hearts play: {exc}", file=sys.stderr)
        return 2
    options: dict[str, Any] = {}
    if args.players is not None:
        options["players"] = args.players
    if args.target is not None:
        options["target"] = args.target
    if args.moon is not None:
        options["moon"] = args.moon
    if args.code is not None:
        if args.seed is not None or args.players is not None or args.preset != "standard":
            print(
                "heartsuit hearts play: a --code already names the preset, players and seed",
                file=sys.stderr,
            )
            return 2
        try:
            parsed = parse_code(args.code)
            rules = parsed.rules(**options)
        except ValueError as exc:
            print(f"heartsuit hearts play: {exc}", file=sys.stderr)
            return 2
        seed = parsed.seed
    else:
        try:
            rules = Rules.preset(args.preset, **options)
        except RulesError as exc:
            print(f"heartsuit hearts play: {exc}", file=sys.stderr)
            return 2
        seed = secrets.randbelow(SEED_COUNT) if args.seed is None else args.seed
    if seed < 0:
        print("heartsuit hearts play: the seed is a non-negative number", file=sys.stderr)
        return 2
    terminal = Terminal(rules, seed, sys.stdin, sys.stdout, lang=lang)
    terminal.say(terminal.text("seed", seed=seed))
    if seed < SEED_COUNT:
        preset = parsed.preset if args.code is not None else args.preset
        code = format_code(preset, seed, players=rules.players)
        terminal.say(terminal.text("code", code=code))
    return terminal.run()
