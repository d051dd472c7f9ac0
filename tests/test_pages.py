"""The HTML pages: each renders in both languages, the language choice is remembered, and the
heart skeleton follows the layout module."""

from __future__ import annotations

import json
import re

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from heartsuit import i18n
from heartsuit.server.hearts import pages as hearts_pages
from heartsuit.server.site import pages
from heartsuit.server.solitaire import pages as solitaire_pages
from heartsuit.solitaire.layout import ROW, X2

PAGES = {
    "/": "home.title",
    "/heart-to-heart": "game.heading",
    "/heart-to-heart/examples": "ex.title",
    "/heart-to-heart/rules": "rules.title",
    "/stats": "stats.title",
    "/hearts": "hsetup.title",
    "/hearts/table/T1": "hearts.heading",
    "/hearts/join/ABCD2345": "hjoin.title",
    "/hearts/rules": "hrules.title",
}


def _client() -> TestClient:
    # only the pages: the site's own, each game's, and the static files they link to
    app = Starlette(
        routes=[
            *pages.routes,
            *solitaire_pages.routes,
            *hearts_pages.routes,
            Route("/static/{path:path}", pages.ASSETS.endpoint),
        ]
    )
    return TestClient(app)


@pytest.fixture
def client() -> TestClient:
    return _client()


def _embedded(html: str) -> dict[str, str]:
    match = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S)
    assert match is not None
    data: dict[str, str] = json.loads(match.group(1))
    return data


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_each_page_renders_in_each_language(client: TestClient, path: str, lang: i18n.Lang) -> None:
    response = client.get(path, params={"lang": lang})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-language"] == lang
    html = response.text
    assert f'<html lang="{lang}">' in html
    heading = i18n.translate(lang, PAGES[path])
    assert heading.replace("'", "&#39;") in html
    other = "en" if lang == "id" else "id"
    assert f'data-lang-switch="{other}"' in html


def test_indonesian_is_the_default(client: TestClient) -> None:
    html = client.get("/").text
    assert '<html lang="id">' in html
    assert i18n.translate("id", "home.title") in html
    assert "lang" not in client.cookies


def test_the_language_choice_is_remembered_in_a_cookie(client: TestClient) -> None:
    first = client.get("/stats", params={"lang": "en"})
    cookie = first.headers["set-cookie"]
    assert cookie.startswith("lang=en")
    assert "Max-Age=31536000" in cookie
    assert "Path=/" in cookie
    # no ?lang= now: the cookie keeps English on every page
    for path in PAGES:
        html = client.get(path).text
        assert '<html lang="en">' in html, path
    client.get("/", params={"lang": "id"})
    assert '<html lang="id">' in client.get("/heart-to-heart").text


def test_an_unknown_language_falls_back_without_a_cookie(client: TestClient) -> None:
    response = client.get("/", params={"lang": "fr"})
    assert '<html lang="id">' in response.text
    assert "set-cookie" not in response.headers
    client.cookies.set("lang", "klingon")
    assert '<html lang="id">' in client.get("/").text


def test_the_switch_link_keeps_other_query_parameters(client: TestClient) -> None:
    html = client.get("/heart-to-heart", params={"code": "HH1-N-AAAAAAM", "lang": "en"}).text
    assert 'href="/heart-to-heart?code=HH1-N-AAAAAAM&amp;lang=id"' in html


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_play_page_embeds_the_strings_its_script_needs(
    client: TestClient, lang: i18n.Lang
) -> None:
    data = _embedded(client.get("/heart-to-heart", params={"lang": lang}).text)
    assert data == pages.script_messages(lang, "play")
    assert data["card.covered"] == i18n.translate(lang, "card.covered")
    assert "rules.lead" not in data  # only what the script reads


def test_the_heart_skeleton_follows_the_layout(client: TestClient) -> None:
    html = client.get("/heart-to-heart").text
    places = re.findall(r'data-pos="(\d+)" data-row="(\d+)" data-x2="(-?\d+)"', html)
    assert [int(p) for p, _, _ in places] == list(range(1, 26))
    assert [int(r) for _, r, _ in places] == list(ROW)
    assert [int(x) for _, _, x in places] == list(X2)
    assert html.count('data-pile="stock"') == 1
    assert html.count('data-pile="waste"') == 1
    # on the play page every card is a button; on the examples page a picture
    assert html.count('<button type="button" class="card slot') == 25
    examples = client.get("/heart-to-heart/examples").text
    assert examples.count('<div role="img" class="card slot') == 25


def test_dialogs_and_controls_are_present(client: TestClient) -> None:
    html = client.get("/heart-to-heart", params={"lang": "id"}).text
    for name in ("code", "settings", "dead_end", "won"):
        assert re.search(f'<dialog class="dialog[^"]*" data-dialog="{name}"', html), name
    for action in ("undo", "new", "code", "share", "settings"):
        assert f'data-action="{action}"' in html
    for setting in ("move_errors", "placement_help", "winnable_only"):
        assert f'data-setting="{setting}"' in html
    assert "Tidak ada lagi langkah yang bisa dilakukan" in html


def test_linked_static_files_exist(client: TestClient) -> None:
    html = client.get("/heart-to-heart").text + client.get("/").text
    urls = set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html))
    assert len(urls) >= 3
    for url in urls:
        assert client.get(url).status_code == 200, url


def test_no_page_loads_anything_from_elsewhere(client: TestClient) -> None:
    for path in PAGES:
        html = client.get(path).text
        assert not re.search(r'(?:href|src)="(?:https?:)?//', html), path


def test_the_rules_diagram_marks_the_tip_and_the_cards_it_covers(client: TestClient) -> None:
    html = client.get("/heart-to-heart/rules").text
    assert html.count('class="d-free"') == 1
    assert html.count('class="d-covered-by-tip"') == 2
    assert html.count("<rect") >= 25


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_hearts_is_in_the_header_and_on_the_home_page(client: TestClient, lang: i18n.Lang) -> None:
    home = client.get("/", params={"lang": lang}).text
    assert re.search(r'<a href="/hearts" data-nav="hearts">', home)
    assert home.count('href="/hearts" data-hearts-play') == 1
    assert home.index('data-tile="hearts"') > home.index("<main")
    assert i18n.translate(lang, "home.hearts.desc") in home
    for path in ("/hearts", "/hearts/table/T1", "/hearts/join/ABCD2345", "/hearts/rules"):
        html = client.get(path).text
        assert '<a href="/hearts" data-nav="hearts" aria-current="page">' in html, path


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_hearts_start_page_offers_the_modes_presets_and_levels(
    client: TestClient, lang: i18n.Lang
) -> None:
    html = client.get("/hearts", params={"lang": lang}).text
    for mode in ("computer", "hotseat", "online"):
        assert f'data-mode="{mode}"' in html
    for name, players in hearts_pages.HEARTS_PRESETS:
        assert f'value="{name}" data-players="{players}"' in html
        assert i18n.translate(lang, f"hearts.preset.{name}").replace("'", "&#39;") in html
    for option in ("jack_of_diamonds", "exactly_100_reset", "passing", "spade_penalties"):
        assert f'name="{option}"' in html
    for value in ("others_plus_26", "self_minus_26", "shooter_chooses", "heart_or_queen"):
        assert f'value="{value}"' in html
    match = re.search(r'<script type="application/json" id="hearts-config">(.*?)</script>', html)
    assert match is not None
    config = json.loads(match.group(1))
    assert config["levels"] == list(hearts_pages.HEARTS_LEVELS) == ["easy", "normal", "hard"]
    assert config["presets"] == [list(p) for p in hearts_pages.HEARTS_PRESETS]
    assert _embedded(html) == pages.script_messages(lang, "hearts")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_hearts_table_page_is_a_shell_with_its_strings(
    client: TestClient, lang: i18n.Lang
) -> None:
    html = client.get("/hearts/table/T1", params={"lang": lang}).text
    assert 'data-table="T1"' in html
    for part in ("hand", "trick", "seats", "pass", "cover", "look", "lobby", "sheet", "rematch"):
        assert f"data-{part}" in html, part
    assert 'aria-live="polite"' in html
    data = _embedded(html)
    assert data == pages.script_messages(lang, "hearts_table")
    assert data["hcard.suit.S"] == i18n.translate(lang, "hcard.suit.S")
    assert "hrules.title" not in data and "hsetup.title" not in data


def test_a_table_id_or_invite_is_escaped_in_the_page(client: TestClient) -> None:
    html = client.get("/hearts/table/a%22%3Cb").text
    assert 'data-table="a&#34;&lt;b"' in html
    html = client.get("/hearts/join/x%22y").text
    assert 'data-invite="x&#34;y"' in html


def test_the_hearts_rules_cover_every_variant_and_the_decisions(client: TestClient) -> None:
    for lang in i18n.LANGUAGES:
        html = client.get("/hearts/rules", params={"lang": lang}).text
        for name, _ in hearts_pages.HEARTS_PRESETS:
            assert i18n.translate(lang, f"hrules.var.{name}").replace("'", "&#39;") in html
        assert i18n.translate(lang, "hrules.dec.cancel_moon").replace("'", "&#39;") in html
        assert html.count("<h2") >= 12
    assert "ratu sekop" in client.get("/hearts/rules", params={"lang": "id"}).text
