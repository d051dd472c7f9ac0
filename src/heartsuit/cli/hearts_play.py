"""`heartsuit hearts play`: a match of Hearts in the terminal, you against computer players.

Line based (reads stdin, writes stdout) so that a test can drive it. You sit in seat 0; the
computer players are :class:`heartsuit.hearts.bots.HeuristicBot` (or any :class:`Player`
given) and see only their :class:`~heartsuit.hearts.view.SeatView`, like you. The suggestion
in brackets at each prompt is what a HeuristicBot would do in your seat.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence
from typing import Any, Protocol, TextIO

from heartsuit.cards import Card, Suit
from heartsuit.hearts import IllegalMove, Match, Reason, Rules, RulesError, SeatView
from heartsuit.hearts.bots import HeuristicBot
from heartsuit.hearts.codes import SEED_COUNT, format_code, parse_code
from heartsuit.hearts.rules import PRESET_NAMES

YOU = 0
HELP = (
    "Type cards by their number in the list or as text (QS, 10H, 2C); several for a pass, "
    "separated by spaces. An empty line takes the suggestion in brackets; x marks a card you "
    "cannot play now. '?' shows this help, 'q' quits."
)


class Player(Protocol):
    def choose_pass(self, view: SeatView) -> tuple[Card, ...]: ...

    def choose_play(self, view: SeatView) -> Card: ...


def computer_player(seat: int) -> Player:
    """The computer player for ``seat`` (a different seed per seat)."""
    return HeuristicBot(seed=seat)


class Quit(Exception):
    """The person typed 'q' or the input ended."""


class Terminal:
    """One match at the terminal; :meth:`run` returns the exit code."""

    def __init__(
        self,
        rules: Rules,
        seed: int,
        stdin: TextIO,
        stdout: TextIO,
        computers: Sequence[Player] | None = None,
    ) -> None:
        self.match = Match.new(rules, seed)
        self.stdin, self.stdout = stdin, stdout
        players = rules.players
        self.computers = list(computers or [computer_player(seat) for seat in range(players)])
        # your suggestions, and the stand-in when a given computer player chooses illegally
        self.advice = HeuristicBot()

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
        self.say(f"Hearts: {rules.players} players, {rules.hand_size()} cards each, "
                 f"match to {rules.target}. You are seat {YOU}. {HELP}")
        try:
            while True:
                self.play_hand()
                if self.match.is_over:
                    break
                self.match.next_hand()
        except Quit:
            self.say("\nGoodbye.")
            return 0
        winners = ", ".join(self.name(s) for s in self.match.winners)
        self.say(f"Match over. Final scores: {self.scores_text()}. Winner: {winners}.")
        return 0

    def scores_text(self) -> str:
        return ", ".join(f"{self.name(s)} {t}" for s, t in enumerate(self.match.scores))

    def play_hand(self) -> None:
        hand = self.match.hand
        view = hand.view(YOU)
        passing = "no pass" if view.pass_direction == "hold" else f"pass {view.pass_direction}"
        self.say(f"\n=== Hand {hand.hand_number + 1} — {passing}. Scores: {self.scores_text()}")
        if hand.phase == "pass":
            self.pass_phase()
        while hand.to_play is not None:
            seat = hand.to_play
            if seat == YOU:
                self.your_play()
            else:
                self.computer_play(seat)
            if hand.trick is None or not hand.trick.plays:
                self.report_trick()
        points = hand.points()
        self.say("Hand over. Points: "
                 + ", ".join(f"{self.name(s)} {p}" for s, p in enumerate(points)))
        if hand.kitty:
            self.say(f"The kitty was {cards_text(hand.kitty)}.")

    def pass_phase(self) -> None:
        hand = self.match.hand
        for seat in range(hand.rules.players):
            if seat != YOU:
                choice = self.computers[seat].choose_pass(hand.view(seat))
                if hand.why_pass_illegal(seat, choice) is not None:
                    choice = self.advice.choose_pass(hand.view(seat))
                hand.pass_cards(seat, choice)
        view = hand.view(YOU)
        target = hand.rules.pass_target(YOU, view.pass_direction)
        self.show_hand(view)
        suggestion = self.advice.choose_pass(view)
        while True:
            text = self.ask(f"Pass {view.rules.pass_count} cards to {self.name(target)} "
                            f"[{cards_text(suggestion)}]: ")
            try:
                chosen = parse_cards(text, view.hand) if text else list(suggestion)
                hand.pass_cards(YOU, chosen)
                break
            except IllegalMove as refused:
                self.say(self.refusal(refused, chosen, view))
            except ValueError as bad:
                self.say(f"{bad}")
        self.say(f"You passed {cards_text(hand.view(YOU).passed)} and received "
                 f"{cards_text(hand.view(YOU).received)}.")

    def your_play(self) -> None:
        hand = self.match.hand
        view = hand.view(YOU)
        if view.trick and view.trick.plays:
            self.say("Trick so far: " + ", ".join(
                f"{self.name(s)} {c}" for s, c in view.trick.plays))
        else:
            self.say("You lead." + ("" if view.hearts_broken else " Hearts are not broken."))
        self.show_hand(view)
        suggestion = self.advice.choose_play(view)
        while True:
            text = self.ask(f"Your card [{suggestion}]: ")
            try:
                chosen = parse_cards(text, view.hand) if text else [suggestion]
                if len(chosen) != 1:
                    raise ValueError("play one card")
                hand.play(YOU, chosen[0])
                return
            except IllegalMove as refused:
                self.say(self.refusal(refused, chosen, view))
            except ValueError as bad:
                self.say(f"{bad}")

    @staticmethod
    def refusal(refused: IllegalMove, chosen: Sequence[Card], view: SeatView) -> str:
        """The engine's reason, addressed to you (its own words name the seat)."""
        if refused.reason is Reason.NOT_IN_HAND:
            missing = [card for card in chosen if card not in view.hand]
            return f"Not allowed: you do not hold {cards_text(missing)}."
        return f"Not allowed: {refused}."

    def computer_play(self, seat: int) -> None:
        hand = self.match.hand
        view = hand.view(seat)
        card = self.computers[seat].choose_play(view)
        if card not in view.legal:
            card = self.advice.choose_play(view)
        hand.play(seat, card)
        self.say(f"{self.name(seat)} plays {card}.")

    def report_trick(self) -> None:
        trick = self.match.hand.tricks[-1]
        if trick.cancelled:
            cancelled = [trick.plays[i][1] for i in trick.cancelled]
            self.say(f"Cancelled (identical cards): {cards_text(cancelled)}.")
        if trick.winner is None:
            self.say("Every card cancelled: the trick is held over.")
        else:
            verb = "take" if trick.winner == YOU else "takes"
            unit = "point" if abs(trick.points) == 1 else "points"
            self.say(f"{self.name(trick.winner)} {verb} the trick ({trick.points} {unit}).")

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
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {}
    if args.players is not None:
        options["players"] = args.players
    if args.target is not None:
        options["target"] = args.target
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
