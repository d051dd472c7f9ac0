"""Game codes shared by both games: ``<GAME><VERSION>-<RULE SET>-<SEVEN LETTERS>``.

A code names a deal (or, for Hearts, a match's sequence of deals) so that it can be typed,
shared and replayed: the game's prefix and the code format's version, the rule set, and a
number written in base 26 with the letters A–Z (A = 0, most significant first), so that
``AAAAAAM`` is 12 and there are 26**7 numbers. Case (of the ASCII letters only) and surrounding
spaces are forgiven; any other mistake raises :class:`CodeError` naming the part that is wrong
(``problem``), for a UI to translate.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

LETTERS: Final = 7
NUMBER_COUNT: Final = 26**LETTERS
#: a-z to A-Z and nothing else: ``str.upper`` would turn "ß" into "SS", "ﬀ" into "FF" and the
#: dotless "ı" into "I", so that a code nobody wrote would be dealt
_ASCII_UPPER: Final = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


class CodeProblem(StrEnum):
    """What is wrong with a code, for a UI to translate."""

    NOT_TEXT = "not_text"
    PARTS = "parts"
    PREFIX = "prefix"
    VERSION = "version"
    RULE_SET = "rule_set"
    LENGTH = "length"
    LETTER = "letter"


class CodeError(ValueError):
    """A text that is not a valid code; ``problem`` says which part is wrong."""

    def __init__(self, problem: CodeProblem, message: str) -> None:
        super().__init__(message)
        self.problem = problem


@dataclass(frozen=True, slots=True)
class CodeFormat:
    """One game's codes: its name, prefix, format version and rule sets."""

    game: str  # "Heart to Heart", for messages
    prefix: str  # "HH"
    version: str  # "1"
    rule_sets: tuple[str, ...]  # ("N",)
    example: str  # "HH1-N-AAAAAAM"

    def format(self, rule_set: str, number: int) -> str:
        if not isinstance(number, int) or not 0 <= number < NUMBER_COUNT:
            raise ValueError(f"a code's number is 0..{NUMBER_COUNT - 1}, not {number!r}")
        if rule_set not in self.rule_sets:
            raise ValueError(
                f"unknown rule set {rule_set!r}; known: {', '.join(self.rule_sets)}"
            )
        letters = []
        for _ in range(LETTERS):
            number, digit = divmod(number, 26)
            letters.append(chr(ord("A") + digit))
        return f"{self.prefix}{self.version}-{rule_set}-{''.join(reversed(letters))}"

    def parse(self, text: str) -> tuple[str, int]:
        """``(rule set, number)`` of a code; raises :class:`CodeError` saying what is wrong."""
        if not isinstance(text, str):
            raise CodeError(CodeProblem.NOT_TEXT, f"a code is text, not {type(text).__name__}")
        shown = text.strip()
        cleaned = shown.translate(_ASCII_UPPER)
        if not cleaned:
            raise CodeError(CodeProblem.PARTS, f"the code is empty; it looks like {self.example}")
        parts = cleaned.split("-")
        if len(parts) != 3:
            raise CodeError(
                CodeProblem.PARTS,
                f"{shown!r} is not a code: it has three parts joined by '-', "
                f"like {self.example}",
            )
        head, rule_set, letters = parts
        if not head.startswith(self.prefix):
            raise CodeError(
                CodeProblem.PREFIX,
                f"{shown!r} is not a {self.game} code: it must start with "
                f"{self.prefix!r}, like {self.example}",
            )
        version = head[len(self.prefix) :]
        if version != self.version:
            raise CodeError(
                CodeProblem.VERSION,
                f"{shown!r} uses code format {version!r}; this version reads format "
                f"{self.version!r} ({self.prefix}{self.version}-…)",
            )
        if rule_set not in self.rule_sets:
            raise CodeError(
                CodeProblem.RULE_SET,
                f"{shown!r} names the unknown rule set {rule_set!r}; "
                f"known: {', '.join(self.rule_sets)}",
            )
        if len(letters) != LETTERS:
            raise CodeError(
                CodeProblem.LENGTH,
                f"{shown!r} has {len(letters)} letters after the rule set; "
                f"a code has exactly {LETTERS}",
            )
        number = 0
        for ch in letters:
            if not ("A" <= ch <= "Z"):
                raise CodeError(
                    CodeProblem.LETTER, f"{shown!r} contains {ch!r}; the letters are A to Z only"
                )
            number = number * 26 + (ord(ch) - ord("A"))
        return rule_set, number
