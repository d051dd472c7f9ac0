"""What a player's page is sent about a Heart to Heart game: the engine's state as a view model.

Everything here is read from the engine (:class:`heartsuit.solitaire.Game`): which cards are
free, outlined and dimmed comes from it, never from a second copy of the rules (DESIGN.md,
principle 2). The stock is sent only as a count: its order is hidden from the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from json.encoder import encode_basestring as _json_str
from typing import Literal, TypeVar

from pydantic import BaseModel

from heartsuit.cards import Card, rank_name
from heartsuit.server.core import messages
from heartsuit.server.solitaire.protocol import (
    CardView,
    Event,
    GameView,
    HeartCardView,
    TapAnswers,
)
from heartsuit.solitaire import Game, Outcome, Selection, TapResult
from heartsuit.solitaire.codes import Deal
from heartsuit.solitaire.undo import UNDO_LIMIT

M = TypeVar("M", bound=BaseModel)


@cache
def _card_text(card: Card) -> tuple[str, str]:
    return str(card), rank_name(card.rank)


#: the JSON text of each card view and event built here, by its id (each entry keeps its model,
#: so that no other object can take the id): they are frozen and built once per card and flags
#: (per event), so a state's frame is written from these pieces instead of serialising some 30
#: models per tap; bounded, as the models are (a few hundred card views, a few dozen events)
_MODEL_JSON: dict[int, tuple[BaseModel, str]] = {}


def _keep_json(model: M) -> M:
    _MODEL_JSON[id(model)] = (model, model.model_dump_json())
    return model


@cache
def _heart_card(
    card: Card, free: bool, outlined: bool, dimmed: bool, selected: bool
) -> HeartCardView:
    """One heart card's view; views are frozen, so each of the few hundred possible ones is
    built once and shared (a view is sent after every tap)."""
    text, rank = _card_text(card)
    return _keep_json(
        HeartCardView(
            card=text, rank=rank, free=free, outlined=outlined, dimmed=dimmed, selected=selected
        )
    )


@cache
def _waste_card(card: Card, outlined: bool, dimmed: bool, selected: bool) -> CardView:
    """The view of the waste's top card, built once per card and flags, as :func:`_heart_card`."""
    text, rank = _card_text(card)
    return _keep_json(
        CardView(card=text, rank=rank, outlined=outlined, dimmed=dimmed, selected=selected)
    )


_Seen = tuple[HeartCardView, str]
_Rows = list[list[_Seen | None]]

#: per deal shown lately (by its id; each entry keeps its deal, so that no other deal can take
#: the id while it is here): per position (index 0 = position 1), the view of the deal's card
#: there and its JSON text, by its flags (1 free, 2 outlined, 4 dimmed, 8 selected), filled as
#: first needed; the card at a position is the deal's, so two numbers find its view, with no
#: card to hash
_DEAL_ROWS: dict[int, tuple[Deal, _Rows]] = {}
_DEAL_ROWS_LIMIT = 1 << 12


def _rows_of(deal: Deal) -> _Rows:
    known = _DEAL_ROWS.get(id(deal))
    if known is not None and known[0] is deal:
        return known[1]
    if len(_DEAL_ROWS) >= _DEAL_ROWS_LIMIT:
        _DEAL_ROWS.clear()
    rows: _Rows = [[None] * 16 for _ in range(25)]
    _DEAL_ROWS[id(deal)] = (deal, rows)
    return rows


def _fill(row: list[_Seen | None], card: Card, flags: int) -> _Seen:
    """The view of ``card`` with ``flags`` and its text, kept in its position's ``row``."""
    view = _heart_card(card, bool(flags & 1), bool(flags & 2), bool(flags & 4), bool(flags & 8))
    seen = row[flags] = (view, _MODEL_JSON[id(view)][1])
    return seen


class ViewParts:
    """What a view of a game is made of, worked out under the player's lock: the state's frame
    is written from it directly (:meth:`json`), and the :class:`GameView` model, which says the
    same, is built only when it is asked for (:meth:`model`, once). A tap's reply needs only the
    frame, so the model's validation and serialisation are not paid on every tap.

    Made by :func:`view_parts` only (its arguments are positional, in the model's order)."""

    __slots__ = (
        "_cards",
        "_flags",
        "_model",
        "_rows",
        "clock_running",
        "code",
        "daily",
        "dead_deal",
        "elapsed_ms",
        "id",
        "log_length",
        "moves",
        "outcome",
        "pairs",
        "score",
        "started_at_ms",
        "stock_answer",
        "stock_count",
        "stock_outlined",
        "under_way",
        "undo_left",
        "waste_count",
        "waste_top",
    )

    def __init__(
        self,
        id: str,
        code: str,
        cards: tuple[Card | None, ...],
        rows: _Rows,
        flags: list[int],
        stock_count: int,
        stock_outlined: bool,
        waste_top: CardView | None,
        waste_count: int,
        score: int,
        moves: int,
        undo_left: int,
        outcome: Outcome,
        elapsed_ms: int,
        started_at_ms: int,
        clock_running: bool,
        daily: bool,
        under_way: bool,
        dead_deal: bool,
        log_length: int,
        pairs: list[tuple[int, Selection]] | None,
        stock_answer: StockAnswer,
        /,
    ) -> None:
        self.id = id
        self.code = code
        #: the heart's cards (None where removed), the deal's kept views and each card's flags
        self._cards = cards
        self._rows = rows
        self._flags = flags
        self.stock_count = stock_count
        self.stock_outlined = stock_outlined
        self.waste_top = waste_top
        self.waste_count = waste_count
        self.score = score
        self.moves = moves
        self.undo_left = undo_left
        self.outcome = outcome
        self.elapsed_ms = elapsed_ms
        self.started_at_ms = started_at_ms
        self.clock_running = clock_running
        self.daily = daily
        self.under_way = under_way
        self.dead_deal = dead_deal
        self.log_length = log_length
        #: the engine's pairs led by a heart card (None once the game is over: no answers then)
        self.pairs = pairs
        self.stock_answer = stock_answer
        self._model: GameView | None = None

    def _heart(self) -> list[_Seen | None]:
        return [
            None if card is None else (row[flags] or _fill(row, card, flags))
            for card, row, flags in zip(self._cards, self._rows, self._flags, strict=True)
        ]

    def model(self) -> GameView:
        """The view as its pydantic model (built and validated once, then kept)."""
        if self._model is None:
            answers = None
            if self.pairs is not None:
                answers = TapAnswers(pairs=self.pairs, stock=self.stock_answer)
            self._model = GameView(
                id=self.id,
                code=self.code,
                heart=[None if seen is None else seen[0] for seen in self._heart()],
                stock_count=self.stock_count,
                stock_outlined=self.stock_outlined,
                waste_top=self.waste_top,
                waste_count=self.waste_count,
                score=self.score,
                moves=self.moves,
                undo_left=self.undo_left,
                outcome=self.outcome.value,
                elapsed_ms=self.elapsed_ms,
                started_at_ms=self.started_at_ms,
                under_way=self.under_way,
                dead_deal=self.dead_deal,
                log_length=self.log_length,
                answers=answers,
                clock_running=self.clock_running,
                daily=self.daily,
            )
        return self._model

    def json(self) -> str:
        """The model's JSON text, byte for byte as pydantic (and
        :func:`~heartsuit.server.core.protocol.encode`) writes it, from parts written once: the
        card views' texts are kept with the views, the rest is numbers, flags and two strings
        (the test of the frames compares every state of a whole game)."""
        heart = ",".join(["null" if seen is None else seen[1] for seen in self._heart()])
        waste_top = "null" if self.waste_top is None else _model_json(self.waste_top)
        if self.pairs is None:
            answers = "null"
        else:
            pairs = ",".join(
                [f"[{a},{_json_str(b) if isinstance(b, str) else b}]" for a, b in self.pairs]
            )
            answers = f'{{"pairs":[{pairs}],"stock":"{self.stock_answer}"}}'
        return (
            f'{{"id":{_json_str(self.id)},"code":{_json_str(self.code)},"heart":[{heart}],'
            f'"stock_count":{self.stock_count},"stock_outlined":{_BOOL[self.stock_outlined]},'
            f'"waste_top":{waste_top},"waste_count":{self.waste_count},"score":{self.score},'
            f'"moves":{self.moves},"undo_left":{self.undo_left},'
            f'"outcome":"{self.outcome.value}","elapsed_ms":{self.elapsed_ms},'
            f'"started_at_ms":{self.started_at_ms},'
            f'"clock_running":{_BOOL[self.clock_running]},"daily":{_BOOL[self.daily]},'
            f'"under_way":{_BOOL[self.under_way]},"dead_deal":{_BOOL[self.dead_deal]},'
            f'"log_length":{self.log_length},"answers":{answers}}}'
        )


_BOOL = ("false", "true")


def _model_json(model: BaseModel) -> str:
    """The JSON text of a card view or event built here (kept with it), else pydantic's."""
    known = _MODEL_JSON.get(id(model))
    if known is not None and known[0] is model:
        return known[1]
    return model.model_dump_json()


def view_parts(
    game: Game,
    *,
    game_id: str,
    started_at_ms: int,
    now_ms: int,
    placement_help: bool,
    under_way: bool = False,
    dead_deal: bool = False,
    log_length: int = 0,
    clock_running: bool = False,
    daily: bool = False,
) -> ViewParts:
    """The view of ``game`` at ``now_ms`` (the engine's time: the game's play time); outlines
    and dimming as the player's setting says. ``under_way``, ``dead_deal``, ``clock_running``
    and ``daily`` are the service's verdicts on the game's record."""
    game.placement_help = placement_help
    outlined = game.outlined()
    dimmed = game.dimmed()
    selected = game.selected
    flags = [0] * 25  # by position (index 0 = position 1): 1 free, 2 outlined, 4 dimmed, 8 selected
    for position in game.free_positions():
        flags[position - 1] = 1
    for target in outlined:
        if isinstance(target, int):
            flags[target - 1] |= 2
    for target in dimmed:
        if isinstance(target, int):
            flags[target - 1] |= 4
    if isinstance(selected, int):
        flags[selected - 1] |= 8
    waste = game.waste
    waste_top: CardView | None = None
    if waste:
        waste_top = _waste_card(
            waste[-1], "waste" in outlined, "waste" in dimmed, selected == "waste"
        )
    outcome = game.outcome
    playing = outcome is Outcome.PLAYING
    stock_count = len(game.stock)
    return ViewParts(
        game_id,
        game.code,
        game.heart,
        _rows_of(game.deal),
        flags,
        stock_count,
        # placement help: with no pair to take, the stock is the only useful move (a newcomer
        # may not guess that a tap turns up a card)
        placement_help and playing and not outlined and bool(stock_count or waste),
        waste_top,
        len(waste),
        game.score,
        game.moves,
        min(game.undo_depth, UNDO_LIMIT),
        outcome,
        round(game.elapsed(now_ms / 1000) * 1000),
        started_at_ms,
        clock_running,
        daily,
        under_way,
        dead_deal,
        log_length,
        # the pairs a tap on a heart card would take (the page asks of those only)
        [(a, b) for a, b in game.pairs() if isinstance(a, int)] if playing else None,
        _stock_answer(stock_count, waste),
    )


def game_view(
    game: Game,
    *,
    game_id: str,
    started_at_ms: int,
    now_ms: int,
    placement_help: bool,
    under_way: bool = False,
    dead_deal: bool = False,
    log_length: int = 0,
    clock_running: bool = False,
    daily: bool = False,
) -> GameView:
    """The view of ``game`` as its model (:func:`view_parts`, which says what each part is)."""
    return view_parts(
        game,
        game_id=game_id,
        started_at_ms=started_at_ms,
        now_ms=now_ms,
        placement_help=placement_help,
        under_way=under_way,
        dead_deal=dead_deal,
        log_length=log_length,
        clock_running=clock_running,
        daily=daily,
    ).model()


StockAnswer = Literal["flip", "redeal", "none"]


def _stock_answer(stock: int, waste: Sequence[Card]) -> StockAnswer:
    """What a tap on the stock does: turn up a card, turn the waste over, or nothing."""
    if stock:
        return "flip"
    return "redeal" if waste else "none"


def tap_event(result: TapResult, *, move_errors: bool, lang: messages.Lang) -> Event:
    """The event of a tap; a message only with "Move errors" on, for a mismatch or a covered
    card (the terminal game says the same: "that card is still covered")."""
    key = result.reason.value if result.reason is not None else None
    return _tap_event(result.kind.value, key, move_errors, lang)


@cache
def _tap_event(kind: str, key: str | None, move_errors: bool, lang: messages.Lang) -> Event:
    """:func:`tap_event`'s events, built once each (they are frozen) with their JSON text."""
    if move_errors and key in ("must_match", "covered"):
        return _keep_json(
            Event(
                kind=kind,
                message=messages.text(lang, f"server.move.{key}"),
                message_key=key,
                reason=key,
            )
        )
    return _keep_json(Event(kind=kind, reason=key))


@cache
def plain_event(kind: str, repeat: bool = False) -> Event:
    """The event of a request that is not a tap (``dealt``, ``synced``, a repeat…), built once
    per kind with its JSON text."""
    return _keep_json(Event(kind=kind, repeat=repeat))


def state_frame(view: ViewParts, event: Event) -> str:
    """The text of the :class:`SolitaireState` frame of ``view`` and ``event``, byte for byte
    as pydantic writes the model (without building it)."""
    return f'{{"type":"solitaire.state","game":{view.json()},"event":{_model_json(event)}}}'


def stale_frame(view: ViewParts, message: str) -> str:
    """The text of the :class:`SolitaireStale` frame of ``view``, as :func:`state_frame`."""
    return f'{{"type":"error","code":"stale","message":{_json_str(message)},"game":{view.json()}}}'
