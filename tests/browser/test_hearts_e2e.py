"""Hearts end to end: real people's taps on the real pages, against the real server.

Unlike test_hearts_ui.py (a fake service on /ws), nothing here is faked: the pages talk to the
server subprocess of conftest.py, which plays its computers at once and gives a dropped person
a short grace (``GRACE_MS``). The tests act only through the pages, as new users would: taps,
reloads, closed tabs, a second person in a browser context of their own. What the server knows
is read back from its own log (the SQLite file), replayed by the engine, to check what a page
says against the engine (the reason a card is dimmed) and that no page holds another person's
cards.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

import pytest

from heartsuit import i18n
from heartsuit.cards import Card
from heartsuit.server.hearts_tables import LiveTable, LogEntry, SeatRecord, TableRecord
from tests.browser.conftest import ServerProcess, screenshot

pytestmark = pytest.mark.browser

TABLE = "[data-hearts]"
HAND = ".ht-hand [data-card]"
SHEET_ROWS = ".ht-sheet-table tbody tr"


# ---------------------------------------------------------------------- the server's truth


def server_table(server: ServerProcess, table_id: str) -> LiveTable:
    """The table as the server's log says it is now, replayed by the engine."""
    with closing(sqlite3.connect(f"file:{server.db}?mode=ro", uri=True)) as db:
        row = db.execute(
            "SELECT id, mode, preset, rules, seed, invite, created_at_ms, status, version"
            " FROM hearts_tables WHERE id = ?",
            (table_id,),
        ).fetchone()
        assert row is not None, f"the server has no table {table_id}"
        record = TableRecord(
            id=row[0],
            mode=row[1],
            preset=row[2],
            rules=json.loads(row[3]),
            seed=row[4],
            invite=row[5],
            created_at_ms=row[6],
            status=row[7],
            version=row[8],
        )
        seats = [
            SeatRecord(*r)
            for r in db.execute(
                "SELECT seat, kind, name, level, token_hash FROM hearts_seats"
                " WHERE table_id = ? ORDER BY seat",
                (table_id,),
            )
        ]
        log = [
            LogEntry(seq, kind, json.loads(data), at_ms)
            for seq, kind, data, at_ms in db.execute(
                "SELECT seq, kind, data, at_ms FROM hearts_events WHERE table_id = ? ORDER BY seq",
                (table_id,),
            )
        ]
    return LiveTable.replay(record, seats, log)


def held_cards(server: ServerProcess, table_id: str, seat: int) -> list[str]:
    """The cards ``seat`` holds now, by the server's log."""
    live = server_table(server, table_id)
    assert live.match is not None
    return [card.code for card in live.match.hand.view(seat).hand]


def table_id_of(page: Any) -> str:
    table: str = page.get_attribute(TABLE, "data-table") or ""
    assert table
    return table


# ---------------------------------------------------------------------- what a person does


def drawn(page: Any) -> None:
    """Wait until the table page has drawn a state from the server."""
    page.wait_for_selector(f'{TABLE}[aria-busy="false"]:not([data-seq="0"])')


def hand_codes(page: Any) -> list[str]:
    codes: list[str] = page.eval_on_selector_all(HAND, "els => els.map(e => e.dataset.card)")
    return codes


def tap(page: Any, code: str, *, force: bool = False) -> None:
    """Tap a card of the hand where it shows when cards overlap: its top-left corner.
    ``force`` for a dimmed card (aria-disabled), which Playwright would refuse to click."""
    page.click(f'.ht-hand [data-card="{code}"]', position={"x": 6, "y": 12}, force=force)


def sheet_rows(page: Any) -> int:
    rows: int = page.locator(SHEET_ROWS).count()
    return rows


def pass_three(page: Any) -> list[str]:
    """Choose three cards and pass them; returns them once they have left the hand."""
    page.wait_for_selector(".ht-hand.passing [data-card]")
    chosen = hand_codes(page)[-3:]
    for code in chosen:
        tap(page, code)
    page.click("[data-pass]")
    page.wait_for_function(
        "codes => codes.every(c => !document.querySelector(`.ht-hand [data-card='${c}']`))",
        arg=chosen,
    )
    return chosen


def my_turn_or_hand_over(page: Any, rows: int) -> bool:
    """Wait until this page may play a card (True) or the hand is on the score sheet (False)."""
    page.wait_for_function(
        """rows => document.querySelector('.ht-hand .hc.legal') ||
                   document.querySelectorAll('.ht-sheet-table tbody tr').length > rows""",
        arg=rows,
    )
    return sheet_rows(page) == rows


def play_one(page: Any) -> str:
    """Play the first legal card of the hand and wait until it has left the hand."""
    code: str = page.get_attribute(".ht-hand .hc.legal", "data-card") or ""
    tap(page, code)
    page.wait_for_selector(f'.ht-hand [data-card="{code}"]', state="detached")
    return code


def check_dimmed_card(page: Any, server: ServerProcess, lang: i18n.Lang) -> str | None:
    """Tap a dimmed card: the page must say the engine's reason for it. Returns the reason."""
    dimmed = page.locator(".ht-hand .hc.illegal")
    if dimmed.count() == 0:
        return None
    code = dimmed.first.get_attribute("data-card") or ""
    # it is this page's turn, so the server waits for it: its log is the state drawn
    live = server_table(server, table_id_of(page))
    assert live.match is not None
    seat = live.match.hand.to_play
    assert seat is not None
    reason = live.match.hand.why_illegal(seat, Card.parse(code))
    assert reason is not None, f"{code} is dimmed but the engine would play it"
    tap(page, code, force=True)
    expected = i18n.translate(lang, f"hearts.reason.{reason.value}")
    page.wait_for_function(
        "text => { const r = document.querySelector('[data-reason]');"
        " return !r.hidden && r.textContent === text; }",
        arg=expected,
    )
    # nothing was sent: the card is still in the hand and it is still this page's turn
    assert code in hand_codes(page)
    return reason.value


def play_hand(
    page: Any, server: ServerProcess, lang: i18n.Lang, *, on_turn: Any = None
) -> set[str]:
    """Play legal cards until the hand is on the score sheet; returns the dimmed-card reasons
    checked on the way. ``on_turn(page, cards_left)`` runs at each turn before the card."""
    rows = sheet_rows(page)
    reasons: set[str] = set()
    while my_turn_or_hand_over(page, rows):
        reason = check_dimmed_card(page, server, lang)
        if reason:
            reasons.add(reason)
        if on_turn is not None:
            on_turn(page, len(hand_codes(page)))
        play_one(page)
    return reasons


def fits(page: Any) -> None:
    width = page.viewport_size["width"]
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page scrolls sideways at {width}px: {scroll}"


# ---------------------------------------------------------------------- 1. against the computer


@pytest.mark.parametrize("width", [360, 1280])
def test_against_the_computer_from_home_to_the_score_sheet(
    page: Any, server: ServerProcess, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 740 if width < 600 else 800})
    page.goto(f"{server.url}/?lang=en")
    page.click("[data-hearts-play]")
    page.click('[data-mode="computer"]')  # the second tap: a dealt hand
    page.wait_for_url("**/hearts/table/*")
    drawn(page)
    assert len(hand_codes(page)) == 13
    assert page.inner_text("[data-status]") == "Choose 3 cards to pass"
    passed = pass_three(page)
    table = table_id_of(page)
    # the three cards went to the computer on the left, whose hand the page never shows
    assert set(passed) <= set(held_cards(server, table, 1))

    def mid_hand(tab: Any, cards_left: int) -> None:
        if cards_left == 7:
            fits(tab)
            screenshot(tab, f"hearts-e2e-computer-mid-{width}")

    reasons = play_hand(page, server, "en", on_turn=mid_hand)
    assert reasons, "no dimmed card was ever tapped in a whole hand"
    assert sheet_rows(page) == 1
    live = server_table(server, table)
    assert live.match is not None
    line = live.match.score_sheet()[0]
    assert sum(line.points) == 26 or line.shooter is not None
    page.click("[data-sheet-box] summary")
    cells = page.eval_on_selector_all(
        f"{SHEET_ROWS} td",
        "tds => tds.map(td => [td.querySelector('.pts').textContent,"
        " td.querySelector('.run').textContent])",
    )
    assert cells == [
        [("+" if p > 0 else "") + str(p), str(t)]
        for p, t in zip(line.points, line.totals, strict=True)
    ]
    totals = page.eval_on_selector_all(
        ".ht-sheet-table tfoot td", "tds => tds.map(td => td.textContent)"
    )
    assert totals == [str(t) for t in line.totals]
    # the next hand is dealt and passes to the right
    page.wait_for_selector(".ht-hand.passing [data-card]")
    assert "right" in page.inner_text("[data-prompt]")
    fits(page)
    page.locator("[data-sheet-box]").scroll_into_view_if_needed()
    screenshot(page, f"hearts-e2e-computer-sheet-{width}")
