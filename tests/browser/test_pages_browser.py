"""Every page in a real browser at phone and desktop widths: it draws, it fits without sideways
scrolling, and a screenshot is kept for a person to look at. Also the examples player and the
statistics after a game."""

from __future__ import annotations

import secrets
import sqlite3
from contextlib import closing
from typing import Any

import pytest

from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import GAME, info, open_game, tap

pytestmark = pytest.mark.browser

WIDTHS = (360, 1280)
PAGES = {
    "home": ("/", "[data-tile]"),
    "play": ("/heart-to-heart?code=HH1-N-AAAAAAM", f'{GAME}[data-seq]'),
    "examples": ("/heart-to-heart/examples", '[data-examples][aria-busy="false"]'),
    "rules": ("/heart-to-heart/rules", ".diagram svg"),
    "stats": ("/stats", '[data-stats][aria-busy="false"]'),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", PAGES)
def test_each_page_fits_and_is_screenshotted(
    page: Any, server: ServerProcess, name: str, width: int
) -> None:
    path, ready = PAGES[name]
    page.set_viewport_size({"width": width, "height": 740 if width < 600 else 800})
    page.goto(server.url + path)
    page.wait_for_selector(ready)
    page.wait_for_timeout(250)  # let the short transitions settle before the picture
    scroll_width = page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= width, f"{name} scrolls sideways at {width}px: {scroll_width}"
    screenshot(page, f"{name}-{width}")


def test_the_heart_fits_a_phone_and_cards_are_readable(page: Any, server: ServerProcess) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    open_game(page, server.url, "?code=HH1-N-AAAAAAM")
    boxes = page.eval_on_selector_all(
        "[data-pos], [data-pile]",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.right, r.width]; })",
    )
    assert all(left >= 0 and right <= 360 for left, right, _ in boxes)
    assert min(width for _, _, width in boxes) >= 40
    # the tip is below the cards it covers, and overlaps them
    tip = page.locator('[data-pos="25"]').bounding_box()
    above = page.locator('[data-pos="23"]').bounding_box()
    assert tip["y"] > above["y"] and tip["y"] < above["y"] + above["height"]


def test_examples_step_through_a_won_game(page: Any, server: ServerProcess) -> None:
    page.goto(server.url + "/heart-to-heart/examples?lang=en")
    page.wait_for_selector('[data-examples][aria-busy="false"]')
    caption = page.locator("[data-caption]")
    assert caption.inner_text() == "The deal, before the first move."
    assert page.inner_text("[data-counter]").startswith("Move 0 of ")
    page.click('[data-step="next"]')
    assert page.inner_text("[data-counter]").startswith("Move 1 of ")
    assert caption.inner_text().startswith("Move 1:")
    page.click('[data-step="last"]')
    total = page.inner_text("[data-counter]").split()[-1]
    assert page.inner_text("[data-counter]") == f"Move {total} of {total}"
    assert info(page, "score") == "250"
    assert page.locator("[data-pos]:not(.empty)").count() == 0
    page.click('[data-step="prev"]')
    assert info(page, "moves") == str(int(total) - 1)
    # somewhere in the game a pair is described with the cards it names
    page.click('[data-step="first"]')
    captions = []
    for _ in range(int(total)):
        page.click('[data-step="next"]')
        captions.append(caption.inner_text())
    assert any("paired with" in c for c in captions)
    assert any("from the tip" in c for c in captions)
    assert any("the stock turns up" in c for c in captions)


def test_statistics_count_a_finished_game(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, "?code=HH1-N-AAAAAAM&lang=en")
    tap(page, "stock")
    # opening another deal leaves this one under way: the page asks, and then it counts as a
    # lost game
    page.click('[data-action="code"]')
    page.fill("[data-code-input]", "HH1-N-AAAAAAB")
    page.click("[data-code-submit]")
    confirm = page.locator('[data-dialog="confirm_new"]')
    confirm.wait_for(state="visible")
    assert "HH1-N-AAAAAAB" in confirm.inner_text() and "loss" in confirm.inner_text()
    confirm.locator("[data-confirm-new]").click()
    page.wait_for_function(
        "() => document.querySelector('[data-info=\"code\"]').textContent === 'HH1-N-AAAAAAB'"
    )
    page.goto(server.url + "/stats?lang=en")
    page.wait_for_selector('[data-stats][aria-busy="false"]')
    assert page.inner_text('[data-stat="games"]') == "1"
    assert page.inner_text('[data-stat="wins"]') == "0"
    assert page.locator('[data-by-code] tr[data-code="HH1-N-AAAAAAM"]').count() == 1
    row = page.locator('[data-by-code] tr[data-code="HH1-N-AAAAAAM"] td')
    assert row.nth(1).get_attribute("data-label") == "Games"
    # on a phone or a small tablet, in both languages, each row stacks under its column names
    # instead of making the table scroll sideways
    for width, lang in ((360, "en"), (560, "en"), (560, "id"), (360, "id")):
        page.set_viewport_size({"width": width, "height": 740})
        page.goto(server.url + f"/stats?lang={lang}")
        page.wait_for_selector('[data-stats][aria-busy="false"]')
        wrap = page.locator(".table-wrap")
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), wrap.evaluate(
            "e => [e.scrollWidth, e.clientWidth]"
        )
        label = row.nth(4).evaluate("e => getComputedStyle(e, '::before').content")
        assert label.strip('"') == row.nth(4).get_attribute("data-label") != ""
        axe.check(page, f"statistics with a game, {width} px wide, {lang}")
    assert row.nth(4).get_attribute("data-label") == "Rekor langkah"
    assert page.get_attribute("[data-by-code] tr[data-code]", "role") == "row"
    # the page says what it counts
    counts = page.inner_text("[data-counts]")
    assert "buntu" in counts and "sebelum mulai bermain" in counts
    assert page.locator("[data-by-code-more]").is_hidden()


def test_the_per_deal_list_comes_fifty_at_a_time(page: Any, server: ServerProcess) -> None:
    # a player with 60 deals played, written straight into the site's database
    player = f"paging-{secrets.token_hex(8)}"
    with closing(sqlite3.connect(server.db)) as db, db:
        db.execute("INSERT INTO players (id, created_at_ms) VALUES (?, 1)", (player,))
        db.execute(
            "INSERT INTO solitaire_player_stats (player_id, games, wins, current_streak,"
            " best_streak, dead_deals) VALUES (?, 60, 0, 0, 0, 2)",
            (player,),
        )
        db.executemany(
            "INSERT INTO solitaire_code_stats (player_id, code, games, wins, last_at_ms)"
            " VALUES (?, ?, 1, 0, ?)",
            [(player, f"HH1-N-AAAAB{chr(65 + i // 26)}{chr(65 + i % 26)}", i) for i in range(60)],
        )
    page.evaluate("id => localStorage.setItem('heartsuit.player', id)", player)
    page.goto(server.url + "/stats?lang=en")
    page.wait_for_selector('[data-stats][aria-busy="false"]')
    rows = page.locator("[data-by-code] tbody tr")
    assert rows.count() == 50
    assert rows.first.get_attribute("data-code") == "HH1-N-AAAABCH"  # the latest first
    assert page.inner_text("[data-by-code-shown]") == "50 of 60 deals shown"
    assert page.inner_text('[data-stat="dead_deals"]') == "2"
    more = page.locator("[data-by-code-more]")
    more.click()
    page.wait_for_function("() => document.querySelectorAll('[data-by-code] tbody tr').length"
                           " === 60")
    assert more.is_hidden() and page.locator("[data-by-code-shown]").is_hidden()
    assert len(set(page.eval_on_selector_all(
        "[data-by-code] tbody tr", "els => els.map(e => e.dataset.code)"
    ))) == 60
    screenshot(page, "stats-paged")


@pytest.mark.parametrize("width", (320, 360))
@pytest.mark.parametrize("lang", ("id", "en"))
def test_every_header_link_is_in_view_on_a_phone(
    page: Any, server: ServerProcess, width: int, lang: str
) -> None:
    # the header nav scrolls sideways without a scroll bar: a link beyond its edge is lost
    page.set_viewport_size({"width": width, "height": 700})
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("[data-tile]")
    right_edges = page.eval_on_selector_all(
        ".site-nav a", "els => els.map(e => e.getBoundingClientRect().right)"
    )
    assert len(right_edges) == 5
    assert max(right_edges) <= width


@pytest.mark.parametrize("lang", ["id", "en"])
@pytest.mark.parametrize("name", PAGES)
def test_each_page_passes_axe(page: Any, server: ServerProcess, name: str, lang: str) -> None:
    """axe-core finds nothing on each page as it first draws, in both languages, on a phone."""
    path, ready = PAGES[name]
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(server.url + path + ("&" if "?" in path else "?") + f"lang={lang}")
    page.wait_for_selector(ready)
    page.wait_for_timeout(250)
    axe.check(page, f"{name} as first drawn, {lang}")
