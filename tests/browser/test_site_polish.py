"""The pages around the game in a real browser: the examples player (controls in view, a distinct
"next", the pair marked before it goes, place numbers), the statistics grid, the 404 page, the
web-app manifest, the home page holding still while its figures arrive and counting an
unfinished game's moves in words, and axe-core on each of them in both languages."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from heartsuit import i18n
from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import open_game, tap

pytestmark = pytest.mark.browser

LANGS = ("id", "en")
READY = '[data-examples][aria-busy="false"]'


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("width", "height"), [(360, 740), (1280, 800)])
def test_the_examples_controls_are_above_the_fold(
    page: Any, server: ServerProcess, width: int, height: int, lang: str
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server.url}/heart-to-heart/examples?lang={lang}")
    page.wait_for_selector(READY)
    for selector in ("[data-step]", "[data-counter]"):
        for box in page.eval_on_selector_all(
            selector, "els => els.map(e => e.getBoundingClientRect().bottom)"
        ):
            assert 0 < box <= height, (selector, box)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"examples-{width}-{lang}")


#: the layout shifts Chromium recorded on the page so far (the Layout Instability API), each
#: one's score, leaving out those right after the user's own input
LAYOUT_SHIFTS = """() => new Promise(done => {
  const shifts = [];
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) shifts.push(entry.value);
  }).observe({ type: "layout-shift", buffered: true });
  setTimeout(() => done(shifts), 200);
})"""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", [320, 360, 768, 1280])
def test_the_home_page_does_not_move_when_the_deal_of_the_day_figures_arrive(
    page: Any, server: ServerProcess, width: int, lang: str
) -> None:
    """The figures come over the WebSocket after the page is drawn; their lines are held from
    the start, so "Play Hearts" below them is where it was when a new player reaches for it
    (a shift there once sent a click of the browser tests past the button)."""
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{server.url}/?lang={lang}")
    button = page.eval_on_selector("[data-hearts-play]", "e => e.getBoundingClientRect().top")
    page.wait_for_selector("[data-daily-hint]:not(:empty)")
    assert page.evaluate(LAYOUT_SHIFTS) == []
    assert page.eval_on_selector("[data-hearts-play]", "e => e.getBoundingClientRect().top") == (
        button
    )


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [("en", ": 1 move, score 0.", ": 2 moves, score 0."), ("id", ": 1 langkah,", ": 2 langkah,")],
)
def test_the_home_page_counts_the_unfinished_games_moves_in_words(
    page: Any, server: ServerProcess, lang: str, one: str, two: str
) -> None:
    # "1 moves" was what a returning player read after one move (a known deal: a random one
    # may be dead from the start, and its dialog would take the tap on the stock)
    open_game(page, server.url, f"?code=HH1-N-AAAAAAM&lang={lang}")
    tap(page, "stock")
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("[data-continue]:not([hidden])")
    assert one in page.inner_text("[data-continue-hint]")
    open_game(page, server.url, f"?lang={lang}")
    tap(page, "stock")
    page.goto(f"{server.url}/?lang={lang}")
    page.wait_for_selector("[data-continue]:not([hidden])")
    assert two in page.inner_text("[data-continue-hint]")


def test_next_has_its_own_icon(page: Any, server: ServerProcess) -> None:
    page.goto(f"{server.url}/heart-to-heart/examples?lang=en")
    page.wait_for_selector(READY)
    icons = {
        step: page.get_attribute(f'[data-step="{step}"] svg path', "d")
        for step in ("first", "prev", "play", "next", "last")
    }
    assert len(set(icons.values())) == 5, icons
    # "next" is two triangles (fast forward), not the one triangle of "play"
    assert icons["next"].count("M") == 2 and icons["play"].count("M") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_a_pair_is_marked_before_it_goes_and_named_places_show_their_number(
    page: Any, server: ServerProcess, lang: str
) -> None:
    # the page's clock is the test's: the marked pair stays until the test lets time pass
    page.clock.install()
    page.goto(f"{server.url}/heart-to-heart/examples?lang={lang}")
    page.wait_for_selector(READY)
    root = page.locator("[data-examples]")
    word = {"id": "tempat", "en": "place"}[lang]
    seen_pair = seen_place = False
    total = int(page.inner_text("[data-counter]").split()[-1])
    for _ in range(total):
        page.click('[data-step="next"]')
        pairing = root.get_attribute("data-pairing")
        if pairing is None:
            continue
        targets = pairing.split()
        assert len(targets) == 2
        for target in targets:
            selector = '[data-pile="waste"]' if target == "waste" else f'[data-pos="{target}"]'
            card = page.locator(selector)
            assert "pairing" in (card.get_attribute("class") or "")
            assert "empty" not in (card.get_attribute("class") or "")
        if not seen_pair:
            axe.check(page, f"examples, a pair marked, {lang}")
            screenshot(page, f"examples-pair-marked-{lang}")
        seen_pair = True
        caption = page.inner_text("[data-caption]")
        for number in re.findall(rf"{word} (\d+)", caption):
            assert number in targets
            # the number is drawn on the card, and nothing lies over it
            label = page.locator(f'[data-pos="{number}"] .place-no')
            assert label.inner_text() == number
            assert label.is_visible()
            # no card that is still on the table lies over it
            covering = page.evaluate(
                """n => { const own = document.querySelector(`[data-pos="${n}"]`);
                  const r = own.querySelector('.place-no').getBoundingClientRect();
                  const z = (e) => Number(getComputedStyle(e).zIndex);
                  return [...document.querySelectorAll('[data-pos]:not(.empty), [data-pile]')]
                    .filter(e => e !== own && z(e) > z(own)).filter(e => {
                      const o = e.getBoundingClientRect();
                      return o.left < r.right && o.right > r.left && o.top < r.bottom
                        && o.bottom > r.top; })
                    .map(e => e.dataset.pos || e.dataset.pile); }""",
                number,
            )
            assert covering == [], covering
            seen_place = True
        # then, a moment later, the two cards go
        page.clock.run_for(500)
        page.wait_for_function("() => !document.querySelector('[data-examples]').dataset.pairing")
        for target in targets:
            if target != "waste":
                assert "empty" in (page.get_attribute(f'[data-pos="{target}"]', "class") or "")
        if seen_place:
            break
    assert seen_pair and seen_place


@pytest.mark.parametrize("lang", LANGS)
def test_axe_finds_nothing_while_the_example_plays(
    page: Any, server: ServerProcess, lang: str
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{server.url}/heart-to-heart/examples?lang={lang}")
    page.wait_for_selector(READY)
    page.click('[data-step="play"]')
    page.wait_for_function(
        "() => Number(document.querySelector('[data-examples]').dataset.frame) >= 2"
    )
    assert page.get_attribute('[data-step="play"]', "aria-pressed") == "true"
    axe.check(page, f"the example playing, {lang}")
    page.click('[data-step="play"]')


def test_no_statistic_is_alone_on_its_row_on_a_desktop(page: Any, server: ServerProcess) -> None:
    page.goto(f"{server.url}/stats?lang=en")
    page.wait_for_selector('[data-stats][aria-busy="false"]')
    tops = page.eval_on_selector_all(".stat", "els => els.map(e => e.getBoundingClientRect().top)")
    rows: dict[int, int] = {}
    for top in tops:
        rows[round(top)] = rows.get(round(top), 0) + 1
    assert min(rows.values()) >= 2, rows


@pytest.mark.parametrize("lang", LANGS)
def test_the_404_page_is_a_page_of_the_site(page: Any, server: ServerProcess, lang: str) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    response = page.goto(f"{server.url}/no/such/page?lang={lang}")
    assert response is not None and response.status == 404
    title = {"id": "Halaman tidak ditemukan", "en": "Page not found"}[lang]
    assert page.title() == f"{title} · heartsuit"
    assert page.get_attribute("html", "lang") == lang
    assert page.inner_text("h1") == title
    assert page.locator("header.site-header").count() == 1 and page.locator("main").count() == 1
    assert page.locator('main a[href="/"]').is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    axe.check(page, f"404, {lang}")
    screenshot(page, f"404-360-{lang}")


def test_the_site_is_installable(page: Any, server: ServerProcess) -> None:
    page.goto(f"{server.url}/heart-to-heart")
    page.wait_for_selector("[data-game][data-seq]")
    cdp = page.context.new_cdp_session(page)
    try:
        manifest = cdp.send("Page.getAppManifest")
        assert manifest["errors"] == [], manifest["errors"]
        assert manifest["url"].startswith(f"{server.url}/static/manifest.")
        errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert errors == [], errors
    finally:
        cdp.detach()
    for size in (192, 512):
        response = page.request.get(f"{server.url}/static/icons/icon-{size}.png")
        assert response.ok and response.headers["content-type"] == "image/png"


DARK_PAGES = {
    "/": "[data-tile]",
    "/heart-to-heart/examples": READY,
    "/heart-to-heart/rules": ".diagram svg",
    "/stats": '[data-stats][aria-busy="false"]',
    "/no-such-page": "main h1",
}


@pytest.mark.parametrize("lang", LANGS)
def test_axe_finds_nothing_on_the_pages_in_the_dark_scheme(
    page: Any, server: ServerProcess, lang: str
) -> None:
    page.emulate_media(color_scheme="dark")
    try:
        for path, ready in DARK_PAGES.items():
            page.goto(f"{server.url}{path}?lang={lang}")
            page.wait_for_selector(ready)
            page.wait_for_timeout(250)
            axe.check(page, f"{path} in the dark scheme, {lang}")
        screenshot(page, f"404-dark-1280-{lang}")
    finally:
        page.emulate_media(color_scheme="light")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", ["/", "/heart-to-heart", "/stats", "/hearts/table/none"])
def test_a_page_says_a_number_with_its_word_as_the_server_does(
    page: Any, server: ServerProcess, lang: i18n.Lang, path: str
) -> None:
    """The page's t() fills "{n|card|cards}" with the same rule as the server's translate."""
    page.goto(f"{server.url}{path}?lang={lang}")
    messages = json.loads(page.inner_text("#i18n"))
    # the messages that say a number with its word in English (Indonesian: the same keys)
    english = i18n.catalog("en")
    counted = [key for key in messages if "|" in english[key]]
    assert counted, "no message of this page says a number with its word"
    cases = [
        (key, {name: n for name in i18n.placeholders(messages[key])})
        for key in counted
        for n in (0, 1, 2)
    ]
    said = page.evaluate(
        """async ([url, cases]) => {
          const { t } = await import(url);
          return cases.map(([key, values]) => t(key, values));
        }""",
        [f"{server.url}/static/js/i18n.js", cases],
    )
    assert said == [i18n.translate(lang, key, **values) for key, values in cases]
    if lang == "en" and path.startswith("/hearts"):
        assert "1 card held over" in said and "2 cards held over" in said
