"""The play clock and the deal of the day in a real browser: the page tells the server when it is
hidden, shows the pause on return and resumes on "Resume"; a lost connection pauses it too; the
deal of the day is one tap from home and from the play page, with its statistics."""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from typing import Any

from heartsuit.server.solitaire.daily import daily_code, day_of
from heartsuit.server.solitaire.examples import deal_is_winnable
from heartsuit.solitaire import Game, solve
from tests.browser.axe import check
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import GAME, open_game, seq, tap, wait_for_state

CODE = "HH1-N-AAAAAAM"

SET_HIDDEN = """hidden => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState", {
    configurable: true, get: () => (hidden ? "hidden" : "visible"),
  });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def clock(page: Any) -> tuple[str | None, str | None]:
    """What the page shows of the clock, and what the server last said of it."""
    return (
        page.get_attribute(GAME, "data-clock"),
        page.get_attribute(GAME, "data-clock-server"),
    )


def test_a_hidden_page_pauses_the_clock_and_shows_it_on_return(
    page: Any, server: ServerProcess
) -> None:
    open_game(page, server.url, f"?code={CODE}")
    tap(page, "stock")
    assert clock(page) == ("running", "running")
    assert page.is_hidden("[data-pause-cover]")

    before = seq(page)
    page.evaluate(SET_HIDDEN, True)
    wait_for_state(page, before)  # the server's answer: the clock is paused there too
    assert clock(page) == ("paused", "paused")
    frozen = page.inner_text('[data-info="time"]')

    page.evaluate(SET_HIDDEN, False)
    page.wait_for_selector("[data-pause-cover]:not([hidden])")
    # back on the page: "Paused" over the cards, the clock still stopped, Resume has the focus
    assert clock(page) == ("paused", "paused")
    assert page.inner_text('[data-info="time"]') == frozen
    assert page.evaluate("document.activeElement.hasAttribute('data-resume-clock')")
    after = "getComputedStyle(document.querySelector('[data-info=time]'), '::after').content"
    assert page.evaluate(after) == '" · Dijeda"'  # Indonesian by default
    check(page, "play: paused on return")
    for width, height in ((360, 740), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        screenshot(page, f"clock-paused-{width}")
    # the cards wait under the cover: keys do nothing until Resume
    moves = page.inner_text('[data-info="moves"]')
    page.keyboard.press("s")
    assert page.inner_text('[data-info="moves"]') == moves

    before = seq(page)
    page.click("[data-resume-clock]")
    wait_for_state(page, before)
    assert clock(page) == ("running", "running")
    assert page.is_hidden("[data-pause-cover]")
    tap(page, "stock")


def test_a_lost_connection_pauses_the_clock(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}")
    tap(page, "stock")
    assert clock(page)[0] == "running"
    server.stop()
    try:
        page.wait_for_selector(f'{GAME}[data-clock="paused"]')
        # no cover: the player did not leave; the clock says it is paused
        assert page.is_hidden("[data-pause-cover]")
        check(page, "play: paused while offline")
        screenshot(page, "clock-offline-1280")
    finally:
        server.start()
    page.wait_for_selector(f'{GAME}[data-clock="running"][data-clock-server="running"]')


def test_the_deal_of_the_day_from_home_the_play_page_and_in_the_statistics(
    page: Any, server: ServerProcess
) -> None:
    today = daily_code(day_of(time.time_ns() // 1_000_000), deal_is_winnable)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(server.url + "/")
    page.wait_for_selector("[data-daily-hint]:not(:empty)")
    check(page, "home with the deal of the day")
    screenshot(page, "daily-home-360")
    page.click("[data-daily]")
    page.wait_for_selector(f'{GAME}[data-daily="true"]')
    assert page.inner_text('[data-info="code"]') == today
    assert page.is_visible("[data-daily-badge]")
    check(page, "play: the deal of the day")
    screenshot(page, "daily-play-360")

    # another deal, then back to today's from the code dialog
    page.click('[data-action="code"]')
    page.fill("[data-code-input]", CODE)
    before = seq(page)
    page.click("[data-code-submit]")
    wait_for_state(page, before)
    assert page.get_attribute(GAME, "data-daily") == "false"
    assert page.is_hidden("[data-daily-badge]")
    page.click('[data-action="code"]')
    # the dialog fades in: axe reads the colours once it is fully shown
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    check(page, "play: the code dialog offers the deal of the day")
    screenshot(page, "daily-code-dialog-360")
    before = seq(page)
    page.click('[data-dialog="code"] [data-daily]')
    wait_for_state(page, before)
    assert page.inner_text('[data-info="code"]') == today

    for width, height in ((360, 740), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(server.url + "/stats?lang=id")
        page.wait_for_selector(f'[data-daily-code]:text("{today}")')
        assert page.inner_text('[data-daily-stat="streak"]') == "0 hari"
        check(page, f"stats with the deal of the day at {width}")
        screenshot(page, f"daily-stats-{width}")
    # and in English: the game goes on, marked as the deal of the day
    page.goto(server.url + "/heart-to-heart?lang=en")
    page.wait_for_selector(f'{GAME}[data-daily="true"]')
    assert page.inner_text("[data-daily-badge]").strip() == "★ Deal of the day"
    screenshot(page, "daily-play-en-1280")


def test_winning_the_deal_of_the_day_shows_the_daily_streak(
    page: Any, server: ServerProcess
) -> None:
    today = daily_code(day_of(time.time_ns() // 1_000_000), deal_is_winnable)
    solution = solve(Game.from_code(today))
    assert solution.winnable
    page.goto(server.url + "/heart-to-heart?daily=1&lang=en")
    page.wait_for_selector(f'{GAME}[data-daily="true"]')
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    for target in solution.moves:
        tap(page, target)
    won = page.locator('[data-dialog="won"]')
    won.wait_for(state="visible")
    daily = won.locator("[data-win-daily]")
    daily.wait_for(state="visible")
    assert daily.inner_text() == "Daily streak 1"
    check(page, "play: the deal of the day won")
    screenshot(page, "daily-won-1280")


def test_taps_queued_offline_by_a_page_hidden_since_start_no_clock(
    new_user: Any, server: ServerProcess
) -> None:
    user = new_user(1280, 800)
    page = user.new_page()
    open_game(page, server.url, f"?code={CODE}")
    game_id = page.get_attribute(GAME, "data-game-id") or ""
    tap(page, "stock")
    user.context.set_offline(True)
    # offline: the taps' note and the paused clock together, the cards still usable
    page.wait_for_selector(f'{GAME}[data-offline="true"][data-clock="paused"]')
    assert page.is_hidden("[data-pause-cover]")
    page.click('[data-pile="stock"]')
    page.wait_for_function(
        "() => document.querySelector('[data-offline-waiting]').textContent.includes('1')"
    )
    # the player looks away before the connection is back
    page.evaluate(SET_HIDDEN, True)
    user.context.set_offline(False)
    page.wait_for_selector("[data-offline-note]", state="hidden")
    page.wait_for_function(
        "() => document.querySelector('[data-game]').dataset.pending === 'false'"
    )
    # the page said it was hidden before it sent the tap: logged once, and no clock started
    with closing(sqlite3.connect(server.db)) as db:
        moves = db.execute(
            "SELECT action, intent, play_ms FROM solitaire_moves WHERE game_id = ? ORDER BY seq",
            (game_id,),
        ).fetchall()
        running = db.execute(
            "SELECT running_since_ms FROM solitaire_games WHERE id = ?", (game_id,)
        ).fetchone()[0]
    assert [action for action, _, _ in moves] == ["stock", "stock"]
    assert moves[1][1] is not None and moves[1][2] >= moves[0][2]
    assert running is None
    assert clock(page) == ("paused", "paused")
    # back on the page and resumed: the clock runs again
    page.evaluate(SET_HIDDEN, False)
    before = seq(page)
    page.click("[data-resume-clock]")
    wait_for_state(page, before)
    assert clock(page) == ("running", "running")
