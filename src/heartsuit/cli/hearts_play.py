"""`heartsuit hearts play`: a match of Hearts in the terminal, you against computer players.

Line based (reads stdin, writes stdout) so that a test can drive it. You sit in seat 0; the
other seats are computers at a difficulty level (default ``"normal"``), played by the same
table driver as the site (:func:`heartsuit.hearts.table.advance`), so they see only their
:class:`~heartsuit.hearts.view.SeatView`, like you, and choose the same way for the same match.
What is printed comes from the events the engine returns and from views; the suggestion in
brackets at each prompt is what a ``"normal"`` computer would do in your seat.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from heartsuit.cards import Card, Suit
from heartsuit.hearts import IllegalMove, Match, Reason, Rules, RulesError, SeatView
from heartsuit.hearts.actions import MOON_CHOICES, Action, Moon, MoonChoice, Pass, Play
from heartsuit.hearts.codes import SEED_COUNT, format_code, parse_code
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
from heartsuit.hearts.table import BotFactory, SeatPlayer, advance, computer_action, make_computer

YOU = 0
MOON_OPTIONS: tuple[MoonOption, ...] = ("others_plus_26", "self_minus_26", "shooter_chooses")
LEVEL = "normal"
HELP = (
    "Type cards by their number in the list or as text (QS, 10H, 2C); several for a pass, "
    "separated by spaces. An empty line takes the suggestion in brackets; x marks a card you "
    "cannot play now. '?' shows this help, 'q' quits."
)


class Quit(Exception):
    """The person typed 'q' or the input ended."""


class Terminal:
    """One match at the terminal; :meth:`run` returns the exit code.

    ``bots`` builds the computer players (and your suggestions) from a level name and a seed;
    a test can give its own.
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
    ) -> None:
        self.match = Match.new(rules, seed)
        self.stdin, self.stdout = stdin, stdout
        self.players = [
            SeatPlayer.human() if seat == YOU else SeatPlayer.computer(level)
            for seat in range(rules.players)
        ]
        self.level, self.bots = level, bots
        self.key = f"terminal/{seed}"  # the computers' choices replay with the match seed

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout)

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line or line.strip().lower() in ("q", "quit", "exit"):
            raise Quit
        if line.strip() in ("?", "help"):
            self.say(HELP)
            return self.ask(prompt)
        return line.strip()

    def name(self, seat: int) -> str:
        return "You" if seat == YOU else f"Seat {seat}"

    # --- the match -----------------------------------------------------------------------

    def run(self) -> int:
        rules = self.match.rules
        moon = " Whoever shoots the moon chooses how it scores." if (
            rules.moon == "shooter_chooses") else ""
        self.say(f"Hearts: {rules.players} players, {rules.hand_size()} cards each, "
                 f"match to {rules.target}.{moon} You are seat {YOU}. {HELP}")
        self.announce_hand()
        try:
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
        except Quit:
            self.say("\nGoodbye.")
            return 0
        winners = ", ".join(self.name(s) for s in self.match.winners)
        self.say(f"Match over. Final scores: {self.scores_text()}. Winner: {winners}.")
        return 0

    def scores_text(self) -> str:
        return ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(self.match.scores))

    def announce_hand(self) -> None:
        view = self.match.view(YOU)
        passing = "no pass" if view.pass_direction == "hold" else f"pass {view.pass_direction}"
        self.say(f"\n=== Hand {view.hand_number + 1} — {passing}. Scores: {self.scores_text()}")

    def report(self, events: Sequence[Event]) -> None:
        """Print what happened, from the engine's events (and the finished hand's view)."""
        for event in events:
            if isinstance(event, Played) and event.seat != YOU:
                self.say(f"{self.name(event.seat)} plays {event.card}.")
            elif isinstance(event, PassesExchanged):
                view = self.match.view(YOU)
                self.say(f"You passed {cards_text(view.passed)} and received "
                         f"{cards_text(view.received)}.")
            elif isinstance(event, TrickDone):
                self.report_trick(event)
            elif isinstance(event, MoonChosen):
                verb = "choose" if event.seat == YOU else "chooses"
                self.say(f"{self.name(event.seat)} shot the moon and {verb}: "
                         f"{moon_text(event.choice, self.match.rules.total_points())}.")
            elif isinstance(event, HandDone):
                self.say("Hand over. Points: "
                         + ", ".join(f"{self.name(s)} {p}" for s, p in enumerate(event.points)))
                if event.shooter is not None:
                    self.say(f"{self.name(event.shooter)} shot the moon!")
                kitty = self.match.hands[event.hand_number].view(YOU).kitty
                if kitty:
                    self.say(f"The kitty was {cards_text(kitty)}.")
            elif isinstance(event, HandDealt):
                self.announce_hand()

    def report_trick(self, trick: TrickDone) -> None:
        if trick.cancelled:
            cancelled = [trick.plays[i][1] for i in trick.cancelled]
            self.say(f"Cancelled (identical cards): {cards_text(cancelled)}.")
        if trick.winner is None:
            self.say("Every card cancelled: the trick is held over.")
        else:
            verb = "take" if trick.winner == YOU else "takes"
            unit = "point" if abs(trick.points) == 1 else "points"
            self.say(f"{self.name(trick.winner)} {verb} the trick ({trick.points} {unit}).")

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
            text = self.ask(f"Pass {view.rules.pass_count} cards to {self.name(target)} "
                            f"[{cards_text(suggested.cards)}]: ")
            try:
                chosen = parse_cards(text, view.hand) if text else list(suggested.cards)
                self.act(Pass(YOU, tuple(chosen)))
                return
            except IllegalMove as refused:
                self.say(self.refusal(refused, chosen, view))
            except ValueError as bad:
                self.say(f"{bad}")

    def your_play(self) -> None:
        view = self.match.view(YOU)
        if view.trick and view.trick.plays:
            self.say("Trick so far: " + ", ".join(
                f"{self.name(s)} {c}" for s, c in view.trick.plays))
        else:
            self.say("You lead." + ("" if view.hearts_broken else " Hearts are not broken."))
        self.show_hand(view)
        suggested = self.suggestion()
        assert isinstance(suggested, Play)
        chosen: list[Card] = []
        while True:
            text = self.ask(f"Your card [{suggested.card}]: ")
            try:
                chosen = parse_cards(text, view.hand) if text else [suggested.card]
                if len(chosen) != 1:
                    raise ValueError("play one card")
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
        self.say("You shot the moon! Choose how it scores:")
        for number, choice in enumerate(MOON_CHOICES, 1):
            totals = [before + gained for before, gained in zip(
                self.match.scores, options[choice], strict=True)]
            self.say(f"  {number}: {moon_text(choice, total)} — totals "
                     + ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(totals)))
        suggested = self.suggestion()
        assert isinstance(suggested, Moon)
        default = MOON_CHOICES.index(suggested.choice) + 1
        while True:
            text = self.ask(f"Your choice, 1 or 2 [{default}]: ")
            if text in ("", "1", "2"):
                self.act(Moon(YOU, MOON_CHOICES[int(text or default) - 1]))
                return
            self.say("Type 1 or 2 (or press Enter for the suggestion).")

    @staticmethod
    def refusal(refused: IllegalMove, chosen: Sequence[Card], view: SeatView) -> str:
        """The engine's reason, addressed to you (its own words name the seat)."""
        if refused.reason is Reason.NOT_IN_HAND:
            missing = [card for card in chosen if card not in view.hand]
            return f"Not allowed: you do not hold {cards_text(missing)}."
        return f"Not allowed: {refused}."

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


def moon_text(choice: MoonChoice, total: int) -> str:
    if choice == "others_plus_26":
        return f"everyone else +{total}"
    return f"the shooter −{total}"


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(str(c) for c in cards) or "nothing"


def parse_cards(text: str, hand: Sequence[Card]) -> list[Card]:
    """Numbers (1-based, in the shown order) or card texts; ValueError says what is wrong."""
    out = []
    for token in text.replace(",", " ").split():
        if token.isdigit():
            index = int(token)
            if not 1 <= index <= len(hand):
                raise ValueError(f"{token} is not a card number (1..{len(hand)})")
            out.append(hand[index - 1])
        else:
            out.append(Card.parse(token))
    return out


def register(commands: Any) -> None:
    """Add `play` to the `hearts` command group."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play", help="play a match of Hearts against computer players"
    )
    parser.add_argument("--preset", choices=PRESET_NAMES, default="standard")
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
        help="how a moon scores (shooter_chooses: the shooter is asked)",
    )
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
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
    print(f"Match seed {seed} (replay it with --seed {seed}).")
    if seed < SEED_COUNT:
        preset = parsed.preset if args.code is not None else args.preset
        code = format_code(preset, seed, players=rules.players)
        print(f"Game code {code} (replay it with --code {code}).")
    return Terminal(rules, seed, sys.stdin, sys.stdout).run()
