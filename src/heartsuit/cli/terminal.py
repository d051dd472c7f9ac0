"""What the two terminal games share: their language and lines that fit the terminal.

Language: ``--lang id|en`` when given, else the ``HEARTSUIT_LANG`` environment variable, else
Indonesian, the site's default too. The system's ``LANG`` is not read: it says how to encode
text and format numbers, and is ``en_US``/``C.UTF-8`` on most machines whatever the person
speaks, so it would make English the default nearly everywhere.

Lines: :func:`wrap` breaks text longer than the terminal at spaces, never inside a word; a
line laid out as ``  key     what it does`` continues under ``what it does``. The ``--help`` of
every command does the same (:class:`ArgumentParser`; argparse alone breaks at hyphens).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import textwrap
from typing import Any, Final

from heartsuit import i18n
from heartsuit.i18n import Lang

#: the environment variable that picks the terminal games' language
LANG_ENV: Final = "HEARTSUIT_LANG"
#: narrower than this, wrapping does more harm than good
MIN_WIDTH: Final = 20

#: "  key    text": an indented first word followed by two or more spaces
_COLUMN: Final = re.compile(r"^(\s*\S+\s{2,})\S")


class LanguageError(ValueError):
    """``HEARTSUIT_LANG`` names no language of the games."""


def default_lang(environ: dict[str, str] | None = None) -> Lang:
    """The language when ``--lang`` is not given: ``HEARTSUIT_LANG``, else Indonesian."""
    value = (os.environ if environ is None else environ).get(LANG_ENV, "").strip().lower()
    if not value:
        return i18n.DEFAULT_LANG
    if not i18n.is_lang(value):
        choices = " or ".join(i18n.LANGUAGES)
        raise LanguageError(f"{LANG_ENV} must be {choices}, not {value!r}")
    return value


def pick_lang(given: str | None, environ: dict[str, str] | None = None) -> Lang:
    """``--lang`` when given, else :func:`default_lang`."""
    if given is not None and i18n.is_lang(given):
        return given
    return default_lang(environ)


def terminal_width() -> int:
    """Columns of the terminal (``COLUMNS`` first, 80 when there is no terminal)."""
    return max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)


def wrap(text: str, width: int) -> str:
    """``text`` with every line longer than ``width`` broken at spaces."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        column = _COLUMN.match(line)
        if column is not None and len(column.group(1)) <= width // 2:
            indent = " " * len(column.group(1))
        else:
            indent = line[: len(line) - len(line.lstrip())]
        out.extend(
            textwrap.wrap(
                line,
                width,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
                replace_whitespace=False,
            )
            or [""]
        )
    return "\n".join(out)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, broken between words only: never inside ``black-maria``."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = " ".join(text.split())
        return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        text = " ".join(text.split())
        return textwrap.fill(
            text, width, initial_indent=indent, subsequent_indent=indent,
            break_long_words=False, break_on_hyphens=False,
        )


class ArgumentParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose help uses :class:`HelpFormatter`; its subcommands' parsers
    are of this class too, so every ``--help`` of the command line wraps the same way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
