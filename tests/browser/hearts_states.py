"""Every page and state of Hearts on the site, opened in a browser page by name.

For the accessibility and screen-size tests: :func:`open_state` opens one of :data:`STATES`
(the setup page, the join page, and each state of a table, drawn from ``hearts.state``
messages built from the real engine by :mod:`tests.browser.hearts_fake`; the unknown table
against the real server), waits until it is drawn, and returns the fake service (None for
pages that need none).
"""

from __future__ import annotations

import json
from typing import Any

from heartsuit.hearts import Match, Rules
from tests.browser.conftest import ServerProcess
from tests.browser.hearts_fake import FakeHearts, hearts_state, pass_all, seats
from tests.test_hearts_moon import SEED as MOON_SEED
from tests.test_hearts_moon import SHOOTER, play_to_moon

READY = '[data-hearts][aria-busy="false"]'

#: every page and state the Hearts browser tests look at
STATES = (
    "setup",
    "setup-more",
    "join",
    "lobby",
    "passing",
    "your-turn",
    "other-turn",
    "trick-won",
    "last-trick",
    "illegal",
    "sheet",
    "over",
    "cover",
    "moon-choice",
    "moon-wait",
    "moon-chosen",
    "cancellation10",
    "in-use",
    "unknown",
)


def standard(seed: int = 7) -> Match:
    return Match.new(Rules.preset("standard"), seed)


def to_lead(seat: int) -> Match:
    """A standard match, passes done, where ``seat`` holds the 2♣ and so leads."""
    for seed in range(200):
        match = standard(seed)
        pass_all(match)
        if match.hand.to_play == seat:
            return match
    raise AssertionError("no seed found")


def mid_trick() -> Match:
    """Seat 0 to play as the third card of the first trick."""
    for seed in range(200):
        match = standard(seed)
        pass_all(match)
        hand = match.hand
        while hand.to_play != 0:
            seat = hand.to_play
            assert seat is not None
            match.play(seat, hand.legal_plays(seat)[-1])
        if hand.trick is not None and len(hand.trick.plays) == 2:
            return match
    raise AssertionError("no seed found")


def trick_won() -> Match:
    """A standard match whose first trick has just been taken (no card of the next yet)."""
    match = standard(5)
    pass_all(match)
    hand = match.hand
    while not hand.view(0).tricks:
        seat = hand.to_play
        assert seat is not None
        match.play(seat, hand.legal_plays(seat)[0])
    return match


def later_turn() -> Match:
    """Seat 0 to play to a trick someone led, after at least two tricks were taken."""
    match = standard(5)
    pass_all(match)
    hand = match.hand
    led = False
    while hand.to_play != 0 or len(hand.view(0).tricks) < 2 or not led:
        seat = hand.to_play
        assert seat is not None
        match.play(seat, hand.legal_plays(seat)[0])
        led = hand.trick is not None and bool(hand.trick.plays)
    return match


def moon() -> Match:
    """Seat 3 (Dedi) has shot the moon and chooses how it scores."""
    match = Match.new(Rules.preset("standard", moon="shooter_chooses"), MOON_SEED)
    play_to_moon(match)
    return match


def cancellation_ten() -> Match:
    match = Match.new(Rules.preset("cancellation", players=10), 3)
    hand = match.hand
    while hand.to_play != 0 or hand.trick is None or len(hand.trick.plays) < 4:
        seat = hand.to_play
        assert seat is not None
        match.play(seat, hand.legal_plays(seat)[0])
    return match


def open_table(
    page: Any, server: ServerProcess, fake: FakeHearts, lang: str, tokens: dict[str, str]
) -> None:
    page.route_web_socket("**/ws*", fake.route)
    page.goto(f"{server.url}/?lang={lang}")  # the origin's storage, and the language remembered
    page.evaluate("t => localStorage.setItem('heartsuit.hearts.T1', t)", json.dumps(tokens))
    page.goto(f"{server.url}/hearts/table/T1?lang={lang}")
    page.wait_for_selector(READY)


def open_state(page: Any, server: ServerProcess, name: str, lang: str) -> FakeHearts | None:
    """Open the page of state ``name`` in ``lang`` and wait until it is drawn."""
    fake = FakeHearts()
    tokens = {"0": "tok0"}
    if name in ("setup", "setup-more"):
        page.route_web_socket("**/ws*", fake.route)
        page.goto(f"{server.url}/hearts?lang={lang}")
        page.wait_for_selector("[data-hsetup] [data-mode]")
        if name == "setup-more":
            page.click('[data-mode="hotseat"]')
            page.click("[data-rules] summary")
            page.click("[data-more] summary")
            page.wait_for_selector("[data-panel]:not([hidden])")
        page.wait_for_timeout(200)
        return fake
    if name == "join":
        info = seats(4, ["human", "open", "open", "computer"])
        lobby = {
            "type": "hearts.lobby",
            "table": "T1",
            "seats": info,
            "status": "lobby",
            "preset": "standard",
            "hints": True,
        }
        fake.on("hearts.invite", lambda f: [lobby])
        page.route_web_socket("**/ws*", fake.route)
        page.goto(f"{server.url}/hearts/join/ABCD2345?lang={lang}")
        page.wait_for_selector('[data-hjoin][aria-busy="false"]')
        page.wait_for_selector("[data-join-seats] input")
        return fake
    if name == "unknown":
        # the real server: no such table
        page.goto(f"{server.url}/hearts/table/unknown?lang={lang}")
        page.wait_for_selector("[data-error]:not([hidden])")
        return None
    if name == "in-use":
        error = {"type": "error", "code": "in_use", "message": "in use"}
        fake.on("hearts.open", lambda f: [error])
        open_table(page, server, fake, lang, tokens)
        page.wait_for_selector("[data-notice]:not([hidden])")
        return fake
    state: dict[str, Any]
    if name == "lobby":
        info = seats(4, ["human", "human", "open", "computer"])
        info[1]["connected"] = False
        state = hearts_state(
            standard(), view_seat=None, mode="online", status="lobby", seat_info=info,
            invite="ABCD2345",
        )  # fmt: skip
    elif name == "passing":
        state = hearts_state(standard(), view_seat=0)
    elif name == "your-turn":
        state = hearts_state(mid_trick(), view_seat=0)
    elif name == "other-turn":
        state = hearts_state(to_lead(2), view_seat=0)
    elif name == "trick-won":
        state = hearts_state(trick_won(), view_seat=0)
    elif name == "last-trick":
        state = hearts_state(later_turn(), view_seat=0)
    elif name == "illegal":
        state = hearts_state(to_lead(0), view_seat=0)
    elif name in ("sheet", "over"):
        sheet = {
            "hands": [[3, 0, 23, 0], [0, 26, 26, 26]],
            "totals": [[3, 0, 23, 0], [3, 26, 49, 26]],
            "shooters": [None, 0],
            "moons": [None, "others_plus_26"],
        }
        done = {"type": "hand_done", "hand_number": 1, "points": [0, 26, 26, 26], "shooter": 0}
        if name == "sheet":
            events: list[dict[str, Any]] = [
                {"type": "moon_chosen", "seat": 0, "choice": "others_plus_26"},
                done,
                {"type": "hand_dealt", "hand_number": 2, "pass_direction": "across"},
            ]
            match = standard(9)
            state = hearts_state(match, view_seat=0, sheet=sheet, events=events, version=30)
        else:
            state = hearts_state(
                standard(), view_seat=None, status="over", version=30, sheet=sheet,
                over={"winners": [0]}, events=[done, {"type": "match_over", "winners": [0]}],
            )  # fmt: skip
    elif name == "cover":
        info = seats(4, ["human", "human", "computer", "computer"])
        state = hearts_state(standard(), view_seat=None, mode="hotseat", you=[0, 1],
                             seat_info=info)  # fmt: skip
        tokens = {"0": "tok0", "1": "tok1"}
    elif name in ("moon-choice", "moon-wait"):
        me = SHOOTER if name == "moon-choice" else 0
        state = hearts_state(moon(), view_seat=me, you=[me])
        tokens = {str(me): f"tok{me}"}
    elif name == "moon-chosen":
        match = moon()
        events = [e.to_dict() for e in match.choose_moon(SHOOTER, "self_minus_26")]
        sheet = {
            "hands": [list(line.points) for line in match.score_sheet()],
            "totals": [list(line.totals) for line in match.score_sheet()],
            "shooters": [SHOOTER],
            "moons": ["self_minus_26"],
        }
        state = hearts_state(match, view_seat=0, sheet=sheet, events=events, version=60)
    elif name == "cancellation10":
        state = hearts_state(
            cancellation_ten(), view_seat=0, preset="cancellation", seat_info=seats(10)
        )
    else:
        raise AssertionError(f"no state {name!r}")
    fake.on("hearts.open", lambda f: [state])
    open_table(page, server, fake, lang, tokens)
    if name == "passing":
        for code in page.eval_on_selector_all(
            ".ht-hand [data-card]", "els => els.slice(0, 2).map(e => e.dataset.card)"
        ):
            page.click(f'.ht-hand [data-card="{code}"]', position={"x": 6, "y": 12})
        page.wait_for_selector(".ht-hand .selected")
    if name == "illegal":
        view = state["view"]
        code = next(c for c in view["hand"] if c not in view["legal"])
        page.click(f'.ht-hand [data-card="{code}"]', position={"x": 6, "y": 12}, force=True)
        page.wait_for_selector("[data-reason]:not([hidden])")
    if name == "sheet":
        page.click("[data-sheet-box] summary")
        page.wait_for_selector("[data-summary]:not([hidden])")
    if name == "cover":
        page.wait_for_selector("[data-cover]:not([hidden])")
    if name == "last-trick":
        page.click("[data-last-open]")
        page.wait_for_selector("[data-last]:not([hidden])")
    if name == "moon-choice":
        page.wait_for_selector("[data-moon]:not([hidden])")
    page.wait_for_timeout(200)  # let the short transitions settle
    return fake
