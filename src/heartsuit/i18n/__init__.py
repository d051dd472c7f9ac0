"""The site's message catalogs: Indonesian (the default) and English.

Every user-facing string of the pages and the browser client lives in ``id.json`` and
``en.json`` beside this module, as one flat object of dotted keys (``"game.undo"``). Values may
hold ``{name}`` placeholders, filled by :func:`translate` on the server and by the same rule in
the browser, and ``{name|one|other}``: the word for one when the value of ``name`` is 1, else
the other (English says "1 card" and "2 cards"; Indonesian needs no such thing). The server's
own messages (errors, "Must be the same rank") may use these catalogs too, through
:func:`catalog`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Final, Literal, TypeGuard

Lang = Literal["id", "en"]

LANGUAGES: Final[tuple[Lang, ...]] = ("id", "en")
#: Indonesian is the default: the seed of both games is Indonesian
DEFAULT_LANG: Final[Lang] = "id"

_PLACEHOLDER: Final = re.compile(r"\{([a-z_]+)\}")
#: ``{name|one|other}``: the word that goes with the number ``name``
_PLURAL: Final = re.compile(r"\{([a-z_]+)\|([^|{}]*)\|([^|{}]*)\}")


class UnknownMessage(KeyError):
    """A catalog key that does not exist (a bug in a template or caller, never user input)."""


def is_lang(value: object) -> TypeGuard[Lang]:
    """Whether ``value`` names one of the site's languages."""
    return value in LANGUAGES


def pick_lang(*candidates: str | None) -> Lang:
    """The first candidate that names a language (case-insensitive), else the default."""
    for candidate in candidates:
        if candidate is None:
            continue
        lowered = candidate.strip().lower()
        if is_lang(lowered):
            return lowered
    return DEFAULT_LANG


@cache
def catalog(lang: Lang) -> Mapping[str, str]:
    """The whole catalog of ``lang``: key -> message (read once, then cached)."""
    text = resources.files(__package__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise ValueError(f"catalog {lang}.json must be one flat object of strings")
    return data


def translate(lang: Lang, key: str, /, **values: object) -> str:
    """The message ``key`` in ``lang`` with its ``{name}`` placeholders filled from ``values``.

    A placeholder without a value is left as written, so a missing argument shows up on the
    page instead of raising in the middle of a render.
    """
    try:
        text = catalog(lang)[key]
    except KeyError:
        raise UnknownMessage(f"no message {key!r} in the {lang} catalog") from None
    if not values:
        return text
    text = _PLURAL.sub(lambda m: _plural(m, values), text)
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)


def _plural(match: re.Match[str], values: Mapping[str, object]) -> str:
    """One ``{name|one|other}``: left as written without a value of ``name``."""
    if match.group(1) not in values:
        return match.group(0)
    return match.group(2) if str(values[match.group(1)]) == "1" else match.group(3)


def subset(lang: Lang, prefixes: Iterable[str]) -> dict[str, str]:
    """The messages whose keys start with one of ``prefixes`` (what a page's script needs)."""
    wanted = tuple(prefixes)
    return {k: v for k, v in catalog(lang).items() if k.startswith(wanted)}


def placeholders(text: str) -> set[str]:
    """The placeholder names used in a message (for the catalog consistency tests)."""
    return set(_PLACEHOLDER.findall(text)) | {m.group(1) for m in _PLURAL.finditer(text)}
