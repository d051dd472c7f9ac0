"""Heart to Heart's ``/ws`` messages, as typed, validated pydantic models.

The client messages are :data:`MESSAGES`, which the solitaire endpoint declares as its own;
the common ones (``hello``, ``lang``, ``error``) and the bases are in
:mod:`heartsuit.server.protocol`. ``settings`` and ``stats`` carry no ``solitaire.`` prefix
because the page spoke them before there was a second game; they are Heart to Heart's all the
same. :class:`PlayerSettings` is both what the page is sent and what the player's solitaire
preferences are stored as.
"""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictInt,
    model_validator,
)

from heartsuit.server.protocol import ClientMessage, Reply

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


class SolitaireTap(ClientMessage):
    type: Literal["solitaire.tap"]
    game: str
    #: 1..25, "stock" or "waste"; checked by the service so that a wrong target is ``bad_target``
    target: JsonValue


class SolitaireUndo(ClientMessage):
    type: Literal["solitaire.undo"]
    game: str


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


class Event(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str
    #: set only when the "Move errors" setting is on and the event has something to say
    message: str | None = None
    message_key: str | None = None
    #: why a tap did what it did ("covered", "must_match", …), whatever the settings say
    reason: str | None = None


class PlayerSettings(BaseModel):
    model_config = ConfigDict(frozen=True)

    move_errors: bool = False  # spec: "Move errors" is off by default
    placement_help: bool = True  # spec: "Placement help" is on by default
    winnable_only: bool = False  # off by default: the solver is never used unless asked


class SolitaireState(Reply):
    type: Literal["solitaire.state"] = "solitaire.state"
    game: GameView
    event: Event


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
