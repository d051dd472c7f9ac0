"""Reading a stored game back: checks that a ``Game.to_dict()`` snapshot hangs together.

The website stores games, so a snapshot may come back damaged or edited. Everything is checked
against the deal its code names: heart cards never move, stock and waste hold only cards of the
deal's stock and waste, the score is 10 per heart card gone, and the undo history can really be
undone step by step. Anything else raises :class:`SnapshotError` and builds nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Final, Literal

from heartsuit.cards import Card
from heartsuit.solitaire.clock import Clock, ClockError
from heartsuit.solitaire.codes import Deal, deal_cards, parse_code
from heartsuit.solitaire.errors import SnapshotError
from heartsuit.solitaire.undo import (
    UNDO_LIMIT,
    Flipped,
    HistoryError,
    MoveRecord,
    Paired,
    Redealt,
    record_from_json,
)

SNAPSHOT_VERSION: Final = 1
_OUTCOMES: Final = ("playing", "won", "dead_end")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The checked contents of a snapshot (the outcome is re-judged by the game itself)."""

    deal: Deal
    heart: tuple[Card | None, ...]
    stock: tuple[Card, ...]
    waste: tuple[Card, ...]
    selected: int | Literal["waste"] | None
    score: int
    moves: int
    outcome: str
    move_errors: bool
    placement_help: bool
    language: Literal["id", "en"]
    history: tuple[MoveRecord, ...]
    clock: Clock


def read_snapshot(data: object) -> Snapshot:
    if not isinstance(data, dict):
        raise SnapshotError(f"a snapshot is an object, not {type(data).__name__}")
    if data.get("version") != SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot version {data.get('version')!r} is not {SNAPSHOT_VERSION}, "
            "the version this engine reads"
        )
    try:
        deal = deal_cards(parse_code(data.get("code")))  # type: ignore[arg-type]
    except ValueError as err:
        raise SnapshotError(f"the snapshot's code: {err}") from None
    heart = _cards(data.get("heart"), "heart", allow_none=True)
    if len(heart) != 25:
        raise SnapshotError(f"the heart has 25 places, not {len(heart)}")
    for i, card in enumerate(heart):
        if card is not None and card != deal.heart[i]:
            raise SnapshotError(
                f"position {i + 1} holds {card} in the snapshot but {deal.heart[i]} in the deal"
            )
    stock = tuple(c for c in _cards(data.get("stock"), "stock") if c is not None)
    waste = tuple(c for c in _cards(data.get("waste"), "waste") if c is not None)
    if Counter(stock) + Counter(waste) - Counter(deal.stock + deal.waste):
        raise SnapshotError("the stock and waste hold cards that this deal's stock never had")
    score, moves = data.get("score"), data.get("moves")
    removed = sum(card is None for card in heart)
    if not isinstance(score, int) or score != 10 * removed:
        raise SnapshotError(
            f"the score is 10 per heart card removed ({10 * removed}), not {score!r}"
        )
    outcome = data.get("outcome")
    if outcome not in _OUTCOMES:
        raise SnapshotError(f"the outcome is one of {', '.join(_OUTCOMES)}, not {outcome!r}")
    settings = data.get("settings")
    if not isinstance(settings, dict):
        raise SnapshotError("the snapshot has no settings object")
    move_errors, help_on = settings.get("move_errors"), settings.get("placement_help")
    language = settings.get("language", "id")
    if not isinstance(move_errors, bool) or not isinstance(help_on, bool):
        raise SnapshotError("the settings move_errors and placement_help are true or false")
    if language not in ("id", "en"):
        raise SnapshotError(f"the language is 'id' or 'en', not {language!r}")
    # every waste card that left play went with one heart card; the other heart cards in pairs
    gone_below = len(deal.stock) + len(deal.waste) - len(stock) - len(waste)
    if gone_below > removed or (removed - gone_below) % 2:
        raise SnapshotError(
            f"{removed} heart cards and {gone_below} stock and waste cards cannot have gone "
            "in pairs"
        )
    if not isinstance(moves, int) or not _count(moves):
        raise SnapshotError(f"moves is a count, not {moves!r}")
    history = _history(data.get("history"), deal, heart, stock, waste, moves)
    selected = data.get("selected")
    if not (
        selected is None
        or selected == "waste"
        or (isinstance(selected, int) and not isinstance(selected, bool) and 1 <= selected <= 25)
    ):
        raise SnapshotError(f"the selection is null, 'waste' or a position, not {selected!r}")
    try:
        clock = Clock.from_json(data.get("clock"))
    except ClockError as err:
        raise SnapshotError(str(err)) from None
    return Snapshot(
        deal, heart, stock, waste, selected, score, moves, outcome, move_errors, help_on,
        "en" if language == "en" else "id", history, clock,
    )


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _cards(value: object, name: str, allow_none: bool = False) -> tuple[Card | None, ...]:
    if not isinstance(value, list):
        raise SnapshotError(f"the snapshot's {name} is a list of cards")
    out: list[Card | None] = []
    for item in value:
        if item is None and allow_none:
            out.append(None)
            continue
        try:
            out.append(Card.parse(item))
        except ValueError as err:
            raise SnapshotError(f"the snapshot's {name}: {err}") from None
    return tuple(out)


def _history(
    value: object,
    deal: Deal,
    heart: tuple[Card | None, ...],
    stock: tuple[Card, ...],
    waste: tuple[Card, ...],
    moves: int,
) -> tuple[MoveRecord, ...]:
    """Read the undo records and check, by undoing them on copies, that each one can be undone
    and, when the history reaches back to the deal, that undoing it all gives the deal."""
    if not isinstance(value, list) or len(value) > min(UNDO_LIMIT, moves):
        raise SnapshotError(
            f"the history is a list of at most {UNDO_LIMIT} moves and at most `moves` ({moves})"
        )
    try:
        records = tuple(record_from_json(item) for item in value)
    except HistoryError as err:
        raise SnapshotError(str(err)) from None
    places, pile, up = list(heart), list(stock), list(waste)
    for back, record in enumerate(reversed(records), start=1):
        where = f"move {len(records) - back + 1} of the history"
        if isinstance(record, Flipped):
            if not up:
                raise SnapshotError(f"{where} is a flip but the waste would be empty")
            pile.insert(0, up.pop())
        elif isinstance(record, Redealt):
            if up:
                raise SnapshotError(f"{where} is a redeal but the waste would not be empty")
            up, pile = pile, []
        elif isinstance(record, Paired):
            for position, card in zip(record.positions, record.cards, strict=True):
                if places[position - 1] is not None or deal.heart[position - 1] != card:
                    raise SnapshotError(f"{where} removed {card} from position {position}, "
                                        "which does not fit the deal")
                places[position - 1] = card
            if record.waste is not None:
                up.append(record.waste)
    if len(records) == moves and (
        tuple(places) != deal.heart or tuple(pile) != deal.stock or tuple(up) != deal.waste
    ):
        raise SnapshotError("undoing the whole history does not lead back to the deal")
    return records
