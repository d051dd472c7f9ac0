"""The /ws protocol: every message type, and every kind of bad input refused cleanly.

A refused message must get the right ``error`` code, change nothing (not the game, not the move
log), keep the connection open, and leave other connections working.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heartsuit.solitaire import Game
from heartsuit.solitaire.codes import deal_cards, deal_for_code
from heartsuit.solitaire.layout import TIP
from tests.server_support import Peer, Site, comparable, logged_actions, running_site, site_rows

CODE = "HH1-N-AAAAAAM"
#: deal 0 has a tip whose three partners all lie in the heart: it can never be played
DEAD_AT_DEAL = "HH1-N-AAAAAAA"


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def mismatched_code() -> str:
    """A live deal whose tip and first waste card differ in rank (for mismatch taps)."""
    for number in range(100):
        deal = deal_cards(number)
        if deal.heart[TIP - 1].rank != deal.waste[-1].rank and not Game(deal).over:
            return deal.code
    raise AssertionError("no such deal among the first hundred")


# --- hello and players ----------------------------------------------------------------------


def test_hello_without_an_id_gives_a_fresh_unguessable_one(site: Site) -> None:
    with site.peer(hello=False) as peer:
        reply = peer.ask("hello", player=None)
    assert reply["type"] == "welcome"
    assert len(reply["player"]) >= 22
    assert reply["settings"] == {
        "move_errors": False, "placement_help": True, "winnable_only": False
    }
    with site.peer(hello=False) as other:
        assert other.ask("hello")["player"] != reply["player"]


@pytest.mark.parametrize("bad", [None, 42, "", "short", "x" * 65, "bad id with spaces!!!!!"])
def test_hello_with_a_malformed_id_gives_a_fresh_one(site: Site, bad: object) -> None:
    with site.peer(hello=False) as peer:
        reply = peer.ask("hello", player=bad)
    assert reply["type"] == "welcome"
    assert reply["player"] != bad


def test_hello_with_an_unknown_well_formed_id_gives_a_fresh_one(site: Site) -> None:
    made_up = "A" * 22
    with site.peer(hello=False) as peer:
        assert peer.ask("hello", player=made_up)["player"] != made_up


def test_hello_with_a_known_id_keeps_the_player(site: Site) -> None:
    with site.peer() as first:
        player = first.ask("hello")["player"]
        first.new_game(CODE)  # playing stores the player
    with site.peer(hello=False) as again:
        assert again.ask("hello", player=player)["player"] == player


def test_a_player_is_stored_only_once_they_play(site: Site) -> None:
    with site.peer() as idle, site.peer() as player:
        player.new_game(CODE)
        with site.peer() as saver:
            saver.ask("settings", move_errors=True)
            stored = {row[0] for row in site_rows(site, "SELECT id FROM players")}
    # hellos alone (the attack: thousands of them) write nothing
    assert stored == {player.player, saver.player}
    assert idle.player not in stored


@pytest.mark.parametrize(
    "message",
    [
        {"type": "solitaire.resume"},
        {"type": "solitaire.new", "code": None},
        {"type": "solitaire.tap", "game": "g", "target": 25},
        {"type": "solitaire.undo", "game": "g"},
        {"type": "settings", "move_errors": True},
        {"type": "stats"},
    ],
    ids=lambda m: m["type"],
)
def test_every_game_message_needs_hello_first(site: Site, message: dict[str, Any]) -> None:
    with site.peer(hello=False) as peer:
        fields = {k: v for k, v in message.items() if k != "type"}
        reply = peer.ask(message["type"], **fields)
        assert reply["type"] == "error"
        assert reply["code"] == "no_player"
        assert reply["message"]
        # the connection is still usable
        assert peer.ask("hello")["type"] == "welcome"


def test_lang_works_before_hello_and_changes_the_language_of_errors(site: Site) -> None:
    with site.peer(hello=False) as peer:
        indonesian = peer.ask("stats")["message"]
        assert peer.ask("lang", lang="en") == {"type": "lang", "lang": "en", "req": 2}
        english = peer.ask("stats")["message"]
    assert indonesian != english
    assert "hello" in english


def test_the_lang_cookie_picks_the_language_of_a_new_connection(site: Site) -> None:
    site.client.cookies.set("lang", "en")
    with site.peer() as peer:
        reply = peer.ask("solitaire.new", code="XX1-N-AAAAAAA")
    assert reply["code"] == "bad_code"
    assert "Heart to Heart" in reply["message"] and "kode" not in reply["message"]


# --- games --------------------------------------------------------------------------------


def test_new_game_of_a_code_deals_that_code(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(" hh1-n-aaaaaam ")
    deal = deal_for_code(CODE)
    assert game["code"] == CODE
    assert [slot["card"] for slot in game["heart"]] == [str(card) for card in deal.heart]
    assert game["stock_count"] == 26 and game["waste_count"] == 1
    assert game["waste_top"]["card"] == str(deal.waste[-1])
    assert (game["score"], game["moves"], game["undo_left"]) == (0, 0, 0)
    assert game["outcome"] == "playing"
    free = [i + 1 for i, slot in enumerate(game["heart"]) if slot["free"]]
    assert free == [TIP]


def test_a_deal_dead_from_the_start_is_a_dead_end_at_once(site: Site) -> None:
    assert Game.from_code(DEAD_AT_DEAL).dead_end
    with site.peer() as peer:
        game = peer.new_game(DEAD_AT_DEAL)
        assert game["outcome"] == "dead_end"
        assert game["dead_deal"] is True and game["under_way"] is False
        assert peer.tap(game["id"], "stock")["code"] == "game_over"
        assert peer.ask("solitaire.resume")["game"]["id"] == game["id"]
        overall = peer.ask("stats")["overall"]
        assert (overall["games"], overall["dead_deals"]) == (0, 1)


def test_new_game_without_a_code_deals_a_random_deal(site: Site) -> None:
    with site.peer() as peer:
        codes = {peer.new_game()["code"] for _ in range(3)}
    assert len(codes) == 3


def test_a_bad_code_is_refused_naming_the_problem_and_keeps_the_current_game(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        peer.tap(game["id"], "stock")
        reply = peer.ask("solitaire.new", code="HH1-N-AAAA")
        assert reply["type"] == "error" and reply["code"] == "bad_code"
        assert "HH1-N-AAAA" in reply["message"] and "7" not in reply["message"]
        resumed = peer.ask("solitaire.resume")
    assert resumed["game"]["id"] == game["id"]
    assert resumed["game"]["moves"] == 1


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("HH1-N-AAAA", "seven letters"),
        ("HH1-N-AAAAAA1", "A to Z"),
        ("HH9-N-AAAAAAA", "format"),
        ("HH1-Q-AAAAAAA", "rule set"),
        ("XY1-N-AAAAAAA", "must start with HH"),
        ("nonsense", "three parts"),
    ],
)
def test_each_code_problem_has_its_own_english_message(site: Site, code: str, words: str) -> None:
    with site.peer() as peer:
        peer.ask("lang", lang="en")
        reply = peer.ask("solitaire.new", code=code)
    assert reply["code"] == "bad_code"
    assert words in reply["message"]


def test_a_very_long_bad_code_is_not_echoed_whole(site: Site) -> None:
    with site.peer() as peer:
        reply = peer.ask("solitaire.new", code="HH1-N-" + "Q" * 5000)
    assert reply["code"] == "bad_code"
    assert len(reply["message"]) < 300


def test_resume_without_a_game_says_none(site: Site) -> None:
    with site.peer() as peer:
        assert peer.ask("solitaire.resume") == {"type": "solitaire.none", "req": 2}


def test_tap_select_deselect_and_flip(site: Site) -> None:
    with site.peer() as peer:
        game_id = peer.new_game(CODE)["id"]
        selected = peer.tap(game_id, TIP)
        assert selected["event"]["kind"] == "selected"
        assert selected["game"]["heart"][TIP - 1]["selected"] is True
        deselected = peer.tap(game_id, TIP)
        assert deselected["event"]["kind"] == "deselected"
        assert deselected["game"]["heart"][TIP - 1]["selected"] is False
        flipped = peer.tap(game_id, "stock")
        assert flipped["event"]["kind"] == "flipped"
        assert flipped["game"]["stock_count"] == 25 and flipped["game"]["waste_count"] == 2
        assert flipped["game"]["moves"] == 1 and flipped["game"]["undo_left"] == 1
        covered = peer.tap(game_id, 1)
        assert covered["event"] == {
            "kind": "ignored", "message": None, "message_key": None, "reason": "covered",
            "repeat": False,
        }
        assert comparable(covered["game"]) == comparable(flipped["game"])


def test_undo_takes_back_a_flip_and_says_when_there_is_nothing(site: Site) -> None:
    with site.peer() as peer:
        dealt = peer.new_game(CODE)
        game_id = dealt["id"]
        nothing = peer.ask("solitaire.undo", game=game_id)
        assert nothing["event"]["kind"] == "nothing_to_undo"
        peer.tap(game_id, "stock")
        undone = peer.ask("solitaire.undo", game=game_id)
    assert undone["event"]["kind"] == "undone"
    assert comparable(undone["game"]) == comparable(dealt)
    assert logged_actions(site.db_path, game_id) == ["stock", "undo"]


def test_move_errors_says_must_be_the_same_rank_in_the_connections_language(site: Site) -> None:
    code = mismatched_code()
    with site.peer() as peer:
        game_id = peer.new_game(code)["id"]
        peer.tap(game_id, TIP)
        quiet = peer.tap(game_id, "waste")["event"]
        assert quiet["kind"] == "reselected" and quiet["message"] is None
        assert peer.ask("settings", move_errors=True)["move_errors"] is True
        peer.tap(game_id, TIP)
        said = peer.tap(game_id, "waste")["event"]
        assert said == {
            "kind": "reselected",
            "message": "Harus bernilai sama",
            "message_key": "must_match",
            "reason": "must_match",
            "repeat": False,
        }
        peer.ask("lang", lang="en")
        peer.tap(game_id, TIP)
        assert peer.tap(game_id, "waste")["event"]["message"] == "Must be the same rank"


def test_placement_help_off_removes_outlines_and_dimming_from_the_current_game(
    site: Site,
) -> None:
    code = mismatched_code()
    with site.peer() as peer:
        game_id = peer.new_game(code)["id"]
        helped = peer.tap(game_id, TIP)["game"]
        assert helped["waste_top"]["dimmed"] is True
        reply = peer.ask("settings", placement_help=False)
        assert reply == {
            "type": "settings", "move_errors": False, "placement_help": False,
            "winnable_only": False, "req": reply["req"],
        }
        plain = peer.tap(game_id, "waste")["game"]
    cards = [c for c in plain["heart"] if c] + [plain["waste_top"]]
    assert not any(c["outlined"] or c["dimmed"] for c in cards)


def test_settings_persist_for_the_player(site: Site) -> None:
    with site.peer() as peer:
        player = peer.hello()
        peer.ask("settings", move_errors=True, winnable_only=True)
    with site.peer(hello=False) as again:
        welcome = again.ask("hello", player=player)
    assert welcome["settings"] == {
        "move_errors": True, "placement_help": True, "winnable_only": True
    }


def test_stats_of_a_new_player_are_empty(site: Site) -> None:
    with site.peer() as peer:
        stats = peer.ask("stats")
    assert stats["overall"] == {
        "games": 0, "wins": 0, "win_pct": 0.0, "current_streak": 0, "best_streak": 0,
        "best_time_ms": None, "fewest_moves": None, "dead_deals": 0,
    }
    assert stats["by_code"] == [] and stats["by_code_total"] == 0


# --- bad input -------------------------------------------------------------------------------


def _state(peer: Peer) -> dict[str, Any]:
    reply = peer.ask("solitaire.resume")
    assert reply["type"] == "solitaire.state"
    return comparable(reply["game"])


BAD_FRAMES: list[tuple[str, str]] = [
    ("{not json", "bad_json"),
    ("", "bad_json"),
    ('"just a string"', "bad_message"),
    ("[1, 2]", "bad_message"),
    ('{"no": "type"}', "bad_message"),
    ('{"type": 7}', "bad_message"),
    ('{"type": "solitaire.fly"}', "unknown_type"),
    ('{"type": "settings", "move_errors": "yes"}', "bad_message"),
    ('{"type": "lang", "lang": "fr"}', "bad_message"),
    ('{"type": "solitaire.new", "code": 12}', "bad_message"),
    ('{"type": "solitaire.new", "winnable_only": "sure"}', "bad_message"),
    ('{"type": "solitaire.tap", "target": 3}', "bad_message"),
    ('{"type": "solitaire.undo"}', "bad_message"),
    ("x" * (16 * 1024 + 1), "too_large"),
    (json.dumps({"type": "stats", "pad": "♥" * 6000}), "too_large"),
]


@pytest.mark.parametrize(("frame", "code"), BAD_FRAMES, ids=[c for _, c in BAD_FRAMES])
def test_a_bad_frame_gets_its_error_and_changes_nothing(site: Site, frame: str, code: str) -> None:
    with site.peer() as peer, site.peer() as bystander:
        game_id = peer.new_game(CODE)["id"]
        peer.tap(game_id, "stock")
        other_id = bystander.new_game(CODE)["id"]
        before = _state(peer)
        reply = peer.raw(frame)
        assert reply["type"] == "error" and reply["code"] == code and reply["message"]
        assert _state(peer) == before
        assert logged_actions(site.db_path, game_id) == ["stock"]
        # the connection and another player's connection both keep working
        assert peer.tap(game_id, "stock")["game"]["moves"] == 2
        assert bystander.tap(other_id, "stock")["game"]["moves"] == 1


@pytest.mark.parametrize("target", [0, 26, -1, "x", "STOCK", 3.5, True, None, [1]])
def test_a_tap_on_no_such_place_is_bad_target_and_changes_nothing(
    site: Site, target: object
) -> None:
    with site.peer() as peer:
        game_id = peer.new_game(CODE)["id"]
        before = _state(peer)
        reply = peer.ask("solitaire.tap", game=game_id, target=target)
        assert reply["type"] == "error" and reply["code"] == "bad_target"
        assert _state(peer) == before
    assert logged_actions(site.db_path, game_id) == []


def test_a_binary_frame_is_refused(site: Site) -> None:
    with site.peer() as peer:
        peer.socket.send_bytes(b'{"type": "stats"}')
        assert peer.socket.receive_json()["code"] == "bad_json"
        assert peer.ask("stats")["type"] == "stats"


def test_errors_echo_the_request_number(site: Site) -> None:
    with site.peer() as peer:
        for frame, code in (
            ({"type": "nope", "req": 77}, "unknown_type"),
            ({"type": "settings", "move_errors": "yes", "req": 78}, "bad_message"),
            ({"type": "solitaire.tap", "game": "g", "target": 0, "req": 79}, "bad_target"),
        ):
            peer.socket.send_text(json.dumps(frame))
            reply = peer.socket.receive_json()
            assert (reply["type"], reply["code"], reply["req"]) == ("error", code, frame["req"])


def test_an_unknown_game_id_is_refused(site: Site) -> None:
    with site.peer() as peer:
        peer.new_game(CODE)
        for kind, extra in (("solitaire.tap", {"target": "stock"}), ("solitaire.undo", {})):
            reply = peer.ask(kind, game="no-such-game", **extra)
            assert reply["code"] == "unknown_game"


def test_another_players_game_is_as_unknown_as_a_made_up_one(site: Site) -> None:
    with site.peer() as owner, site.peer() as stranger:
        game_id = owner.new_game(CODE)["id"]
        reply = stranger.tap(game_id, "stock")
        assert reply["code"] == "unknown_game"
        assert stranger.ask("solitaire.undo", game=game_id)["code"] == "unknown_game"
    assert logged_actions(site.db_path, game_id) == []


def test_an_abandoned_game_refuses_taps_as_over(site: Site) -> None:
    with site.peer() as peer:
        old = peer.new_game(CODE)["id"]
        peer.new_game(CODE)
        assert peer.tap(old, "stock")["code"] == "game_over"
        assert peer.ask("solitaire.undo", game=old)["code"] == "game_over"
