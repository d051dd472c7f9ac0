"""Heart to Heart in a real browser, as a new player: taps, stock, undo, language, codes, a whole
won deal, a dead end, a reload and a server restart."""

from __future__ import annotations

from typing import Any

import pytest

from heartsuit.solitaire import Game, solve
from tests.browser import axe
from tests.browser.conftest import ServerProcess, screenshot
from tests.browser.helpers import (
    GAME,
    dead_end_line,
    deal_winnable_only,
    info,
    open_game,
    seq,
    tap,
    wait_for_state,
)

pytestmark = pytest.mark.browser

#: a deal whose tip and first waste card differ in rank (checked in the test that uses it);
#: tests use fixed deals because about one random deal in ten is stuck from the very start
#: (the tip's three partners all lie in the heart)
CODE = "HH1-N-AAAAAAM"
OTHER_CODE = "HH1-N-AAAAAAB"
#: the tip's three partners all lie in the heart: no pair can ever be made
DEAD_AT_DEAL = "HH1-N-AAAAAAA"


def _heart_classes(page: Any) -> list[str]:
    classes: list[str] = page.eval_on_selector_all(
        "[data-pos]", "els => els.map(e => e.className + '|' + e.getAttribute('aria-pressed'))"
    )
    return classes


def test_a_new_player_taps_flips_undoes_and_switches_language(
    page: Any, server: ServerProcess
) -> None:
    page.goto(server.url + "/")
    assert page.get_attribute("html", "lang") == "id"
    page.click("[data-play]")
    page.wait_for_url("**/heart-to-heart")
    page.wait_for_selector(f"{GAME}[data-seq]")
    assert info(page, "code").startswith("HH1-N-")
    assert info(page, "moves") == "0"
    # go on with a known deal: a random one may be a dead end from the start
    open_game(page, server.url, f"?code={CODE}")
    code = info(page, "code")
    assert Game.from_code(code).outcome == "playing"

    # a covered card: nothing happens at all
    before = _heart_classes(page)
    assert "covered" in (page.get_attribute('[data-pos="1"]', "class") or "")
    assert "tertindih" in (page.get_attribute('[data-pos="1"]', "aria-label") or "")
    tap(page, 1)
    assert _heart_classes(page) == before
    assert info(page, "moves") == "0"

    # the tip: selected, then deselected
    tap(page, 25)
    tip = page.locator('[data-pos="25"]')
    assert tip.get_attribute("aria-pressed") == "true"
    assert "terpilih" in (tip.get_attribute("aria-label") or "")
    tap(page, 25)
    assert tip.get_attribute("aria-pressed") == "false"

    # flip the stock, then undo it
    stock_before = int(page.get_attribute('[data-pile="stock"]', "data-count") or "-1")
    assert stock_before == 26
    assert page.get_attribute('[data-pile="stock"]', "aria-label") == (
        "tumpukan ambil, 26 kartu, tidak ada pasangan: buka kartu dari sini"
    )
    tap(page, "stock")
    assert page.get_attribute('[data-pile="stock"]', "data-count") == "25"
    assert info(page, "moves") == "1"
    assert page.get_attribute('[data-pile="waste"]', "data-count") == "2"
    before_undo = seq(page)
    page.click('[data-action="undo"]')
    wait_for_state(page, before_undo)
    assert page.get_attribute('[data-pile="stock"]', "data-count") == "26"
    assert info(page, "moves") == "0"

    # English, same game (not a new deal of the same code)
    tap(page, "stock")
    game_id = page.get_attribute(GAME, "data-game-id")
    page.click("[data-lang-switch]")
    page.wait_for_selector(f"{GAME}[data-seq]")
    assert page.get_attribute("html", "lang") == "en"
    assert page.get_attribute(GAME, "data-game-id") == game_id
    assert (info(page, "code"), info(page, "moves")) == (code, "1")
    assert page.get_attribute('[data-pile="stock"]', "aria-label") == (
        "stock, 25 cards, no pair to take: turn up a card here"
    )
    assert "of hearts, free" in (page.get_attribute('[data-pos="25"]', "aria-label") or "")
    assert page.inner_text('[data-action="undo"] .label') == "Undo"
    # the language is remembered by the cookie on the next page
    page.goto(server.url + "/stats")
    assert page.get_attribute("html", "lang") == "en"


def test_entering_a_code_and_a_bad_code(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={OTHER_CODE}&lang=en")
    first = info(page, "code")
    assert first == OTHER_CODE
    page.click('[data-action="code"]')
    dialog = page.locator('[data-dialog="code"]')
    assert dialog.is_visible()
    page.fill("[data-code-input]", "HH1-N-AAA")
    page.click("[data-code-submit]")
    error = page.locator("[data-code-error]")
    error.wait_for(state="visible")
    assert error.inner_text().strip() != ""
    assert page.get_attribute("[data-code-input]", "aria-invalid") == "true"
    assert dialog.is_visible()
    assert info(page, "code") == first  # the current game is untouched

    before = seq(page)
    page.fill("[data-code-input]", "  hh1-n-aaaaaam ")
    page.click("[data-code-submit]")
    wait_for_state(page, before)
    assert info(page, "code") == CODE
    assert not dialog.is_visible()
    screenshot(page, "play-after-code-1280")


def test_move_errors_setting_says_the_ranks_must_match(page: Any, server: ServerProcess) -> None:
    game = Game.from_code(CODE)
    tip, top = game.heart[24], game.waste[-1]
    assert tip is not None and tip.rank != top.rank
    open_game(page, server.url, f"?code={CODE}&lang=id")
    page.click('[data-action="settings"]')
    box = page.locator('[data-setting="move_errors"]')
    assert not box.is_checked()
    assert page.locator('[data-setting="placement_help"]').is_checked()
    before = seq(page)
    box.check()
    wait_for_state(page, before)  # the page fetches the game again once the server has it
    page.click('[data-dialog="settings"] [data-close]')
    tap(page, 25)
    tap(page, "waste")
    toast = page.locator("[data-toast]")
    toast.wait_for(state="visible")
    assert toast.inner_text() == "Harus bernilai sama"
    # remembered on the server: a fresh page shows the setting on
    page.reload()
    page.wait_for_selector(f"{GAME}[data-seq]")
    page.click('[data-action="settings"]')
    assert page.locator('[data-setting="move_errors"]').is_checked()
    box = page.locator('[data-setting="move_errors"]')
    box.uncheck()
    page.click('[data-dialog="settings"] [data-close]')


def test_keyboard_play(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}")
    before = seq(page)
    page.locator('[data-pos="25"]').press("Enter")
    wait_for_state(page, before)
    assert page.get_attribute('[data-pos="25"]', "aria-pressed") == "true"
    page.keyboard.press("ArrowUp")
    focused = page.evaluate("document.activeElement.dataset.pos")
    assert focused in {"23", "24"}
    page.keyboard.press("ArrowRight" if focused == "23" else "ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.pos") in {"23", "24"}
    assert page.evaluate("document.activeElement.dataset.pos") != focused
    before = seq(page)
    page.keyboard.press("s")
    wait_for_state(page, before)
    assert info(page, "moves") == "1"
    before = seq(page)
    page.keyboard.press("Control+z")
    wait_for_state(page, before)
    assert info(page, "moves") == "0"


def test_playing_the_solvers_line_wins(page: Any, server: ServerProcess) -> None:
    solution = solve(Game.from_code(CODE))
    assert solution.winnable
    open_game(page, server.url, f"?code={CODE}&lang=en")
    for target in solution.moves:
        tap(page, target)
    won = page.locator('[data-dialog="won"]')
    won.wait_for(state="visible")
    assert page.get_attribute(GAME, "data-outcome") == "won"
    assert won.locator('[data-win="score"]').inner_text() == "250"
    moves = won.locator('[data-win="moves"]').inner_text()
    assert int(moves) == int(info(page, "moves")) > 0
    assert ":" in won.locator('[data-win="time"]').inner_text()
    screenshot(page, "play-won-1280")


def test_a_dead_end_opens_the_dialog_and_undo_leaves_it(page: Any, server: ServerProcess) -> None:
    code, line = dead_end_line()
    open_game(page, server.url, f"?code={code}&lang=id")
    for target in line:
        tap(page, target)
    dialog = page.locator('[data-dialog="dead_end"]')
    dialog.wait_for(state="visible")
    assert dialog.locator("h2").inner_text() == "Tidak ada lagi langkah yang bisa dilakukan"
    assert page.evaluate("document.activeElement.dataset.dialogUndo") is not None
    screenshot(page, "play-dead-end-1280")
    before = seq(page)
    dialog.locator("[data-dialog-undo]").click()
    wait_for_state(page, before)
    dialog.wait_for(state="hidden")
    assert page.get_attribute(GAME, "data-outcome") == "playing"


def test_reload_and_server_restart_continue_the_same_game(
    page: Any, server: ServerProcess
) -> None:
    open_game(page, server.url, f"?code={CODE}")  # a random deal might be stuck from the start
    tap(page, "stock")
    tap(page, "stock")
    tap(page, 25)
    code, game_id = info(page, "code"), page.get_attribute(GAME, "data-game-id")
    hearts = _heart_classes(page)

    page.reload()
    page.wait_for_selector(f"{GAME}[data-seq]")
    assert (info(page, "code"), info(page, "moves")) == (code, "2")
    assert page.get_attribute(GAME, "data-game-id") == game_id
    assert _heart_classes(page) == hearts

    # the server goes away and comes back: the page reconnects by itself
    before = seq(page)
    server.restart()
    wait_for_state(page, before)
    assert page.get_attribute(GAME, "data-game-id") == game_id
    tap(page, "stock")
    assert info(page, "moves") == "3"
    page.reload()
    page.wait_for_selector(f"{GAME}[data-seq]")
    assert (info(page, "code"), info(page, "moves")) == (code, "3")

    # home offers to continue it
    page.goto(server.url + "/")
    page.wait_for_selector("[data-continue]:not([hidden])")
    assert code in page.inner_text("[data-continue-hint]")


def test_share_copies_a_link_to_the_deal(
    page: Any, server: ServerProcess, browser_context: Any
) -> None:
    browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    try:
        open_game(page, server.url, f"?code={CODE}&lang=id")
        page.click('[data-action="share"]')
        toast = page.locator("[data-toast]")
        toast.wait_for(state="visible")
        assert toast.inner_text() == f"Tautan susunan {CODE} sudah disalin."
        link = page.evaluate("navigator.clipboard.readText()")
        assert link == f"{server.url}/heart-to-heart?code={CODE}"
        # the link opens that deal for whoever gets it
        open_game(page, server.url, link.removeprefix(server.url).removeprefix("/heart-to-heart"))
        assert info(page, "code") == CODE
        # on a narrow phone the code in the message stays on one line
        page.set_viewport_size({"width": 320, "height": 640})
        page.click('[data-action="share"]')
        toast.wait_for(state="visible")
        code = toast.locator(".nowrap")
        assert code.inner_text() == CODE
        assert code.evaluate("e => e.getClientRects().length") == 1
        box = toast.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320
    finally:
        browser_context.clear_permissions()


def test_every_card_and_pile_speaks_its_state(page: Any, server: ServerProcess) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=id")
    labels: list[str] = page.eval_on_selector_all(
        "button[data-pos], button[data-pile]", "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert len(labels) == 27
    heart, (stock, waste) = labels[:25], labels[25:]
    assert all(label.endswith((", bebas", ", tertindih")) for label in heart)
    assert sum(label.endswith(", bebas") for label in heart) == 1  # only the tip at the start
    assert heart[24].endswith(" hati, bebas")
    # placement help marks the stock while no pair can be taken (as at this deal's start)
    assert stock == "tumpukan ambil, 26 kartu, tidak ada pasangan: buka kartu dari sini"
    assert waste.startswith("tumpukan buangan, ")
    # one tab stop for the table: the tip
    assert page.eval_on_selector_all("[data-heart] [tabindex='0']", "els => els.length") == 1


def test_reduced_motion_turns_transitions_off(page: Any, server: ServerProcess) -> None:
    page.emulate_media(reduced_motion="reduce")
    open_game(page, server.url, f"?code={CODE}")
    duration = page.eval_on_selector(
        '[data-pos="25"]', "e => getComputedStyle(e).transitionDuration"
    )
    assert set(duration.replace(" ", "").split(",")) == {"0s"}
    page.emulate_media(reduced_motion="no-preference")
    page.reload()
    page.wait_for_selector(f"{GAME}[data-seq]")
    duration = page.eval_on_selector(
        '[data-pos="25"]', "e => getComputedStyle(e).transitionDuration"
    )
    assert "0.16s" in duration


def test_winnable_deals_only_gives_a_deal_the_solver_can_win(
    page: Any, server: ServerProcess
) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    deal_winnable_only(page)
    for _ in range(3):
        before = seq(page)
        page.keyboard.press("n")
        wait_for_state(page, before)
        code = info(page, "code")
        assert code != CODE
        assert solve(Game.from_code(code)).winnable, code


def test_new_game_asks_before_abandoning_a_game_under_way(
    page: Any, server: ServerProcess
) -> None:
    open_game(page, server.url, f"?code={CODE}&lang=en")
    # about one random deal in ten is a dead end from the start, and its dialog would take the
    # N key: deal only winnable deals so every new game below starts playable
    deal_winnable_only(page)
    confirm = page.locator('[data-dialog="confirm_new"]')
    tap(page, "stock")
    game_id = page.get_attribute(GAME, "data-game-id")
    page.click('[data-game] [data-action="new"]')
    confirm.wait_for(state="visible")
    assert confirm.locator("h2").inner_text() == "Start a new game?"
    confirm.locator("[data-close]").click()
    confirm.wait_for(state="hidden")
    assert page.get_attribute(GAME, "data-game-id") == game_id and info(page, "moves") == "1"
    page.keyboard.press("n")
    confirm.wait_for(state="visible")
    before = seq(page)
    confirm.locator("[data-confirm-new]").click()
    wait_for_state(page, before)
    confirm.wait_for(state="hidden")
    assert page.get_attribute(GAME, "data-game-id") != game_id
    assert info(page, "moves") == "0" and page.get_attribute(GAME, "data-outcome") == "playing"
    # a game with no move yet is replaced at once: nothing is lost
    before = seq(page)
    page.keyboard.press("n")
    wait_for_state(page, before)
    assert not confirm.is_visible()


def test_every_way_to_another_game_asks_before_leaving_one_under_way(
    page: Any, server: ServerProcess
) -> None:
    confirm = page.locator('[data-dialog="confirm_new"]')
    open_game(page, server.url, f"?code={CODE}&lang=en")
    assert page.get_attribute(GAME, "data-under-way") == "false"
    tap(page, "stock")
    assert page.get_attribute(GAME, "data-under-way") == "true"
    game_id = page.get_attribute(GAME, "data-game-id")
    # a shared ?code= link: asked, and "Cancel" keeps the game
    open_game(page, server.url, f"?code={OTHER_CODE}&lang=en")
    confirm.wait_for(state="visible")
    assert OTHER_CODE in confirm.inner_text() and "loss" in confirm.inner_text()
    screenshot(page, "play-confirm-code-link")
    confirm.locator("[data-close]").click()
    assert page.get_attribute(GAME, "data-game-id") == game_id and info(page, "moves") == "1"
    # the home page's "New game" link: asked too
    page.goto(server.url + "/?lang=en")
    new_link = page.locator("[data-new]")
    new_link.wait_for(state="visible")
    new_link.click()
    confirm.wait_for(state="visible")
    confirm.locator("[data-close]").click()
    assert page.get_attribute(GAME, "data-game-id") == game_id
    # Enter code: an empty code is refused with the reason, and nothing changes
    page.click('[data-action="code"]')
    page.click("[data-code-submit]")
    error = page.locator("[data-code-error]")
    error.wait_for(state="visible")
    assert "Type a deal code" in error.inner_text()
    assert page.get_attribute(GAME, "data-game-id") == game_id
    # a real code: asked, and "Start new" opens it
    page.fill("[data-code-input]", OTHER_CODE.lower())
    page.click("[data-code-submit]")
    confirm.wait_for(state="visible")
    before = seq(page)
    confirm.locator("[data-confirm-new]").click()
    wait_for_state(page, before)
    assert info(page, "code") == OTHER_CODE
    assert page.locator('[data-dialog="code"]').is_hidden()
    # with no move made, nothing is asked
    before = seq(page)
    page.keyboard.press("n")
    wait_for_state(page, before)
    assert confirm.is_hidden()


def test_restart_plays_the_same_deal_again_from_the_start(
    page: Any, server: ServerProcess
) -> None:
    confirm = page.locator('[data-dialog="confirm_restart"]')
    open_game(page, server.url, f"?code={CODE}&lang=en")
    tap(page, "stock")
    tap(page, "stock")
    game_id = page.get_attribute(GAME, "data-game-id")
    page.click('[data-action="restart"]')
    confirm.wait_for(state="visible")
    assert "loss" in confirm.inner_text()
    axe.check(page, "the restart question")
    screenshot(page, "play-confirm-restart")
    before = seq(page)
    confirm.locator("[data-confirm-leave]").click()
    wait_for_state(page, before)
    assert info(page, "code") == CODE and info(page, "moves") == "0"
    assert page.get_attribute(GAME, "data-game-id") != game_id
    # nothing under way now: a restart happens at once
    again = page.get_attribute(GAME, "data-game-id")
    before = seq(page)
    page.click('[data-action="restart"]')
    wait_for_state(page, before)
    assert confirm.is_hidden() and page.get_attribute(GAME, "data-game-id") != again
    page.goto(server.url + "/stats?lang=en")
    page.wait_for_selector('[data-stats][aria-busy="false"]')
    assert page.inner_text('[data-stat="games"]') == "1"


def test_a_deal_dead_from_the_start_says_so_and_does_not_count(
    page: Any, server: ServerProcess
) -> None:
    open_game(page, server.url, f"?code={DEAD_AT_DEAL}&lang=en")
    dialog = page.locator('[data-dialog="dead_deal"]')
    dialog.wait_for(state="visible")
    assert "cannot be played" in dialog.inner_text()
    assert page.locator('[data-dialog="dead_end"]').is_hidden()
    axe.check(page, "a deal dead from the start")
    screenshot(page, "play-dead-deal")
    dead_game = page.get_attribute(GAME, "data-game-id")
    before = seq(page)
    dialog.locator("[data-dialog-new]").click()
    wait_for_state(page, before)
    assert page.get_attribute(GAME, "data-game-id") != dead_game
    # a new deal is drawn at random, and about one in ten is dead from the start itself:
    # then the dialog says so again, and that deal does not count either
    dead_again = page.get_attribute(GAME, "data-dead-deal") == "true"
    assert dialog.is_visible() if dead_again else dialog.is_hidden()
    page.goto(server.url + "/stats?lang=en")
    page.wait_for_selector('[data-stats][aria-busy="false"]')
    assert page.inner_text('[data-stat="games"]') == "0"
    assert page.inner_text('[data-stat="dead_deals"]') == ("2" if dead_again else "1")
