"""What a page says about itself: the description and Open Graph tags a shared link previews
(a deal link previews that deal), the manifest link, and the site's own 404 page."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from heartsuit import i18n
from tests.server_support import Site, running_site

PAGES = ("/", "/heart-to-heart", "/heart-to-heart/examples", "/heart-to-heart/rules", "/stats",
         "/hearts")


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def _meta(page: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for _attr, name, content in re.findall(
        r'<meta (name|property)="([^"]+)" content="([^"]*)"', page
    ):
        found.setdefault(name, html.unescape(content))
    return found


@pytest.mark.parametrize("lang", ["id", "en"])
@pytest.mark.parametrize("path", PAGES)
def test_every_page_describes_itself_for_a_shared_link(site: Site, path: str, lang: str) -> None:
    page = site.client.get(f"{path}?lang={lang}").text
    meta = _meta(page)
    for name in ("description", "og:title", "og:description", "og:url", "og:image", "og:type"):
        assert meta.get(name), (path, name)
    assert meta["og:url"] == f"http://testserver{path}"
    assert meta["og:image"].startswith("http://testserver/static/icons/")
    assert meta["og:locale"] == ("id_ID" if lang == "id" else "en_US")
    # at its versioned address (server/core/assets.py), like every static file
    assert '<link rel="manifest" href="/static/manifest.' in page


@pytest.mark.parametrize("lang", ["id", "en"])
def test_a_deal_link_previews_that_deal(site: Site, lang: i18n.Lang) -> None:
    meta = _meta(site.client.get(f"/heart-to-heart?code=+hh1-n-aaaaaam+&lang={lang}").text)
    assert meta["og:title"] == i18n.translate(lang, "meta.deal_title", code="HH1-N-AAAAAAM")
    assert "HH1-N-AAAAAAM" in meta["og:description"] == meta["description"]
    assert meta["og:url"] == "http://testserver/heart-to-heart?code=HH1-N-AAAAAAM"


def test_a_bad_code_previews_the_game_and_never_echoes_the_text(site: Site) -> None:
    page = site.client.get('/heart-to-heart?code=<b>"x').text
    meta = _meta(page)
    assert meta["og:url"] == "http://testserver/heart-to-heart"
    assert "<b>" not in page
    assert meta["og:title"].startswith(i18n.translate("id", "game.title"))


def test_the_manifest_names_the_site_and_its_icons(site: Site) -> None:
    response = site.client.get("/static/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert site.client.get(icon["src"]).status_code == 200, icon["src"]


@pytest.mark.parametrize("lang", ["id", "en"])
def test_an_unknown_address_gets_the_sites_404_page(site: Site, lang: i18n.Lang) -> None:
    response = site.client.get(f"/no/such/page?lang={lang}")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-language"] == lang
    page = response.text
    assert f'<html lang="{lang}">' in page
    title = i18n.translate(lang, "notfound.title")
    assert f"<title>{title} · heartsuit</title>" in page
    assert "<main" in page and 'class="site-header"' in page and f"<h1>{title}</h1>" in page
    # the security headers apply to it as to every page
    assert "default-src 'self'" in response.headers["content-security-policy"]


def test_a_missing_file_or_api_address_gets_a_plain_404(site: Site) -> None:
    for path in ("/static/no-such.js", "/api/no-such"):
        response = site.client.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("text/plain")
