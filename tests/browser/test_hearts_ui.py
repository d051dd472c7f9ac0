"""The Hearts pages in a real browser, against a fake Hearts service on /ws (hearts_fake.py).

The real site serves the pages; Playwright's ``route_web_socket`` takes the page's /ws
connection and answers it with ``hearts.state`` messages built from the real engine, so these
tests need no Hearts server: they check what the page draws and which frames it sends.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from heartsuit import i18n
from heartsuit.cards import Card
from heartsuit.hearts import Match, Rules
from heartsuit.hearts.actions import Play
from heartsuit.hearts.bots import LEVELS
from heartsuit.server.hearts.frames import PATCHED_FIELDS
from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.hearts_fake import FakeHearts, hearts_state, pass_all, seats

pytestmark = pytest.mark.browser

HAND = ".ht-hand [data-card]"
FACES = {"J", "Q", "K", "A"}


def spoken(lang: i18n.Lang, code: str) -> str:
    rank, suit = code[:-1], code[-1]
    name = i18n.translate(lang, f"hcard.rank.{rank}") if rank in FACES else rank
    return i18n.translate(
        lang, "hcard.name", rank=name, suit=i18n.translate(lang, f"hcard.suit.{suit}")
    )


def open_table(
    page: Any,
    server: ServerProcess,
    fake: FakeHearts,
    tokens: dict[str, str] | None = None,
    lang: str = "id",
) -> None:
    page.route_web_socket("**/ws*", fake.route)
    kept = json.dumps(tokens if tokens is not None else {"0": "tok0"})
    page.evaluate("t => localStorage.setItem('heartsuit.hearts.T1', t)", kept)
    page.goto(f"{server.url}/hearts/table/T1?lang={lang}")
    page.wait_for_selector('[data-hearts][aria-busy="false"]')


def seq(page: Any) -> int:
    return int(page.get_attribute("[data-hearts]", "data-seq") or 0)


def wait_seq(page: Any, after: int) -> None:
    page.wait_for_function(
        "n => Number(document.querySelector('[data-hearts]').dataset.seq) > n", arg=after
    )


def tap(page: Any, code: str, *, force: bool = False) -> None:
    """Tap a card of the hand where it shows when cards overlap: its top-left corner.
    ``force`` for a card marked aria-disabled, which Playwright would refuse to click."""
    page.click(f'.ht-hand [data-card="{code}"]', position={"x": 6, "y": 12}, force=force)


def hand_codes(page: Any) -> list[str]:
    codes: list[str] = page.eval_on_selector_all(HAND, "els => els.map(e => e.dataset.card)")
    return codes


def seat_to_lead(seat: int = 0) -> Match:
    """A standard match, passes done, where ``seat`` holds the 2♣ and so leads."""
    for seed in range(200):
        match = Match.new(Rules.preset("standard"), seed)
        pass_all(match)
        if match.hand.to_play == seat:
            return match
    raise AssertionError("no seed found")


def test_the_hand_is_sorted_by_suit_with_spoken_labels(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    open_table(page, server, fake)
    opened = fake.wait_for(page, "hearts.open")
    assert opened["table"] == "T1" and opened["tokens"] == ["tok0"]
    codes = hand_codes(page)
    view = match.hand.view(0)
    assert codes == [c.code for c in view.hand] and len(codes) == 13
    suits = [c[-1] for c in codes]
    assert all(
        suits.index(s) + suits.count(s) - 1 == len(suits) - 1 - suits[::-1].index(s) for s in suits
    )
    labels = page.eval_on_selector_all(HAND, "els => els.map(e => e.getAttribute('aria-label'))")
    assert labels == [spoken("id", c) for c in codes]
    assert page.inner_text("[data-status]") == "Pilih 3 kartu untuk dioper"
    assert page.inner_text("[data-prompt]") == "Oper 3 kartu ke kiri, kepada Budi"
    assert i18n.translate("id", "hcard.name", rank="Ratu", suit="sekop") == "Ratu sekop"


def test_three_cards_chosen_enable_pass_and_are_sent_with_the_version(
    page: Any, server: ServerProcess
) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=4)])

    def passed(frame: dict[str, Any]) -> list[dict[str, Any]]:
        pass_all(match, frame["cards"])
        return [hearts_state(match, view_seat=0, version=5, events=[{"type": "passes_exchanged"}])]

    fake.on("hearts.pass", passed)
    open_table(page, server, fake)
    button = page.locator("[data-pass]")
    codes = hand_codes(page)
    chosen = [codes[0], codes[5], codes[12]]
    for n, code in enumerate(chosen):
        assert button.is_disabled()
        tap(page, code)
        assert page.get_attribute(f'.ht-hand [data-card="{code}"]', "aria-pressed") == "true"
        assert button.inner_text() == f"Oper ({n + 1}/3)"
    assert button.is_enabled()
    tap(page, codes[7])  # a fourth is refused, in words
    assert page.is_visible("[data-reason]")
    assert page.get_attribute(f'.ht-hand [data-card="{codes[7]}"]', "aria-pressed") == "false"
    before = seq(page)
    button.click()
    frame = fake.wait_for(page, "hearts.pass")
    assert sorted(frame["cards"]) == sorted(chosen)
    assert frame["version"] == 4 and frame["token"] == "tok0" and frame["table"] == "T1"
    wait_seq(page, before)
    received = page.eval_on_selector_all(
        ".ht-hand .hc.received", "els => els.map(e => e.dataset.card)"
    )
    assert sorted(received) == sorted(c.code for c in match.hand.view(0).received)
    assert len(received) == 3
    assert all(c not in hand_codes(page) for c in chosen)


def test_a_legal_card_is_in_the_trick_before_the_answer_and_a_refusal_puts_it_back(
    page: Any, server: ServerProcess
) -> None:
    """A tap on a legal card moves it to the trick in the same moment (no round trip: a phone's
    is 150 ms or more); the server's answer then redraws the table, and a refusal puts the card
    back in the hand with its reason."""
    match = seat_to_lead(0)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=9)])
    answers: list[str] = []

    def answer(frame: dict[str, Any]) -> list[dict[str, Any]]:
        answers.append(frame["card"])
        if len(answers) == 1:  # refused (another tab moved first, say): nothing changed
            refusal = {"type": "error", "code": "illegal", "message": "no"}
            return [{**refusal, "reason": "not_your_turn"}]
        match.play(0, Card.parse(frame["card"]))
        return [hearts_state(match, view_seat=0, version=10)]

    fake.on("hearts.play", answer)
    open_table(page, server, fake, lang="en")
    # the click and the look in one task of the page: nothing from the server can come between
    drawn = page.evaluate(
        """code => {
          document.querySelector(`.ht-hand [data-card="${code}"]`).click();
          return [
            Boolean(document.querySelector(`.ht-trick [data-card="${code}"]`)),
            Boolean(document.querySelector(`.ht-hand [data-card="${code}"]`)),
          ];
        }""",
        "2C",
    )
    assert drawn == [True, False]
    # refused: the card is back in the hand, out of the trick, with the engine's reason
    page.wait_for_selector('.ht-hand [data-card="2C"]')
    assert page.locator('.ht-trick [data-card="2C"]').count() == 0
    assert page.inner_text("[data-reason]") == i18n.translate("en", "hearts.reason.not_your_turn")
    # played again and taken: the server's state is drawn
    before = seq(page)
    tap(page, "2C")
    wait_seq(page, before)
    assert answers == ["2C", "2C"]
    assert "2C" not in hand_codes(page)
    assert page.locator('.ht-trick [data-card="2C"]').count() == 1


def test_an_illegal_card_says_why_and_a_stale_play_draws_the_fresh_state(
    page: Any, server: ServerProcess
) -> None:
    match = seat_to_lead(0)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=9)])

    def stale(frame: dict[str, Any]) -> list[dict[str, Any]]:
        match.play(0, Card.parse(frame["card"]))
        fresh = hearts_state(match, view_seat=0, version=11)
        return [{"type": "error", "code": "stale", "message": "stale", "state": fresh}]

    fake.on("hearts.play", stale)
    open_table(page, server, fake, lang="en")
    illegal = page.locator(".ht-hand .hc.illegal")
    assert illegal.count() == 12
    assert illegal.first.get_attribute("aria-disabled") == "true"
    assert "cannot be played now" in (illegal.first.get_attribute("aria-label") or "")
    # dimmed but opaque, and marked by more than colour
    assert page.eval_on_selector(".hc.illegal", "e => getComputedStyle(e).opacity") == "1"
    assert (
        page.eval_on_selector(
            ".hc.illegal .hc-badge", "e => getComputedStyle(e, '::before').content"
        )
        == '"⊘"'
    )
    tap(page, illegal.first.get_attribute("data-card") or "", force=True)
    assert page.inner_text("[data-reason]") == i18n.translate(
        "en", "hearts.reason.must_lead_opening_card"
    )
    assert page.inner_text("[data-status]") == "Your turn: lead this trick"
    before = seq(page)
    tap(page, "2C")
    frame = fake.wait_for(page, "hearts.play")
    assert frame["card"] == "2C" and frame["version"] == 9
    wait_seq(page, before)
    assert page.inner_text("[data-reason]") == i18n.translate("en", "hearts.err.stale")
    assert "2C" not in hand_codes(page)
    assert page.locator('.ht-trick [data-card="2C"]').count() == 1
    # a computer's card arrives as a push and is announced politely
    nxt = match.hand.to_play
    assert nxt is not None
    match.play(nxt, match.hand.legal_plays(nxt)[0])
    before = seq(page)
    fake.push(
        hearts_state(
            match,
            view_seat=0,
            version=12,
            events=[
                {"type": "played", "seat": nxt, "card": match.hand.view(0).trick.plays[-1][1].code}  # type: ignore[union-attr]
            ],
        )
    )
    wait_seq(page, before)
    assert page.locator(".ht-trick [data-card]").count() == 2
    assert page.inner_text("[data-live]").startswith(
        f"{['Ana', 'Budi', 'Citra', 'Dedi'][nxt]} plays "
    )


def test_same_device_cover_keeps_the_cards_out_of_the_page(
    page: Any, server: ServerProcess
) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    info = seats(4, ["human", "human", "computer", "computer"])
    common: dict[str, Any] = {"mode": "hotseat", "you": [0, 1], "seat_info": info}
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=None, **common)])
    fake.on("hearts.look", lambda f: [hearts_state(match, view_seat=0, version=2, **common)])

    def passed(frame: dict[str, Any]) -> list[dict[str, Any]]:
        match.pass_cards(0, [Card.parse(c) for c in frame["cards"]])
        return [hearts_state(match, view_seat=None, version=3, **common)]

    fake.on("hearts.pass", passed)
    open_table(page, server, fake, tokens={"0": "tok0", "1": "tok1"})
    assert page.is_visible("[data-cover]")
    assert page.inner_text("#cover-title") == "Berikan perangkat kepada Ana"
    assert page.locator("[data-card]").count() == 0
    screenshot(page, "hearts-cover-360" if page.viewport_size["width"] < 600 else "hearts-cover")
    page.click("[data-look]")
    assert fake.wait_for(page, "hearts.look")["token"] == "tok0"
    page.wait_for_selector(HAND)
    assert not page.is_visible("[data-cover]")
    for code in hand_codes(page)[:3]:
        tap(page, code)
    page.click("[data-pass]")
    assert fake.wait_for(page, "hearts.pass")["token"] == "tok0"
    page.wait_for_selector("[data-cover]:not([hidden])")
    assert page.inner_text("#cover-title") == "Berikan perangkat kepada Budi"
    assert page.locator("[data-card]").count() == 0


def test_score_sheet_moon_and_match_over_with_rematch(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    sheet = {
        "hands": [[3, 0, 23, 0], [0, 26, 26, 26]],
        "totals": [[3, 0, 23, 0], [3, 26, 49, 26]],
        "shooters": [None, 0],
        # how each moon scored, as the server sends it (the table's rule here)
        "moons": [None, "others_plus_26"],
    }
    events: list[dict[str, Any]] = [
        {"type": "hand_done", "hand_number": 1, "points": [0, 26, 26, 26], "shooter": 0},
        {"type": "match_over", "winners": [0]},
    ]
    fake = FakeHearts()
    fake.on(
        "hearts.open",
        lambda f: [
            hearts_state(
                match,
                view_seat=None,
                status="over",
                version=30,
                sheet=sheet,
                over={"winners": [0]},
                events=events,
            )
        ],
    )
    fake.on(
        "hearts.rematch",
        lambda f: [hearts_state(Match.new(Rules.preset("standard"), 8), view_seat=0, version=31)],
    )
    open_table(page, server, fake)
    assert page.locator(".ht-sheet-table tbody tr").count() == 2
    assert page.inner_text(
        ".ht-sheet-table tbody tr:nth-child(2) td:nth-of-type(1) .pts"
    ).startswith("☾")
    assert page.inner_text(".ht-sheet-table tfoot td:nth-of-type(1)") == "★ 3"
    assert page.inner_text("[data-over-title]") == "Ana menang!"
    summary = page.inner_text("[data-summary]")
    assert "Ana menembak bulan!" in summary
    # the moon's line says it once, then how it scored (the table's rule)
    assert summary.count("menembak bulan") == 1 and "Skornya: yang lain +26." in summary
    assert "Ana menembak bulan!" in page.inner_text("[data-live]")
    screenshot(page, "hearts-over")
    page.click("[data-rematch]")
    assert fake.wait_for(page, "hearts.rematch")["token"] == "tok0"
    page.wait_for_selector(HAND)
    assert not page.is_visible("[data-over]")
    assert len(hand_codes(page)) == 13


def test_the_four_colour_deck_is_a_remembered_choice(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    open_table(page, server, fake)
    colour = "s => getComputedStyle(document.querySelector(`.ht-hand [data-suit='${s}']`)).color"
    assert page.evaluate(colour, "D") == page.evaluate(colour, "H")
    assert "four-colour" not in (page.get_attribute("body", "class") or "")
    page.check("[data-four-colour]")
    assert "four-colour" in (page.get_attribute("body", "class") or "")
    assert page.evaluate(colour, "D") != page.evaluate(colour, "H")
    assert page.evaluate(colour, "C") != page.evaluate(colour, "S")
    page.reload()
    page.wait_for_selector(HAND)
    assert page.is_checked("[data-four-colour]")
    assert "four-colour" in (page.get_attribute("body", "class") or "")


def test_keyboard_moves_over_the_hand_and_reconnecting_reopens_with_the_version(
    page: Any, server: ServerProcess
) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=6)])
    open_table(page, server, fake)
    page.focus('.ht-hand [tabindex="0"]')
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    second = hand_codes(page)[1]
    assert page.get_attribute(f'.ht-hand [data-card="{second}"]', "aria-pressed") == "true"
    assert page.evaluate("document.activeElement.dataset.card") == second
    page.keyboard.press("End")
    page.keyboard.press(" ")
    assert page.get_attribute(".ht-hand [data-card]:last-child", "aria-pressed") == "true"
    fake.sockets[-1].close()
    reopened = fake.wait_for(page, "hearts.open", 2)
    assert reopened["version"] == 6 and reopened["tokens"] == ["tok0"]


def test_the_online_lobby_invites_starts_and_frees_seats(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    info = seats(4, ["human", "human", "open", "computer"])
    info[1]["connected"] = False
    lobby: dict[str, Any] = {
        "mode": "online",
        "status": "lobby",
        "seat_info": info,
        "invite": "ABCD2345",
    }
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=None, **lobby)])
    fake.on("hearts.free", lambda f: [hearts_state(match, view_seat=None, version=2, **lobby)])
    fake.on("hearts.start", lambda f: [hearts_state(match, view_seat=0, version=3, mode="online")])
    page.set_viewport_size({"width": 360, "height": 740})
    open_table(page, server, fake)
    assert page.input_value("[data-invite-url]") == f"{server.url}/hearts/join/ABCD2345"
    assert page.input_value("[data-invite-code]") == "ABCD2345"
    assert page.locator('[data-lobby-seats] [data-kind="open"]').count() == 1
    screenshot(page, "hearts-lobby-360")
    # before the start a freed seat becomes empty, so the button says so
    assert page.inner_text('[data-lobby-seats] [data-free="1"]') == "Kosongkan kursi"
    page.click('[data-lobby-seats] [data-free="1"]')
    assert fake.wait_for(page, "hearts.free")["seat"] == 1
    page.click("[data-lobby] [data-start]")
    assert fake.wait_for(page, "hearts.start")["token"] == "tok0"
    page.wait_for_selector(HAND)
    assert not page.is_visible("[data-lobby]")


def test_during_a_match_freeing_a_seat_hands_it_to_the_computer(
    page: Any, server: ServerProcess
) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    info = seats(4, ["human", "human", "computer", "computer"])
    info[1]["connected"] = False
    info[1]["away"] = True
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, mode="online",
                                                   seat_info=info)])
    page.set_viewport_size({"width": 320, "height": 640})
    open_table(page, server, fake)
    free = page.locator('.ht-seat[data-seat="1"] [data-free="1"]')
    assert free.inner_text() == "Serahkan ke komputer"
    screenshot(page, "hearts-free-seat-playing-320")
    free.click()
    assert fake.wait_for(page, "hearts.free")["seat"] == 1


def test_joining_from_an_invite_takes_a_free_seat(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    info = seats(4, ["human", "open", "open", "computer"])
    fake = FakeHearts()
    fake.on(
        "hearts.invite",
        lambda f: [
            {
                "type": "hearts.lobby",
                "table": "T1",
                "seats": info,
                "status": "lobby",
                "preset": "standard",
                "hints": False,
            }
        ],
    )
    fake.on(
        "hearts.sit",
        lambda f: [{"type": "hearts.seated", "table": "T1", "seat": f["seat"], "token": "tok1"}],
    )
    fake.on(
        "hearts.open",
        lambda f: [
            hearts_state(
                match,
                view_seat=None,
                you=[1],
                mode="online",
                status="lobby",
                host=False,
                seat_info=info,
                invite="ABCD2345",
            )
        ],
    )
    page.route_web_socket("**/ws*", fake.route)
    page.goto(f"{server.url}/hearts/join/ABCD2345?lang=en")
    page.wait_for_selector('[data-hjoin][aria-busy="false"]')
    assert fake.wait_for(page, "hearts.invite")["invite"] == "ABCD2345"
    assert page.locator("[data-join-seats] input:not([disabled])").count() == 2
    page.fill("[data-join-name]", "  Rina ")
    page.click("[data-join-submit]")
    sit = fake.wait_for(page, "hearts.sit")
    assert sit == {**sit, "table": "T1", "seat": 1, "name": "Rina"}
    page.wait_for_url("**/hearts/table/T1")
    assert fake.wait_for(page, "hearts.open")["tokens"] == ["tok1"]
    page.wait_for_selector("[data-lobby]:not([hidden])")
    assert page.is_visible("[data-lobby-wait]")


@pytest.mark.parametrize(
    ("lang", "preset", "players", "hints"),
    [("id", "cancellation", 7, True), ("en", "black-maria", 3, False), ("id", "five", 5, False)],
)
def test_the_join_page_shows_the_tables_options(
    page: Any, server: ServerProcess, lang: i18n.Lang, preset: str, players: int, hints: bool
) -> None:
    """A friend sees what they are joining before they sit: the variant, how many play, and
    whether hints are allowed (the lobby's ``hints``), in the page's language."""
    info = seats(players, ["human"] + ["open"] * (players - 1))
    lobby = {
        "type": "hearts.lobby",
        "table": "T1",
        "seats": info,
        "status": "lobby",
        "preset": preset,
        "hints": hints,
    }
    fake = FakeHearts()
    fake.on("hearts.invite", lambda f: [lobby])
    page.set_viewport_size({"width": 320, "height": 640})
    page.route_web_socket("**/ws*", fake.route)
    page.goto(f"{server.url}/hearts/join/ABCD2345?lang={lang}")
    page.wait_for_selector('[data-hjoin][aria-busy="false"]')
    box = page.locator("[data-join-table]")
    assert box.is_visible()
    assert box.locator("h2").inner_text() == i18n.translate(lang, "hjoin.table")
    assert box.locator("[data-join-variant]").inner_text() == i18n.translate(
        lang, f"hearts.preset.{preset}"
    )
    assert box.locator("[data-join-players]").inner_text() == str(players)
    said = box.locator("[data-join-hints]").inner_text()
    assert said == i18n.translate(lang, "hjoin.hints_on" if hints else "hjoin.hints_off")
    assert said != i18n.translate(lang, "hjoin.hints_off" if hints else "hjoin.hints_on")
    # the options come before the name and the seats, and nothing runs off the side
    assert box.bounding_box()["y"] < page.locator("[data-join-name]").bounding_box()["y"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    axe.check(page, f"the join page's options, {lang}")
    screenshot(page, f"hearts-join-options-{lang}-{preset}-320")


def test_two_taps_from_home_to_a_dealt_hand(page: Any, server: ServerProcess) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    fake = FakeHearts()
    created = {
        "type": "hearts.created",
        "table": "T1",
        "tokens": [{"seat": 0, "token": "tok0"}],
        "invite": None,
        "invite_url": None,
    }
    fake.on("hearts.create", lambda f: [created, hearts_state(match, view_seat=0)])
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    fake.on("solitaire.resume", lambda f: [{"type": "solitaire.state", "game": None}])
    page.route_web_socket("**/ws*", fake.route)
    page.goto(f"{server.url}/?lang=en")
    page.click("[data-hearts-play]")
    page.click('[data-mode="computer"]')
    page.wait_for_url("**/hearts/table/T1")
    page.wait_for_selector(HAND)
    create = fake.wait_for(page, "hearts.create")
    assert create["mode"] == "computer" and create["preset"] == "standard"
    assert [s["kind"] for s in create["seats"]] == ["human", "computer", "computer", "computer"]
    assert {s.get("level") for s in create["seats"][1:]} == {"normal"}
    assert create["options"]["passing"] is True and "players" not in create
    assert page.evaluate("localStorage.getItem('heartsuit.hearts.last')") == "T1"


def test_more_options_disable_what_a_preset_decides(page: Any, server: ServerProcess) -> None:
    fake = FakeHearts()
    page.route_web_socket("**/ws*", fake.route)
    page.goto(f"{server.url}/hearts?lang=en")
    page.click("[data-rules] summary")  # the rule options, under the variant
    page.click("[data-more] summary")
    assert page.is_disabled("[data-players-select]")
    assert page.is_disabled("#opt-spade_penalties")
    assert page.inner_text('[data-why="spade_penalties"]') == "Black Maria only."
    page.check('input[value="cancellation"]')
    assert page.is_enabled("[data-players-select]") and page.is_disabled("#opt-passing")
    assert not page.is_checked("#opt-passing")
    page.select_option("[data-players-select]", "10")
    assert page.locator("[data-levels] select").count() == 9
    assert page.eval_on_selector_all(
        "[data-levels] select option", "os => [...new Set(os.map(o => o.value))]"
    ) == list(LEVELS)
    page.fill("[data-code]", "HE1-B-AAAAAAM")
    assert page.is_checked('input[value="black-maria"]') and page.is_enabled("#opt-spade_penalties")
    assert page.locator("[data-levels] select").count() == 2
    page.fill("[data-code]", "HE1-Q")
    assert page.get_attribute("[data-code]", "aria-invalid") == "true"


def _cancellation_ten() -> Match:
    match = Match.new(Rules.preset("cancellation", players=10), 3)
    hand = match.hand
    while hand.to_play != 0 or hand.trick is None or len(hand.trick.plays) < 4:
        seat = hand.to_play
        assert seat is not None
        match.play(seat, hand.legal_plays(seat)[0])
    return match


def test_ten_seat_cancellation_fits_a_phone(page: Any, server: ServerProcess) -> None:
    match = _cancellation_ten()
    fake = FakeHearts()
    fake.on(
        "hearts.open",
        lambda f: [hearts_state(match, view_seat=0, preset="cancellation", seat_info=seats(10))],
    )
    page.set_viewport_size({"width": 360, "height": 740})
    open_table(page, server, fake)
    assert page.locator(".ht-seats [data-seat]").count() == 9 + 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    boxes = page.eval_on_selector_all(HAND, "els => els.map(e => e.getBoundingClientRect().right)")
    assert max(boxes) <= 360
    screenshot(page, "hearts-cancellation10-360")


def _mid_trick() -> Match:
    for seed in range(200):
        match = Match.new(Rules.preset("standard"), seed)
        pass_all(match)
        hand = match.hand
        while hand.to_play != 0:
            seat = hand.to_play
            assert seat is not None
            match.play(seat, hand.legal_plays(seat)[-1])
        if hand.trick is not None and len(hand.trick.plays) == 2:
            return match
    raise AssertionError("no seed found")


@pytest.mark.parametrize("width", [360, 1280])
def test_pages_fit_and_are_screenshotted(page: Any, server: ServerProcess, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 740 if width < 600 else 800})
    match = _mid_trick()
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0)])
    open_table(page, server, fake)
    checks = {"table": None}
    for name in checks:
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name
    screenshot(page, f"hearts-table-{width}")
    # 200% text size: everything still fits the width and nothing overlaps (looked at)
    double = "document.documentElement.style.fontSize = document.body.style.fontSize = '32px'"
    page.evaluate(double)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"hearts-table-{width}-text200")
    page.evaluate("document.documentElement.style.fontSize = document.body.style.fontSize = ''")
    pass_match = Match.new(Rules.preset("standard"), 7)
    fake.push(hearts_state(pass_match, view_seat=0, version=40))
    page.wait_for_selector(".ht-hand.passing")
    for code in hand_codes(page)[:2]:
        tap(page, code)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    screenshot(page, f"hearts-pass-{width}")
    for path, name in (("/hearts", "setup"), ("/hearts/rules", "rules")):
        page.goto(f"{server.url}{path}")
        if name == "setup":
            page.click('[data-mode="hotseat"]')
            page.click("[data-more] summary")
        assert page.evaluate("document.documentElement.scrollWidth") <= width, name
        screenshot(page, f"hearts-{name}-{width}")


def test_the_shooter_chooses_how_the_moon_scores_and_everyone_sees_it(
    page: Any, server: ServerProcess
) -> None:
    from tests.browser.hearts_states import moon, open_state
    from tests.test_hearts_moon import SHOOTER

    # the shooter's screen: two choices, with the totals each one leads to
    fake = open_state(page, server, "moon-choice", "en")
    assert fake is not None
    assert page.inner_text("[data-status]") == "You shot the moon: choose how it scores"
    assert page.is_visible("#moon-title") and page.locator(HAND).count() == 0
    buttons = page.locator("[data-moon-choice]")
    assert buttons.count() == 2
    assert buttons.nth(0).inner_text().split("\n") == [
        "Everyone else +26",
        "Your total 0 · lowest other 26",
    ]
    assert buttons.nth(1).inner_text().split("\n") == ["You −26", "Your total -26 · lowest other 0"]
    assert page.evaluate("document.activeElement.dataset.moonChoice") == "others_plus_26"
    assert "▶ choosing" in page.inner_text(f'.ht-seat[data-seat="{SHOOTER}"]')
    screenshot(page, "hearts-moon-choice-360")
    match = moon()

    def chosen(frame: dict[str, Any]) -> list[dict[str, Any]]:
        events = [e.to_dict() for e in match.choose_moon(SHOOTER, frame["choice"])]
        sheet = {
            "hands": [list(line.points) for line in match.score_sheet()],
            "totals": [list(line.totals) for line in match.score_sheet()],
            "shooters": [SHOOTER],
            "moons": [frame["choice"]],
        }
        return [hearts_state(match, view_seat=SHOOTER, you=[SHOOTER], sheet=sheet,
                             events=events, version=61)]  # fmt: skip

    fake.on("hearts.moon", chosen)
    page.click('[data-moon-choice="self_minus_26"]')
    frame = fake.wait_for(page, "hearts.moon")
    assert frame == {**frame, "table": "T1", "token": f"tok{SHOOTER}", "choice": "self_minus_26"}
    assert frame["version"] == 1
    page.wait_for_selector("[data-moon]", state="hidden")
    assert "You chose: the shooter −26." in page.inner_text("[data-summary]")
    assert "You chose: the shooter −26" in page.inner_text("[data-live]")
    cell = page.locator(".ht-sheet-table tbody tr:nth-child(1) td").nth(SHOOTER)
    assert cell.get_attribute("title") == "shot the moon: the shooter −26"
    assert (cell.text_content() or "").startswith("☾ -26")


def test_others_wait_for_the_shooter_and_a_shared_device_asks_only_the_shooter(
    page: Any, server: ServerProcess
) -> None:
    from tests.browser.hearts_states import moon, open_state
    from tests.test_hearts_moon import SHOOTER

    open_state(page, server, "moon-wait", "id")
    assert page.inner_text("[data-status]") == (
        "Dedi menembak bulan dan sedang memilih cara menghitungnya"
    )
    assert not page.is_visible("[data-moon]")
    # a shared device: covered until the shooter asks to see; then only the shooter chooses
    match = moon()
    info = seats(4, ["human"] * 4)
    common: dict[str, Any] = {"mode": "hotseat", "you": [0, 1, 2, 3], "seat_info": info}
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=None, **common)])
    fake.on("hearts.look", lambda f: [hearts_state(match, view_seat=SHOOTER, version=2, **common)])
    open_table(page, server, fake, tokens={str(s): f"tok{s}" for s in range(4)}, lang="en")
    page.wait_for_selector("[data-cover]:not([hidden])")
    assert page.inner_text("#cover-title") == "Pass the device to Dedi"
    assert page.locator("[data-moon-choice]:visible").count() == 0
    page.click("[data-look]")
    assert fake.wait_for(page, "hearts.look")["token"] == f"tok{SHOOTER}"
    page.wait_for_selector("[data-moon]:not([hidden])")
    assert page.inner_text("[data-status]") == "You shot the moon: choose how it scores"


def test_a_screen_that_does_not_hold_the_seat_never_calls_it_you(
    page: Any, server: ServerProcess
) -> None:
    match = Match.new(Rules.preset("standard"), 7)
    info = seats(4, ["human", "human", "computer", "computer"])
    info[0]["name"] = ""  # the host gave no name
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=1, you=[1], seat_info=info)])
    open_table(page, server, fake, tokens={"1": "tok1"}, lang="en")
    match.pass_cards(1, match.hand.holdings[1][:3])
    fake.push(hearts_state(match, view_seat=1, you=[1], seat_info=info, version=2))
    page.wait_for_function(
        "() => document.querySelector('[data-status]').textContent.startsWith('Waiting for')"
    )
    status = page.inner_text("[data-status]")
    assert status == "Waiting for Seat 1, Citra, Dedi to pass", status
    # an older table named a creator who gave no name with the word itself: not "you" here
    named = [dict(info[0], name="You"), *info[1:]]
    before = seq(page)
    fake.push(hearts_state(match, view_seat=1, you=[1], seat_info=named, version=3))
    wait_seq(page, before)
    assert page.inner_text("[data-status]") == "Waiting for Seat 1, Citra, Dedi to pass"
    # a screen whose seat was taken over elsewhere holds no seat: nobody is "you" there
    before = seq(page)
    fake.push({"type": "error", "code": "taken_over", "message": "elsewhere"})
    wait_seq(page, before)
    assert page.inner_text("[data-status]") == "Waiting for Seat 1, Citra, Dedi to pass"
    assert "(you)" not in page.inner_text("[data-seats]")


def test_a_patch_is_drawn_and_a_missed_version_opens_the_table_again(
    page: Any, server: ServerProcess
) -> None:
    """A ``hearts.patch`` that follows the state drawn is drawn like a whole state (the card in
    the trick, the turn moved on); an older one is ignored; one that skips a version is not
    applied, and the page opens the table again with the version it has."""
    match = seat_to_lead(1)
    fake = FakeHearts()
    fake.on("hearts.open", lambda f: [hearts_state(match, view_seat=0, version=6)])
    open_table(page, server, fake, lang="en")
    before = hearts_state(match, view_seat=0, version=6)
    card = match.view(1).legal[0]
    match.apply(Play(1, card))
    after = hearts_state(match, view_seat=0, version=7)
    changed = {k: v for k, v in after["public"].items() if before["public"][k] != v}
    assert set(changed) <= PATCHED_FIELDS and "trick" in changed
    drawn = seq(page)
    fake.push(
        {
            "type": "hearts.patch",
            "table": "T1",
            "version": 7,
            "awaiting": after["awaiting"],
            "public": changed,
            "events": [{"type": "played", "seat": 1, "card": card.code}],
        }
    )
    wait_seq(page, drawn)
    assert page.get_attribute("[data-hearts]", "data-version") == "7"
    page.wait_for_selector(f'[data-trick] [data-card="{card.code}"]')
    # an old patch changes nothing and asks for nothing
    drawn = seq(page)
    fake.push({**fake_patch(5), "public": {"to_play": 3}})
    page.wait_for_timeout(500)
    assert seq(page) == drawn and len(fake.frames("hearts.open")) == 1
    # a patch over a missed version: the whole state is asked for again, from version 7
    fake.push(fake_patch(9))
    reopened = fake.wait_for(page, "hearts.open", 2)
    assert reopened["version"] == 7
    wait_seq(page, drawn)  # the fake's answer (its version 6) is drawn
    assert page.get_attribute("[data-hearts]", "data-version") == "6"
    assert len(fake.frames("hearts.open")) == 2


def fake_patch(version: int) -> dict[str, Any]:
    return {
        "type": "hearts.patch",
        "table": "T1",
        "version": version,
        "awaiting": [2],
        "public": {"to_play": 2},
        "events": [],
    }
