"""The Heart to Heart page as a newcomer meets it, on every screen size: guidance (the stock
marked, a covered card explained, a deal stuck at the deal), phones of 320 and 360 px, 200% text
and 200% zoom, dimmed cards, what a move announces, the keyboard focus ring, the win and axe-core
in every state, in both languages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from heartsuit.cards import rank_name
from heartsuit.solitaire import Game, solve
from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import GAME, boxes, info, open_game, overlap, seq, tap, wait_for_state

pytestmark = pytest.mark.browser

#: the tip is the only free card, and 16 flips pass before a stock card pairs with it
CODE = "HH1-N-AAAAAAM"
#: stuck from the deal: the tip's three partners all lie in the heart
STUCK = "HH1-N-AAAAAAA"
LANGS = ("id", "en")
#: the play page is also checked for a spoken name that does not start with the visible text
EXTRA = axe.EXPERIMENTAL


def _axe(page: Any, state: str) -> None:
    """axe-core once the page is still (a dialog fading in has colours between two states)."""
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running')"
    )
    axe.check(page, state, experimental=EXTRA)


def _settings(page: Any, name: str, on: bool) -> None:
    page.click('[data-action="settings"]')
    box = page.locator(f'[data-setting="{name}"]')
    if box.is_checked() != on:
        before = seq(page)
        box.set_checked(on)
        wait_for_state(page, before)
    page.click('[data-dialog="settings"] [data-close]')


def _seconds(clock: str) -> int:
    minutes, seconds = clock.split(":")
    return int(minutes) * 60 + int(seconds)


# ---- guidance --------------------------------------------------------------------------------


def test_the_stock_is_marked_until_a_pair_can_be_taken(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    stock = page.locator('[data-pile="stock"]')
    assert "outlined" in (stock.get_attribute("class") or "")
    assert stock.get_attribute("aria-label") == (
        "stock, 26 cards, no pair to take: turn up a card here"
    )
    badge = stock.evaluate("e => getComputedStyle(e, '::after').content")
    assert badge == '"★"'
    _axe(page, "the stock marked")
    screenshot(page, "play-stock-marked-1280")
    for _ in range(16):
        assert "outlined" in (stock.get_attribute("class") or "")
        tap(page, "stock")
    # the 16th card pairs with the tip: now the pair is marked, the stock no longer
    assert "outlined" not in (stock.get_attribute("class") or "")
    assert "outlined" in (page.get_attribute('[data-pos="25"]', "class") or "")
    # without placement help nothing is marked
    _settings(page, "placement_help", False)
    tap(page, "stock")
    assert "outlined" not in (stock.get_attribute("class") or "")
    _settings(page, "placement_help", True)


@pytest.mark.parametrize(
    ("lang", "words"), [("id", "Kartu itu masih tertindih"), ("en", "That card is still covered")]
)
def test_a_covered_card_says_why_with_move_errors_on(
    page: Any, server: ServerProcess, lang: str, words: str
) -> None:
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    toast = page.locator("[data-toast]")
    tap(page, 1)
    assert not toast.is_visible()
    _settings(page, "move_errors", True)
    try:
        tap(page, 1)
        toast.wait_for(state="visible")
        assert toast.inner_text() == words
        assert info(page, "moves") == "0"
        _axe(page, f"a covered card explained, {lang}")
    finally:
        _settings(page, "move_errors", False)


@pytest.mark.parametrize("lang", LANGS)
def test_a_deal_stuck_at_the_deal_offers_other_deals_not_a_disabled_undo(
    page: Any, server: ServerProcess, lang: str
) -> None:
    open_game(page, server.url, f"?code={STUCK}&lang={lang}")
    dialog = page.locator('[data-dialog="dead_deal"]')
    dialog.wait_for(state="visible")
    title = {"id": "Susunan ini tidak bisa dimainkan", "en": "This deal cannot be played"}
    assert dialog.locator("h2").inner_text() == title[lang]
    assert not dialog.locator("[data-dialog-undo]").is_visible()
    assert dialog.locator("[data-dialog-winnable]").is_visible()
    assert page.evaluate("document.activeElement.dataset.dialogNew") is not None
    _axe(page, f"dead at the deal, {lang}")
    screenshot(page, f"play-stuck-at-deal-{lang}-1280")
    before = seq(page)
    dialog.locator("[data-dialog-winnable]").click()
    wait_for_state(page, before)
    dialog.wait_for(state="hidden")
    code = info(page, "code")
    assert code != STUCK and page.get_attribute(GAME, "data-outcome") == "playing"
    assert solve(Game.from_code(code)).winnable, code


def test_a_dead_end_later_still_offers_undo(page: Any, server: ServerProcess) -> None:
    from tests.browser.helpers import dead_end_line

    code, line = dead_end_line()
    open_game(page, server.url, f"?code={code}&lang=en")
    for target in line:
        tap(page, target)
    dialog = page.locator('[data-dialog="dead_end"]')
    dialog.wait_for(state="visible")
    assert dialog.locator("h2").inner_text() == "No more moves possible"
    assert dialog.locator("[data-dialog-undo]").is_visible()
    assert not dialog.locator("[data-dialog-winnable]").is_visible()
    _axe(page, "a dead end after some moves")


# ---- every screen size -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width", (320, 360))
def test_the_toolbar_fits_a_phone_on_one_row_with_readable_labels(
    page: Any, server: ServerProcess, width: int, lang: str
) -> None:
    page.set_viewport_size({"width": width, "height": 700})
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    tap(page, "stock")  # Undo enabled, with its count
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # Restart deal leaves the phone's row (it is in the dead-end dialog and on R)
    assert page.locator('.toolbar [data-action="restart"]').is_hidden()
    buttons = boxes(page, ".toolbar .btn:not([data-action='restart'])")
    assert len(buttons) == 5
    assert all(b["x"] >= 0 and b["right"] <= width for b in buttons), buttons
    assert len({round(b["y"]) for b in buttons}) == 1, "the actions wrap onto two rows"
    labels = page.eval_on_selector_all(
        ".toolbar .label",
        "els => els.map(e => { const s = getComputedStyle(e);"
        " return [e.innerText, parseFloat(s.fontSize), e.getBoundingClientRect().height,"
        " parseFloat(s.lineHeight) || parseFloat(s.fontSize) * 1.2,"
        " e.scrollWidth <= e.clientWidth + 1]; })",
    )
    for text, size, height, line, fits in labels:
        assert size >= 12, (text, size)
        assert height < line * 1.5, f"{text!r} breaks onto two lines"
        assert fits, f"{text!r} is cut off"
    # the visible label is the spoken name's start (no aria-label of other words)
    undo = page.locator('.toolbar [data-action="undo"]')
    assert undo.get_attribute("aria-label") is None
    assert undo.locator(".undo-left").is_visible()
    screenshot(page, f"play-toolbar-{width}-{lang}")


@pytest.mark.parametrize("lang", LANGS)
def test_200_percent_text_on_a_phone_wraps_instead_of_overflowing(
    page: Any, server: ServerProcess, lang: str
) -> None:
    # a reader's text size of 200% (Chromium's font-size setting, or a phone's "larger text"):
    # the root font size doubles, while the viewport stays 360 px wide
    page.set_viewport_size({"width": 360, "height": 740})
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    page.add_style_tag(content="html { font-size: 200% }")
    page.wait_for_timeout(100)
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") == 32
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    items = boxes(page, ".infobar > div")
    for i, a in enumerate(items):
        assert a["x"] >= 0 and a["right"] <= 360
        for b in items[i + 1 :]:
            assert not overlap(a, b), "the info bar overlaps itself"
    buttons = boxes(page, ".toolbar .btn")
    assert all(b["x"] >= 0 and b["right"] <= 360 for b in buttons)
    assert not any(overlap(a, b) for i, a in enumerate(buttons) for b in buttons[i + 1 :])
    links = boxes(page, ".site-nav a")
    assert all(b["right"] <= 360 for b in links), "a header link is out of view"
    screenshot(page, f"play-text-200-360-{lang}")


@pytest.fixture
def zoomed(browser: Any, server: ServerProcess) -> Iterator[Any]:
    """A desktop window of 1280 x 800 at 200% browser zoom: the page sees 640 x 400 CSS pixels
    drawn with two device pixels each (what Chromium's zoom does to the layout viewport)."""
    context = browser.new_context(viewport={"width": 640, "height": 400}, device_scale_factor=2)
    context.set_default_timeout(15_000)
    errors: list[str] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(str(error)))
    try:
        yield tab
    finally:
        context.close()
    assert errors == [], errors


@pytest.mark.parametrize("lang", LANGS)
def test_200_percent_zoom_keeps_the_cards_as_large_and_the_actions_in_view(
    page: Any, zoomed: Any, server: ServerProcess, lang: str
) -> None:
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    normal = page.locator('[data-pos="25"]').bounding_box()
    open_game(zoomed, server.url, f"?code={CODE}&lang={lang}")
    assert zoomed.evaluate("devicePixelRatio") == 2
    tip = zoomed.locator('[data-pos="25"]').bounding_box()
    # on screen (device pixels) the cards are at least as large as without zoom
    assert tip["width"] * 2 >= normal["width"], (tip, normal)
    assert zoomed.evaluate("document.documentElement.scrollWidth") <= 640
    for selector in (".toolbar .btn", "[data-pos], [data-pile]", ".infobar"):
        for box in boxes(zoomed, selector):
            assert box["bottom"] <= 400 and box["right"] <= 640, (selector, box)
    _axe(zoomed, f"200% zoom, {lang}")
    screenshot(zoomed, f"play-zoom-200-{lang}")


def test_dimmed_cards_are_opaque(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    tap(page, 25)  # the tip selected: the waste top (another rank) is dimmed
    waste = page.locator('[data-pile="waste"]')
    assert "dimmed" in (waste.get_attribute("class") or "")
    style = waste.locator(".face").evaluate(
        "e => { const s = getComputedStyle(e); return [s.opacity, s.backgroundColor, s.filter]; }"
    )
    opacity, background, _ = style
    assert opacity == "1"
    assert background.startswith("rgb(") and not background.startswith("rgba("), background
    assert waste.evaluate("e => getComputedStyle(e).opacity") == "1"
    _axe(page, "a card selected, another dimmed")


# ---- what the page says ----------------------------------------------------------------------


def test_each_move_is_announced_politely(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    live = page.locator("[data-announce]")
    assert live.get_attribute("aria-live") == "polite"
    rank = rank_name(Game.from_code(CODE).stock[0].rank)
    name = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}.get(rank, rank)
    tap(page, "stock")
    assert live.inner_text() == f"From the stock: {name} of hearts. 25 left."
    tap(page, 25)
    assert live.inner_text().endswith("of hearts selected.")
    tap(page, 25)
    assert live.inner_text() == "Selection cleared."
    before = seq(page)
    page.keyboard.press("Control+z")
    wait_for_state(page, before)
    assert live.inner_text() == "Move undone."
    # 16 flips bring up the tip's partner: a pair
    for _ in range(16):
        tap(page, "stock")
    tap(page, 25)
    tap(page, "waste")
    assert live.inner_text() == "Pair of 5 of hearts removed. Score 10."


def test_the_focus_ring_of_a_covered_card_is_not_hidden(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    page.locator('[data-pos="25"]').focus()
    page.keyboard.press("ArrowUp")  # to 23 or 24: covered by the tip
    pos = page.evaluate("document.activeElement.dataset.pos")
    assert pos in {"23", "24"}
    ring = page.locator(".focus-ring")
    assert ring.is_visible()
    card = page.locator(f'[data-pos="{pos}"]').bounding_box()
    box = ring.bounding_box()
    assert abs(box["x"] - card["x"]) < 1 and abs(box["y"] - card["y"]) < 1
    # the ring's outline at the card's bottom edge, where the tip lies on it, is on top
    x = card["x"] + card["width"] / 2
    y = card["y"] + card["height"] + 3
    on_top = page.evaluate(
        "([x, y]) => { const r = document.querySelector('.focus-ring').getBoundingClientRect();"
        " const z = Number(getComputedStyle(document.querySelector('.focus-ring')).zIndex);"
        " const tip = Number(getComputedStyle(document.querySelector('[data-pos=\"25\"]')).zIndex);"
        " return [z > tip, y > r.bottom]; }",
        [x, y],
    )
    assert on_top == [True, True]
    screenshot(page, "play-focus-covered-1280")
    page.keyboard.press("ArrowDown")
    assert not ring.is_visible()


# ---- accessibility of every state -------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_axe_finds_nothing_in_any_state_of_the_play_page(
    page: Any, server: ServerProcess, lang: str
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    _axe(page, f"first drawn, {lang}")
    tap(page, "stock")
    tap(page, 25)
    _axe(page, f"a card selected, {lang}")
    _settings(page, "move_errors", True)
    try:
        tap(page, "waste")  # a mismatch: the toast says so
        page.locator("[data-toast]").wait_for(state="visible")
        _axe(page, f"a mismatch, {lang}")
    finally:
        _settings(page, "move_errors", False)
    page.click('[data-action="settings"]')
    _axe(page, f"settings open, {lang}")
    screenshot(page, f"play-settings-360-{lang}")
    page.click('[data-dialog="settings"] [data-close]')
    page.click('[data-action="code"]')
    page.fill("[data-code-input]", "HH1-N-AAA")
    page.click("[data-code-submit]")
    page.locator("[data-code-error]").wait_for(state="visible")
    _axe(page, f"code dialog with an error, {lang}")
    page.click('[data-dialog="code"] [data-close]')
    page.click('[data-game] [data-action="new"]')
    page.locator('[data-dialog="confirm_new"]').wait_for(state="visible")
    _axe(page, f"confirm new game, {lang}")
    page.click('[data-dialog="confirm_new"] [data-close]')


@pytest.mark.parametrize("lang", LANGS)
def test_the_win_celebrates_with_the_best_figures_and_the_streak(
    page: Any, server: ServerProcess, lang: str
) -> None:
    solution = solve(Game.from_code(CODE))
    open_game(page, server.url, f"?code={CODE}&lang={lang}")
    for target in solution.moves[:-1]:
        tap(page, target)
    page.wait_for_timeout(3000)  # a slow first win, so that the same line played again beats it
    tap(page, solution.moves[-1])
    won = page.locator('[data-dialog="won"]')
    won.wait_for(state="visible")
    first = won.locator('[data-win="time"]').inner_text()
    best = won.locator("[data-win-best]")
    best.wait_for(state="visible")
    moves = info(page, "moves")
    assert won.locator('[data-win="moves"]').inner_text() == moves
    words = {"id": ("Rekor langkah", "Menang beruntun 1"),
             "en": ("Fewest moves", "Winning streak 1")}[lang]
    assert won.locator("[data-win-fewest]").inner_text() == f"{words[0]} {moves}"
    assert won.locator("[data-win-streak]").inner_text() == words[1]
    assert won.locator("[data-win-best-time]").inner_text() != ""
    # the hearts jump once (an animation that reduced motion turns off)
    animation = won.locator(".win-hearts span").first.evaluate(
        "e => getComputedStyle(e).animationName"
    )
    assert animation == "win-jump"
    _axe(page, f"the win, {lang}")
    screenshot(page, f"play-won-{lang}-1280")
    page.emulate_media(reduced_motion="reduce")
    try:
        animation = won.locator(".win-hearts span").first.evaluate(
            "e => getComputedStyle(e).animationName"
        )
        assert animation == "none"
    finally:
        page.emulate_media(reduced_motion="no-preference")
    assert not won.locator("[data-win-new-best]").is_visible()  # a first win is no record yet
    if lang == "id":
        # the same deal again, played the same way but faster: a new best time, streak 2
        page.click('[data-dialog="won"] [data-close]')
        page.click('[data-action="code"]')
        page.fill("[data-code-input]", CODE)
        before = seq(page)
        page.click("[data-code-submit]")
        wait_for_state(page, before)
        for target in solution.moves:
            tap(page, target)
        won.wait_for(state="visible")
        best.wait_for(state="visible")
        assert won.locator("[data-win-streak]").inner_text() == "Menang beruntun 2"
        # the same number of moves is no record; a faster time is
        second = won.locator('[data-win="time"]').inner_text()
        if _seconds(second) < _seconds(first):
            assert won.locator("[data-win-new-best]").inner_text() == "Rekor baru!"
            assert won.locator("[data-win-best-time]").inner_text() == f"Waktu terbaik {second}"
        elif _seconds(second) > _seconds(first):
            assert not won.locator("[data-win-new-best]").is_visible()


def test_no_zero_badge_on_a_disabled_undo(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    undo = page.locator('.toolbar [data-action="undo"]')
    assert undo.is_disabled()
    assert not undo.locator(".undo-left").is_visible()
    assert undo.inner_text().strip() == "↶Undo" or undo.inner_text().split() == ["↶", "Undo"]
    tap(page, "stock")
    assert undo.locator(".undo-left").inner_text().strip().startswith("1")
    assert page.evaluate(
        "document.querySelector('.toolbar [data-action=\"undo\"]').textContent"
    ).endswith("1, 1 left")


def test_dark_scheme_follows_the_system(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    light = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--felt')")
    page.emulate_media(color_scheme="dark")
    try:
        page.reload()
        page.wait_for_selector(f"{GAME}[data-seq]")
        dark = page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--felt')"
        )
        assert dark.strip() != light.strip()
        _axe(page, "dark scheme")
        screenshot(page, "play-dark-1280")
        page.click('[data-action="settings"]')
        surface = page.locator('[data-dialog="settings"]').evaluate(
            "e => getComputedStyle(e).backgroundColor"
        )
        assert surface == "rgb(27, 42, 35)"
        _axe(page, "dark scheme, settings open")
        screenshot(page, "play-dark-settings-1280")
        page.click('[data-dialog="settings"] [data-close]')
        page.set_viewport_size({"width": 360, "height": 740})
        page.goto(server.url + "/hearts?lang=en")
        page.wait_for_selector("[data-mode]")
        page.wait_for_timeout(250)
        screenshot(page, "hearts-dark-360")
        axe.check(page, "Hearts setup, dark scheme")
    finally:
        page.emulate_media(color_scheme="light")
