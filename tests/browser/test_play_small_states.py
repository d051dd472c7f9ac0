"""The play page's passing states on the smallest phone with the largest text: offline with taps
waiting, and the pause cover on return to a hidden tab, at 320 px wide with the reader's text
size at 200%. Nothing scrolls sideways, the note and the cover's words are whole and inside the
screen, the note covers none of the actions, and "Resume" can be reached and tapped."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import GAME, boxes, open_game, overlap, seq, tap, wait_for_state
from tests.browser.test_play_clock import SET_HIDDEN

pytestmark = pytest.mark.browser

CODE = "HH1-N-AAAAAAM"
WIDTH, HEIGHT = 320, 640
DOUBLE_TEXT = "html { font-size: 200% }"
LANGS = ("id", "en")


def box(page: Any, selector: str) -> dict[str, float]:
    return boxes(page, selector)[0]


def cut_off(page: Any, selector: str) -> list[str]:
    """The texts inside ``selector`` whose own box is too narrow for them (clipped or
    overflowing sideways)."""
    clipped: list[str] = page.eval_on_selector(
        selector,
        "root => [root, ...root.querySelectorAll('*')]"
        ".filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1"
        " && getComputedStyle(e).overflowX !== 'visible')"
        ".map(e => e.innerText)",
    )
    return clipped


#: whether the element is what a tap at its centre reaches (nothing drawn over it)
UNDER_THE_FINGER = """e => { const r = e.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit !== null && e.contains(hit); }"""


def small_page(new_user: Any, server: ServerProcess, lang: str) -> Any:
    page = new_user(WIDTH, HEIGHT).new_page()
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    page.add_style_tag(content=DOUBLE_TEXT)
    page.wait_for_timeout(100)
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == 32
    return page


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


@pytest.mark.parametrize("lang", LANGS)
def test_offline_with_taps_waiting_fits_320_px_at_200_percent_text(
    new_user: Any, server: ServerProcess, lang: str
) -> None:
    page = small_page(new_user, server, lang)
    page.context.set_offline(True)
    page.wait_for_selector("[data-offline-note]:not([hidden])")
    page.click('[data-pile="stock"]')
    page.wait_for_function(
        "() => document.querySelector('[data-offline-waiting]').textContent.includes('1')"
    )
    no_sideways_scroll(page)
    page.locator("[data-offline-note]").scroll_into_view_if_needed()
    note = box(page, "[data-offline-note]")
    assert note["x"] >= 0 and note["right"] <= WIDTH, note
    assert note["y"] >= 0 and note["bottom"] <= HEIGHT, "the note does not fit on the screen"
    assert cut_off(page, "[data-offline-note]") == []
    said = {"id": "Koneksi terputus", "en": "You are offline"}[lang]
    assert said in page.inner_text("[data-offline-note]")
    # the note sits over none of the actions, and they are all still within the width
    for button in page.locator(".toolbar .btn:visible").all():
        found = button.bounding_box()
        assert found is not None
        action = {
            "x": found["x"],
            "y": found["y"],
            "right": found["x"] + found["width"],
            "bottom": found["y"] + found["height"],
        }
        assert action["x"] >= 0 and action["right"] <= WIDTH
        assert not overlap(note, action), "the offline note covers an action"
    axe.check(page, f"play: offline at 320 px, 200% text ({lang})")
    screenshot(page, f"play-offline-320-text200-{lang}")
    # back online: the waiting tap goes and the note leaves
    page.context.set_offline(False)
    page.wait_for_selector("[data-offline-note]", state="hidden")
    page.wait_for_function(
        "() => document.querySelector('[data-game]').dataset.pending === 'false'"
    )
    assert page.get_attribute('[data-pile="waste"]', "data-count") == "2"  # one dealt, one drawn


@pytest.mark.parametrize("lang", LANGS)
def test_the_pause_cover_fits_320_px_at_200_percent_text(
    new_user: Any, server: ServerProcess, lang: str
) -> None:
    page = small_page(new_user, server, lang)
    tap(page, "stock")
    before = seq(page)
    page.evaluate(SET_HIDDEN, True)
    wait_for_state(page, before)
    page.evaluate(SET_HIDDEN, False)
    page.wait_for_selector("[data-pause-cover]:not([hidden])")
    no_sideways_scroll(page)
    cover = box(page, "[data-pause-cover]")
    assert cover["x"] >= 0 and cover["right"] <= WIDTH, cover
    assert cut_off(page, "[data-pause-cover]") == []
    # the cover's words stay inside it (scrolling there if the table is short): every action
    # below the cards is still the thing under the finger
    for button in page.locator(".toolbar .btn:visible").all():
        assert button.evaluate(UNDER_THE_FINGER), "the pause cover spills over an action"
    resume = page.locator("[data-resume-clock]")
    resume.scroll_into_view_if_needed()
    found = box(page, "[data-resume-clock]")
    assert found["x"] >= 0 and found["right"] <= WIDTH
    assert found["y"] >= 0 and found["bottom"] <= HEIGHT, "Resume is out of reach"
    axe.check(page, f"play: paused at 320 px, 200% text ({lang})")
    screenshot(page, f"play-paused-320-text200-{lang}")
    before = seq(page)
    resume.click()
    wait_for_state(page, before)
    assert page.get_attribute(GAME, "data-clock") == "running"
    assert page.is_hidden("[data-pause-cover]")
