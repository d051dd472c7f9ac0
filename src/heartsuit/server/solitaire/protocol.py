"""Heart to Heart's ``/ws`` messages, as typed, validated pydantic models.

The client messages are :data:`MESSAGES`, which the solitaire endpoint declares as its own;
the common ones (``hello``, ``lang``, ``error``) and the bases are in
:mod:`heartsuit.server.core.protocol`. ``settings`` and ``stats`` carry no ``solitaire.`` prefix
because the page spoke them before there was a second game; they are Heart to Heart's all the
same. :class:`PlayerSettings` is both what the page is sent and what the player's solitaire
preferences are stored as.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictInt,
    StringConstraints,
    model_validator,
)

from heartsuit.gamecodes import CodeProblem
from heartsuit.server.core.protocol import ClientMessage, Reply


class SolitaireErrorCode(StrEnum):
    """The codes of Heart to Heart's own refusals (besides the core's ``ErrorCode``); each has
    a message ``server.error.<code>`` in the catalogs, a bad code one per problem
    (``server.code.…``)."""

    BAD_CODE = "bad_code"
    UNKNOWN_GAME = "unknown_game"
    BAD_TARGET = "bad_target"
    GAME_OVER = "game_over"
    GAME_UNDER_WAY = "game_under_way"


#: every catalog key Heart to Heart's server side may ask for
MESSAGE_KEYS: Final = (
    # a bad code is explained by its problem (server.code.…), not by a generic text
    *(
        f"server.error.{code.value}"
        for code in SolitaireErrorCode
        if code is not SolitaireErrorCode.BAD_CODE
    ),
    *(f"server.code.{problem.value}" for problem in CodeProblem),
    "server.code.empty",
    "server.error.solitaire_stale",
    "server.move.must_match",
    "server.move.covered",
)


# --- client → server -------------------------------------------------------------------------


class SolitaireResume(ClientMessage):
    type: Literal["solitaire.resume"]


class SolitaireNew(ClientMessage):
    type: Literal["solitaire.new"]
    #: None deals a random game; any text must be a deal code (an empty one is refused)
    code: str | None = None
    #: None means "use the player's setting"
    winnable_only: StrictBool | None = None
    #: the id of the game under way that the player agreed to leave (it counts as a loss);
    #: without it, a new game while one is under way is refused with ``game_under_way``
    leave: str | None = None
    #: deal the deal of the day (today's, UTC) instead: no ``code`` then
    daily: StrictBool = False

    @model_validator(mode="after")
    def _one_deal(self) -> SolitaireNew:
        if self.daily and self.code is not None:
            raise ValueError("ask for a code or for the deal of the day, not both")
        return self


class SolitaireRestart(ClientMessage):
    """Deal the same code again, from the start; the attempt in progress is left (``leave``
    as for ``solitaire.new``)."""

    type: Literal["solitaire.restart"]
    game: str
    leave: str | None = None


#: the page's id of an intent (a tap or an undo): kept when the frame is sent again
IntentId = Annotated[
    str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:-]+$")
]


class SolitaireTap(ClientMessage):
    type: Literal["solitaire.tap"]
    game: str
    #: 1..25, "stock" or "waste"; checked by the service so that a wrong target is ``bad_target``
    target: JsonValue
    #: the page's id of this tap: a frame sent again is answered, not applied twice
    intent: IntentId | None = None
    #: the ``log_length`` of the view the tap was made on: if the game has moved on since, the
    #: tap is refused (``stale``, with the fresh state) rather than applied to another position
    base: StrictInt | None = Field(default=None, ge=0)


class SolitaireUndo(ClientMessage):
    type: Literal["solitaire.undo"]
    game: str
    intent: IntentId | None = None
    base: StrictInt | None = Field(default=None, ge=0)


class SolitaireVisibility(ClientMessage):
    """The game page is shown (``visible``) or hidden (another tab, a minimised window): the
    game's play clock runs only while a connection shows it visibly. The reply is the game's
    state (or ``solitaire.none``) with its clock as it now stands."""

    type: Literal["solitaire.visibility"]
    visible: StrictBool


class SettingsUpdate(ClientMessage):
    """Any subset of the settings; the reply carries all of them."""

    type: Literal["settings"]
    move_errors: StrictBool | None = None
    placement_help: StrictBool | None = None
    winnable_only: StrictBool | None = None


class StatsRequest(ClientMessage):
    type: Literal["stats"]
    #: the page of the per-deal list: skip ``offset`` codes, send at most ``limit`` (1..100)
    offset: StrictInt = Field(default=0, ge=0)
    limit: StrictInt = Field(default=50, ge=1, le=100)


MESSAGES: tuple[type[ClientMessage], ...] = (
    SolitaireResume,
    SolitaireNew,
    SolitaireRestart,
    SolitaireTap,
    SolitaireUndo,
    SolitaireVisibility,
    SettingsUpdate,
    StatsRequest,
)


# --- server → client -------------------------------------------------------------------------


class CardView(BaseModel):
    """A face-up card as the page draws it; the flags already respect placement help."""

    model_config = ConfigDict(frozen=True)

    card: str  # "4♥"
    rank: str  # "4", "10", "A", "J", "Q", "K"
    outlined: bool
    dimmed: bool
    selected: bool


class HeartCardView(CardView):
    free: bool


class TapAnswers(BaseModel):
    """What a tap on this state would do, from the engine itself, so that the page can show a
    selection, a deselection, a mismatch or a pair at once and let the server confirm it. Which
    heart cards are free is in each card's ``free``; what is selected, in ``selected``."""

    model_config = ConfigDict(frozen=True)

    #: every pair that could be removed now: [position, position] or [position, "waste"]
    pairs: list[tuple[int, int | Literal["waste"]]]
    #: what a tap on the stock does: turn up a card, turn the waste over, or nothing
    stock: Literal["flip", "redeal", "none"]


class GameView(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    code: str
    heart: list[HeartCardView | None]  # 25 places, position 1 first; None = emptied
    stock_count: int
    #: placement help marks the stock when turning up a card is the only useful move
    stock_outlined: bool = False
    waste_top: CardView | None
    waste_count: int
    score: int
    moves: int
    undo_left: int
    outcome: Literal["playing", "won", "dead_end"]
    #: play time: counted only while a page shows the game visibly (and stopped at the end)
    elapsed_ms: int
    started_at_ms: int
    #: whether the play clock is counting now (False: paused, or the game is over)
    clock_running: bool = False
    #: the deal of the day (today's, UTC)
    daily: bool = False
    #: leaving this game now would count it as a loss (it has moves and is not over): the
    #: page asks first, and a new game must name it in ``leave``
    under_way: bool = False
    #: dead from the deal itself: no pair can ever be made; it does not count as a game
    dead_deal: bool = False
    #: how many entries the game's move log holds: the page's ``base`` for its next intent
    log_length: int = 0
    #: what a tap would do (None once the game is over: taps are refused)
    answers: TapAnswers | None = None


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str
    #: set only when the "Move errors" setting is on and the event has something to say
    message: str | None = None
    message_key: str | None = None
    #: why a tap did what it did ("covered", "must_match", …), whatever the settings say
    reason: str | None = None
    #: the intent was already applied (a frame sent again): the state is as it left it
    repeat: bool = False


class PlayerSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    move_errors: bool = False  # spec: "Move errors" is off by default
    placement_help: bool = True  # spec: "Placement help" is on by default
    winnable_only: bool = False  # off by default: the solver is never used unless asked


class SolitaireState(Reply):
    type: Literal["solitaire.state"] = "solitaire.state"
    game: GameView
    event: Event


class SolitaireStale(Reply):
    """The refusal of an intent made on a view that has moved on (another tab, another
    process): an error (``code`` "stale") carrying the game as it is now."""

    type: Literal["error"] = "error"
    code: Literal["stale"] = "stale"
    message: str
    game: GameView


class SolitaireNone(Reply):
    type: Literal["solitaire.none"] = "solitaire.none"


class SettingsReply(PlayerSettings, Reply):
    type: Literal["settings"] = "settings"


class OverallStats(BaseModel):
    model_config = ConfigDict(frozen=True)

    games: int
    wins: int
    win_pct: float  # 0..100, one decimal; 0 when no game has finished
    current_streak: int
    best_streak: int
    best_time_ms: int | None
    fewest_moves: int | None
    #: deals dealt dead from the start (not games played, so not in ``games``)
    dead_deals: int = 0


class CodeStats(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: str
    games: int
    wins: int
    best_time_ms: int | None
    fewest_moves: int | None


class DailyStats(BaseModel):
    """The deal of the day: everyone's figures for its code, and this player's daily streak."""

    model_config = ConfigDict(frozen=True)

    code: str
    #: the UTC day, YYYY-MM-DD
    date: str
    #: players who finished a game of it (won or lost), and players who won it
    players: int
    winners: int
    best_time_ms: int | None
    fewest_moves: int | None
    #: this player won it today
    won_today: bool
    #: days in a row this player won the deal of the day (still alive if yesterday's was won)
    streak: int
    best_streak: int


class StatsReply(Reply):
    type: Literal["stats"] = "stats"
    overall: OverallStats
    #: one page of the per-deal list, the most recently counted deal first
    by_code: list[CodeStats]
    #: how many deals the whole list has
    by_code_total: int = 0
    offset: int = 0
    limit: int = 50
    #: the deal of the day and the daily streak
    daily: DailyStats | None = None
