"""The words the server itself says over ``/ws``: error messages and move messages, per language.

They live in the site's catalogs (:mod:`heartsuit.i18n`, keys ``server.…``) like every other
user-facing string; this module names the keys the server uses and fills their placeholders.
"""

from __future__ import annotations

from typing import Final, Literal

from heartsuit import i18n
from heartsuit.gamecodes import CodeProblem
from heartsuit.server.core.protocol import ErrorCode

Lang = Literal["id", "en"]

#: every catalog key the server may ask for
KEYS: Final = (
    # a bad code is explained by its problem (server.code.…), not by a generic text
    *(f"server.error.{code.value}" for code in ErrorCode if code is not ErrorCode.BAD_CODE),
    *(f"server.code.{problem.value}" for problem in CodeProblem),
    "server.code.empty",
    # a bad Hearts code (hearts.create) is explained in Hearts' words (server.hcode.…)
    *(f"server.hcode.{problem.value}" for problem in CodeProblem),
    "server.hcode.empty",
    "server.hcode.people",
    "server.move.must_match",
    "server.move.covered",
)


def text(lang: Lang, key: str, /, **values: object) -> str:
    """The message ``key`` in ``lang``, its ``{name}`` placeholders filled from ``values``."""
    return i18n.translate(lang, key, **values)


def keys() -> tuple[str, ...]:
    """Every key the server may ask for (for the docs and the catalog tests)."""
    return KEYS
