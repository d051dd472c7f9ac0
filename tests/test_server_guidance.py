"""What the game view tells a newcomer: the stock marked when turning up a card is the only useful
move (with placement help on), and a covered card that says why with "Move errors" on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heartsuit.solitaire import Game
from tests.server_support import Site, running_site

#: the tip is the only free card and no stock card matches it for 16 flips
CODE = "HH1-N-AAAAAAM"


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def test_the_stock_is_marked_exactly_while_no_pair_can_be_taken(site: Site) -> None:
    engine = Game.from_code(CODE)
    with site.peer() as peer:
        view = peer.new_game(CODE)
        game_id = view["id"]
        flips = 0
        while not engine.pairs():
            assert view["stock_outlined"] is True, flips
            assert not any(card and card["outlined"] for card in view["heart"])
            view = peer.tap(game_id, "stock")["game"]
            engine.tap("stock")
            flips += 1
        assert flips == 16
        # a pair is there now: the pair is outlined, the stock no longer
        assert view["stock_outlined"] is False
        assert any(card and card["outlined"] for card in view["heart"])


def test_the_stock_is_not_marked_without_placement_help_or_at_a_dead_end(site: Site) -> None:
    with site.peer() as peer:
        assert peer.new_game(CODE)["stock_outlined"] is True
        peer.ask("settings", placement_help=False)
        assert peer.ask("solitaire.resume")["game"]["stock_outlined"] is False
        peer.ask("settings", placement_help=True)
        stuck = peer.new_game("HH1-N-AAAAAAA")  # dead at the deal
        assert stuck["outcome"] == "dead_end" and stuck["stock_outlined"] is False


@pytest.mark.parametrize(
    ("lang", "words"), [("id", "Kartu itu masih tertindih"), ("en", "That card is still covered")]
)
def test_a_covered_card_says_why_only_with_move_errors_on(
    site: Site, lang: str, words: str
) -> None:
    with site.peer() as peer:
        peer.ask("lang", lang=lang)
        game_id = peer.new_game(CODE)["id"]
        quiet = peer.tap(game_id, 1)["event"]
        assert quiet == {"kind": "ignored", "message": None, "message_key": None,
                         "reason": "covered", "repeat": False}
        peer.ask("settings", move_errors=True)
        said = peer.tap(game_id, 1)
        assert said["event"] == {"kind": "ignored", "message": words, "message_key": "covered",
                                 "reason": "covered", "repeat": False}
        # saying why changes nothing
        assert said["game"]["moves"] == 0 and said["game"]["heart"][0]["free"] is False
