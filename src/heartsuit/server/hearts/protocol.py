"""Hearts messages on ``/ws``: what a page may ask of a table, and what a seat is told.

The shapes are written down here once (the contract in ``docs/site.md`` points at this module).
Client messages are validated pydantic models tagged by ``type``; every one that acts on a table
names it and carries a seat token, and every one that changes the match carries the table
version the page last saw. Server messages are built only from a seat's view
(:mod:`heartsuit.server.hearts.frames`), never from the match itself.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, StrictInt

from heartsuit.gamecodes import CodeProblem
from heartsuit.server.core.protocol import ClientMessage, ProtocolError, Reply

#: the levels a computer seat may be given (bots.LEVELS may offer fewer; checked by the service)
Level = Literal["easy", "normal", "hard"]
Mode = Literal["computer", "hotseat", "online"]
Preset = Literal["standard", "three", "five", "omnibus", "black-maria", "cancellation"]

#: a seat token: ``secrets.token_urlsafe(24)`` gives 32 such characters
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{20,64}$"
#: a table id: ``secrets.token_urlsafe(12)`` gives 16
TABLE_PATTERN = r"^[A-Za-z0-9_-]{8,40}$"
NAME_MAX = 24


class _In(ClientMessage):
    pass


class SeatChoice(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    kind: Literal["human", "computer"]
    level: Level | None = None
    name: str | None = Field(default=None, max_length=200)


class TableOptions(BaseModel):
    """The named rule options a table may change (None: the preset's value)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    moon: Literal["others_plus_26", "self_minus_26", "shooter_chooses"] | None = None
    hearts_broken_by: Literal["heart_discard", "heart_or_queen"] | None = None
    jack_of_diamonds: StrictBool | None = None
    exactly_100_reset: StrictBool | None = None
    spade_penalties: StrictBool | None = None
    passing: StrictBool | None = None
    target: StrictInt | None = Field(default=None, ge=1, le=10_000)
    ties: Literal["shared", "play_on"] | None = None

    def overrides(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class HeartsCreate(_In):
    type: Literal["hearts.create"]
    mode: Mode = "computer"
    preset: Preset = "standard"
    #: Cancellation only: 6..10
    players: StrictInt | None = Field(default=None, ge=3, le=10)
    options: TableOptions = TableOptions()
    #: a game code ``HE1-…`` replays that match's deals (its preset and players win)
    code: str | None = Field(default=None, max_length=64)
    #: one per seat; missing seats are computers at the default level (seat 0 is the creator)
    seats: list[SeatChoice] | None = Field(default=None, max_length=10)
    name: str | None = Field(default=None, max_length=200)
    #: how fast the computers play (changed later with ``hearts.pace``)
    pace: Literal["slow", "normal", "fast"] = "normal"
    #: online: whether the people may ask for hints (everyone who joins sees it); computer and
    #: shared-device tables always may
    hints: StrictBool = False


class HeartsOpen(_In):
    type: Literal["hearts.open"]
    table: str = Field(pattern=TABLE_PATTERN)
    tokens: list[str] = Field(default_factory=list, max_length=10)
    #: the last version the page has; events after it are sent when still known
    version: StrictInt | None = Field(default=None, ge=0)
    #: take the seat over from another socket that holds it (after an ``in_use`` error)
    take_over: StrictBool = False


class HeartsInvite(_In):
    type: Literal["hearts.invite"]
    invite: str = Field(max_length=64)


class HeartsSit(_In):
    type: Literal["hearts.sit"]
    table: str = Field(pattern=TABLE_PATTERN)
    seat: StrictInt = Field(ge=0, le=9)
    name: str = Field(max_length=200)


class _Seated(_In):
    table: str = Field(pattern=TABLE_PATTERN)
    token: str = Field(pattern=TOKEN_PATTERN)


class HeartsStart(_Seated):
    type: Literal["hearts.start"]


class HeartsPass(_Seated):
    type: Literal["hearts.pass"]
    cards: list[JsonValue] = Field(max_length=20)
    version: StrictInt = Field(ge=0)


class HeartsPlay(_Seated):
    type: Literal["hearts.play"]
    card: JsonValue
    version: StrictInt = Field(ge=0)


class HeartsMoon(_Seated):
    """The seat that shot the moon chooses how it scores (``moon="shooter_chooses"``)."""

    type: Literal["hearts.moon"]
    choice: Literal["others_plus_26", "self_minus_26"]
    version: StrictInt = Field(ge=0)


class HeartsLook(_Seated):
    type: Literal["hearts.look"]


class HeartsLeave(_Seated):
    type: Literal["hearts.leave"]


class HeartsFree(_Seated):
    type: Literal["hearts.free"]
    seat: StrictInt = Field(ge=0, le=9)


class HeartsRematch(_Seated):
    type: Literal["hearts.rematch"]


class HeartsNext(_Seated):
    """Between hands: this person has seen the summary and is ready for the next hand."""

    type: Literal["hearts.next"]


class HeartsPace(_Seated):
    """How fast the computers play at this table (the host's choice online)."""

    type: Literal["hearts.pace"]
    pace: Literal["slow", "normal", "fast"]


class HeartsHint(_Seated):
    """What the ``normal`` computer would play (or pass) for this seat now."""

    type: Literal["hearts.hint"]
    version: StrictInt = Field(ge=0)


class HeartsReplayAsk(_In):
    """A finished match of a table, face up (the replay page). No seat token: once a match is
    over its replay is for anyone with the link; a match still being played is refused."""

    type: Literal["hearts.replay"]
    table: str = Field(pattern=TABLE_PATTERN)
    #: the match's number at the table (1 = the first; each rematch adds one); None: the last
    #: finished one
    match: StrictInt | None = Field(default=None, ge=1, le=100_000)


HeartsMessage = (
    HeartsCreate
    | HeartsOpen
    | HeartsInvite
    | HeartsSit
    | HeartsStart
    | HeartsPass
    | HeartsPlay
    | HeartsMoon
    | HeartsLook
    | HeartsLeave
    | HeartsFree
    | HeartsRematch
    | HeartsNext
    | HeartsPace
    | HeartsHint
    | HeartsReplayAsk
)
HEARTS_MESSAGES: tuple[type[ClientMessage], ...] = (
    HeartsCreate,
    HeartsOpen,
    HeartsInvite,
    HeartsSit,
    HeartsStart,
    HeartsPass,
    HeartsPlay,
    HeartsMoon,
    HeartsLook,
    HeartsLeave,
    HeartsFree,
    HeartsRematch,
    HeartsNext,
    HeartsPace,
    HeartsHint,
    HeartsReplayAsk,
)


class HeartsErrorCode(StrEnum):
    """The codes of Hearts' own refusals (besides the core's :class:`ErrorCode`); each has a
    message ``server.error.<code>`` in the catalogs, a bad code one per problem
    (``server.hcode.…``)."""

    BAD_CODE = "bad_code"
    UNKNOWN_TABLE = "unknown_table"
    BAD_INVITE = "bad_invite"
    BAD_TOKEN = "bad_token"
    BAD_CARD = "bad_card"
    BAD_NAME = "bad_name"
    BAD_RULES = "bad_rules"
    BAD_LEVEL = "bad_level"
    NOT_OPEN = "not_open"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL = "illegal"
    TABLE_FULL = "table_full"
    TABLE_STARTED = "table_started"
    SEAT_TAKEN = "seat_taken"
    SEAT_BUSY = "seat_busy"
    NOT_HOST = "not_host"
    NOT_OVER = "not_over"
    IN_USE = "in_use"
    TAKEN_OVER = "taken_over"
    MATCH_RUNNING = "match_running"
    HINTS_OFF = "hints_off"


#: every catalog key Hearts' server side may ask for (an illegal card's reason comes from the
#: engine's reasons, ``hearts.reason.…``)
MESSAGE_KEYS: Final = (
    *(f"server.error.{c.value}" for c in HeartsErrorCode if c is not HeartsErrorCode.BAD_CODE),
    # a bad Hearts code (hearts.create) is explained in Hearts' words (server.hcode.…)
    *(f"server.hcode.{problem.value}" for problem in CodeProblem),
    "server.hcode.empty",
    "server.hcode.people",
)


class HeartsError(ProtocolError):
    """An intent about a table refused before anything changed."""

    def __init__(self, code: StrEnum, detail: str = "", /, **values: object) -> None:
        # a bad Hearts code (HE1-…) is explained by its problem, in Hearts' own words
        key = ""
        if code is HeartsErrorCode.BAD_CODE:
            key = f"server.hcode.{values.get('problem', 'parts')}"
        super().__init__(code, detail, message_key=key, **values)


# --- server → client -------------------------------------------------------------------------


class _Out(Reply):
    pass


class SeatInfo(_Out):
    seat: int
    name: str
    kind: Literal["human", "computer", "open"]
    level: str | None
    connected: bool
    #: a person who dropped and whose seat a computer now plays
    away: bool


class TableInfo(_Out):
    id: str
    mode: Mode
    status: Literal["lobby", "playing", "over"]
    #: the match's game code once it is over (None while it runs, and for a secret seed)
    code: str | None
    #: the finished match's replay page (None while it runs)
    replay_url: str | None
    preset: str
    rules: dict[str, Any]
    invite: str | None
    invite_url: str | None
    host: bool
    seats: list[SeatInfo]
    #: how fast the computers play ("slow", "normal", "fast")
    pace: str = "normal"
    #: whether the people at the table may ask for hints
    hints: bool = True
    version: int


class Sheet(_Out):
    hands: list[list[int]]
    totals: list[list[int]]
    shooters: list[int | None]
    #: how each hand's moon was scored ("others_plus_26" / "self_minus_26"), None without one
    moons: list[str | None] = Field(default_factory=list)
    #: what a moon is worth under these rules (26; 52 with two packs; more with spade penalties)
    moon_points: int = 26


class Over(_Out):
    winners: list[int]


class LastHand(_Out):
    """The hand finished last, in public facts only: for each seat the cards that count (hearts,
    Q♠, J♦ or spade penalties where on) it took in tricks, all of them played face up; never a
    kitty's cards (its points are in the score sheet's line for this hand)."""

    hand_number: int
    taken: list[list[str]]


class HeartsState(_Out):
    type: Literal["hearts.state"] = "hearts.state"
    table: TableInfo
    #: the seats this connection holds tokens for
    you: list[int]
    awaiting: list[int]
    #: what every seat may know (no hand); built from a seat view with its hand left out
    public: dict[str, Any]
    #: the private view of one seat (``SeatView.to_dict()``), or None
    view: dict[str, Any] | None
    #: why each card of ``view.hand`` that is not legal cannot be played (engine reason codes)
    illegal: dict[str, str]
    #: the seat that receives the pass of ``view``'s seat this hand (None: no view, or a hold)
    pass_to: int | None = None
    sheet: Sheet
    over: Over | None
    #: the hand finished last (for the page's hand summary), None before the first ends
    last_hand: LastHand | None = None
    #: public events after the version the page said it had (empty on a full resync)
    events: list[dict[str, Any]]
    #: True when the events the page missed are no longer known: redraw from scratch
    resync: bool = False


class HeartsCreated(_Out):
    type: Literal["hearts.created"] = "hearts.created"
    table: str
    tokens: list[dict[str, Any]]
    invite: str | None
    invite_url: str | None


class HeartsSeated(_Out):
    type: Literal["hearts.seated"] = "hearts.seated"
    table: str
    seat: int
    token: str


class HeartsLobby(_Out):
    type: Literal["hearts.lobby"] = "hearts.lobby"
    table: str
    status: Literal["lobby", "playing", "over"]
    preset: str
    seats: list[SeatInfo]
    #: whether the table's people may ask for hints (chosen at its creation)
    hints: bool = False


class HintReply(_Out):
    """The ``normal`` computer's choice for the seat at ``version``: one card to play, or the
    cards to pass."""

    type: Literal["hearts.hint"] = "hearts.hint"
    table: str
    version: int
    seat: int
    cards: list[str]


class ReplaySeat(_Out):
    seat: int
    name: str
    kind: Literal["human", "computer", "open"]
    level: str | None


class HeartsReplay(_Out):
    """A finished match face up: every hand as :func:`heartsuit.hearts.record.hand_records`
    writes it (the deal, the passes, the tricks, the scores), for the replay page."""

    type: Literal["hearts.replay"] = "hearts.replay"
    table: str
    mode: Mode
    preset: str
    rules: dict[str, Any]
    #: this match's number at the table (from 1) and how many of its matches are over
    match: int
    matches: int
    #: the game code that deals this match again (None for a secret seed)
    code: str | None
    seats: list[ReplaySeat]
    hands: list[dict[str, Any]]
    sheet: Sheet
    winners: list[int]


class HeartsErrorReply(Reply):
    """An ``error`` about a table: the engine's ``reason`` for an illegal card, and the fresh
    ``state`` after a ``stale`` intent."""

    type: Literal["error"] = "error"
    code: str
    message: str
    reason: str | None = None
    state: HeartsState | None = None


HeartsReply = (
    HeartsState
    | HeartsCreated
    | HeartsSeated
    | HeartsLobby
    | HeartsReplay
    | HintReply
    | HeartsErrorReply
)
