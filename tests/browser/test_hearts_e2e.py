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
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
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
            seed=int(row[4]),  # decimal text: a secret seed has 129 bits
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
    """Choose three cards and pass them; returns them once the pass is taken: they have left
    the hand, or (while others still choose) they are marked as passed."""
    page.wait_for_selector(".ht-hand.passing [data-card]")
    chosen = hand_codes(page)[-3:]
    for code in chosen:
        tap(page, code)
    before = version_of(page)
    page.click("[data-pass]")
    wait_version(page, before + 1)
    page.wait_for_function(
        """codes => !document.querySelector('.ht-hand.passing [data-card]') && codes.every(c => {
             const card = document.querySelector(`.ht-hand [data-card='${c}']`);
             return !card || card.classList.contains('passed-out');
           })""",
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
    """Play the first legal card of the hand and wait until the server's answer is drawn (the
    card has left the hand; after the last trick the next hand may hold it again)."""
    code: str = page.get_attribute(".ht-hand .hc.legal", "data-card") or ""
    before = version_of(page)
    tap(page, code)
    wait_version(page, before + 1)
    return code


def page_lang(page: Any) -> i18n.Lang:
    lang: i18n.Lang = page.get_attribute("html", "lang") or "id"
    return lang


def check_dimmed_card(page: Any, server: ServerProcess) -> str | None:
    """Tap a dimmed card: the page must say the engine's reason for it, in the page's language.
    Returns the reason."""
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
    expected = i18n.translate(page_lang(page), f"hearts.reason.{reason.value}")
    page.wait_for_function(
        "text => { const r = document.querySelector('[data-reason]');"
        " return !r.hidden && r.textContent === text; }",
        arg=expected,
    )
    # nothing was sent: the card is still in the hand and it is still this page's turn
    assert code in hand_codes(page)
    return reason.value


def play_hand(page: Any, server: ServerProcess, *, on_turn: Any = None) -> set[str]:
    """Play legal cards until the hand is on the score sheet; returns the dimmed-card reasons
    checked on the way. ``on_turn(page, cards_left)`` runs at each turn before the card."""
    rows = sheet_rows(page)
    reasons: set[str] = set()
    while my_turn_or_hand_over(page, rows):
        reason = check_dimmed_card(page, server)
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

    reasons = play_hand(page, server, on_turn=mid_hand)
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
    moon = ["☾ " if line.shooter == seat else "" for seat in range(4)]
    assert cells == [
        [m + ("+" if p > 0 else "") + str(p), str(t)]
        for m, p, t in zip(moon, line.points, line.totals, strict=True)
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


# ---------------------------------------------------------------------- several people


def version_of(page: Any) -> int:
    return int(page.get_attribute(TABLE, "data-version") or -1)


def wait_version(page: Any, at_least: int) -> None:
    """Wait until the page has drawn the table at ``at_least`` or later."""
    page.wait_for_function(
        "v => Number(document.querySelector('[data-hearts]').dataset.version ?? -1) >= v",
        arg=at_least,
    )


def hand_count(live: LiveTable, seat: int) -> int:
    assert live.match is not None
    return len(live.match.hand.view(seat).hand)


def play_along(
    server: ServerProcess,
    table: str,
    pages: dict[int, Any],
    watcher: Any,
    *,
    until: Any = None,
) -> LiveTable:
    """Each person (a page per seat) passes and plays when the server awaits them, until the
    hand under way is on the score sheet or ``until(live)``; computers (and seats whose person
    is away) play by themselves, which ``watcher`` (a page that follows the table) shows."""
    live = server_table(server, table)
    assert live.match is not None
    hands_done = len(live.match.score_sheet())
    while True:
        live = server_table(server, table)
        assert live.match is not None
        if len(live.match.score_sheet()) > hands_done or (until is not None and until(live)):
            return live
        people = [seat for seat in live.awaiting() if seat in pages]
        if not people:
            wait_version(watcher, live.version + 1)
            continue
        for seat in people:
            tab = pages[seat]
            if live.match.hand.phase.value == "pass":
                pass_three(tab)
            else:
                tab.wait_for_selector(".ht-hand .hc.legal")
                check_dimmed_card(tab, server)
                play_one(tab)


def same_hand(page: Any, server: ServerProcess, table: str, seat: int) -> None:
    """Once the page shows the table as it stands, its hand is the seat's hand on the server."""
    while True:
        live = server_table(server, table)
        wait_version(page, live.version)
        if version_of(page) == live.version:
            break
    assert live.match is not None
    assert sorted(hand_codes(page)) == sorted(c.code for c in live.match.hand.view(seat).hand)


def hides(page: Any, cards: list[str]) -> None:
    """None of ``cards`` is in the page: no card element, no card's spoken label (the live
    region may still name a card played in the hand before, which everyone saw)."""
    html = page.content()
    lang = page_lang(page)
    for code in cards:
        assert f'data-card="{code}"' not in html, code
        assert f'aria-label="{spoken(lang, code)}' not in html, code


FACES = {"J", "Q", "K", "A"}


def spoken(lang: i18n.Lang, code: str) -> str:
    rank, suit = code[:-1], code[-1]
    name = i18n.translate(lang, f"hcard.rank.{rank}") if rank in FACES else rank
    return i18n.translate(
        lang, "hcard.name", rank=name, suit=i18n.translate(lang, f"hcard.suit.{suit}")
    )


def cover_for(page: Any, seat: int) -> None:
    """The "pass the device" cover asks for ``seat``'s person; no hand is in the page."""
    page.wait_for_selector(f'[data-cover][data-seat="{seat}"]:not([hidden])')
    assert page.locator(HAND).count() == 0


# ---------------------------------------------------------------------- 2. same device


def test_same_device_shows_each_person_only_their_own_hand(
    page: Any, server: ServerProcess
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{server.url}/hearts")
    page.click('[data-mode="hotseat"]')
    page.fill("#hs-name-0", "Ana")
    page.fill("#hs-name-1", "Budi")
    assert page.is_checked('[data-panel] li[data-seat="2"] input[type=checkbox]')
    page.click("[data-panel] [data-start]")
    page.wait_for_url("**/hearts/table/*")
    drawn(page)
    table = table_id_of(page)
    people = {0: "Ana", 1: "Budi"}
    both = held_cards(server, table, 0) + held_cards(server, table, 1)
    cover_for(page, 0)
    assert page.inner_text("#cover-title") == "Berikan perangkat kepada Ana"
    assert page.locator("[data-card]").count() == 0  # nothing played yet: no card at all
    hides(page, both)
    screenshot(page, "hearts-e2e-cover-360")
    page.set_viewport_size({"width": 1280, "height": 800})
    screenshot(page, "hearts-e2e-cover-1280")
    page.set_viewport_size({"width": 360, "height": 740})
    # a reload under the cover: the cover again
    page.reload()
    drawn(page)
    cover_for(page, 0)
    hides(page, both)
    # Ana looks, then a reload or the back button: the cover again, never her hand
    page.click("[data-look]")
    page.wait_for_selector(HAND)
    assert sorted(hand_codes(page)) == sorted(held_cards(server, table, 0))
    hides(page, held_cards(server, table, 1))
    page.reload()
    drawn(page)
    cover_for(page, 0)
    hides(page, both)
    page.click("[data-look]")
    page.wait_for_selector(HAND)
    page.go_back()
    page.wait_for_url("**/hearts")
    assert page.locator("[data-card]").count() == 0
    page.go_forward()
    drawn(page)
    cover_for(page, 0)
    hides(page, both)
    # then the whole hand, each person behind the cover in turn; a person who must act again
    # at once (the pass done, they hold the 2♣) keeps their hand
    acts = {0: 0, 1: 0}
    seat = -1
    while True:
        page.wait_for_function(
            """() => !document.querySelector('[data-cover]').hidden ||
                     document.querySelector('.ht-hand.passing [data-card], .ht-hand .hc.legal') ||
                     document.querySelectorAll('.ht-sheet-table tbody tr').length > 0"""
        )
        if sheet_rows(page) > 0:
            break
        if page.is_visible("[data-cover]"):
            seat = int(page.get_attribute("[data-cover]", "data-seat") or -1)
            assert page.inner_text("#cover-title") == f"Berikan perangkat kepada {people[seat]}"
            assert page.locator(HAND).count() == 0
            hides(page, held_cards(server, table, 0) + held_cards(server, table, 1))
            page.click("[data-look]")
            page.wait_for_selector(HAND)
            assert not page.is_visible("[data-cover]")
        assert sorted(hand_codes(page)) == sorted(held_cards(server, table, seat))
        hides(page, held_cards(server, table, 1 - seat))
        acts[seat] += 1
        if page.locator(".ht-hand.passing [data-card]").count():
            pass_three(page)
        else:
            check_dimmed_card(page, server)
            if acts[seat] == 5 and seat == 1:
                screenshot(page, "hearts-e2e-hotseat-hand-360")
            play_one(page)
    assert acts[0] == acts[1] == 14  # a pass and 13 cards each
    # the next hand: the person who played the last card passes first in it, so the server
    # goes on showing them their new hand; anyone else gets the device behind the cover
    page.wait_for_selector(f"{HAND}, [data-cover]:not([hidden])")
    if page.is_visible("[data-cover]"):
        cover_for(page, 0)
        hides(page, held_cards(server, table, 0) + held_cards(server, table, 1))
    else:
        assert sorted(hand_codes(page)) == sorted(held_cards(server, table, seat))
        hides(page, held_cards(server, table, 1 - seat))


# ---------------------------------------------------------------------- 3. online


def online_table(page: Any, server: ServerProcess, new_user: Any) -> tuple[str, Any, Any]:
    """Ana hosts an online table (seats 3 and 4 computers) from the setup page and copies the
    invite link; Budi, on a phone, opens it, writes his name and takes seat 2; Ana starts.
    Returns the table, Ana's page and Budi (the person, with his page)."""
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page.goto(f"{server.url}/hearts?lang=en")
    page.click('[data-mode="online"]')
    page.fill("#hs-name-0", "Ana")
    for seat in (2, 3):
        page.check(f'[data-panel] li[data-seat="{seat}"] input[type=checkbox]')
    page.click("[data-panel] [data-start]")
    page.wait_for_url("**/hearts/table/*")
    page.wait_for_selector("[data-lobby]:not([hidden])")
    table = table_id_of(page)
    page.click('[data-copy="invite-url"]')
    page.wait_for_function(
        "text => document.querySelector('[data-lobby] [data-copied]').textContent === text",
        arg="Copied.",
    )
    link: str = page.evaluate("navigator.clipboard.readText()")
    assert link == page.input_value("[data-invite-url]")
    assert link.startswith(f"{server.url}/hearts/join/")
    budi = new_user(360, 740)
    phone = budi.new_page()
    phone.goto(link)
    phone.wait_for_selector('[data-hjoin][aria-busy="false"]')
    assert phone.is_checked('[data-join-seats] input[value="1"]')
    phone.fill("[data-join-name]", "Budi")
    phone.click("[data-join-submit]")
    phone.wait_for_url(f"**/hearts/table/{table}")
    phone.wait_for_selector("[data-lobby-wait]:not([hidden])")
    page.wait_for_selector('[data-lobby-seats] li[data-seat="1"][data-kind="human"]')
    assert "Budi" in page.inner_text('[data-lobby-seats] li[data-seat="1"]')
    screenshot(page, "hearts-e2e-lobby-1280")
    screenshot(phone, "hearts-e2e-lobby-360")
    page.click("[data-lobby] [data-start]")
    page.wait_for_selector(".ht-hand.passing [data-card]")
    phone.wait_for_selector(".ht-hand.passing [data-card]")
    return table, page, (budi, phone)


def test_online_a_friend_drops_a_computer_stands_in_and_the_friend_comes_back(
    page: Any, server: ServerProcess, new_user: Any
) -> None:
    table, host, (budi, phone) = online_table(page, server, new_user)
    assert phone.inner_text("[data-status]") == "Pilih 3 kartu untuk dioper"  # in Indonesian
    hides(phone, held_cards(server, table, 0))
    hides(host, held_cards(server, table, 1))
    live = play_along(
        server,
        table,
        {0: host, 1: phone},
        host,
        until=lambda live: live.match.hand.phase.value == "play" and hand_count(live, 1) <= 10,
    )
    screenshot(phone, "hearts-e2e-online-phone-360")
    # Budi's phone goes away: after the grace a computer plays his seat
    left = hand_count(live, 1)
    phone.close()
    host.wait_for_selector('.ht-seat[data-seat="1"][data-presence="away"]')
    assert "away: the computer plays" in host.inner_text('.ht-seat[data-seat="1"]')
    screenshot(host, "hearts-e2e-online-away-1280")
    live = play_along(server, table, {0: host}, host, until=lambda lv: hand_count(lv, 1) < left)
    assert live.seats[1].kind == "human"  # still his seat
    # he comes back on the same phone (its storage kept his seat token)
    phone = budi.new_page()
    phone.goto(f"{server.url}/hearts/table/{table}")
    drawn(phone)
    phone.wait_for_selector(HAND)
    same_hand(phone, server, table, 1)
    host.wait_for_selector('.ht-seat[data-seat="1"][data-presence="here"]')
    assert phone.locator(".ht-notice:not([hidden])").count() == 0
    play_along(server, table, {0: host, 1: phone}, host)
    for tab in (host, phone):
        tab.wait_for_function(
            "() => document.querySelectorAll('.ht-sheet-table tbody tr').length === 1"
        )
    # Budi leaves: asked first; a computer takes his seat, his phone forgets the table
    phone.once("dialog", lambda dialog: dialog.dismiss())
    phone.click("[data-leave]")
    assert phone.url.endswith(f"/hearts/table/{table}")
    assert server_table(server, table).seats[1].kind == "human"
    messages: list[str] = []

    def accept(dialog: Any) -> None:
        messages.append(dialog.message)
        dialog.accept()

    phone.once("dialog", accept)
    phone.click("[data-leave]")
    phone.wait_for_url("**/hearts")
    assert messages == [i18n.translate("id", "hearts.leave_confirm")]
    assert phone.evaluate(f"localStorage.getItem('heartsuit.hearts.{table}')") is None
    host.wait_for_selector('.ht-seat[data-seat="1"][data-presence="computer"]')
    assert server_table(server, table).seats[1].kind == "computer"


# ---------------------------------------------------------------------- 4. a server restart


def test_a_server_restart_mid_hand_is_survived_by_both_pages(
    page: Any, server: ServerProcess, new_user: Any
) -> None:
    table, host, (_, phone) = online_table(page, server, new_user)
    people = {0: host, 1: phone}
    play_along(
        server,
        table,
        people,
        host,
        until=lambda live: live.match.hand.phase.value == "play" and hand_count(live, 0) <= 11,
    )
    drawn_before = {seat: int(tab.get_attribute(TABLE, "data-seq")) for seat, tab in people.items()}
    server.restart()
    for seat, tab in people.items():
        # the page reconnects by itself and opens the table again: a new state is drawn
        tab.wait_for_function(
            "n => Number(document.querySelector('[data-hearts]').dataset.seq) > n",
            arg=drawn_before[seat],
        )
        tab.wait_for_selector("[data-error]", state="hidden")
        same_hand(tab, server, table, seat)
    play_along(server, table, people, host)
    for tab in people.values():
        tab.wait_for_function(
            "() => document.querySelectorAll('.ht-sheet-table tbody tr').length === 1"
        )
        tab.wait_for_selector(".ht-hand.passing [data-card]")


# ---------------------------------------------------------------------- 5. another device


def test_a_seat_link_moves_the_seat_to_another_device_and_back(
    page: Any, server: ServerProcess, new_user: Any
) -> None:
    page.goto(f"{server.url}/hearts?lang=en")
    page.click('[data-mode="computer"]')
    page.wait_for_url("**/hearts/table/*")
    page.wait_for_selector(".ht-hand.passing [data-card]")
    table = table_id_of(page)
    token = json.loads(page.evaluate(f"localStorage.getItem('heartsuit.hearts.{table}')"))["0"]
    page.click("[data-elsewhere] summary")
    link = page.input_value('[data-seat-link="0"]')
    assert link == f"{server.url}/hearts/table/{table}#seat={token}"
    screenshot(page, "hearts-e2e-elsewhere-1280")
    # the phone opens the link while the seat is still played here: it asks first
    phone = new_user(360, 740).new_page()
    phone.goto(link)
    phone.wait_for_selector("[data-notice]:not([hidden])")
    assert "#" not in phone.url  # the token left the address bar
    assert phone.inner_text("[data-notice-text]") == i18n.translate("id", "server.error.in_use")
    assert phone.locator(HAND).count() == 0
    screenshot(phone, "hearts-e2e-in-use-360")
    phone.click("[data-play-here]")
    phone.wait_for_selector(HAND)
    same_hand(phone, server, table, 0)
    kept = json.loads(phone.evaluate(f"localStorage.getItem('heartsuit.hearts.{table}')"))
    assert kept == {"0": token}
    # the first screen is told, loses the hand and may take the seat back
    page.wait_for_selector("[data-notice]:not([hidden])")
    assert page.inner_text("[data-notice-text]") == i18n.translate("en", "server.error.taken_over")
    page.wait_for_selector(HAND, state="detached")
    screenshot(page, "hearts-e2e-taken-over-1280")
    page.click("[data-play-here]")
    page.wait_for_selector(HAND)
    assert page.is_hidden("[data-notice]")
    phone.wait_for_selector("[data-notice]:not([hidden])")
    phone.wait_for_selector(HAND, state="detached")
    # a reload of the phone (which lost the seat) asks again instead of taking it
    phone.reload()
    phone.wait_for_selector("[data-notice]:not([hidden])")
    assert phone.inner_text("[data-notice-text]") == i18n.translate("id", "server.error.in_use")
    # a reload of the screen that plays the seat keeps playing it, with no question
    page.reload()
    drawn(page)
    page.wait_for_selector(HAND)
    assert page.is_hidden("[data-notice]")
    pass_three(page)


# ---------------------------------------------------------------------- the moon choice


def test_the_shooter_chooses_the_moon_on_a_real_table(page: Any, server: ServerProcess) -> None:
    """A shared-device table whose log ends on a moon (stored as the server stores it): the
    cover asks for the shooter, who chooses; the choice is logged and shown to everyone."""
    from heartsuit.hearts import Match, Moon, Rules
    from heartsuit.server.hearts.live_table import hash_token, new_token
    from tests.test_hearts_moon import SEED, SHOOTER, play_to_moon

    rules = Rules.preset("standard", moon="shooter_chooses")
    match = Match.new(rules, SEED)
    play_to_moon(match)
    tokens = {seat: new_token() for seat in range(4)}
    names = ["Ana", "Budi", "Citra", "Dedi"]
    table = "moon-table-0001"
    log: list[tuple[str, dict[str, Any]]] = [("start", {})]
    log += [("action", a.to_dict()) for a in match.actions]
    with closing(sqlite3.connect(server.db)) as db, db:
        db.execute(
            "INSERT INTO hearts_tables (id, mode, preset, rules, seed, invite, created_at_ms,"
            " status, version) VALUES (?, 'hotseat', 'standard', ?, ?, NULL, 0, 'playing', ?)",
            (table, json.dumps(rules.to_dict()), SEED, len(log)),
        )
        db.executemany(
            "INSERT INTO hearts_seats (table_id, seat, kind, name, level, token_hash)"
            " VALUES (?, ?, 'human', ?, NULL, ?)",
            [(table, s, names[s], hash_token(tokens[s])) for s in range(4)],
        )
        db.executemany(
            "INSERT INTO hearts_events (table_id, seq, kind, data, at_ms) VALUES (?, ?, ?, ?, 0)",
            [(table, seq, kind, json.dumps(data)) for seq, (kind, data) in enumerate(log)],
        )
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{server.url}/?lang=en")
    page.evaluate(
        "([id, t]) => localStorage.setItem('heartsuit.hearts.' + id, t)",
        [table, json.dumps({str(s): t for s, t in tokens.items()})],
    )
    page.goto(f"{server.url}/hearts/table/{table}?lang=en")
    drawn(page)
    cover_for(page, SHOOTER)
    assert page.inner_text("#cover-title") == "Pass the device to Dedi"
    assert page.inner_text("[data-status]") == "Dedi shot the moon and is choosing how it scores"
    page.click("[data-look]")
    page.wait_for_selector("[data-moon]:not([hidden])")
    assert page.inner_text('[data-moon-choice="self_minus_26"] .ht-moon-main') == "You −26"
    screenshot(page, "hearts-e2e-moon-choice-360")
    page.click('[data-moon-choice="self_minus_26"]')
    page.wait_for_selector("[data-summary]:not([hidden])")
    # the device is covered again for the next hand: the hand's summary names the shooter
    assert "Dedi chose: the shooter −26." in page.inner_text("[data-summary]")
    page.wait_for_selector("[data-cover]:not([hidden])")
    live = server_table(server, table)
    assert live.match is not None and live.version == len(log) + 1
    assert live.match.actions[-1] == Moon(SHOOTER, "self_minus_26")
    assert live.match.score_sheet()[0].points == (0, 0, 0, -26)
    assert live.match.hand_number == 1


# ---------------------------------------------------------------------- patches


def rendered(page: Any) -> dict[str, Any]:
    """What the table page shows of the table (not what it announces about the last change)."""
    return {
        "version": version_of(page),
        "status": page.inner_text("[data-status]"),
        "seats": page.inner_text("[data-seats]"),
        "info": page.inner_text("[data-info]"),
        "trick": page.eval_on_selector_all(
            "[data-trick] [data-card]", "els => els.map(e => e.dataset.card)"
        ),
        "hand": hand_codes(page),
        "legal": page.eval_on_selector_all(
            ".ht-hand .hc.legal", "els => els.map(e => e.dataset.card)"
        ),
        "prompt": page.inner_text("[data-prompt]"),
        "sheet": page.inner_text("[data-sheet]"),
    }


def test_a_hand_played_through_patches_shows_what_a_fresh_load_shows(
    page: Any, server: ServerProcess
) -> None:
    """Against three computers most changes reach the page as ``hearts.patch`` frames (every
    card within a trick and at a trick's end, but the hand's last): those while this seat
    waits, the one that makes it this seat's turn (with its legal cards), and the reply to its
    own card; the page applies each to the state it holds. At several turns of a hand, what
    it shows equals what a freshly loaded page of the same table shows (which then takes the
    seat over and plays on)."""
    patches: list[int] = []
    kinds: set[str] = set()

    def listen(socket: Any) -> None:
        def frame(payload: Any) -> None:
            if isinstance(payload, str) and '"type":"hearts.patch"' in payload:
                patch = json.loads(payload)
                patches.append(int(patch["version"]))
                if "req" in patch:
                    kinds.add("reply")
                elif "view" in patch:
                    kinds.add("your turn")
                if "tricks_played" in patch["public"]:
                    kinds.add("trick end")

        socket.on("framereceived", frame)

    page.on("websocket", listen)
    page.goto(f"{server.url}/?lang=en")
    page.click("[data-hearts-play]")
    page.click('[data-mode="computer"]')
    page.wait_for_url("**/hearts/table/*")
    drawn(page)
    pass_three(page)
    table_url = page.url
    rows = sheet_rows(page)
    compared = 0
    turn = 0
    while my_turn_or_hand_over(page, rows):
        turn += 1
        if turn in (2, 5, 9):
            # the page is idle at this seat's turn: no trick pause, nothing queued
            page.wait_for_timeout(1300)
            before = rendered(page)
            assert patches, "no patch reached the page before this turn"
            fresh = page.context.new_page()
            fresh.on("websocket", listen)
            fresh.goto(table_url)
            # the seat is open in the first tab: this one asks to play here
            fresh.click("[data-play-here]")
            wait_version(fresh, before["version"])
            fresh.wait_for_selector(".ht-hand .hc.legal")
            assert rendered(fresh) == before
            screenshot(fresh, f"hearts-e2e-patched-fresh-{turn}")
            page.close()
            page = fresh
            compared += 1
        play_one(page)
    assert compared == 3
    assert len(patches) >= 10
    assert kinds == {"reply", "your turn", "trick end"}
