"""The Hearts table between hands and its settings: "next hand" (the computers wait for it;
online each person confirms or a timer shown goes on), the only legal card playing itself, the
hand's order, the sounds and the computers' pace.

Against the fake Hearts service of :mod:`tests.browser.hearts_fake` (states from the real
engine), like ``test_hearts_table.py``; the server's side is in
``tests/test_server_hearts_next_hand.py``.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from heartsuit.hearts import Match, Rules
from tests.browser import axe
from tests.browser.conftest import ServerProcess
from tests.browser.hearts_fake import FakeHearts, hearts_state, pass_all, seats
from tests.browser.test_hearts_table import last_card_match, my_turn, sheet_of, state_of
from tests.browser.test_hearts_ui import hand_codes, open_table, seat_to_lead

pytestmark = pytest.mark.browser

AUTOPLAY = "heartsuit.hearts.setting.autoplay"


def second_hand() -> Match:
    """A standard match whose first hand is over: the second is dealt, nobody has passed."""
    match = last_card_match()
    while match.hand_number == 0:
        seat = match.hand.to_play
        assert seat is not None
        match.play(seat, match.hand.legal_plays(seat)[0])
    return match


def between(match: Match, waiting: list[int], **fields: Any) -> dict[str, Any]:
    """The state of the second hand's start with the computers waiting for ``waiting``."""
    online = fields.get("mode") == "online"
    deadline = int(time.time() * 1000) + 15_000 if online else None
    wait = {
        "hand": 1,
        "waiting": waiting,
        "deadline_ms": deadline,
        "timer_ms": 18_000 if online else None,
    }
    return hearts_state(
        match, view_seat=0, version=61, sheet=sheet_of(match), next_hand=wait, **fields
    )


def test_the_computers_wait_for_next_hand(page: Any, server: ServerProcess) -> None:
    match = second_hand()
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [between(match, [0])])
    fake.on("hearts.next", lambda f: [hearts_state(match, view_seat=0, version=62)])
    page.set_viewport_size({"width": 360, "height": 740})
    open_table(page, server, fake, lang="en")
    page.wait_for_selector("[data-summary]:not([hidden])")
    wait = page.inner_text("[data-summary-wait]")
    assert wait == "The computers wait until you press Next hand."
    assert not fake.frames("hearts.next")  # nothing sent before the press
    axe.check(page, "Hearts summary, the computers waiting")
    page.click("[data-summary-next]")
    sent = fake.wait_for(page, "hearts.next")
    assert sent["table"] == "T1" and sent["token"] == "tok0"
    page.wait_for_function("() => document.querySelector('[data-hearts]').dataset.version === '62'")
    assert page.is_hidden("[data-summary]") and page.is_hidden("[data-wait-line]")


def test_online_each_person_confirms_and_the_timer_is_shown(
    page: Any, server: ServerProcess
) -> None:
    match = second_hand()
    people = seats(4, ["human", "human", "computer", "computer"])
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [between(match, [0, 1], mode="online", seat_info=people)])
    fake.on(
        "hearts.next",
        lambda f: [between(match, [1], mode="online", seat_info=people) | {"events": []}],
    )
    open_table(page, server, fake, lang="en")
    page.wait_for_selector("[data-summary]:not([hidden])")
    text = page.inner_text("[data-summary-wait]")
    assert text.startswith("Waiting for: Ana, Budi. The next hand goes on in ")
    seconds = int(text.rsplit(" in ", 1)[1].split()[0])
    assert 0 < seconds <= 15
    axe.check(page, "Hearts summary online, a timer")
    page.click("[data-summary-next]")
    fake.wait_for(page, "hearts.next")
    page.wait_for_selector("[data-wait-line]:not([hidden])")
    assert page.inner_text("[data-wait-line]") == "You are ready. Waiting for: Budi."
    axe.check(page, "Hearts table online, ready and waiting for another")


def test_the_only_legal_card_plays_itself_unless_two_may_be_played(
    page: Any, server: ServerProcess
) -> None:
    page.evaluate(f"localStorage.removeItem('{AUTOPLAY}')")  # the default: on
    match = seat_to_lead(0)  # the 2♣ leads: the only card seat 0 may play
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    fake.on("hearts.play", lambda f: None)  # no answer: the card stays where it went
    open_table(page, server, fake, lang="en")
    assert page.is_checked("[data-autoplay]")
    played = fake.wait_for(page, "hearts.play")
    assert played["card"] == "2C"
    assert page.locator('[data-trick] [data-card="2C"]').count() == 1  # seen moving in
    assert page.locator('.ht-hand [data-card="2C"]').count() == 0

    several = my_turn("standard", 4, tricks=1)
    assert len(several.hand.legal_plays(0)) >= 2
    other = FakeHearts()
    other.on("hearts.open", lambda f: [hearts_state(several, view_seat=0)])
    open_table(page, server, other, lang="en")
    page.wait_for_timeout(1500)  # twice the auto-play's delay
    assert not other.frames("hearts.play")


def test_the_hand_order_is_a_choice_that_is_remembered(page: Any, server: ServerProcess) -> None:
    match = seat_to_lead(1)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    open_table(page, server, fake, lang="en")
    dealt = hand_codes(page)
    page.select_option("[data-order]", "shcd")
    page.select_option("[data-rank]", "down")
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

    def key(code: str) -> tuple[int, int]:
        return "SHCD".index(code[-1]), -ranks.index(code[:-1])

    assert hand_codes(page) == sorted(dealt, key=key)
    axe.check(page, "Hearts table, hand order chosen")
    page.reload()
    page.wait_for_selector('[data-hearts][aria-busy="false"]')
    assert page.input_value("[data-order]") == "shcd" and page.input_value("[data-rank]") == "down"
    assert hand_codes(page) == sorted(dealt, key=key)


#: counts the tones the page makes (an oscillator each), without sound on the test machine
COUNT_TONES = """
window.__tones = 0;
const Real = window.AudioContext;
if (Real) window.AudioContext = class extends Real {
  createOscillator() { window.__tones += 1; return super.createOscillator(); }
};
"""


def test_sounds_are_off_until_turned_on_and_the_choice_is_remembered(
    page: Any, server: ServerProcess
) -> None:
    page.add_init_script(COUNT_TONES)
    match = my_turn("standard", 4, tricks=1)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    fake.on("hearts.play", lambda f: None)
    open_table(page, server, fake, lang="en")
    assert not page.is_checked("[data-sounds]")
    card = match.hand.legal_plays(0)[0].code
    page.click(f'.ht-hand [data-card="{card}"]', position={"x": 6, "y": 12})
    fake.wait_for(page, "hearts.play")
    assert page.evaluate("window.__tones") == 0
    page.check("[data-sounds]")
    assert page.evaluate("window.__tones") > 0  # turned on: a tone says so
    page.reload()
    page.wait_for_selector('[data-hearts][aria-busy="false"]')
    assert page.is_checked("[data-sounds]")


def test_the_pace_is_the_table_s_and_only_the_host_changes_it_online(
    page: Any, server: ServerProcess
) -> None:
    match = my_turn("standard", 4, tricks=1)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, pace="slow")])
    fake.on("hearts.pace", lambda f: [hearts_state(match, view_seat=0, version=2, pace=f["pace"])])
    open_table(page, server, fake, lang="en")
    assert page.input_value("[data-pace]") == "slow"
    page.select_option("[data-pace]", "fast")
    sent = fake.wait_for(page, "hearts.pace")
    assert sent["pace"] == "fast" and sent["token"] == "tok0"
    assert page.evaluate("localStorage.getItem('heartsuit.hearts.setting.pace')") == "fast"

    people = seats(4, ["human", "human", "computer", "computer"])
    guest = FakeHearts()
    guest.on(
        "hearts.open",
        lambda f: [hearts_state(match, view_seat=0, mode="online", host=False, seat_info=people)],
    )
    open_table(page, server, guest, lang="en")
    assert page.is_disabled("[data-pace]")
    assert page.is_visible("[data-pace-note]")
    axe.check(page, "Hearts table online, the pace set by the host")


def test_a_hint_marks_the_normal_computer_s_card(page: Any, server: ServerProcess) -> None:
    match = my_turn("standard", 4, tricks=1)
    choice = match.hand.legal_plays(0)[-1].code
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    answer = {"type": "hearts.hint", "table": "T1", "version": 1, "seat": 0, "cards": [choice]}
    fake.on("hearts.hint", lambda f: [answer])
    open_table(page, server, fake, lang="en")
    page.click("[data-hint]")
    asked = fake.wait_for(page, "hearts.hint")
    assert asked["token"] == "tok0" and asked["version"] == 1
    page.wait_for_selector(f'.ht-hand [data-card="{choice}"].hinted')
    assert page.locator(".ht-hand .hinted").count() == 1
    assert page.inner_text("[data-reason]").startswith("Hint: a normal computer would play ")
    assert not fake.frames("hearts.play")  # a hint plays nothing
    axe.check(page, "Hearts table, a hint marked")


def test_no_hint_button_online_unless_the_table_allows_hints(
    page: Any, server: ServerProcess
) -> None:
    match = my_turn("standard", 4, tricks=1)
    people = seats(4, ["human", "human", "computer", "computer"])
    fake = FakeHearts()
    state = hearts_state(match, view_seat=0, mode="online", seat_info=people)
    state["table"]["hints"] = False
    fake.on("hearts.open", lambda f: [state])
    open_table(page, server, fake, lang="en")
    page.wait_for_selector(".ht-hand .hc.legal")
    assert page.is_hidden("[data-hint]")


@pytest.mark.parametrize("reduced", [False, True])
def test_passed_cards_leave_for_the_receiver_and_received_ones_arrive(
    page: Any, server: ServerProcess, reduced: bool
) -> None:
    page.emulate_media(reduced_motion="reduce" if reduced else "no-preference")
    match = Match.new(Rules.preset("standard"), 7)
    chosen = [c.code for c in match.hand.view(0).hand[:3]]
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])

    def passed(frame: dict[str, Any]) -> list[dict[str, Any]]:
        pass_all(match, chosen)
        events = [{"type": "passes_exchanged"}]
        return [hearts_state(match, view_seat=0, version=5, events=events)]

    fake.on("hearts.pass", passed)
    open_table(page, server, fake, lang="en")
    for code in chosen:
        page.click(f'.ht-hand [data-card="{code}"]', position={"x": 6, "y": 12})
    flying = page.evaluate(
        """() => new Promise((done) => {
             document.querySelector('[data-pass]').click();
             done(document.querySelectorAll('.ht-flying').length);
           })"""
    )
    assert flying == (0 if reduced else 3)
    page.wait_for_function("() => document.querySelector('[data-hearts]').dataset.version === '5'")
    received = match.hand.view(0).received
    assert len(received) == 3
    moving = page.evaluate(
        "codes => codes.map(c => document.querySelector(`.ht-hand [data-card=\"${c}\"]`)"
        ".getAnimations().length)",
        [c.code for c in received],
    )
    assert all(m == 0 for m in moving) if reduced else all(m > 0 for m in moving)
    for card in received:  # the same information either way
        label = page.get_attribute(f'.ht-hand [data-card="{card.code}"]', "aria-label") or ""
        assert "received" in label


@pytest.mark.parametrize("width, height", [(740, 360), (568, 320)])
def test_ten_players_on_a_phone_on_its_side_do_not_overlap(
    page: Any, server: ServerProcess, width: int, height: int
) -> None:
    """Ten small plates around a felt about 150 px tall: none covers another (they touch at
    most), and each still shows its name."""
    page.set_viewport_size({"width": width, "height": height})
    match = my_turn("cancellation", 10, tricks=1)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [state_of(match, "cancellation", view_seat=0)])
    open_table(page, server, fake, lang="id")
    boxes: list[list[float]] = page.eval_on_selector_all(
        ".ht-seat",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom, e.querySelector('.ht-name').clientWidth]; })",
    )
    assert len(boxes) == 10
    for i, a in enumerate(boxes):
        assert a[4] > 16, f"plate {i} shows no name"
        for j, b in enumerate(boxes[i + 1 :], start=i + 1):
            across = min(a[2], b[2]) - max(a[0], b[0])
            down = min(a[3], b[3]) - max(a[1], b[1])
            assert across <= 1 or down <= 1, f"plates {i} and {j} overlap {across:.0f}×{down:.0f}"
    axe.check(page, "Hearts table, ten players, phone on its side")
