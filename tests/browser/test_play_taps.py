"""Heart to Heart taps that answer at once, in a real browser: a selection, a mismatch and a
pair are on the board before the server's answer arrives (its frames are held back by a route
between the page and the real server); a move the server refuses is rolled back, visibly and
with the server's words; offline, the board says so, stays usable and queues the taps, which
go, in order and each exactly once, when the connection is back (also when the connection
drops with taps unanswered)."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from typing import Any

import pytest

from heartsuit.server.solitaire.frames import game_view
from heartsuit.solitaire import Game, Outcome, Target
from heartsuit.solitaire.codes import format_code
from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import GAME, open_game, seq, tap, wait_for_state

pytestmark = pytest.mark.browser

#: the tip and the first waste card differ in rank: a tap on both is a mismatch
CODE = "HH1-N-AAAAAAM"
#: the tip pairs with the first waste card
PAIR_CODE = "HH1-N-AAAAAAK"
TIP = 25
TIP_CARD = f'[data-pos="{TIP}"]'
WASTE = '[data-pile="waste"]'
STOCK = '[data-pile="stock"]'


class Held:
    """A route between the page's /ws and the real server that can hold back what the server
    sends (``hold``/``release``) and drop the connection (``drop``)."""

    def __init__(self) -> None:
        self.holding = False
        self.held: list[tuple[Any, str | bytes]] = []
        self.sockets: list[Any] = []

    def route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.sockets.append(ws)
        ws.on_message(lambda message: server.send(message))

        def down(message: str | bytes) -> None:
            if self.holding:
                self.held.append((ws, message))
            else:
                ws.send(message)

        server.on_message(down)

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        held, self.held = self.held, []
        for ws, message in held:
            if ws is self.sockets[-1]:
                ws.send(message)

    def drop(self) -> None:
        """Close the page's socket (as a network that goes away); held frames are lost."""
        self.held = []
        self.holding = False
        self.sockets[-1].close()


def classes(page: Any, selector: str) -> str:
    return page.get_attribute(selector, "class") or ""


def logged(server: ServerProcess, game_id: str) -> list[tuple[str, str | None]]:
    """The game's move log as the server's database holds it: (action, intent) in order."""
    with closing(sqlite3.connect(server.db)) as db:
        rows = db.execute(
            "SELECT action, intent FROM solitaire_moves WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
    return [(str(action), intent) for action, intent in rows]


def routed(page: Any, server: ServerProcess, code: str) -> Held:
    held = Held()
    page.route_web_socket("**/ws", held.route)
    open_game(page, server.url, f"?code={code}")
    return held


def test_a_selection_and_a_mismatch_show_before_the_server_answers(
    page: Any, server: ServerProcess
) -> None:
    held = routed(page, server, CODE)
    drawn = seq(page)
    held.hold()
    page.click(TIP_CARD, position={"x": 12, "y": 10})
    # on the board at once, while the server's answer is still held back
    assert "selected" in classes(page, TIP_CARD)
    assert page.get_attribute(TIP_CARD, "aria-pressed") == "true"
    assert seq(page) == drawn and page.get_attribute(GAME, "data-pending") == "true"
    # a mismatch: the waste card becomes the selection, at once too
    page.click(WASTE)
    assert "selected" in classes(page, WASTE) and "selected" not in classes(page, TIP_CARD)
    assert seq(page) == drawn
    held.release()
    page.wait_for_function(
        "n => Number(document.querySelector('[data-game]').dataset.seq) >= n + 2", arg=drawn
    )
    # the server agreed: the board is as guessed, nothing waits
    assert "selected" in classes(page, WASTE) and "selected" not in classes(page, TIP_CARD)
    assert page.get_attribute(GAME, "data-pending") == "false"
    game_id = page.get_attribute(GAME, "data-game-id") or ""
    moves = logged(server, game_id)
    assert [action for action, _ in moves] == ["25", "waste"]
    assert len({intent for _, intent in moves}) == 2 and all(intent for _, intent in moves)


def test_a_pair_is_taken_before_the_server_confirms(page: Any, server: ServerProcess) -> None:
    held = routed(page, server, PAIR_CODE)
    tap(page, TIP)  # the selection, answered
    drawn = seq(page)
    held.hold()
    page.click(WASTE)
    # the tip is gone at once; the waste's next card is the server's to show
    assert "empty" in classes(page, TIP_CARD)
    assert "pending" in classes(page, WASTE)
    assert page.inner_text('[data-info="moves"]') == "1"
    assert seq(page) == drawn
    held.release()
    wait_for_state(page, drawn)
    assert "empty" in classes(page, TIP_CARD) and "pending" not in classes(page, WASTE)
    assert page.inner_text('[data-info="score"]') != "0"  # the points come with the answer


def test_a_refused_move_is_rolled_back_with_the_servers_words(
    page: Any, server: ServerProcess
) -> None:
    held = routed(page, server, CODE)
    game_id = page.get_attribute(GAME, "data-game-id")
    # the same player in another tab moves the game on; this tab hears nothing of it yet
    held.hold()
    other = page.context.new_page()
    try:
        open_game(other, server.url)
        assert other.get_attribute(GAME, "data-game-id") == game_id
        tap(other, "stock")
    finally:
        other.close()
    drawn = seq(page)
    page.click(TIP_CARD, position={"x": 12, "y": 10})
    assert "selected" in classes(page, TIP_CARD)  # guessed at once
    held.release()
    # the server refused it (the game moved on): back to the server's state, and said so
    page.wait_for_selector("[data-toast]:not([hidden])")
    toast = page.inner_text("[data-toast]")
    assert toast.startswith("Langkah tidak jadi:") and "tab lain" in toast, toast
    wait_for_state(page, drawn)
    page.wait_for_function(
        "() => document.querySelector('[data-game]').dataset.pending === 'false'"
    )
    assert "selected" not in classes(page, TIP_CARD)
    assert page.get_attribute(WASTE, "data-count") == "2"  # the other tab's flip
    assert [a for a, _ in logged(server, game_id or "")] == ["stock"]
    axe.check(page, "play: a move rolled back")


def test_offline_taps_wait_and_go_once_each_in_order(new_user: Any, server: ServerProcess) -> None:
    # a phone, a desktop, and a phone on its side (the actions beside the heart)
    # (the phone on its side reads English: the note is said in both languages)
    for width, height, lang in ((360, 740, "id"), (1280, 800, "id"), (800, 400, "en")):
        user = new_user(width, height)
        page = user.new_page()
        open_game(page, server.url, f"?code={CODE}&lang={lang}")
        game_id = page.get_attribute(GAME, "data-game-id") or ""
        user.context.set_offline(True)
        page.wait_for_selector("[data-offline-note]:not([hidden])")
        assert page.get_attribute(GAME, "data-offline") == "true"
        drawn = seq(page)
        # the board stays usable: a selection, a deselection, a flip, all shown at once
        page.click(TIP_CARD, position={"x": 12, "y": 10})
        assert "selected" in classes(page, TIP_CARD)
        page.click(TIP_CARD, position={"x": 12, "y": 10})
        assert "selected" not in classes(page, TIP_CARD)
        page.click(STOCK)
        assert page.get_attribute(STOCK, "data-count") == "25"
        page.wait_for_function(
            "() => document.querySelector('[data-offline-waiting]').textContent.includes('3')"
        )
        assert seq(page) == drawn
        note = page.inner_text("[data-offline-note]")
        said = {"id": "Koneksi terputus", "en": "You are offline"}[lang]
        assert said in note and "3" in note
        axe.check(page, f"play: offline with taps waiting ({width}px)")
        screenshot(page, f"play-offline-{width}")
        assert logged(server, game_id) == []
        user.context.set_offline(False)
        page.wait_for_selector("[data-offline-note]", state="hidden")
        page.wait_for_function(
            "() => document.querySelector('[data-game]').dataset.pending === 'false'"
        )
        moves = logged(server, game_id)
        assert [action for action, _ in moves] == ["25", "25", "stock"]
        assert len({intent for _, intent in moves}) == 3
        assert page.get_attribute(WASTE, "data-count") == "2"


def test_taps_unanswered_when_the_connection_drops_are_applied_once(
    page: Any, server: ServerProcess
) -> None:
    held = routed(page, server, CODE)
    game_id = page.get_attribute(GAME, "data-game-id") or ""
    held.hold()
    # the server applies these, but its answers never reach the page
    page.click(TIP_CARD, position={"x": 12, "y": 10})
    page.click(STOCK)
    page.click(STOCK)
    for _ in range(100):
        if len(logged(server, game_id)) == 3:
            break
        page.wait_for_timeout(50)
    assert [a for a, _ in logged(server, game_id)] == ["25", "stock", "stock"]
    held.drop()
    # the page reconnects and sends the three again, with their ids: answered, not applied
    page.wait_for_function(
        "() => document.querySelector('[data-game]').dataset.pending === 'false'"
    )
    assert [a for a, _ in logged(server, game_id)] == ["25", "stock", "stock"]
    assert page.get_attribute(STOCK, "data-count") == "24"
    assert page.get_attribute(WASTE, "data-count") == "3"
    # and play goes on
    tap(page, "stock")
    assert [a for a, _ in logged(server, game_id)] == ["25", "stock", "stock", "stock"]


TARGETS: list[Target] = [*range(1, 26), "stock", "waste"]


def _summary(view: dict[str, Any]) -> dict[str, Any]:
    """What a guess must get right: which places are empty, what is selected and dimmed."""
    waste = view["waste_top"]
    return {
        "empty": [card is None for card in view["heart"]],
        "selected": [bool(card and card["selected"]) for card in view["heart"]],
        "dimmed": [bool(card and card["dimmed"]) for card in view["heart"]],
        "waste_selected": bool(waste and waste["selected"]),
        "moves": view["moves"],
        "stock_count": view["stock_count"],
    }


def test_the_pages_guesses_agree_with_the_engine(page: Any, server: ServerProcess) -> None:
    """Random positions of random deals: for every target, what the page guesses from the
    state's answers (taps.js) is what the engine does, or the page says it cannot know."""
    open_game(page, server.url, f"?code={CODE}")
    # the module itself (its plain path is always served; an instance of its own: it is pure)
    module = f"{server.url}/static/js/taps.js"
    rng = random.Random(20261201)
    views: list[dict[str, Any]] = []
    truths: list[list[tuple[str, dict[str, Any]]]] = []
    for number in range(8):
        game = Game.from_code(format_code(1000 + number * 7919))
        for _ in range(20):
            if game.outcome is not Outcome.PLAYING:
                break
            view = game_view(game, game_id="g", started_at_ms=0, now_ms=0, placement_help=True)
            views.append(view.model_dump())
            truth = []
            for target in TARGETS:
                after = Game.from_dict(game.to_dict())
                kind = after.tap(target).kind.value
                seen = game_view(after, game_id="g", started_at_ms=0, now_ms=0, placement_help=True)
                truth.append((kind, _summary(seen.model_dump())))
            truths.append(truth)
            # on to a random next position: a pair when there is one, else any tap
            pairs = game.pairs()
            if pairs and rng.random() < 0.7:
                for target in rng.choice(pairs):
                    game.tap(target)
            else:
                game.tap(rng.choice([*game.free_positions(), "stock", "waste"]))
    guesses: list[list[Any]] = page.evaluate(
        """async ([url, views, targets]) => {
          const { fold } = await import(url);
          const summary = (view) => ({
            empty: view.heart.map((card) => card === null),
            selected: view.heart.map((card) => Boolean(card && card.selected)),
            dimmed: view.heart.map((card) => Boolean(card && card.dimmed)),
            waste_selected: Boolean(view.waste_top && view.waste_top.selected),
            moves: view.moves,
            stock_count: view.stock_count,
          });
          return views.map((view) => targets.map((target) => {
            const intent = { game: view.id, action: { type: "tap", target } };
            const shown = fold(view, [intent], true);
            return intent.guess ? [intent.guess.kind, summary(shown.view)] : null;
          }));
        }""",
        [module, views, TARGETS],
    )
    known = total = 0
    for drawn, truth, guessed in zip(views, truths, guesses, strict=True):
        for target, (kind, real), guess in zip(TARGETS, truth, guessed, strict=True):
            total += 1
            if guess is None:
                continue
            known += 1
            where = f"{drawn['code']} at {drawn['moves']} moves: tap {target}"
            mine = guess[1]
            assert guess[0] == kind, where
            assert mine["empty"] == real["empty"], where
            assert mine["selected"] == real["selected"], where
            assert mine["moves"] == real["moves"], where
            assert mine["stock_count"] == real["stock_count"], where
            if kind not in ("paired", "flipped"):
                # after a move the dimming is of no selection; before, it follows the pairs
                assert mine["dimmed"] == real["dimmed"], where
                assert mine["waste_selected"] == real["waste_selected"], where
    # most taps are answered at once (only what the answers cannot say waits)
    assert total > 1000 and known > 0.9 * total, (known, total)
