"""The replay page of a finished Hearts match (/hearts/replay/<table>/<n>), in the real browser.

A match is played to its end against the real server over a WebSocket of the test's own (the
person plays their first legal card; computers play at once); the page is then opened as a
stranger would open a shared link, stepped through with buttons and keys, and held to the
match the engine replays from the database: every hand's deal, each trick's cards, the score
sheet. A running match's link says it is not over and shows no card. axe-core checks each
state at 320, 360 and 1280 px.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from websockets.sync.client import connect
from websockets.typing import Origin

from heartsuit.hearts import Match
from heartsuit.server.hearts.live_table import LiveTable
from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.hearts_support import table_log, waited

pytestmark = pytest.mark.browser

WIDTHS = [320, 360, 1280]
STUCK_SECONDS = 120.0


class Client:
    """One person over a WebSocket of the test's own, against the real server."""

    def __init__(self, server: ServerProcess) -> None:
        self.socket = connect(
            f"ws://127.0.0.1:{server.port}/ws",
            origin=Origin(server.url),
            open_timeout=10,
            legacy=True,
        )
        self.req = 0
        self.ask("hello")

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.req += 1
        self.socket.send(json.dumps({"type": kind, "req": self.req, "lang": "en", **fields}))
        while True:
            reply: dict[str, Any] = json.loads(self.socket.recv(timeout=10))
            if reply.get("req") == self.req:
                return reply

    def close(self) -> None:
        self.socket.close()


def play_to_the_end(server: ServerProcess, **create: Any) -> tuple[str, str]:
    """A whole match against the computer; its table id and the person's seat token."""
    me = Client(server)
    try:
        created = me.ask("hearts.create", mode="computer", **create)
        assert created["type"] == "hearts.created", created
        table, token = created["table"], created["tokens"][0]["token"]
        # a liveness bound, not a speed one: on a loaded machine the computers may take long,
        # but a table whose version stands still this long is stuck
        seen, since = -1, time.monotonic()
        while True:
            state = me.ask("hearts.open", table=table, tokens=[token])
            if state["over"] is not None:
                return table, token
            version = state["table"]["version"]
            if version != seen:
                seen, since = version, time.monotonic()
            elif time.monotonic() - since > STUCK_SECONDS:
                raise AssertionError(f"the match stood still at version {version}")
            view = state["view"]
            if 0 in waited(state) and 0 not in state["awaiting"]:
                # between hands the computers wait for the person's "next hand" (a hand with
                # no pass, led by a computer, has nothing else for the person to do)
                me.ask("hearts.next", table=table, token=token)
                continue
            if view is None or 0 not in state["awaiting"]:
                time.sleep(0.02)
                continue
            if view["phase"] == "moon":
                me.ask(
                    "hearts.moon",
                    table=table,
                    token=token,
                    choice="others_plus_26",
                    version=version,
                )
            elif view["must_pass"]:
                count = state["table"]["rules"]["pass_count"]
                me.ask(
                    "hearts.pass",
                    table=table,
                    token=token,
                    cards=view["hand"][:count],
                    version=version,
                )
            else:
                me.ask(
                    "hearts.play", table=table, token=token, card=view["legal"][0], version=version
                )
    finally:
        me.close()


def stored_match(server: ServerProcess, table_id: str) -> Match:
    """The match as the server's log says it was played, replayed by the engine."""
    live = LiveTable.replay(*table_log(server.db, table_id))
    assert live.match is not None
    return live.match


@pytest.fixture(scope="module")
def finished(server: ServerProcess) -> str:
    return play_to_the_end(server, preset="standard", options={"target": 30})[0]


def open_replay(page: Any, server: ServerProcess, table: str, lang: str = "en") -> None:
    page.goto(f"{server.url}/hearts/replay/{table}/1?lang={lang}")
    page.wait_for_selector("[data-replay][aria-busy=false]")


def shown_cards(page: Any, selector: str) -> list[str]:
    return list(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)"))


def caption(page: Any) -> str:
    # (the page asks for the text form of the suit symbols with U+FE0E)
    return str(page.text_content("[data-caption]")).strip().replace("\ufe0e", "")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_finished_match_is_replayed_face_up_step_by_step(
    page: Any, server: ServerProcess, finished: str, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    open_replay(page, server, finished)
    match = stored_match(server, finished)
    first = match.hands[0]
    # the deal: every seat's hand, face up, as the engine dealt it
    assert "Hand 1 is dealt" in caption(page)
    for seat in range(4):
        shown = shown_cards(page, f'.hr-seat[data-seat="{seat}"] .hr-cards .hc')
        assert shown == [c.code for c in first.dealt[seat]]
    assert page.text_content("[data-counter]").strip() == (
        f"Hand 1 of {len(match.score_sheet())} · trick 0 of 13"
    )
    no_scroll = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert no_scroll, "the page scrolls sideways"
    axe.check(page, f"the deal at {width} px", experimental=axe.EXPERIMENTAL)
    screenshot(page, f"hearts-replay-deal-{width}")
    # the passes, then the first card of the first trick
    page.click('[data-step="next"]')
    passes = first.passes
    assert passes[0] is not None
    assert f"passes {' '.join(str(c) for c in passes[0])} to" in caption(page)
    page.click('[data-step="next"]')
    trick = first.tricks[0]
    assert shown_cards(page, "[data-trick] .hc") == [trick.plays[0][1].code]
    # a whole trick by the keyboard: the winner is marked and named
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowLeft")
    assert shown_cards(page, "[data-trick] .hc") == [c.code for _, c in trick.plays]
    assert page.locator(f'[data-trick] .hr-play.winner[data-seat="{trick.winner}"]').count() == 1
    assert "takes the trick" in caption(page)
    axe.check(page, f"a trick won at {width} px", experimental=axe.EXPERIMENTAL)
    screenshot(page, f"hearts-replay-trick-{width}")
    # the played cards are gone from the hands
    played = {c.code for _, c in trick.plays}
    for seat in range(4):
        held = set(shown_cards(page, f'.hr-seat[data-seat="{seat}"] .hr-cards .hc'))
        assert not held & played
    # the end of the hand: its points, as on the score sheet
    page.keyboard.press("End")
    line = match.score_sheet()[0]
    assert "Hand 1 is over" in caption(page)
    for seat in range(4):
        text = page.text_content(f'.hr-seat[data-seat="{seat}"] .hr-points')
        assert text is not None and text.startswith(f"{line.points[seat]} ")
        # and the cards that count, as the seat took them
        took = shown_cards(page, f'.hr-seat[data-seat="{seat}"] .hr-cards .hc')
        assert took == [c.code for c in first.taken[seat] if match.rules.card_points(c)]
    assert shown_cards(page, "[data-trick] .hc") == [c.code for _, c in first.tricks[-1].plays]
    # jump to the last hand with the picker: the sheet marks its row
    last = len(match.score_sheet()) - 1
    page.select_option("[data-hand]", str(last))
    assert page.locator("[data-sheet] tbody tr.current").count() == 1
    rows = page.locator("[data-sheet] tbody tr")
    assert rows.nth(last).get_attribute("aria-current") == "true"
    page.keyboard.press("End")
    assert "The match is over" in caption(page)
    axe.check(page, f"the end at {width} px", experimental=axe.EXPERIMENTAL)
    screenshot(page, f"hearts-replay-end-{width}")


def test_the_replay_is_in_indonesian_by_default_with_the_code(
    page: Any, server: ServerProcess, finished: str
) -> None:
    page.goto(f"{server.url}/hearts/replay/{finished}")
    page.wait_for_selector("[data-replay][aria-busy=false]")
    assert "Kartu babak 1 dibagikan" in caption(page)
    code = page.text_content("[data-code]")
    assert code is not None and code.startswith("HE1-S-")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert "membuka dengan" in caption(page)


def test_a_running_match_says_it_is_not_over_and_shows_no_card(
    page: Any, server: ServerProcess
) -> None:
    me = Client(server)
    try:
        created = me.ask("hearts.create", mode="computer", preset="standard")
        table = created["table"]
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 700})
            open_replay(page, server, table)
            refused = page.text_content("[data-refused-text]")
            assert refused is not None and "still being played" in refused
            assert page.locator(".hc").count() == 0
            assert page.locator("[data-body]").is_hidden()
            axe.check(page, f"a running match at {width} px")
        screenshot(page, "hearts-replay-running")
    finally:
        me.close()


def test_the_table_page_shows_the_code_only_once_the_match_is_over_with_its_replay(
    page: Any, server: ServerProcess
) -> None:
    me = Client(server)
    try:
        created = me.ask("hearts.create", mode="computer", preset="three")
        table, token = created["table"], created["tokens"][0]["token"]
    finally:
        me.close()
    # the person's page (brought by the seat link) while the match runs: no code, no replay
    page.goto(f"{server.url}/hearts/table/{table}?lang=en#seat={token}")
    page.wait_for_selector("[data-hand] .hc")
    assert page.locator("[data-code-line]").is_hidden()
    assert page.locator("[data-over]").is_hidden()
    page.close()
    # the same match played to its end: the over panel links the replay, the code is shown
    table, token = play_to_the_end(server, preset="three", options={"target": 20})
    tab = page.context.new_page()
    tab.goto(f"{server.url}/hearts/table/{table}?lang=en#seat={token}")
    tab.wait_for_selector("[data-over]:not([hidden])")
    link = tab.locator("[data-replay]")
    assert link.get_attribute("href") == f"/hearts/replay/{table}/1"
    assert tab.locator("[data-code-line]").is_visible()
    code = tab.text_content("[data-code]")
    assert code is not None and code.startswith("HE1-T-")
    axe.check(tab, "the end of a match with its replay link")
    link.click()
    tab.wait_for_selector("[data-replay][aria-busy=false]")
    assert len(tab.locator(".hr-seat").all()) == 3
    tab.close()


@pytest.mark.parametrize("scale", ["text200", "zoom200"])
def test_the_replay_fits_a_phone_with_large_text_or_zoom(
    page: Any, server: ServerProcess, finished: str, scale: str
) -> None:
    from tests.browser.test_hearts_sizes import DOUBLE_TEXT, OUTSIDE, scaled

    scaled(page, 320, scale)
    open_replay(page, server, finished, "id")
    if scale == "text200":
        page.add_style_tag(content=DOUBLE_TEXT)
        page.wait_for_timeout(100)
    page.keyboard.press("PageDown")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate(OUTSIDE) == []
    axe.check(page, f"a trick at 320 px, {scale}")
    screenshot(page, f"hearts-replay-trick-320-{scale}")
