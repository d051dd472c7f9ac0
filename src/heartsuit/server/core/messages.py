"""The words the server itself says over ``/ws``: error messages and move messages, per language.

They live in the site's catalogs (:mod:`heartsuit.i18n`, keys ``server.…``) like every other
user-facing string; this module names the keys the server uses and fills their placeholders.
"""

from __future__ import annotations

from typing import Final, Literal

from heartsuit import i18n
from heartsuit.server.core.protocol import ErrorCode

Lang = Literal["id", "en"]

#: every catalog key the core may ask for (each game lists its own: ``MESSAGE_KEYS`` beside its
#: protocol)
KEYS: Final = tuple(f"server.error.{code.value}" for code in ErrorCode)


def text(lang: Lang, key: str, /, **values: object) -> str:
    """The message ``key`` in ``lang``, its ``{name}`` placeholders filled from ``values``."""
    return i18n.translate(lang, key, **values)


def keys() -> tuple[str, ...]:
    """Every key the core may ask for (for the docs and the catalog tests)."""
    return KEYS
