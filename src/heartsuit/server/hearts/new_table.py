"""A new Hearts table from a ``hearts.create`` message: its rules, its seats, its seat tokens.

Pure decisions, no I/O: which rules a preset, a code and the named options make (refused with
``bad_rules`` or ``bad_code`` when they cannot be played together), who sits where in each
mode (against the computer: seat 0 and computers; same device: the people named, the rest
computers; online: the creator in seat 0 and open seats for friends), the names shown, and the
refusal of a bad card text. :mod:`heartsuit.server.hearts.service` stores what this decides.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from heartsuit.cards import Card
from heartsuit.hearts import Rules, RulesError
from heartsuit.hearts.actions import Action, Pass, Play
from heartsuit.hearts.codes import CodeError, format_code, parse_code
from heartsuit.server.core.protocol import ErrorCode
from heartsuit.server.hearts.live_table import (
    SeatRecord,
    TableRecord,
    hash_token,
    new_invite,
    new_seed,
    new_table_id,
    new_token,
)
from heartsuit.server.hearts.protocol import HeartsCreate, HeartsError, HeartsErrorCode, SeatChoice

#: the level a computer plays at when none is chosen, and for a person who dropped out
DEFAULT_LEVEL = "normal"
#: the ``problem`` of a ``bad_code`` refusal of a code for a table of people (its text is the
#: catalog's ``server.code.people``)
PEOPLE_PROBLEM = "people"
NAME_LIMIT = 24


@dataclass(frozen=True, slots=True)
class TablePlan:
    record: TableRecord
    seats: list[SeatRecord]
    #: the seat tokens of the people at the creator's device (only their hashes are stored)
    tokens: dict[int, str]


def plan_table(
    message: HeartsCreate, person_name: str, levels: Collection[str], now_ms: int
) -> TablePlan:
    """The table ``message`` asks for; ``person_name`` names a person who gave no name."""
    rules, preset, seed = rules_of(message)
    mode = message.mode
    choices = list(message.seats or [])
    players = rules.players
    if len(choices) > players:
        raise HeartsError(
            ErrorCode.BAD_MESSAGE, f"this table has {players} seats, not {len(choices)}"
        )
    if not choices:
        choices = [SeatChoice(kind="human")]
        if mode == "hotseat":
            choices.append(SeatChoice(kind="human"))
        elif mode == "online":
            # every other seat open to friends; the ones still open at the start are
            # played by computers
            choices += [SeatChoice(kind="human")] * (players - 1)
    choices += [SeatChoice(kind="computer")] * (players - len(choices))
    if mode == "computer":
        choices[0] = SeatChoice(kind="human", name=message.name or choices[0].name)
        choices[1:] = [replace_kind(c, "computer") for c in choices[1:]]
    elif choices[0].kind != "human":
        raise HeartsError(ErrorCode.BAD_MESSAGE, "seat 0 belongs to the person creating the table")
    you = person_name
    seats: list[SeatRecord] = []
    tokens: dict[int, str] = {}
    for number, choice in enumerate(choices):
        if choice.kind == "computer":
            level = choice.level or DEFAULT_LEVEL
            if level not in levels:
                raise HeartsError(
                    HeartsErrorCode.BAD_LEVEL, f"no computer level {level!r}", level=level
                )
            # no name: each page names computers in its own language ("Komputer 3")
            seats.append(SeatRecord(number, "computer", "", level))
        elif mode == "online" and number > 0:
            seats.append(SeatRecord(number, "open", ""))
        else:
            # a person who gives no name is unnamed: each page calls them "you" on their own
            # screen and "seat N" on anyone else's (a shared device keeps "You", "You 2", …)
            default = ""
            if mode == "hotseat":
                default = you if number == 0 else f"{you} {number + 1}"
            name = clean_name(choice.name if number else message.name or choice.name, default)
            token = new_token()
            tokens[number] = token
            seats.append(SeatRecord(number, "human", name, None, hash_token(token)))
    record = TableRecord(
        id=new_table_id(),
        mode=mode,
        preset=preset,
        rules=rules.to_dict(),
        seed=seed,
        invite=new_invite() if mode == "online" else None,
        created_at_ms=now_ms,
    )
    return TablePlan(record, seats, tokens)


def rules_of(message: HeartsCreate) -> tuple[Rules, str, int]:
    """The rules, the preset and the first match's seed of the table ``message`` asks for.

    A game code deals against the computer only: on a table where people play each other, a
    code that anyone at it may know would tell them every hand, so such a table is always dealt
    from a secret seed (:func:`~heartsuit.server.hearts.live_table.new_seed`) and a code is refused.
    """
    overrides = message.options.overrides()
    try:
        if message.code is not None:
            if not message.code.strip():
                # as every code field: an empty code is a mistake, not "a new deal"
                raise HeartsError(
                    HeartsErrorCode.BAD_CODE, "the game code is empty", problem="empty"
                )
            if message.mode != "computer":
                raise HeartsError(
                    HeartsErrorCode.BAD_CODE,
                    "a game code plays against the computer only",
                    problem=PEOPLE_PROBLEM,
                    code=repr(message.code),
                )
            parsed = parse_code(message.code)
            return parsed.rules(**overrides), parsed.preset, parsed.seed
        if message.preset == "cancellation":
            overrides["players"] = message.players or 6
        elif (
            message.players is not None and message.players != Rules.preset(message.preset).players
        ):
            raise HeartsError(
                HeartsErrorCode.BAD_RULES,
                f"{message.preset} is for {Rules.preset(message.preset).players}",
            )
        rules = Rules.preset(message.preset, **overrides)
        seed = new_seed(message.mode)
        format_code(message.preset, 0, players=rules.players)  # the preset must have codes
        return rules, message.preset, seed
    except CodeError as err:
        raise HeartsError(
            HeartsErrorCode.BAD_CODE, str(err), problem=err.problem.value, code=repr(message.code)
        ) from None
    except (RulesError, ValueError) as err:
        if isinstance(err, HeartsError):
            raise
        raise HeartsError(HeartsErrorCode.BAD_RULES, str(err), why=str(err)) from None


def clean_name(raw: object, fallback: str) -> str:
    """A display name: trimmed, inner spaces collapsed, at most ``NAME_LIMIT`` characters.

    Names are shown with escaping everywhere (templates and ``textContent``); this only keeps
    them readable: control characters are dropped and a name that is empty falls back.
    """
    if not isinstance(raw, str):
        return fallback
    text = "".join(ch for ch in raw if ch.isprintable())
    text = " ".join(text.split())
    if not text:
        return fallback
    if len(text) > NAME_LIMIT:
        raise HeartsError(HeartsErrorCode.BAD_NAME, f"a name has at most {NAME_LIMIT} characters")
    return text


def replace_kind(choice: SeatChoice, kind: str) -> SeatChoice:
    return choice.model_copy(update={"kind": kind})


def action_for(seat: int, kind: str, payload: object) -> Action:
    """A pass or a play of ``seat`` from a message's card texts; bad cards are ``illegal``."""
    try:
        if kind == "pass":
            if not isinstance(payload, list) or not all(isinstance(c, str) for c in payload):
                raise ValueError("a pass is a list of card texts")
            return Pass(seat, tuple(Card.parse(c) for c in payload))
        if not isinstance(payload, str):
            raise ValueError("a card is a text such as 'QS'")
        return Play(seat, Card.parse(payload))
    except ValueError as err:
        raise HeartsError(HeartsErrorCode.BAD_CARD, str(err)) from None
