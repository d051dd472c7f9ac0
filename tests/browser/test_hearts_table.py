"""The Hearts table as a card table: seats around the felt, every trick seen, the last trick,
the hand summary, the pass arrow and motion that honours reduced motion.

Against the fake Hearts service of :mod:`tests.browser.hearts_fake` (states from the real
engine), like ``test_hearts_ui.py``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from heartsuit import i18n
from heartsuit.hearts import Match, Rules
from tests.browser import axe
from tests.browser.conftest import ServerProcess
from tests.browser.hearts_fake import FakeHearts, hearts_state, pass_all, seats
from tests.browser.test_hearts_ui import open_table, tap

pytestmark = pytest.mark.browser

#: every preset and player count the site offers
TABLES: list[tuple[str, int]] = [
    ("standard", 4),
    ("three", 3),
    ("five", 5),
    ("omnibus", 4),
    ("black-maria", 3),
    *[("cancellation", n) for n in range(6, 11)],
]


def rules_of(preset: str, players: int) -> Rules:
    if preset == "cancellation":
        return Rules.preset(preset, players=players)
    return Rules.preset(preset)


def my_turn(preset: str, players: int, *, tricks: int = 0, seed: int = 3) -> Match:
    """A match of ``preset`` where seat 0 is to play to a trick someone has led, after at
    least ``tricks`` tricks."""
    match = Match.new(rules_of(preset, players), seed)
    if match.hand.phase == "pass":
        pass_all(match)
    hand = match.hand
    while (
        hand.to_play != 0
        or len(hand.view(0).tricks) < tricks
        or hand.trick is None
        or not hand.trick.plays
    ):
        seat = hand.to_play
        assert seat is not None
        match.play(seat, hand.legal_plays(seat)[0])
    return match


def state_of(match: Match, preset: str, **fields: Any) -> dict[str, Any]:
    players = match.rules.players
    return hearts_state(match, preset=preset, seat_info=seats(players), **fields)


def centres(page: Any, selector: str) -> dict[int, tuple[float, float]]:
    found: list[list[float]] = page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [Number(e.dataset.seat), r.left + r.width / 2, r.top + r.height / 2]; })",
    )
    return {int(seat): (x, y) for seat, x, y in found}


def felt_box(page: Any) -> dict[str, float]:
    box: dict[str, float] = page.locator("[data-felt]").bounding_box()
    return box


@pytest.mark.parametrize("players", [3, 4, 5, 6, 10])
def test_the_seats_sit_around_the_table_in_playing_order(
    page: Any, server: ServerProcess, players: int
) -> None:
    preset = {3: "three", 4: "standard", 5: "five"}.get(players, "cancellation")
    match = my_turn(preset, players)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [state_of(match, preset, view_seat=0)])
    page.set_viewport_size({"width": 360, "height": 740})
    open_table(page, server, fake)
    felt = felt_box(page)
    cx, cy = felt["x"] + felt["width"] / 2, felt["y"] + felt["height"] / 2
    plates = centres(page, ".ht-seat")
    assert sorted(plates) == list(range(players))
    # this screen's seat at the bottom, below every other plate
    assert plates[0][1] == max(y for _, y in plates.values())
    assert abs(plates[0][0] - cx) < 2
    # the others clockwise on the screen from the bottom (left, across, right for four): the
    # angle from the middle grows, seat after seat, through one turn
    angles = [
        math.atan2((plates[s][1] - cy) / felt["height"], (plates[s][0] - cx) / felt["width"])
        for s in range(players)
    ]
    turned = [(a - angles[0]) % (2 * math.pi) for a in angles]
    assert turned == sorted(turned) and turned[-1] < 2 * math.pi, turned
    left, right = plates[1], plates[players - 1]
    assert left[0] < cx - 20 and right[0] > cx + 20  # the left seat to the left, the right...
    if players == 4:
        assert abs(left[1] - cy) < 8 and abs(right[1] - cy) < 8
        assert plates[2][1] < cy - 20 and abs(plates[2][0] - cx) < 2  # ...and across above
    # each played card lands in front of its player: seen from the middle of the felt, in the
    # direction of its own plate more than of any other
    cards = centres(page, "[data-trick] .ht-play")
    assert cards, "a trick is in play"

    def direction(x: float, y: float) -> float:
        return math.atan2((y - cy) / felt["height"], (x - cx) / felt["width"])

    for seat, card in cards.items():
        towards = direction(*card)
        nearest = min(
            plates,
            key=lambda s: abs(math.remainder(direction(*plates[s]) - towards, 2 * math.pi)),
        )
        assert nearest == seat, (seat, nearest)


@pytest.mark.parametrize("preset, players", TABLES, ids=[f"{p}-{n}" for p, n in TABLES])
def test_the_whole_hand_is_on_the_first_screen_on_your_turn(
    page: Any, server: ServerProcess, preset: str, players: int
) -> None:
    match = my_turn(preset, players)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [state_of(match, preset, view_seat=0)])
    page.set_viewport_size({"width": 320, "height": 568})
    open_table(page, server, fake)
    page.wait_for_selector(".ht-hand .hc.legal")
    assert page.evaluate("window.scrollY") == 0
    cards = page.eval_on_selector_all(
        ".ht-hand [data-card]",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })",
    )
    assert len(cards) == len(match.hand.view(0).hand)
    for left, top, right, bottom in cards:
        assert left >= 0 and right <= 320 and top >= 0 and bottom <= 568, (left, top, right, bottom)


def last_card_match() -> Match:
    """A standard match in its first hand's 13th trick, seat 0 to play its last card."""
    for seed in range(100):
        match = Match.new(Rules.preset("standard"), seed)
        pass_all(match)
        hand = match.hand
        while hand.phase == "play":
            seat = hand.to_play
            assert seat is not None
            if len(hand.view(seat).hand) == 1 and seat == 0:
                break
            match.play(seat, hand.legal_plays(seat)[0])
        if hand.phase == "play" and hand.to_play == 0:
            return match
    raise AssertionError("no seed found")


def sheet_of(match: Match) -> dict[str, Any]:
    lines = match.score_sheet()
    return {
        "hands": [list(line.points) for line in lines],
        "totals": [list(line.totals) for line in lines],
        "shooters": [line.shooter for line in lines],
        "moons": [line.moon for line in lines],
    }


def test_the_last_trick_is_shown_then_the_hand_summary(page: Any, server: ServerProcess) -> None:
    """The state after a hand's last card holds the next deal: the page shows the 13th trick
    first (its four cards, the winner starred, the version still the old one), then the new
    deal with the summary, whose points are the score sheet's last line (the engine's)."""
    match = last_card_match()
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=60)])
    done: dict[str, Any] = {}

    def played(frame: dict[str, Any]) -> list[dict[str, Any]]:
        card = match.hand.view(0).hand[0]
        events = [e.to_dict() for e in match.play(0, card)]
        while match.hand_number == 0:  # the computers play the rest of the trick
            seat = match.hand.to_play
            assert seat is not None
            events += [e.to_dict() for e in match.play(seat, match.hand.legal_plays(seat)[0])]
        done["trick"] = next(e for e in reversed(events) if e["type"] == "trick_done")
        state = hearts_state(match, view_seat=0, version=61, events=events, sheet=sheet_of(match))
        done["state"] = state
        return [state]

    fake.on("hearts.play", played)
    page.set_viewport_size({"width": 360, "height": 740})
    open_table(page, server, fake, lang="en")
    last = match.hand.view(0).hand[0].code
    tap(page, last)
    # the 13th trick on the felt, before the next deal is drawn
    page.wait_for_function(
        "() => document.querySelectorAll('[data-trick] [data-card]').length === 4"
        " && document.querySelector('[data-trick] .ht-play.winner')"
    )
    assert page.get_attribute("[data-hearts]", "data-version") == "60"
    shown = page.eval_on_selector_all(
        "[data-trick] [data-card]", "els => els.map(e => e.dataset.card)"
    )
    assert shown == [code for _, code in done["trick"]["plays"]]
    assert page.locator(".ht-hand [data-card]").count() == 0  # the new hand waits
    assert page.inner_text("[data-status]") == "The hand is over"
    winner = done["trick"]["winner"]
    assert page.get_attribute("[data-trick] .ht-play.winner", "data-seat") == str(winner)
    # then the next deal, and the summary of the hand over the felt
    page.wait_for_function("() => document.querySelector('[data-hearts]').dataset.version === '61'")
    page.wait_for_selector("[data-summary]:not([hidden])")
    assert page.locator(".ht-hand [data-card]").count() == 13
    state = done["state"]
    points = page.eval_on_selector_all(
        "[data-summary] tbody .ht-pts", "els => els.map(e => Number(e.dataset.points))"
    )
    assert points == state["sheet"]["hands"][-1]
    totals = page.eval_on_selector_all(
        "[data-summary] tbody .ht-total", "els => els.map(e => Number(e.textContent))"
    )
    assert totals == state["sheet"]["totals"][-1]
    taken = state["last_hand"]["taken"]
    for seat in range(4):
        row = page.inner_text(f'[data-summary] tbody tr[data-seat="{seat}"] .ht-taken')
        assert row.count("♥") + row.count("♠") + row.count("♦") + row.count("♣") >= len(taken[seat])
    assert "Hand 1 done" in page.inner_text("[data-summary]")
    axe.check(page, "Hearts hand summary")
    page.click("[data-summary-next]")
    assert page.is_hidden("[data-summary]")
    assert page.is_visible("[data-arrow]")  # the pass of the new hand


def test_the_last_trick_view_shows_the_trick_taken_last(page: Any, server: ServerProcess) -> None:
    match = my_turn("standard", 4, tricks=2)
    state = hearts_state(match, view_seat=0)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [state])
    page.set_viewport_size({"width": 320, "height": 568})
    open_table(page, server, fake, lang="en")
    assert page.is_hidden("[data-last]")
    page.click("[data-last-open]")
    page.wait_for_selector("[data-last]:not([hidden])")
    assert page.get_attribute("[data-last-open]", "aria-expanded") == "true"
    cards = page.eval_on_selector_all(
        "[data-last] [data-card]", "els => els.map(e => e.dataset.card)"
    )
    previous = state["public"]["last_trick"]
    assert cards == [code for _, code in previous["plays"]]
    assert previous == state["view"]["tricks"][-1]
    winner = previous["winner"]
    assert page.get_attribute("[data-last] .ht-play.winner", "data-seat") == str(winner)
    axe.check(page, "Hearts last trick")
    page.keyboard.press("Escape")
    assert page.is_hidden("[data-last]")
    assert page.evaluate("document.activeElement.dataset.lastOpen !== undefined")


def test_the_pass_arrow_points_at_the_receiver(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)  # the first hand passes to the left
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    page.set_viewport_size({"width": 360, "height": 740})
    open_table(page, server, fake)
    page.wait_for_selector("[data-arrow]:not([hidden])")
    assert page.inner_text("[data-arrow]").endswith("Budi")
    turn = page.eval_on_selector(
        "[data-arrow] .ht-arrow-glyph",
        "e => { const m = new DOMMatrix(getComputedStyle(e).transform);"
        " return Math.atan2(m.b, m.a); }",
    )
    arrow = page.locator("[data-arrow] .ht-arrow-glyph").bounding_box()
    plates = centres(page, ".ht-seat")
    ax, ay = arrow["x"] + arrow["width"] / 2, arrow["y"] + arrow["height"] / 2
    towards = {s: math.atan2(y - ay, x - ax) for s, (x, y) in plates.items()}
    aimed = min(towards, key=lambda s: abs(math.remainder(towards[s] - turn, 2 * math.pi)))
    assert aimed == 1  # Budi, on the left


def trick_change(page: Any, fake: FakeHearts, match: Match) -> None:
    """Another seat plays a card (pushed), and the page draws it."""
    seat = match.hand.to_play
    assert seat is not None and seat != 0
    match.play(seat, match.hand.legal_plays(seat)[0])
    fake.push(hearts_state(match, view_seat=0, version=3))
    page.wait_for_function("() => document.querySelector('[data-hearts]').dataset.version === '3'")


@pytest.mark.parametrize("reduced", [False, True])
def test_a_card_slides_in_unless_motion_is_reduced(
    page: Any, server: ServerProcess, reduced: bool
) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    pass_all(match)
    while match.hand.to_play == 0:  # someone else plays next
        match.play(0, match.hand.legal_plays(0)[0])
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=2)])
    open_table(page, server, fake)
    trick_change(page, fake, match)
    running = page.evaluate(
        "() => document.getAnimations().filter(a => a.playState === 'running').length"
    )
    transitions = page.evaluate(
        "() => [...document.querySelectorAll('.ht *')].filter(e => {"
        " const s = getComputedStyle(e); return parseFloat(s.transitionDuration) > 0"
        " && e.closest('[data-felt], [data-hand]'); }).length"
    )
    if reduced:
        assert running == 0 and transitions == 0, (running, transitions)
    else:
        assert running > 0  # the same change, with motion: the card travels


@pytest.mark.parametrize("lang", ["id", "en"])
def test_the_variant_comes_first_and_the_intro_describes_it(
    page: Any, server: ServerProcess, lang: i18n.Lang
) -> None:
    page.route_web_socket("**/ws", FakeHearts().route)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{server.url}/hearts?lang={lang}")
    variant = page.locator("fieldset.hs-variant").bounding_box()
    modes = page.locator('[data-mode="computer"]').bounding_box()
    assert variant["y"] + variant["height"] <= modes["y"]  # the variant, then how to play
    intro = page.locator("[data-intro]")
    assert intro.inner_text() == " ".join(
        [i18n.translate(lang, "hsetup.intro.standard"),
         i18n.translate(lang, "hsetup.intro.target", target=100)]
    )  # fmt: skip
    page.check('input[value="black-maria"]')
    assert intro.inner_text().startswith(i18n.translate(lang, "hsetup.intro.black-maria"))
    page.check('input[value="cancellation"]')
    page.select_option("[data-players-select]", "8")
    assert intro.inner_text().startswith(i18n.translate(lang, "hsetup.intro.cancellation", n=8))
    page.click("[data-rules] summary")
    page.fill('input[name="target"]', "50")
    assert intro.inner_text().endswith(i18n.translate(lang, "hsetup.intro.target", target=50))


def test_the_led_mark_reads_as_a_label(page: Any, server: ServerProcess) -> None:
    match = my_turn("standard", 4)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    page.set_viewport_size({"width": 1280, "height": 800})
    open_table(page, server, fake)
    leader = match.hand.trick.leader if match.hand.trick else None
    mark = page.locator(f'.ht-seat[data-seat="{leader}"] .ht-tag.leads')
    assert mark.inner_text() == "◆ membuka"
    style = mark.evaluate(
        "e => { const s = getComputedStyle(e);"
        " return [s.backgroundColor, s.borderTopWidth, s.borderRadius, s.cursor]; }"
    )
    assert style == ["rgba(0, 0, 0, 0)", "0px", "0px", "auto"], style


def last_to_play(preset: str, players: int) -> Match:
    """A match of ``preset`` where seat 0 plays the last card of a trick: every other seat's
    card is on the felt."""
    for seed in range(50):
        match = Match.new(rules_of(preset, players), seed)
        if match.hand.phase == "pass":
            pass_all(match)
        hand = match.hand
        while hand.phase == "play":
            seat = hand.to_play
            assert seat is not None
            trick = hand.trick
            if seat == 0 and trick is not None and len(trick.plays) == players - 1:
                return match
            match.play(seat, hand.legal_plays(seat)[0])
    raise AssertionError("no seed found")


def boxes_of(
    page: Any, selector: str, inner: str | None = None
) -> dict[int, tuple[float, float, float, float]]:
    """The box (left, top, right, bottom) of each element's ``inner`` part, by its seat."""
    found: list[list[float]] = page.eval_on_selector_all(
        selector,
        "(els, inner) => els.map(e => {"
        " const r = (inner ? e.querySelector(inner) : e).getBoundingClientRect();"
        " return [Number(e.dataset.seat), r.left, r.top, r.right, r.bottom]; })",
        inner,
    )
    return {int(seat): (left, top, right, bottom) for seat, left, top, right, bottom in found}


def overlaps(
    plates: dict[int, tuple[float, float, float, float]],
    cards: dict[int, tuple[float, float, float, float]],
) -> list[str]:
    """Each plate a card of the trick covers (by more than a pixel each way)."""
    found = []
    for seat, card in cards.items():
        for other, plate in plates.items():
            across = min(card[2], plate[2]) - max(card[0], plate[0])
            down = min(card[3], plate[3]) - max(card[1], plate[1])
            if across > 1 and down > 1:
                found.append(f"seat {seat}'s card covers plate {other} by {across:.0f}×{down:.0f}")
    return found


LANDSCAPE_TABLES: list[tuple[str, int]] = [
    ("three", 3),
    ("standard", 4),
    ("five", 5),
    ("cancellation", 6),
    ("cancellation", 10),
]


@pytest.mark.parametrize("width, height", [(568, 320), (740, 360)])
@pytest.mark.parametrize(
    "preset, players", LANDSCAPE_TABLES, ids=[f"{p}-{n}" for p, n in LANDSCAPE_TABLES]
)
def test_on_a_phone_on_its_side_the_trick_covers_no_plate(
    page: Any, server: ServerProcess, preset: str, players: int, width: int, height: int
) -> None:
    """A phone held sideways: the cards of a full trick (every other seat's, then this seat's
    own as it is tapped) lie in the middle clear of every name plate, and the whole hand is on
    the first screen while it is this seat's turn."""
    page.set_viewport_size({"width": width, "height": height})
    match = last_to_play(preset, players)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [state_of(match, preset, view_seat=0)])
    fake.on("hearts.play", lambda f: [])  # no answer yet: the card waits in the trick
    open_table(page, server, fake, lang="id")
    page.wait_for_selector(".ht-hand .hc.legal")
    plates = boxes_of(page, ".ht-seat")
    cards = boxes_of(page, "[data-trick] .ht-play", ".hc")
    assert len(plates) == players and len(cards) == players - 1
    assert not overlaps(plates, cards), overlaps(plates, cards)
    assert page.evaluate("window.scrollY") == 0
    hand = page.eval_on_selector_all(
        ".ht-hand [data-card]",
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })",
    )
    assert len(hand) == len(match.hand.view(0).hand)
    for left, top, right, bottom in hand:
        assert left >= 0 and right <= width and top >= 0 and bottom <= height, (left, bottom)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # this seat's card joins the trick at once, below the middle, clear of its own plate too
    tap(page, match.hand.legal_plays(0)[0].code)
    page.wait_for_function(
        "n => document.querySelectorAll('[data-trick] .ht-play .hc').length === n", arg=players
    )
    # where it lies once it has slid in
    page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')")
    cards = boxes_of(page, "[data-trick] .ht-play", ".hc")
    assert not overlaps(plates, cards), overlaps(plates, cards)


@pytest.mark.parametrize("width", [320, 360])
def test_a_dropped_friends_tall_plate_pushes_no_plate_onto_another(
    page: Any, server: ServerProcess, width: int
) -> None:
    """Online, a friend who dropped out has a tall plate on a phone (the "a computer plays"
    badge and the host's "hand over" button): each plate is placed by its own size, so the
    plate across from the bottom one stays clear of it and all stay on the felt."""
    match = Match.new(Rules.preset("standard"), 7)
    info = seats(4, ["human", "human", "computer", "computer"])
    info[1]["connected"] = False
    info[1]["away"] = True
    fake = FakeHearts()
    fake.on(
        "hearts.open",
        lambda f: [hearts_state(match, view_seat=0, mode="online", seat_info=info)],
    )
    page.set_viewport_size({"width": width, "height": 568})
    open_table(page, server, fake)
    page.wait_for_selector('.ht-seat[data-seat="1"] [data-free="1"]')
    plates = boxes_of(page, ".ht-seat")
    felt = felt_box(page)
    assert plates[1][3] - plates[1][1] > plates[2][3] - plates[2][1] + 40  # the tall one
    for seat, (left, top, right, bottom) in plates.items():
        assert left >= felt["x"] and right <= felt["x"] + felt["width"] + 1, seat
        assert top >= felt["y"] and bottom <= felt["y"] + felt["height"] + 1, seat
    for seat, plate in plates.items():
        others = {s: b for s, b in plates.items() if s != seat}
        assert not overlaps(others, {seat: plate}), overlaps(others, {seat: plate})
    # this seat's plate at the foot of the felt and the one across at its head, as with
    # plates of one size, and the pass arrow between them uncovered
    assert plates[0][3] >= felt["y"] + felt["height"] - 12, (plates[0], felt)
    assert plates[2][1] <= felt["y"] + 12, (plates[2], felt)
    box = page.locator("[data-arrow]").bounding_box()
    arrow = {-1: (box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"])}
    assert page.is_visible("[data-arrow]") and not overlaps(plates, arrow), overlaps(plates, arrow)
    axe.check(page, "Hearts online table, a dropped friend")
