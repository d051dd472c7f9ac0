"""A Heart to Heart game's life on the site, decided by the server: what counts as a game
played, leaving a game under way only when the request names it, restarting a deal, deals dead
from the start, an empty code, and the per-deal list in pages.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heartsuit.solitaire import Game, Target
from tests.server_support import Peer, Site, game_row, running_site, site_rows
from tests.test_server_games import flat_win

CODE = "HH1-N-AAAAAAM"
OTHER = "HH1-N-AAAAAAB"
DEAD_AT_DEAL = "HH1-N-AAAAAAA"
#: a deal that simple greedy play (below) leads into a dead end
DEAD_END_CODE = "HH1-N-AAAAAAE"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def greedy_to_dead_end(code: str) -> list[list[Target]]:
    """Moves (as their taps) that pair the first pair on offer, else flip, until the game is
    over."""
    game, moves = Game.from_code(code), []
    while not game.over:
        pairs = game.pairs()
        step: list[Target] = list(pairs[0]) if pairs else ["stock"]
        for tap in step:
            game.tap(tap)
        moves.append(step)
    assert game.dead_end and moves
    return moves


def overall(peer: Peer) -> dict[str, Any]:
    stats: dict[str, Any] = peer.ask("stats")["overall"]
    return stats


def counted(site: Site) -> int:
    return int(site_rows(site, "SELECT COALESCE(SUM(games), 0) FROM solitaire_player_stats")[0][0])


def test_an_untouched_deal_left_is_not_a_game_played(site: Site) -> None:
    with site.peer() as peer:
        first = peer.new_game(CODE)
        assert first["under_way"] is False
        peer.tap(first["id"], 25)  # a selection is not a move
        for _ in range(3):
            peer.new_game()  # no question asked: nothing would be lost
        assert overall(peer)["games"] == 0
    assert game_row(site.db_path, first["id"])["status"] == "unplayed"


def test_a_game_with_every_move_undone_is_not_under_way(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        assert peer.tap(game["id"], "stock")["game"]["under_way"] is True
        assert peer.ask("solitaire.undo", game=game["id"])["game"]["under_way"] is False
        peer.new_game(OTHER)
        assert overall(peer)["games"] == 0


def test_leaving_a_game_under_way_needs_its_id_and_counts_once(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        peer.tap(game["id"], "stock")
        for fields in ({}, {"leave": "some-other-game"}, {"code": OTHER}):
            refused = peer.ask("solitaire.new", **fields)
            assert refused["type"] == "error" and refused["code"] == "game_under_way"
            assert "loss" in refused["message"] or "kalah" in refused["message"]
        # nothing changed: the same game, still playing, nothing counted
        resumed = peer.ask("solitaire.resume")["game"]
        assert resumed["id"] == game["id"] and resumed["under_way"] is True
        assert overall(peer)["games"] == 0
        second = peer.new_game(OTHER, leave=game["id"])
        assert second["code"] == OTHER
        stats = peer.ask("stats")
    assert stats["overall"]["games"] == 1 and stats["overall"]["wins"] == 0
    assert [row["code"] for row in stats["by_code"]] == [CODE]
    assert game_row(site.db_path, game["id"])["status"] == "abandoned"


def test_another_tab_cannot_drop_the_game_under_way_either(site: Site) -> None:
    with site.peer() as first:
        game = first.new_game(CODE)
        first.tap(game["id"], "stock")
        with site.peer(first.player) as second:
            assert second.ask("solitaire.new")["code"] == "game_under_way"
            assert second.ask("solitaire.resume")["game"]["id"] == game["id"]


def test_restart_deals_the_same_code_from_the_start_and_records_the_attempt_once(
    site: Site,
) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        peer.tap(game["id"], "stock")
        moved = peer.tap(game["id"], "stock")["game"]
        refused = peer.ask("solitaire.restart", game=game["id"])
        assert refused["code"] == "game_under_way"
        reply = peer.ask("solitaire.restart", game=game["id"], leave=game["id"])
        again = reply["game"]
        assert reply["event"]["kind"] == "restarted"
        assert again["code"] == CODE and again["id"] != game["id"]
        assert again["moves"] == 0 and again["stock_count"] > moved["stock_count"]
        # a second restart (a double tap) leaves an untouched attempt: nothing more counted
        twice = peer.ask("solitaire.restart", game=game["id"], leave=game["id"])["game"]
        assert twice["code"] == CODE
        stats = peer.ask("stats")
        assert stats["overall"]["games"] == 1
        assert stats["by_code"][0] == {
            "code": CODE, "games": 1, "wins": 0, "best_time_ms": None, "fewest_moves": None
        }
        assert peer.ask("solitaire.restart", game="made-up")["code"] == "unknown_game"
    assert game_row(site.db_path, again["id"])["status"] == "unplayed"


def test_a_dead_deal_is_shown_as_such_and_never_counted(site: Site) -> None:
    with site.peer() as peer:
        dead = peer.new_game(DEAD_AT_DEAL)
        assert dead["dead_deal"] is True and dead["outcome"] == "dead_end"
        assert peer.ask("solitaire.undo", game=dead["id"])["code"] == "game_over"
        assert peer.ask("solitaire.resume")["game"]["dead_deal"] is True
        peer.new_game(CODE)  # leaving it asks nothing
        assert overall(peer)["games"] == 0 and overall(peer)["dead_deals"] == 1
    assert game_row(site.db_path, dead["id"])["status"] == "unplayable"
    assert counted(site) == 0


def test_a_dead_end_counts_while_it_lasts_and_undo_takes_it_back(site: Site) -> None:
    with site.peer() as peer:
        # a win first, so that there is a streak to interrupt and restore
        won_id = peer.new_game(CODE)["id"]
        for tap in flat_win(CODE):
            last = peer.tap(won_id, tap)["game"]
        assert last["outcome"] == "won" and last["under_way"] is False
        assert overall(peer)["current_streak"] == 1
        game = peer.new_game(DEAD_END_CODE)
        moves = greedy_to_dead_end(DEAD_END_CODE)
        for tap in (tap for move in moves for tap in move):
            state = peer.tap(game["id"], tap)["game"]
        assert state["outcome"] == "dead_end" and state["under_way"] is False
        assert (overall(peer)["games"], overall(peer)["current_streak"]) == (2, 0)
        undone = peer.ask("solitaire.undo", game=game["id"])["game"]
        assert undone["outcome"] == "playing" and undone["under_way"] is True
        after = overall(peer)
        assert (after["games"], after["current_streak"], after["best_streak"]) == (1, 1, 1)
        # back into the dead end and out of the game: one loss, not two
        for tap in moves[-1]:
            state = peer.tap(game["id"], tap)["game"]
        assert state["outcome"] == "dead_end"
        peer.new_game(OTHER)  # a dead end is not under way: it was counted already
        final = overall(peer)
    assert (final["games"], final["wins"], final["current_streak"]) == (2, 1, 0)
    assert game_row(site.db_path, game["id"])["status"] == "abandoned"


@pytest.mark.parametrize("code", ["", "   ", "\t"])
def test_an_empty_code_is_refused_and_the_game_stays(site: Site, code: str) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        refused = peer.ask("solitaire.new", code=code)
        assert refused["code"] == "bad_code"
        assert "HH1-N-AAAAAAM" in refused["message"] and "''" not in refused["message"]
        assert peer.ask("solitaire.resume")["game"]["id"] == game["id"]


def test_the_per_deal_list_comes_in_pages(site: Site) -> None:
    codes = [f"HH1-N-AAAABA{chr(65 + i)}" for i in range(7)]
    with site.peer() as peer:
        for code in codes:
            game = peer.new_game(code)
            if game["dead_deal"]:
                continue
            peer.tap(game["id"], "stock")
            peer.new_game(code, leave=game["id"])  # a loss of this code
        played = [r["code"] for r in peer.ask("stats", limit=100)["by_code"]]
        first = peer.ask("stats", limit=3)
        second = peer.ask("stats", offset=3, limit=3)
        last = peer.ask("stats", offset=6, limit=3)
        for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"limit": "3"}):
            assert peer.ask("stats", **bad)["code"] == "bad_message"
        player = peer.player
    assert len(played) >= 5 and first["by_code_total"] == len(played)
    assert (first["offset"], first["limit"]) == (0, 3)
    pages = [row["code"] for page in (first, second, last) for row in page["by_code"]]
    assert pages == played[:9]
    api = site.client.get(
        "/api/stats", params={"offset": 3, "limit": 3}, headers={"X-Heartsuit-Player": player}
    ).json()
    assert api["by_code"] == second["by_code"]
    for query in ({"limit": "x"}, {"limit": "0"}, {"offset": "-2"}, {"limit": "500"}):
        answer = site.client.get("/api/stats", params=query)
        assert answer.status_code == 400 and "limit" in answer.json()["error"]
