"""Small steps the browser tests share: open the game, tap like a player, read the info bar."""

from __future__ import annotations

from typing import Any

from heartsuit.solitaire import Game, Target
from heartsuit.solitaire.codes import format_code

GAME = "[data-game]"


def selector(target: Target) -> str:
    """The control a player touches for a tap target."""
    if isinstance(target, int):
        return f'[data-pos="{target}"]'
    return f'[data-pile="{target}"]'


def seq(page: Any) -> int:
    """How many game states the page has drawn (data-seq on the game section)."""
    value = page.get_attribute(GAME, "data-seq")
    return int(value) if value else 0


def open_game(page: Any, base: str, query: str = "") -> None:
    """Open the game page and wait until the first state from the server is drawn."""
    page.goto(f"{base}/heart-to-heart{query}")
    page.wait_for_selector(f'{GAME}[data-seq]:not([data-seq="0"])')
    # the cards fade in from hidden; a hidden card cannot take the keyboard focus yet
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")


def wait_for_state(page: Any, after: int) -> None:
    """Wait until the page has drawn a state newer than number ``after``."""
    page.wait_for_function(
        "n => Number(document.querySelector('[data-game]').dataset.seq || 0) > n", arg=after
    )


def tap(page: Any, target: Target) -> None:
    """Tap a card or pile near its top edge (the part a player sees of a covered card) and
    wait for the server's answer to be drawn."""
    before = seq(page)
    page.click(selector(target), position={"x": 12, "y": 10})
    wait_for_state(page, before)


def deal_winnable_only(page: Any) -> None:
    """Turn on Settings > "Winnable deals only", as a player would, and close the dialog."""
    page.click('[data-action="settings"]')
    before = seq(page)
    page.locator('[data-setting="winnable_only"]').check()
    wait_for_state(page, before)
    page.click('[data-dialog="settings"] [data-close]')


def info(page: Any, name: str) -> str:
    text: str = page.inner_text(f'[data-info="{name}"]')
    return text


def dead_end_line(limit: int = 400) -> tuple[str, list[Target]]:
    """A deal and a short line of taps that ends in a dead end after at least one pair.

    Found with the engine by always pairing when a pair is there and flipping otherwise; the
    shortest line among the first ``limit`` deals keeps the browser test quick.
    """
    best: tuple[str, list[Target]] | None = None
    for number in range(limit):
        code = format_code(number)
        game = Game.from_code(code)
        taps: list[Target] = []
        for _ in range(200):
            if game.outcome != "playing" or (best and len(taps) >= len(best[1])):
                break
            pairs = game.pairs()
            step: list[Target] = list(pairs[0]) if pairs else ["stock"]
            for target in step:
                game.tap(target)
                taps.append(target)
        paired = any(t != "stock" for t in taps)
        if game.outcome == "dead_end" and paired and (best is None or len(taps) < len(best[1])):
            best = (code, taps)
    assert best is not None, "no dead end found among the first deals"
    return best


def boxes(page: Any, selector: str) -> list[dict[str, float]]:
    """The boxes (left ``x``, top ``y``, ``right``, ``bottom``) of the elements ``selector``
    finds, in CSS pixels of the viewport."""
    found: list[dict[str, float]] = page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.left, y: r.top, right: r.right, bottom: r.bottom}; })",
    )
    return found


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes (as :func:`boxes` gives them) share more than half a pixel each way."""
    return (
        min(a["right"], b["right"]) - max(a["x"], b["x"]) > 0.5
        and min(a["bottom"], b["bottom"]) - max(a["y"], b["y"]) > 0.5
    )
