"""The terminal game: driven through stdin/stdout for a whole hand and a whole match."""

from __future__ import annotations

import io

import pytest

from heartsuit.cards import Card
from heartsuit.cli import main
from heartsuit.cli.hearts_play import Terminal, parse_cards
from heartsuit.hearts import Hand, Play, Rules, SeatView
from heartsuit.hearts.bots import Bot
from heartsuit.hearts.deal import sort_key
from tests.hearts_helpers import cards


class LowestCardPlayer:
    """A plain computer player for these tests: passes its highest cards, plays its lowest."""

    name = "lowest"

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        by_rank = sorted(view.hand, key=lambda c: (c.rank, sort_key(c)))
        return tuple(by_rank[-view.rules.pass_count :])

    def choose_play(self, view: SeatView) -> Card:
        return min(view.legal, key=lambda c: (c.rank, sort_key(c)))


def lowest_card_players(level: str, seed: int) -> Bot:
    return LowestCardPlayer()


def run_terminal(rules: Rules, seed: int, text: str) -> tuple[int, str, Terminal]:
    out = io.StringIO()
    terminal = Terminal(
        rules, seed, io.StringIO(text), out, bots=lowest_card_players, lang="en"
    )
    return terminal.run(), out.getvalue(), terminal


def test_a_whole_match_with_suggestions_ends_with_a_winner() -> None:
    code, out, terminal = run_terminal(Rules(target=40), 3, "\n" * 500)
    assert code == 0
    assert "Match over." in out and "Winner:" in out
    assert terminal.match.is_over
    assert out.count("=== Hand") == len(terminal.match.hands)


def test_a_whole_hand_then_quit() -> None:
    code, out, terminal = run_terminal(Rules.preset("three"), 2, "\n" * 18 + "q\n")
    assert code == 0 and "Hand over. Points:" in out and "Goodbye." in out
    assert terminal.match.hands[0].phase == "done"


def test_illegal_cards_are_refused_with_the_reason() -> None:
    rules = Rules()
    match_hand = Hand.deal(rules, 1)
    # pass the three first cards by number, then try to lead something other than 2♣
    _, out, terminal = run_terminal(rules, 1, "1 2\n1 2 3\nq\n")
    assert "Not allowed: pass exactly 3 cards, not 2." in out
    first = terminal.match.hands[0]
    assert first.passes[0] == tuple(match_hand.holdings[0][:3])


def test_a_card_you_do_not_hold_is_refused_in_your_words() -> None:
    rules = Rules()
    held = Hand.deal(rules, 1).holdings[0]
    absent = next(Card.parse(code) for code in ("QS", "AH", "KD", "2C") if Card.parse(code)
                  not in held)
    _, out, terminal = run_terminal(rules, 1, f"1 2 {absent.code}\nq\n")
    assert f"Not allowed: you do not hold {absent}." in out
    assert "seat 0 does not hold" not in out
    assert terminal.match.hands[0].passes[0] is None


def test_a_refused_lead_names_the_opening_card() -> None:
    # with seed 6 and no passing, seat 0 holds 2♣ 9♣ Q♣ ... and leads the first trick
    _, out, terminal = run_terminal(Rules(passing=False), 6, "9C\n13\n1\nq\n")
    assert "Not allowed: the first trick is led with 2♣." in out
    assert terminal.match.hand.tricks or terminal.match.hand.trick is not None
    first_plays = terminal.match.hand.actions
    assert first_plays[0] == Play(0, Card.parse("2C"))
    assert Play(0, Card.parse("9C")) not in first_plays


def test_cards_parse_by_number_or_text() -> None:
    hand = cards("2C 5D QS")
    assert parse_cards("1 QS, 5d", hand) == cards("2C QS 5D")
    with pytest.raises(ValueError, match="not a card number"):
        parse_cards("4", hand)
    with pytest.raises(ValueError, match="not a card"):
        parse_cards("ZZ", hand)


def test_command_line_runs_and_refuses_impossible_rules(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 400))
    command = ["hearts", "play", "--preset", "five", "--seed", "7", "--target", "20"]
    assert main([*command, "--lang", "en"]) == 0
    assert "Match over." in capsys.readouterr().out
    assert main(["hearts", "play", "--preset", "cancellation", "--players", "4"]) == 2
    assert "6 to 10 players" in capsys.readouterr().err


def test_a_game_code_replays_a_match(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["hearts", "play", "--code", "he1-f-aaaaaah", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Game code HE1-F-AAAAAAH" in out and "5 players" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["hearts", "play", "--preset", "five", "--seed", "7", "--lang", "en"]) == 0
    assert "Game code HE1-F-AAAAAAH" in capsys.readouterr().out
    assert main(["hearts", "play", "--code", "HE1-Z-AAAAAAA"]) == 2
    assert "unknown rule set 'Z'" in capsys.readouterr().err
    assert main(["hearts", "play", "--code", "HE1-S-AAAAAAA", "--seed", "3"]) == 2


def test_cancellation_table_at_the_terminal() -> None:
    code, out, _ = run_terminal(Rules.preset("cancellation"), 6, "\n" * 30 + "q\n")
    assert code == 0 and "Hand over." in out and "The kitty was" in out


def test_default_computers_play_whole_cancellation_and_standard_matches() -> None:
    for rules in (Rules(target=30), Rules.preset("cancellation", players=8, target=40)):
        out = io.StringIO()
        assert Terminal(rules, 5, io.StringIO("\n" * 2000), out, lang="en").run() == 0
        assert "Match over." in out.getvalue()


def test_the_same_seed_plays_the_same_match() -> None:
    # computer choices are seeded by the table driver from (seed, version, seat)
    outs = []
    for _ in range(2):
        out = io.StringIO()
        Terminal(Rules(target=30), 9, io.StringIO("\n" * 2000), out, lang="en").run()
        outs.append(out.getvalue())
    assert outs[0] == outs[1] and "Match over." in outs[0]


def test_the_easy_level_plays_too() -> None:
    out = io.StringIO()
    Terminal(Rules(target=20), 4, io.StringIO("\n" * 2000), out, level="easy", lang="en").run()
    assert "Match over." in out.getvalue()


class FirstCardsLowPlayer(LowestCardPlayer):
    """Passes its first three cards and plays its lowest legal card (engine order)."""

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        return view.hand[: view.rules.pass_count]

    def choose_play(self, view: SeatView) -> Card:
        return min(view.legal)


@pytest.mark.parametrize(("answer", "points"), [("2\n", [-26, 0, 0, 0]), ("\n", [0, 26, 26, 26])])
def test_the_terminal_asks_the_shooter_how_the_moon_scores(answer: str, points: list[int]) -> None:
    from heartsuit.hearts import Match

    seed = 3137  # you take every penalty card passing your first three and playing high
    rules = Rules(moon="shooter_chooses")
    rehearsal = Match.new(rules, seed)
    mine: list[str] = []
    while rehearsal.hand.phase in ("pass", "play"):
        seat = rehearsal.awaiting()[0]
        if rehearsal.hand.phase == "pass":
            rehearsal.pass_cards(seat, rehearsal.hand.holdings[seat][:3])
        else:
            legal = rehearsal.hand.legal_plays(seat)
            card = max(legal) if seat == 0 else min(legal)
            if seat == 0:
                mine.append(card.code)
            rehearsal.play(seat, card)
    assert rehearsal.hand.awaiting() == (0,)
    script = "1 2 3\n" + "".join(f"{code}\n" for code in mine) + "3\n" + answer + "q\n"
    out = io.StringIO()
    terminal = Terminal(rules, seed, io.StringIO(script), out,
                        bots=lambda level, s: FirstCardsLowPlayer(), lang="en")
    assert terminal.run() == 0
    text = out.getvalue()
    assert "You shot the moon! Choose how it scores:" in text
    assert "1: everyone else +26" in text and "2: the shooter −26" in text
    assert "Your choice, 1 or 2 [1]: " in text  # nothing at stake: the classic is suggested
    assert "Type 1 or 2" in text  # "3" was refused
    chosen = "the shooter −26" if answer == "2\n" else "everyone else +26"
    assert f"You shot the moon and choose: {chosen}." in text
    assert terminal.match.score_sheet()[0].points == tuple(points)


def test_the_moon_option_is_a_command_line_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["hearts", "play", "--moon", "sideways"])
    assert refused.value.code == 2
    assert "invalid choice: 'sideways'" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    command = ["hearts", "play", "--seed", "5", "--moon", "shooter_chooses", "--lang", "en"]
    assert main(command) == 0
    said = " ".join(capsys.readouterr().out.split())  # lines are wrapped at the terminal's width
    assert "Whoever shoots the moon chooses how it scores." in said
