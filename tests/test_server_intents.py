"""Heart to Heart's intents: a tap or an undo sent again is answered, never applied twice; a
tap made on a view that has moved on is refused as ``stale`` with the fresh state; a write that
another process got in first is caught up with, checked once more and applied (or answered
``stale``), never lost and never a closed socket; and each state says what a tap would do.

The "other process" here is a second app on the same SQLite file without a shared bus, so its
cached copy of the game really is stale (with a bus, ``test_server_processes.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heartsuit.server.core.protocol import ProtocolError, Stale
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database
from heartsuit.solitaire import Game
from tests.server_support import FakeClock, Peer, Site, logged_actions, running_site, site_rows

CODE = "HH1-N-AAAAAAM"
TIP = 25


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def tap(peer: Peer, game_id: str, target: int | str, **fields: Any) -> dict[str, Any]:
    return peer.ask("solitaire.tap", game=game_id, target=target, **fields)


def intents(site: Site, game_id: str) -> list[tuple[str, str | None]]:
    return [
        (str(action), intent)
        for action, intent in site_rows(
            site,
            f"SELECT action, intent FROM solitaire_moves WHERE game_id = '{game_id}' ORDER BY seq",
        )
    ]


def test_the_same_tap_frame_sent_three_times_is_applied_once(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        first = tap(peer, game["id"], TIP, intent="tab1-1", base=game["log_length"])
        assert first["event"]["kind"] == "selected" and first["event"]["repeat"] is False
        for _ in range(2):
            again = tap(peer, game["id"], TIP, intent="tab1-1", base=game["log_length"])
            assert again["type"] == "solitaire.state", again
            # the same answer: still selected (a second application would have deselected it)
            assert again["event"] == {**first["event"], "repeat": True}
            assert again["game"]["heart"][TIP - 1]["selected"] is True
            assert again["game"]["log_length"] == first["game"]["log_length"] == 1
        assert intents(site, game["id"]) == [("25", "tab1-1")]


def test_a_repeat_is_recognised_after_a_reconnect_and_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    with running_site(db) as site, site.peer() as peer:
        player = peer.player
        game = peer.new_game(CODE)
        flipped = tap(peer, game["id"], "stock", intent="t-1", base=0)
        assert flipped["event"]["kind"] == "flipped"
    with running_site(db) as site, site.peer(player) as peer:
        # a new process knows nothing of the game but what the log says
        again = tap(peer, game["id"], "stock", intent="t-1", base=0)
        assert again["event"]["repeat"] is True and again["event"]["kind"] == "flipped"
        assert again["game"]["stock_count"] == flipped["game"]["stock_count"]
        undone = peer.ask("solitaire.undo", game=game["id"], intent="t-2", base=1)
        assert undone["event"]["kind"] == "undone"
        undone_again = peer.ask("solitaire.undo", game=game["id"], intent="t-2", base=1)
        assert undone_again["event"] == {
            "kind": "undone",
            "message": None,
            "message_key": None,
            "reason": None,
            "repeat": True,
        }
        assert logged_actions(db, game["id"]) == ["stock", "undo"]


def test_an_intent_that_changed_nothing_is_a_repeat_later_even_after_a_restart(
    tmp_path: Path,
) -> None:
    # an undo with nothing to undo changes nothing and writes no log entry; sent again (without
    # a base) after a move, in a new process, it would undo that move if nothing remembered it
    db = tmp_path / "site.sqlite3"
    with running_site(db) as site, site.peer() as peer:
        player = peer.player
        game = peer.new_game(CODE)
        nothing = peer.ask("solitaire.undo", game=game["id"], intent="u-1")
        assert nothing["event"]["kind"] == "nothing_to_undo"
        flipped = tap(peer, game["id"], "stock", intent="t-1")
        assert flipped["event"]["kind"] == "flipped"
        again = peer.ask("solitaire.undo", game=game["id"], intent="u-1")
        assert again["event"]["repeat"] is True
        assert again["game"]["stock_count"] == flipped["game"]["stock_count"]
    with running_site(db) as site, site.peer(player) as peer:
        again = peer.ask("solitaire.undo", game=game["id"], intent="u-1")
        assert again["event"]["repeat"] is True
        assert again["game"]["stock_count"] == flipped["game"]["stock_count"]
        assert logged_actions(db, game["id"]) == ["stock"]


def test_a_tap_on_a_view_that_moved_on_is_stale_and_changes_nothing(site: Site) -> None:
    with site.peer() as peer, site.peer(peer.player) as other:
        game = peer.new_game(CODE)
        # another tab flips a card: this tab's view (log length 0) is behind
        tap(other, game["id"], "stock", intent="other-1", base=0)
        stale = tap(peer, game["id"], TIP, intent="mine-1", base=0)
        assert stale["type"] == "error" and stale["code"] == "stale", stale
        assert "tab" in stale["message"]  # the server's words, in the tab's language
        assert stale["game"]["log_length"] == 1 and stale["game"]["waste_count"] == 2
        assert all(not (c and c["selected"]) for c in stale["game"]["heart"])
        assert logged_actions(site.db_path, game["id"]) == ["stock"]
        # with the fresh base it goes through
        assert tap(peer, game["id"], TIP, intent="mine-2", base=1)["event"]["kind"] == "selected"


def test_old_pages_without_intents_keep_working_and_bad_intents_are_refused(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        assert tap(peer, game["id"], TIP)["event"]["kind"] == "selected"
        assert tap(peer, game["id"], TIP)["event"]["kind"] == "deselected"
        for bad in ("", "x" * 65, "has space", 7):
            refused = tap(peer, game["id"], TIP, intent=bad)
            assert refused["type"] == "error" and refused["code"] == "bad_message", refused
        assert tap(peer, game["id"], TIP, base=-1)["code"] == "bad_message"
        assert logged_actions(site.db_path, game["id"]) == ["25", "25"]


def test_each_state_says_what_a_tap_would_do(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        engine = Game.from_code(CODE)
        answers = game["answers"]
        assert [tuple(pair) for pair in answers["pairs"]] == list(engine.pairs())
        assert answers["stock"] == "flip"
        free = [i + 1 for i, card in enumerate(game["heart"]) if card and card["free"]]
        assert free == list(engine.free_positions())
        # the stock turned through to its end: a tap turns the waste over
        state = game
        for _ in range(game["stock_count"]):
            state = tap(peer, game["id"], "stock")["game"]
        assert state["stock_count"] == 0 and state["answers"]["stock"] == "redeal"


def test_a_tap_on_a_stale_process_is_caught_up_and_applied(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    with running_site(db) as one, running_site(db) as two:
        with one.peer() as a, ExitStack() as stack:
            game = a.new_game(CODE)
            b = stack.enter_context(two.peer(a.player))
            assert b.player == a.player
            # process two caches the game at log length 0
            assert tap(b, game["id"], TIP)["event"]["kind"] == "selected"
            # process one takes the selection back (the log moves on; two never hears of it)
            assert tap(a, game["id"], TIP)["event"]["kind"] == "deselected"
            # an old page (no base) on two: the write at entry 1 is refused by the store; two
            # catches up from the log and applies the tap to the fresh game
            flipped = tap(b, game["id"], "stock", intent="b-1")
            assert flipped["type"] == "solitaire.state", flipped
            assert flipped["event"]["kind"] == "flipped"
            assert flipped["game"]["log_length"] == 3
            # a page with a base: still on the view it saw, so it is told, with the fresh state
            assert tap(a, game["id"], "stock", intent="a-1")["game"]["log_length"] == 4
            stale = tap(b, game["id"], TIP, intent="b-2", base=3)
            assert stale["code"] == "stale" and stale["game"]["log_length"] == 4
            # the connection is still open and nothing was lost
            assert tap(b, game["id"], TIP, intent="b-3", base=4)["event"]["kind"] == "selected"
        assert logged_actions(db, game["id"]) == ["25", "25", "stock", "stock", "25"]


def test_the_same_intent_on_two_processes_is_applied_once(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    with running_site(db) as one, running_site(db) as two:
        with one.peer() as a, ExitStack() as stack:
            game = a.new_game(CODE)
            b = stack.enter_context(two.peer(a.player))
            assert b.player == a.player
            assert tap(b, game["id"], "stock")["game"]["log_length"] == 1  # two caches it
            first = tap(a, game["id"], TIP, intent="x-1", base=1)
            assert first["event"]["kind"] == "selected"
            # the page resends to the other process (its connection dropped): two's copy is
            # behind the base, so it reads the log again and finds the intent there
            again = tap(b, game["id"], TIP, intent="x-1", base=1)
            assert again["event"]["repeat"] is True
            assert again["game"]["heart"][TIP - 1]["selected"] is True
        assert logged_actions(db, game["id"]) == ["stock", "25"]


@pytest.fixture
def db_url(tmp_path: Path) -> Any:
    return sqlite_url(tmp_path / "svc.sqlite3")


def test_two_services_racing_on_one_game_never_lose_or_double_a_move(db_url: str) -> None:
    """Service level: the second writer's conflict is caught, its copy caught up, and the same
    intent from both ends is written once."""

    async def scenario() -> None:
        db = Database(db_url)
        await db.open()
        try:
            clock = FakeClock()
            players = PlayerService(SqlPlayersStore(db))
            one = SolitaireService(SqlSolitaireStore(db), players, clock=clock)
            two = SolitaireService(SqlSolitaireStore(db), players, clock=clock)
            dealt = await one.new_game("p1", CODE)
            gid = dealt.live.record.id
            await two.game_of("p1", gid)  # cached at 0
            await one.tap("p1", gid, "stock", intent="i-1")
            # two's copy is stale: its write of entry 0 conflicts, it catches up, applies
            played = await two.tap("p1", gid, "stock", intent="i-2")
            assert played.kind == "flipped" and played.view is not None
            assert played.view.log_length == 2 and played.view.waste_count == 3
            # the same intent again, on the other service (whose copy is now stale): a repeat
            again = await one.tap("p1", gid, "stock", intent="i-2")
            assert again.repeat and again.view is not None and again.view.log_length == 2
            # a stale base is refused with the fresh view
            with pytest.raises(Stale) as refused:
                await one.tap("p1", gid, TIP, intent="i-3", base=1)
            assert refused.value.fresh.view is not None
            assert refused.value.fresh.view.log_length == 2
            moves = await one.store.moves(gid)
            assert [(m.action, m.intent) for m in moves] == [("stock", "i-1"), ("stock", "i-2")]
        finally:
            await db.close()

    asyncio.run(scenario())


def test_an_intent_older_than_memory_is_still_never_applied_twice(db_url: str) -> None:
    async def scenario() -> None:
        db = Database(db_url)
        await db.open()
        try:
            players = PlayerService(SqlPlayersStore(db))
            service = SolitaireService(SqlSolitaireStore(db), players, clock=FakeClock())
            gid = (await service.new_game("p1", CODE)).live.record.id
            await service.tap("p1", gid, TIP, intent="old")
            live = await service.game_of("p1", gid)
            live.live.intents.clear()  # as if it had scrolled out of memory
            # the store's unique index refuses the second entry; the answer is a repeat or
            # stale, never a second application
            try:
                played = await service.tap("p1", gid, TIP, intent="old")
                assert played.repeat
            except Stale:
                pass
            assert [m.action for m in await service.store.moves(gid)] == ["25"]
        finally:
            await db.close()

    asyncio.run(scenario())


def test_state_frames_are_json_with_answers(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        json.dumps(game)  # the view is plain JSON
        assert set(game["answers"]) == {"pairs", "stock"}


#: taps and undos a page may send: mostly stock flips, the tip and the waste (the rest covered)
plays = st.lists(
    st.tuples(
        st.sampled_from([25, "stock", "stock", "waste", 24, 23, 1, "undo"]),
        # how many times the frame is sent again later, and whether memory is lost before
        st.integers(0, 2),
        st.booleans(),
    ),
    max_size=25,
)


EXAMPLES = itertools.count()


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=plays, number=st.integers(0, 30))
def test_resent_intents_change_nothing_however_they_are_interleaved(
    tmp_path: Path, steps: list[tuple[int | str, int, bool]], number: int
) -> None:
    """Property: whatever intents are sent again, and whenever (also after the process forgot
    the game), the log holds each intent once, and the game is the one the intents make when
    each is applied once, in the order first sent."""
    code = f"HH1-N-AAAAA{chr(65 + number // 26)}{chr(65 + number % 26)}"

    async def main() -> None:
        db = Database(sqlite_url(tmp_path / f"resent-{number}-{len(steps)}.sqlite3"))
        await db.open()
        try:
            players = PlayerService(SqlPlayersStore(db))
            service = SolitaireService(SqlSolitaireStore(db), players, clock=FakeClock())
            player = f"p-{next(EXAMPLES)}"  # a player of its own: the file is shared
            gid = (await service.new_game(player, code)).live.record.id
            engine = Game.from_code(code)
            expected: list[str] = []
            resends: list[tuple[str, int | str]] = []

            async def send(intent: str, action: int | str) -> None:
                if action == "undo":
                    await service.undo(player, gid, intent=intent)
                else:
                    await service.tap(player, gid, action, intent=intent)

            for index, (action, again, forget) in enumerate(steps):
                intent = f"i-{index}"
                try:
                    await send(intent, action)
                except ProtocolError:
                    continue  # a finished game refuses taps: nothing logged, nothing to resend
                if action == "undo":
                    if engine.undo():
                        expected.append("undo")
                elif engine.tap(action).kind.value != "ignored":  # type: ignore[arg-type]
                    expected.append(str(action))
                resends.extend([(intent, action)] * again)
                if forget:
                    service.forget()
                # some earlier intents come again now (a page resending after a drop)
                while resends and (forget or len(resends) > 2):
                    old, old_action = resends.pop(0)
                    with contextlib.suppress(ProtocolError):
                        await send(old, old_action)
            for old, old_action in resends:
                with contextlib.suppress(ProtocolError):
                    await send(old, old_action)
            logged = await service.store.moves(gid)
            intents_logged = [m.intent for m in logged]
            assert len(intents_logged) == len(set(intents_logged))
            assert [m.action for m in logged] == expected
            now = (await service.game_of(player, gid)).live.game
            assert now.heart == engine.heart and now.waste == engine.waste
            assert now.selected == engine.selected and now.score == engine.score
        finally:
            await db.close()

    asyncio.run(main())
