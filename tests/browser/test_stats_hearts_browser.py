"""The statistics page's Hearts part in a real browser: a player who finished a match against
the computer and left another (both played over ``/ws`` as a page plays them, with the
browser's own player id) sees them counted, beside Heart to Heart's figures, in both languages,
at 320 px and with 200% text, with no axe-core violation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

import pytest
from websockets.sync.client import ClientConnection, connect

from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.test_hearts_sizes import DOUBLE_TEXT
from tests.hearts_support import Seat, play_until_over

pytestmark = pytest.mark.browser

READY = '[data-stats][aria-busy="false"]'


class _Socket:
    """The two calls :class:`tests.hearts_support.Seat` makes, on a real WebSocket client."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=30))


class _Wire:
    def __init__(self, ws: ClientConnection) -> None:
        self.socket = _Socket(ws)
        self.next_req = 1


@pytest.fixture(scope="module")
def player(server: ServerProcess) -> Iterator[str]:
    """A player with one Hearts match finished against the computer and one left under way."""
    # (every frame is kept unread: with a bounded queue the client stops reading once it is
    # full, misses the server's close frame and its close waits out the 10 s timeout)
    with connect(server.url.replace("http://", "ws://") + "/ws", max_queue=None) as ws:
        me = Seat(cast(Any, _Wire(ws)))
        welcome = me.ask("hello", player=None)
        me.ask("lang", lang="en")
        me.create(mode="computer", options={"target": 1, "passing": False})
        play_until_over([me])
        assert me.state["over"] is not None
        me.state = {}  # (the next table's states follow)
        me.create(mode="computer", preset="three")
        me.until(lambda s: me.my_turn(s))
        left = me.ask("hearts.leave", table=me.table, token=me.token)
        assert left["type"] == "hearts.state", left
        yield str(welcome["player"])


def open_stats(page: Any, server: ServerProcess, player: str, lang: str) -> None:
    # (the tab is on /healthz: a page with a socket would say hello and keep a new id)
    page.evaluate("id => localStorage.setItem('heartsuit.player', id)", player)
    page.goto(server.url + f"/stats?lang={lang}")
    page.wait_for_selector(READY)


def test_a_finished_match_and_a_left_one_are_shown_as_such(
    page: Any, server: ServerProcess, player: str
) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_stats(page, server, player, "en")
    hearts = page.locator("[data-hearts-stats]")
    assert hearts.get_attribute("aria-busy") == "false"

    def figure(key: str) -> str:
        return str(page.inner_text(f'[data-hstat="{key}"]'))

    assert figure("matches") == "2" and figure("left") == "1"
    assert int(figure("won")) + int(figure("lost")) == 1
    assert figure("points_per_hand") != "—" and figure("queens") != "—"
    rows = page.locator("[data-by-preset] tbody tr")
    assert rows.count() == 2
    three = page.locator('[data-by-preset] tr[data-preset="three"] td')
    assert three.nth(0).inner_text() == "Three players"
    assert (three.nth(1).inner_text(), three.nth(3).inner_text()) == ("1", "1")
    # a left match has no hands of its own here: its points per hand stay a dash
    assert three.nth(4).inner_text() == "—"
    best = page.inner_text('[data-hstat-match="best"]')
    assert best.startswith("Standard: you ") and "the best of the others" in best
    assert page.locator("[data-hearts-ends]").is_visible()
    assert page.locator("[data-hearts-play]").is_hidden()
    assert page.inner_text("[data-hearts-status]") == ""
    counts = page.inner_text("[data-hearts-counts]")
    assert "left" in counts and "never as won or lost" in counts
    # Heart to Heart's part is still there, and the page links to both
    assert page.inner_text('[data-stat="games"]') == "0"
    assert page.locator('.stats-jump a[href="#hearts-title"]').count() == 1
    axe.check(page, "statistics with Hearts matches, 1280 px, en")
    screenshot(page, "stats-hearts-1280-en")


@pytest.mark.parametrize("scale", ["320", "text200"])
def test_the_hearts_figures_fit_a_phone_in_indonesian(
    page: Any, server: ServerProcess, player: str, scale: str
) -> None:
    page.set_viewport_size({"width": 320, "height": 640})
    open_stats(page, server, player, "id")
    if scale == "text200":
        page.add_style_tag(content=DOUBLE_TEXT)
        page.wait_for_timeout(100)
    page.locator("#hearts-title").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), (
        page.evaluate("document.documentElement.scrollWidth")
    )
    for part in ("[data-hearts-stats] .stat-grid", ".preset-wrap", "[data-hearts-ends]"):
        box = page.locator(part).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320, (part, box)
    wrap = page.locator(".preset-wrap")
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert page.inner_text('[data-by-preset] tr[data-preset="three"] td >> nth=0') == "Tiga pemain"
    assert page.inner_text('[data-hstat="left"]') == "1"
    assert "Ditinggalkan" in page.inner_text("[data-hearts-stats] .stat-grid")
    axe.check(page, f"statistics with Hearts matches, 320 px, id, {scale}")
    screenshot(page, f"stats-hearts-320-id-{scale}")


def test_a_player_with_no_hearts_match_is_told_so_and_offered_a_table(
    page: Any, server: ServerProcess
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(server.url + "/stats?lang=id")
    page.wait_for_selector(READY)
    assert page.inner_text('[data-hstat="matches"]') == "0"
    assert page.inner_text("[data-hearts-status]").startswith("Belum ada permainan Hearts")
    assert page.locator("[data-hearts-play]").is_visible()
    assert page.locator("[data-hearts-ends]").is_hidden()
    assert page.locator("[data-by-preset-part] >> nth=0").is_hidden()
    axe.check(page, "statistics without Hearts matches, 360 px, id")
