"""The ``/ws`` protocol's common part: framing, errors, the message base classes, and the
messages every game shares (``hello``, ``welcome``, ``lang``, ``error``).

Each game's own messages live beside its service (``solitaire/protocol.py``) and are made of
the bases here: a client message is a :class:`ClientMessage` whose ``type`` is a ``Literal``;
a server message is a :class:`Reply`. A :class:`MessageParser` is built from the messages of
every registered service: it turns one decoded frame into a model or raises
:class:`ProtocolError` carrying the error code the client is told. Every client message may
carry ``req``, an integer the reply echoes, so a client can match replies to requests. The
contract is summarised in ``docs/site.md``.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, Literal, TypeVar

import orjson
from pydantic import BaseModel, ConfigDict, JsonValue, StrictInt, ValidationError


class ErrorCode(StrEnum):
    """The ``code`` of an ``error`` reply that any message may get; a client can act on it, a
    person reads ``message``. Each game adds its own codes (a ``StrEnum`` beside its protocol);
    every code has a message in the catalogs, ``server.error.<code>``."""

    BAD_JSON = "bad_json"
    TOO_LARGE = "too_large"
    UNKNOWN_TYPE = "unknown_type"
    BAD_MESSAGE = "bad_message"
    NO_PLAYER = "no_player"
    #: an intent made on a state that has moved on (a game kept as an event log)
    STALE = "stale"
    # --- limits ---
    BAD_TEXT = "bad_text"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    TOO_MANY_TABS = "too_many_tabs"
    RATE_LIMITED = "rate_limited"


class ProtocolError(ValueError):
    """A message refused before anything changed; ``detail`` is for logs and English messages."""

    def __init__(
        self, code: StrEnum, detail: str = "", /, *, message_key: str = "", **values: object
    ) -> None:
        super().__init__(detail or code.value)
        #: the core's :class:`ErrorCode` or a game's own
        self.code = code
        self.detail = detail
        #: the catalog key of the message the page shows (``server.error.<code>`` unless the
        #: refusal has a more precise one, such as a bad code's problem)
        self.message_key = message_key or f"server.error.{code.value}"
        #: values for the translated message's placeholders
        self.values = values


FreshT = TypeVar("FreshT")


class Stale(ProtocolError, Generic[FreshT]):
    """An intent made on a state that has moved on (another tab, another process, a computer's
    turn): nothing was applied. :attr:`fresh` is what the game answers with instead, its own
    business: Heart to Heart carries the game as it is now, Hearts the table to read it from.
    One class for every game kept as an event log (:mod:`heartsuit.server.storage.event_log`),
    so a refusal of this kind is caught and told apart the same way everywhere."""

    def __init__(self, fresh: FreshT, detail: str = "the state has moved on") -> None:
        super().__init__(ErrorCode.STALE, detail)
        self.fresh = fresh


class ClientMessage(BaseModel):
    """A message from the page; a subclass sets ``type: Literal["..."]``."""

    # extra fields are ignored rather than refused: an older server must not break a newer page
    model_config = ConfigDict(extra="ignore", frozen=True)

    type: str
    req: StrictInt | None = None


class Reply(BaseModel):
    """A message to the page; a subclass sets ``type: Literal["..."] = "..."``."""

    model_config = ConfigDict(frozen=True)


# --- common client → server messages ---------------------------------------------------------


class Hello(ClientMessage):
    type: Literal["hello"]
    #: the id the browser kept; unknown or malformed ids get a fresh one
    player: JsonValue = None


class LangChange(ClientMessage):
    type: Literal["lang"]
    lang: Literal["id", "en"]


#: the messages the connection itself answers, before and without any game
COMMON_MESSAGES: tuple[type[ClientMessage], ...] = (Hello, LangChange)


# --- common server → client messages ---------------------------------------------------------


class Welcome(Reply):
    """The answer to ``hello``: the player's id, and a field per game that has something to
    say at once (Heart to Heart's ``settings``)."""

    # the games' fields are added by name; see Session.hello in core/game_service.py
    model_config = ConfigDict(frozen=True, extra="allow")

    type: Literal["welcome"] = "welcome"
    player: str


class LangReply(Reply):
    type: Literal["lang"] = "lang"
    lang: Literal["id", "en"]


class ErrorReply(Reply):
    type: Literal["error"] = "error"
    #: an :class:`ErrorCode` or a game's own code
    code: str
    message: str


class RateLimitedReply(ErrorReply):
    """``rate_limited``: the whole seconds until the refused request would be taken (the page
    waits that long and sends it again by itself)."""

    retry_after: int


# --- framing and parsing ---------------------------------------------------------------------


def message_type(model: type[ClientMessage]) -> str:
    """The ``type`` a client message model answers to (its ``Literal``)."""
    annotation = model.model_fields["type"].annotation
    values = typing.get_args(annotation) if typing.get_origin(annotation) is Literal else ()
    if len(values) != 1 or not isinstance(values[0], str):
        raise TypeError(f"{model.__name__}.type must be Literal['<one type>']")
    return values[0]


class MessageParser:
    """The client messages one server understands, by ``type``; two owners of a type are a bug."""

    def __init__(self, models: Iterable[type[ClientMessage]]) -> None:
        self.models: dict[str, type[ClientMessage]] = {}
        for model in models:
            kind = message_type(model)
            if kind in self.models:
                raise ValueError(f"two messages have the type {kind!r}")
            self.models[kind] = model

    @property
    def types(self) -> frozenset[str]:
        return frozenset(self.models)

    def parse(self, data: Any) -> ClientMessage:
        """Validate one decoded frame; raises ``bad_message`` or ``unknown_type``."""
        if not isinstance(data, dict):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is a JSON object with a 'type'")
        kind = data.get("type")
        if not isinstance(kind, str):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a 'type' string")
        model = self.models.get(kind)
        if model is None:
            raise ProtocolError(
                ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}", type=kind[:40]
            )
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            raise ProtocolError(
                ErrorCode.BAD_MESSAGE, f"{kind}: {where}: {first['msg']}", field=where
            ) from None


def request_id(data: object) -> int | None:
    """The ``req`` of a decoded frame, if it has a usable one (errors echo it too)."""
    if isinstance(data, dict):
        req = data.get("req")
        if isinstance(req, int) and not isinstance(req, bool):
            return req
    return None


def decode_frame(text: str, max_bytes: int) -> Any:
    """The JSON value of a text frame; raises ``too_large``, ``bad_json`` or ``bad_text``."""
    if len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"a message may be at most {max_bytes} bytes", limit=max_bytes
        )
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(ErrorCode.BAD_JSON, "the message is not valid JSON") from None
    # a frame is valid UTF-8, but JSON's \ud800 escapes can still spell half a character, which
    # no reply, log or database could then hold
    if "\\u" in text and not _whole_characters(data):
        raise ProtocolError(ErrorCode.BAD_TEXT, "the message holds half a character (\\uD800)")
    return data


def _whole_characters(value: Any) -> bool:
    """Whether every string in a decoded JSON value (keys too) is encodable text."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Encoded:
    """A server message already written as its JSON object (a frame built from parts that
    were encoded once for many sockets); :func:`encode` only adds the ``req``."""

    text: str


_standard_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def json_text(value: Any) -> str:
    """JSON as every frame is written: compact, UTF-8 kept, the same text as
    ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` for what frames hold
    (strings, whole numbers, booleans, None, lists, tuples and dicts; a key that is not a
    string is written as one; a percentage such as 37.5 too: only a fraction small enough
    to need an exponent is written otherwise, 1e-7 for 1e-07, the same number). Written by
    orjson: a frame's parts are many small values (a
    change's patches and states write about thirty), and each took 2-4 us through the
    standard library's encoder against 0.3-0.5 us here (bench/RESULTS.md, 2026-12-02, "JSON
    written by orjson")."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        # what orjson refuses (a whole number beyond 64 bits, half a character): the
        # standard library's text, as before
        return _standard_json(value)


def encode(message: Reply | Encoded, req: int | None = None) -> str:
    """The text frame of a server message; ``req`` is echoed only when the client sent one."""
    if isinstance(message, Encoded):
        if req is None:
            return message.text
        # the same text json.dumps writes for {**data, "req": req}: the key goes last
        return f'{message.text[:-1]},"req":{int(req)}}}'
    data: Mapping[str, Any] = message.model_dump(mode="json")
    if req is not None:
        data = {**data, "req": req}
    return json_text(data)
