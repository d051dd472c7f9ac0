"""Every WebSocket message in and out of ``/ws``, as typed, validated pydantic models.

Client messages are a union tagged by ``type``; :func:`parse_client` turns one text frame into a
model or raises :class:`ProtocolError` carrying the error code the client is told. Server
messages are built only from the models here, so their shape is written down in one place (the
contract in ``docs/site.md`` points at this module). Every client message may carry ``req``, an
integer the reply echoes, so a client can match replies to requests.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
)


class ErrorCode(StrEnum):
    """The ``code`` of an ``error`` reply; a client can act on it, a person reads ``message``."""

    BAD_JSON = "bad_json"
    TOO_LARGE = "too_large"
    UNKNOWN_TYPE = "unknown_type"
    BAD_MESSAGE = "bad_message"
    NO_PLAYER = "no_player"
    BAD_CODE = "bad_code"
    UNKNOWN_GAME = "unknown_game"
    BAD_TARGET = "bad_target"
    GAME_OVER = "game_over"


class ProtocolError(ValueError):
    """A message refused before anything changed; ``detail`` is for logs and English messages."""

    def __init__(self, code: ErrorCode, detail: str = "", /, **values: object) -> None:
        super().__init__(detail or code.value)
        self.code = code
        self.detail = detail
        #: values for the translated message's placeholders
        self.values = values


class _Message(BaseModel):
    # extra fields are ignored rather than refused: an older server must not break a newer page
    model_config = ConfigDict(extra="ignore", frozen=True)

    req: StrictInt | None = None


# --- client → server -------------------------------------------------------------------------


class Hello(_Message):
    type: Literal["hello"]
    #: the id the browser kept; unknown or malformed ids get a fresh one
    player: JsonValue = None


class SolitaireResume(_Message):
    type: Literal["solitaire.resume"]


class SolitaireNew(_Message):
    type: Literal["solitaire.new"]
    code: str | None = None
    #: None means "use the player's setting"
    winnable_only: StrictBool | None = None


class SolitaireTap(_Message):
    type: Literal["solitaire.tap"]
    game: str
    #: 1..25, "stock" or "waste"; checked by the service so that a wrong target is ``bad_target``
    target: JsonValue


class SolitaireUndo(_Message):
    type: Literal["solitaire.undo"]
    game: str


class SettingsUpdate(_Message):
    """Any subset of the settings; the reply carries all of them."""

    type: Literal["settings"]
    move_errors: StrictBool | None = None
    placement_help: StrictBool | None = None
    winnable_only: StrictBool | None = None


class StatsRequest(_Message):
    type: Literal["stats"]


class LangChange(_Message):
    type: Literal["lang"]
    lang: Literal["id", "en"]


ClientMessage = Annotated[
    Hello
    | SolitaireResume
    | SolitaireNew
    | SolitaireTap
    | SolitaireUndo
    | SettingsUpdate
    | StatsRequest
    | LangChange,
    Field(discriminator="type"),
]
CLIENT_TYPES: frozenset[str] = frozenset(
    {"hello", "solitaire.resume", "solitaire.new", "solitaire.tap", "solitaire.undo",
     "settings", "stats", "lang"}
)
_client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def request_id(data: object) -> int | None:
    """The ``req`` of a decoded frame, if it has a usable one (errors echo it too)."""
    if isinstance(data, dict):
        req = data.get("req")
        if isinstance(req, int) and not isinstance(req, bool):
            return req
    return None


def decode_frame(text: str, max_bytes: int) -> Any:
    """The JSON value of a text frame; raises ``too_large`` or ``bad_json``."""
    if len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"a message may be at most {max_bytes} bytes", limit=max_bytes
        )
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(ErrorCode.BAD_JSON, "the message is not valid JSON") from None


def parse_client(data: Any) -> ClientMessage:
    """Validate one decoded frame; raises ``bad_message`` or ``unknown_type``."""
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a 'type' string")
    if kind not in CLIENT_TYPES:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}", type=kind[:40]
        )
    try:
        return _client_adapter.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE, f"{kind}: {where}: {first['msg']}", field=where
        ) from None


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
    waste_top: CardView | None
    waste_count: int
    score: int
    moves: int
    undo_left: int
    outcome: Literal["playing", "won", "dead_end"]
    elapsed_ms: int
    started_at_ms: int


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


class _Reply(BaseModel):
    model_config = ConfigDict(frozen=True)


class Welcome(_Reply):
    type: Literal["welcome"] = "welcome"
    player: str
    settings: PlayerSettings


class SolitaireState(_Reply):
    type: Literal["solitaire.state"] = "solitaire.state"
    game: GameView
    event: Event


class SolitaireNone(_Reply):
    type: Literal["solitaire.none"] = "solitaire.none"


class SettingsReply(PlayerSettings):
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


class CodeStats(BaseModel):
    model_config = ConfigDict(frozen=True)

    code: str
    games: int
    wins: int
    best_time_ms: int | None
    fewest_moves: int | None


class StatsReply(_Reply):
    type: Literal["stats"] = "stats"
    overall: OverallStats
    by_code: list[CodeStats]


class LangReply(_Reply):
    type: Literal["lang"] = "lang"
    lang: Literal["id", "en"]


class ErrorReply(_Reply):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str


ServerMessage = (
    Welcome | SolitaireState | SolitaireNone | SettingsReply | StatsReply | LangReply | ErrorReply
)


def encode(message: ServerMessage, req: int | None = None) -> str:
    """The text frame of a server message; ``req`` is echoed only when the client sent one."""
    data = message.model_dump(mode="json")
    if req is not None:
        data["req"] = req
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
