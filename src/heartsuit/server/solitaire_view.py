"""What a player's page is sent about a Heart to Heart game: the engine's state as a view model.

Everything here is read from the engine (:class:`heartsuit.solitaire.Game`): which cards are
free, outlined and dimmed comes from it, never from a second copy of the rules (DESIGN.md,
principle 2). The stock is sent only as a count: its order is hidden from the page.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from heartsuit.cards import Card, rank_name
from heartsuit.server import messages
from heartsuit.server.solitaire_protocol import (
    CardView,
    Event,
    GameView,
    HeartCardView,
    TapAnswers,
)
from heartsuit.solitaire import Game, Outcome, TapResult
from heartsuit.solitaire.codes import Deal
from heartsuit.solitaire.undo import UNDO_LIMIT


@cache
def _card_text(card: Card) -> tuple[str, str]:
    return str(card), rank_name(card.rank)


@cache
def _heart_card(
    card: Card, free: bool, outlined: bool, dimmed: bool, selected: bool
) -> HeartCardView:
    """One heart card's view; views are frozen, so each of the few hundred possible ones is
    built once and shared (a view is sent after every tap)."""
    text, rank = _card_text(card)
    return HeartCardView(
        card=text, rank=rank, free=free, outlined=outlined, dimmed=dimmed, selected=selected
    )


#: the heart card views of the deals shown lately, by (the deal's id, position, flags): the card
#: at a position is the deal's, so plain numbers find its view, with no card to hash (each entry
#: keeps its deal, so that no other deal can take its id while it is here)
_HEART_VIEWS: dict[tuple[int, int, int], tuple[Deal, HeartCardView]] = {}
_HEART_VIEWS_LIMIT = 1 << 16


def _heart_view(game: Game, position: int, flags: int) -> HeartCardView:
    """The view of the heart card at ``position`` with ``flags`` (1 free, 2 outlined, 4 dimmed,
    8 selected), built once per deal and kept."""
    card = game.heart[position - 1]
    assert card is not None  # asked for the cards there only
    view = _heart_card(card, bool(flags & 1), bool(flags & 2), bool(flags & 4), bool(flags & 8))
    if len(_HEART_VIEWS) >= _HEART_VIEWS_LIMIT:
        _HEART_VIEWS.clear()
    _HEART_VIEWS[(id(game.deal), position, flags)] = (game.deal, view)
    return view


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
    """The view of ``game`` at ``now_ms`` (the engine's time: the game's play time); outlines
    and dimming as the player's setting says. ``under_way``, ``dead_deal``, ``clock_running``
    and ``daily`` are the service's verdicts on the game's record."""
    game.placement_help = placement_help
    outlined = set(game.outlined())
    dimmed = set(game.dimmed())
    selected = game.selected
    flags = [0] * 26  # by position: 1 free, 2 outlined, 4 dimmed, 8 selected
    for position in game.free_positions():
        flags[position] = 1
    for target in outlined:
        if isinstance(target, int):
            flags[target] |= 2
    for target in dimmed:
        if isinstance(target, int):
            flags[target] |= 4
    if isinstance(selected, int):
        flags[selected] |= 8
    deal = game.deal
    deal_id = id(deal)
    heart: list[HeartCardView | None] = []
    for position, card in enumerate(game.heart, start=1):
        if card is None:
            heart.append(None)
            continue
        known = _HEART_VIEWS.get((deal_id, position, flags[position]))
        if known is not None and known[0] is deal:
            heart.append(known[1])
        else:
            heart.append(_heart_view(game, position, flags[position]))
    waste = game.waste
    waste_top: CardView | None = None
    if waste:
        text, rank = _card_text(waste[-1])
        waste_top = CardView(
            card=text,
            rank=rank,
            outlined="waste" in outlined,
            dimmed="waste" in dimmed,
            selected=selected == "waste",
        )
    outcome = game.outcome
    # placement help: with no pair to take, the stock is the only useful move (a newcomer may
    # not guess that a tap turns up a card)
    stock_outlined = (
        placement_help and outcome is Outcome.PLAYING and not outlined and bool(game.stock or waste)
    )
    return GameView(
        id=game_id,
        code=game.code,
        heart=heart,
        stock_count=len(game.stock),
        stock_outlined=stock_outlined,
        waste_top=waste_top,
        waste_count=len(waste),
        score=game.score,
        moves=game.moves,
        undo_left=min(game.undo_depth, UNDO_LIMIT),
        outcome=outcome.value,
        elapsed_ms=round(game.elapsed(now_ms / 1000) * 1000),
        started_at_ms=started_at_ms,
        under_way=under_way,
        dead_deal=dead_deal,
        log_length=log_length,
        answers=tap_answers(game),
        clock_running=clock_running,
        daily=daily,
    )


def tap_answers(game: Game) -> TapAnswers | None:
    """What a tap on ``game`` would do, as the engine says (None once it is over)."""
    if game.outcome is not Outcome.PLAYING:
        return None
    if game.stock:
        stock: Literal["flip", "redeal", "none"] = "flip"
    elif game.waste:
        stock = "redeal"
    else:
        stock = "none"
    return TapAnswers(pairs=[(a, b) for a, b in game.pairs() if isinstance(a, int)], stock=stock)


def tap_event(result: TapResult, *, move_errors: bool, lang: messages.Lang) -> Event:
    """The event of a tap; a message only with "Move errors" on, for a mismatch or a covered
    card (the terminal game says the same: "that card is still covered")."""
    key = result.reason.value if result.reason is not None else None
    if move_errors and key in ("must_match", "covered"):
        return Event(
            kind=result.kind.value,
            message=messages.text(lang, f"server.move.{key}"),
            message_key=key,
            reason=key,
        )
    return Event(kind=result.kind.value, reason=key)
