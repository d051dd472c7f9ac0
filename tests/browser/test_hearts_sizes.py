"""Every Hearts page and state at 320, 360 and 1280 px, with text at 200% and at 200% zoom.

Each state of :mod:`tests.browser.hearts_states` is drawn at each width three ways: as it is,
with the text twice as large (the root and body font size doubled, as a browser's text-size
setting does), and at 200% browser zoom (the same window at twice the device pixel ratio,
so half as many CSS pixels across). Each time nothing may be cut off or reach past the window
(:data:`OUTSIDE`), the page may not scroll sideways, and the hand and the trick must stay
usable: every card of the hand inside the window with a strip of its own to tap
(:data:`HAND_STRIP`), every card of the trick inside the window. Screenshots of each state at
each width go to artifacts/screenshots/hearts-size-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.hearts_states import open_state

pytestmark = pytest.mark.browser

WIDTHS = (320, 360, 1280)
SCALES = ("normal", "text200", "zoom200")
SIZE_STATES = (
    "setup-more",
    "join",
    "lobby",
    "passing",
    "your-turn",
    "trick-won",
    "last-trick",
    "illegal",
    "sheet",
    "over",
    "cover",
    "moon-choice",
    "cancellation10",
    "unknown",
)
#: the narrowest strip of a hand card that a finger or a pointer can still tap, in CSS px
HAND_STRIP = 14

HERE = Path(__file__).parent
#: what reaches past the window or is clipped by its own box; scrolling boxes are exempt
OUTSIDE = (HERE / "hearts_outside.js").read_text(encoding="utf-8")
#: the hand's cards: inside the window, and each with a strip no later card covers
HAND = (HERE / "hearts_hand.js").read_text(encoding="utf-8")
#: each visible control and heading can be scrolled wholly into the window
REACHABLE = (HERE / "hearts_reachable.js").read_text(encoding="utf-8")

DOUBLE_TEXT = "html, body { font-size: 32px !important; }"


def scaled(page: Any, width: int, scale: str) -> None:
    """The window ``width`` px wide, at 200% zoom for ``zoom200`` (half the CSS pixels)."""
    across = width // 2 if scale == "zoom200" else width
    page.set_viewport_size({"width": across, "height": 740 if width < 600 else 800})


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("width", WIDTHS)
def test_every_hearts_state_fits_and_stays_usable(
    page: Any, server: ServerProcess, width: int, scale: str
) -> None:
    problems: dict[str, list[str]] = {}
    for name in SIZE_STATES:
        tab = page.context.new_page()  # a page of its own: no /ws route left from the last one
        tab.set_default_timeout(5000)
        scaled(tab, width, scale)
        open_state(tab, server, name, "id")
        if scale == "text200":
            tab.add_style_tag(content=DOUBLE_TEXT)
            tab.wait_for_timeout(100)
        found = tab.evaluate(OUTSIDE) + tab.evaluate(HAND, HAND_STRIP) + tab.evaluate(REACHABLE)
        if found:
            problems[name] = found
        screenshot(tab, f"hearts-size-{name}-{width}" + ("" if scale == "normal" else f"-{scale}"))
        tab.close()
    assert not problems, "\n".join(f"{name}: {found}" for name, found in problems.items())


def test_ten_seats_keep_each_chip_short_on_a_phone(page: Any, server: ServerProcess) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    open_state(page, server, "cancellation10", "id")
    lines = page.eval_on_selector_all(
        ".ht-seat:not(.mine) .ht-nums",
        "els => els.map(e => Math.round("
        "e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)))",
    )
    assert len(lines) == 9 and max(lines) <= 1, lines  # the numbers on one line in every chip
    assert page.is_visible(".ht-seats-legend")
    # the words stay for screen readers
    full = page.eval_on_selector_all(".ht-nums-full", "els => els.map(e => e.textContent)")
    assert all("poin babak ini" in text for text in full)
    chips = page.eval_on_selector_all(
        ".ht-seat", "els => els.map(e => e.getBoundingClientRect().height)"
    )
    # each plate (this seat's too) is no taller than a card of the hand
    card = page.eval_on_selector(".ht-hand [data-card]", "e => e.getBoundingClientRect().height")
    assert len(chips) == 10 and max(chips) <= card, (chips, card)
