"""A game of Heart to Heart: state, taps and selection, moves, undo, score, outcome, help.

:class:`Game` is the one source of truth for the solitaire's rules: the terminal game, the
website and the solver all drive it through :meth:`Game.tap` and :meth:`Game.undo`, and ask it
which cards to outline or dim. It is pure: no I/O and no clock (callers pass ``now``).

Decisions the spec leaves open (see also ``docs/heart-to-heart.md``):

* ``moves`` counts the moves currently made: undo takes one back, so it decrements ``moves``.
* Undo clears the selection, and only takes back moves (flips, redeals, pairs), never a
  selection tap; it works after a dead end and after a win too.
* Taps on a game that is over (won or dead end) raise :class:`GameOver`; undo still works.
* A tap that does nothing (a covered card, an empty place, the empty waste, the stock when stock
  and waste are both empty) returns a result of kind ``ignored`` with a ``reason`` key and
  changes nothing, not even the selection.
* Placement help outlines ``"waste"`` too when its top card pairs with a free heart card, and
  dims only cards that could be tapped (free heart cards and the waste top): covered cards are
  not dimmed, they already look covered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Literal

from heartsuit.cards import Card
from heartsuit.solitaire.clock import Clock
from heartsuit.solitaire.codes import Deal, deal_cards, format_code, parse_code, random_code
from heartsuit.solitaire.errors import GameError, SnapshotError
from heartsuit.solitaire.layout import COVER_MASKS, POSITIONS
from heartsuit.solitaire.snapshot import SNAPSHOT_VERSION, read_snapshot
from heartsuit.solitaire.taps import (
    MUST_MATCH,
    Action,
    GameOver,
    Outcome,
    Reason,
    Selection,
    TapKind,
    TapResult,
    Target,
    check_target,
)
from heartsuit.solitaire.undo import (
    UNDO_LIMIT,
    Flipped,
    MoveRecord,
    Paired,
    Redealt,
    record_to_json,
)

#: the free positions of each set of cards present (a pure function of it, asked after every
#: tap and for every view), kept for the sets seen lately
_FREE: dict[int, tuple[int, ...]] = {}
_FREE_LIMIT = 1 << 16

_PairsKey = tuple[int, int | None]
_Pairs = tuple[tuple[Selection, Selection], ...]

#: the code of a deal number (the same text every time it is asked)
_code_of = lru_cache(maxsize=4096)(format_code)

__all__ = [
    "Action",
    "Game",
    "GameError",
    "GameOver",
    "Outcome",
    "Reason",
    "Selection",
    "SnapshotError",
    "TapKind",
    "TapResult",
    "Target",
    "check_target",
]


class Game:
    """One game of Heart to Heart, from a deal to a win or a dead end.

    Settings are keyword arguments and plain attributes that may be changed at any time:

    * ``move_errors`` (default False): a mismatched second tap carries the message
      "Harus bernilai sama" (``message_key="must_match"``) in its :class:`TapResult`.
    * ``placement_help`` (default True): :meth:`outlined` and :meth:`dimmed` say which cards to
      outline and dim; with it off both are empty.
    * ``language`` (default "id"): the language of ``TapResult.message`` ("id" or "en").

    Time is the caller's: pass ``now`` (seconds on a monotonic scale) to the constructor,
    :meth:`tap` and :meth:`undo`, and read :meth:`elapsed`. Without ``now`` no time is counted.
    """

    def __init__(
        self,
        deal: Deal,
        *,
        move_errors: bool = False,
        placement_help: bool = True,
        language: Literal["id", "en"] = "id",
        now: float | None = None,
    ) -> None:
        if language not in MUST_MATCH:
            raise GameError(f"the language is 'id' or 'en', not {language!r}", "bad_setting")
        self.deal = deal
        self.move_errors = move_errors
        self.placement_help = placement_help
        self.language: Literal["id", "en"] = language
        self._heart: list[Card | None] = list(deal.heart)
        self._stock: list[Card] = list(deal.stock)
        self._waste: list[Card] = list(deal.waste)
        self._present = (1 << 25) - 1  # bit p-1 set while position p holds a card
        #: the last answer of :meth:`pairs`, with the cards present and the waste top it was for
        self._pairs_of: tuple[_PairsKey | None, _Pairs] = (None, ())
        #: the ranks in the stock and the waste together (flips and redeals only move cards
        #: between the two), None when a pair with the waste or its undo changed them
        self._pile_ranks: frozenset[int] | None = None
        self._selected: Selection | None = None
        self._score = 0
        self._moves = 0
        self._history: list[MoveRecord] = []
        self._clock = Clock()
        self._outcome = Outcome.PLAYING
        self._outcome = self._judge()
        self._clock.see(now, running=self._outcome is Outcome.PLAYING)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_code(
        cls,
        code: str,
        *,
        move_errors: bool = False,
        placement_help: bool = True,
        language: Literal["id", "en"] = "id",
        now: float | None = None,
    ) -> Game:
        """The game of a deal code; a bad code raises :class:`~codes.DealCodeError`."""
        return cls(
            deal_cards(parse_code(code)),
            move_errors=move_errors,
            placement_help=placement_help,
            language=language,
            now=now,
        )

    @classmethod
    def new(
        cls,
        *,
        move_errors: bool = False,
        placement_help: bool = True,
        language: Literal["id", "en"] = "id",
        now: float | None = None,
    ) -> Game:
        """A game of a random deal."""
        return cls.from_code(
            random_code(),
            move_errors=move_errors,
            placement_help=placement_help,
            language=language,
            now=now,
        )

    @classmethod
    def replay(
        cls,
        code: str,
        actions: Iterable[Action],
        *,
        times: Sequence[float] | None = None,
        start: float | None = None,
        move_errors: bool = False,
        placement_help: bool = True,
        language: Literal["id", "en"] = "id",
    ) -> Game:
        """Rebuild a game from its code and its log of taps (``"undo"`` for an undo).

        ``times[i]``, if given, is the ``now`` of action ``i`` and ``start`` that of the deal.
        A log entry that the game would refuse raises :class:`GameError` naming its index.
        """
        game = cls.from_code(
            code,
            move_errors=move_errors,
            placement_help=placement_help,
            language=language,
            now=start,
        )
        for index, action in enumerate(actions):
            now = None if times is None else times[index]
            try:
                if action == "undo":
                    game.undo(now=now)
                else:
                    game.tap(action, now=now)
            except GameError as err:
                raise GameError(f"action {index} ({action!r}) of the log: {err}", err.key) from None
        return game

    # ----------------------------------------------------------------- reading the state
    @property
    def code(self) -> str:
        return _code_of(self.deal.number)

    @property
    def heart(self) -> tuple[Card | None, ...]:
        """The 25 places, index 0 = position 1; None where the card has been removed."""
        return tuple(self._heart)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The face-down stock, the next card to be flipped first."""
        return tuple(self._stock)

    @property
    def waste(self) -> tuple[Card, ...]:
        """The face-up waste, its top (the only playable card) last."""
        return tuple(self._waste)

    @property
    def selected(self) -> Selection | None:
        return self._selected

    @property
    def score(self) -> int:
        return self._score

    @property
    def moves(self) -> int:
        """Moves currently made: flips, redeals and pairs, less those undone."""
        return self._moves

    @property
    def outcome(self) -> Outcome:
        return self._outcome

    @property
    def won(self) -> bool:
        return self._outcome is Outcome.WON

    @property
    def dead_end(self) -> bool:
        return self._outcome is Outcome.DEAD_END

    @property
    def over(self) -> bool:
        return self._outcome is not Outcome.PLAYING

    @property
    def undo_depth(self) -> int:
        """How many moves :meth:`undo` can take back now (at most 100)."""
        return len(self._history)

    def card_at(self, target: Target) -> Card | None:
        """The card a tap on ``target`` would name: a heart card, the waste top, or None."""
        target = check_target(target)
        if target == "stock":
            return None
        if target == "waste":
            return self._waste[-1] if self._waste else None
        return self._heart[target - 1]

    def is_free(self, position: int) -> bool:
        """Whether position ``position`` holds a card that nothing covers."""
        check_target(position)
        bit = 1 << (position - 1)
        return bool(self._present & bit) and not COVER_MASKS[position - 1] & self._present

    def explain(self, target: Target) -> Reason | None:
        """Why a tap on ``target`` would not select or pair (``covered``, ``empty_place``,
        ``empty_waste``, ``nothing_to_flip``, or ``must_match`` against the selection), or None
        when it would. The same check :meth:`tap` makes, so a UI's hint and the engine agree."""
        target = check_target(target)
        if target == "stock":
            return None if self._stock or self._waste else Reason.NOTHING_TO_FLIP
        why_not = self._selectable(target)
        if why_not is not None or self._selected is None or self._selected == target:
            return why_not
        if self._card(self._selected).rank != self._card(target).rank:
            return Reason.MUST_MATCH
        return None

    def free_positions(self) -> tuple[int, ...]:
        """The positions of the free heart cards, in order."""
        present = self._present
        known = _FREE.get(present)
        if known is None:
            known = tuple(
                p for p in POSITIONS if present >> (p - 1) & 1 and not COVER_MASKS[p - 1] & present
            )
            if len(_FREE) >= _FREE_LIMIT:
                _FREE.clear()
            _FREE[present] = known
        return known

    def elapsed(self, now: float | None = None) -> float:
        """Seconds played up to ``now``; frozen while the game is over."""
        return self._clock.elapsed(now)

    def pairs(self) -> tuple[tuple[Selection, Selection], ...]:
        """Every pair that could be removed now: (position, position) or (position, "waste")."""
        top = self._waste[-1].rank if self._waste else None
        # the heart's ranks are the deal's: the cards there and the waste's top say it all
        # (a view asks several times per state: for the outlines, the answers, the judge)
        key = (self._present, top)
        if self._pairs_of[0] == key:
            return self._pairs_of[1]
        free = self.free_positions()
        heart = self._heart
        ranks = [card.rank for card in [heart[p - 1] for p in free] if card is not None]
        out: list[tuple[Selection, Selection]] = []
        for i, p in enumerate(free):
            rank = ranks[i]
            if rank in ranks[i + 1 :]:
                out.extend((p, free[j]) for j in range(i + 1, len(free)) if ranks[j] == rank)
            if rank == top:
                out.append((p, "waste"))
        found = tuple(out)
        self._pairs_of = (key, found)
        return found

    # ----------------------------------------------------------------- placement help
    def outlined(self) -> tuple[Target, ...]:
        """Free heart cards with a free partner in the heart or matching the waste top, then
        ``"waste"`` if its top pairs with one of them. Empty with placement help off."""
        if not self.placement_help:
            return ()
        marked: set[Selection] = set()
        for a, b in self.pairs():
            marked.update((a, b))
        positions: list[Target] = sorted(p for p in marked if isinstance(p, int))
        return (*positions, "waste") if "waste" in marked else tuple(positions)

    def dimmed(self) -> tuple[Target, ...]:
        """While a card is selected: the tappable cards (free heart cards, the waste top) that
        cannot pair with it. Empty with nothing selected or with placement help off."""
        if not self.placement_help or self._selected is None:
            return ()
        chosen = self._card(self._selected)
        out: list[Target] = [
            p for p in self.free_positions() if p != self._selected and self._rank(p) != chosen.rank
        ]
        if self._waste and self._selected != "waste" and self._waste[-1].rank != chosen.rank:
            out.append("waste")
        return tuple(out)

    # ----------------------------------------------------------------- playing
    def tap(self, target: Target, *, now: float | None = None) -> TapResult:
        """Touch a heart position (1..25), the ``"stock"`` or the ``"waste"``.

        Raises :class:`GameError` for a target that does not exist and :class:`GameOver` once
        the game is won or dead-ended; in both cases nothing changes.
        """
        target = check_target(target)
        if self.over:
            raise GameOver(self._outcome)
        self._clock.see(now, running=True)
        result = self._touch_stock() if target == "stock" else self._touch_card(target)
        if result.is_move:
            self._moves += 1
            self._outcome = self._judge()
            if self.over:
                self._clock.stop()
            if self._outcome is not Outcome.PLAYING:
                result = replace(result, outcome=self._outcome)
        return result

    def undo(self, *, now: float | None = None) -> bool:
        """Take back the last move (up to 100 back); False, changing nothing, if there is none.

        Cards return to their exact places, pair points are taken back, ``moves`` goes down by
        one and the selection is cleared.
        """
        if not self._history:
            return False
        was_over = self.over
        self._clock.see(now, running=not was_over)
        record = self._history.pop()
        if isinstance(record, Flipped):
            self._stock.insert(0, self._waste.pop())
        elif isinstance(record, Redealt):
            self._waste, self._stock = self._stock, []
        else:
            for position, card in zip(record.positions, record.cards, strict=False):
                self._heart[position - 1] = card
                self._present |= 1 << (position - 1)
            if record.waste is not None:
                self._waste.append(record.waste)
                self._pile_ranks = None
            self._score -= record.points
        self._moves -= 1
        self._selected = None
        self._outcome = self._judge()
        if was_over and not self.over:
            self._clock.restart()
        return True

    # ----------------------------------------------------------------- snapshots
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot; equal snapshots mean equal games (undo history and clock too)."""
        return {
            "version": SNAPSHOT_VERSION,
            "code": self.code,
            "heart": [None if card is None else card.code for card in self._heart],
            "stock": [card.code for card in self._stock],
            "waste": [card.code for card in self._waste],
            "selected": self._selected,
            "score": self._score,
            "moves": self._moves,
            "outcome": self._outcome.value,
            "settings": {
                "move_errors": self.move_errors,
                "placement_help": self.placement_help,
                "language": self.language,
            },
            "history": [record_to_json(record) for record in self._history],
            "clock": self._clock.to_json(),
        }

    @classmethod
    def from_dict(cls, data: object) -> Game:
        """Rebuild a game from :meth:`to_dict`; a snapshot that does not hang together raises
        :class:`GameError` saying what is wrong."""
        snap = read_snapshot(data)
        game = cls(
            snap.deal,
            move_errors=snap.move_errors,
            placement_help=snap.placement_help,
            language=snap.language,
        )
        game._heart = list(snap.heart)
        game._present = sum(1 << i for i, card in enumerate(snap.heart) if card is not None)
        game._pairs_of = (None, ())
        game._pile_ranks = None
        game._stock = list(snap.stock)
        game._waste = list(snap.waste)
        game._score = snap.score
        game._moves = snap.moves
        game._history = list(snap.history)
        game._clock = snap.clock
        game._outcome = game._judge()
        if game._outcome.value != snap.outcome:
            raise SnapshotError(
                f"the snapshot says the game is {snap.outcome!r} but its cards say "
                f"{game._outcome.value!r}"
            )
        selected = snap.selected
        if selected is not None and game._selectable(selected) is not None:
            raise SnapshotError(f"the snapshot selects {selected!r}, which cannot be selected")
        game._selected = selected
        return game

    def __repr__(self) -> str:
        return f"Game({self.code!r}, moves={self._moves}, score={self._score}, {self._outcome})"

    # ----------------------------------------------------------------- internals
    def _rank(self, position: int) -> int:
        card = self._heart[position - 1]
        assert card is not None  # callers pass present positions only
        return card.rank

    def _card(self, selection: Selection) -> Card:
        card = self._waste[-1] if selection == "waste" else self._heart[selection - 1]
        assert card is not None  # a selection always names a card that is there
        return card

    def _touch_stock(self) -> TapResult:
        if self._stock:
            card = self._stock.pop(0)
            self._waste.append(card)
            self._history_push(Flipped())
            self._selected = None
            return TapResult(TapKind.FLIPPED, "stock", cards=(card,))
        if self._waste:
            # the card turned first is turned first again (seed: "dengan urutan yang sama")
            self._stock, self._waste = self._waste, []
            self._history_push(Redealt())
            self._selected = None
            return TapResult(TapKind.REDEALT, "stock")
        return TapResult(TapKind.IGNORED, "stock", reason=Reason.NOTHING_TO_FLIP)

    def _selectable(self, target: Selection) -> Reason | None:
        """None if a tap on ``target`` names a card that can be played, else why not."""
        if target == "waste":
            return None if self._waste else Reason.EMPTY_WASTE
        if self._heart[target - 1] is None:
            return Reason.EMPTY_PLACE
        if COVER_MASKS[target - 1] & self._present:
            return Reason.COVERED
        return None

    def _touch_card(self, target: Selection) -> TapResult:
        why_not = self._selectable(target)
        if why_not is not None:
            return TapResult(TapKind.IGNORED, target, reason=why_not)
        card = self._card(target)
        where = () if target == "waste" else (target,)
        if self._selected is None:
            self._selected = target
            return TapResult(TapKind.SELECTED, target, cards=(card,), positions=where)
        if self._selected == target:
            self._selected = None
            return TapResult(TapKind.DESELECTED, target, cards=(card,), positions=where)
        first = self._selected
        other = self._card(first)
        if other.rank != card.rank:
            self._selected = target
            told = self.move_errors  # the message only with the "move errors" setting on
            return TapResult(
                TapKind.RESELECTED, target, cards=(card,), positions=where,
                reason=Reason.MUST_MATCH,
                message=MUST_MATCH.get(self.language, MUST_MATCH["id"]) if told else None,
                message_key=Reason.MUST_MATCH.value if told else None,
            )
        return self._remove_pair(first, target)

    def _remove_pair(self, a: Selection, b: Selection) -> TapResult:
        positions = tuple(p for p in (a, b) if isinstance(p, int))
        cards: list[Card] = []
        for position in positions:
            card = self._heart[position - 1]
            assert card is not None
            cards.append(card)
            self._heart[position - 1] = None
            self._present &= ~(1 << (position - 1))
        waste = None
        if "waste" in (a, b):
            waste = self._waste.pop()
            self._pile_ranks = None
        record = Paired(positions, tuple(cards), waste)
        self._score += record.points
        self._history_push(record)
        self._selected = None
        removed = (*cards, waste) if waste is not None else tuple(cards)
        return TapResult(
            TapKind.PAIRED, b, cards=removed, positions=positions, points=record.points
        )

    def _history_push(self, record: MoveRecord) -> None:
        self._history.append(record)
        if len(self._history) > UNDO_LIMIT:
            del self._history[0]

    def _judge(self) -> Outcome:
        """Won beats everything; a dead end is exactly the spec's definition."""
        if not self._present:
            return Outcome.WON
        if self.pairs():
            return Outcome.PLAYING  # a pair to take now (two free cards, or one and the waste)
        free_ranks = [self._rank(p) for p in self.free_positions()]
        elsewhere = self._pile_ranks
        if elsewhere is None:
            elsewhere = frozenset(card.rank for card in (*self._stock, *self._waste))
            self._pile_ranks = elsewhere
        for i, rank in enumerate(free_ranks):
            if rank in elsewhere or rank in free_ranks[i + 1 :] or rank in free_ranks[:i]:
                return Outcome.PLAYING
        return Outcome.DEAD_END


