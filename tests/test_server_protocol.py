"""The message models and the framing rules of /ws, without a server."""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.server.core import messages
from heartsuit.server.core.protocol import (
    COMMON_MESSAGES,
    ErrorCode,
    ErrorReply,
    Hello,
    LangReply,
    MessageParser,
    ProtocolError,
    decode_frame,
    encode,
    json_text,
    request_id,
)
from heartsuit.server.hearts.protocol import MESSAGE_KEYS as HEARTS_KEYS
from heartsuit.server.hearts.protocol import HeartsErrorCode
from heartsuit.server.hearts.store import _data_text
from heartsuit.server.solitaire.protocol import MESSAGE_KEYS as SOLITAIRE_KEYS
from heartsuit.server.solitaire.protocol import (
    MESSAGES,
    SettingsUpdate,
    SolitaireErrorCode,
    SolitaireNew,
    SolitaireTap,
)
from heartsuit.solitaire.codes import CodeProblem

#: the site's messages today: the common ones and Heart to Heart's
PARSER = MessageParser([*COMMON_MESSAGES, *MESSAGES])
parse_client = PARSER.parse
CLIENT_TYPES = PARSER.types


def code_of(call: Callable[[], object]) -> StrEnum:
    with pytest.raises(ProtocolError) as caught:
        call()
    return caught.value.code


def test_a_frame_over_the_limit_is_too_large_counting_bytes_not_characters() -> None:
    assert decode_frame('"' + "a" * 98 + '"', 100) == "a" * 98
    assert code_of(lambda: decode_frame("a" * 101, 100)) is ErrorCode.TOO_LARGE
    # 40 hearts are 40 characters but 120 bytes
    assert code_of(lambda: decode_frame('"' + "♥" * 40 + '"', 100)) is ErrorCode.TOO_LARGE


@pytest.mark.parametrize("text", ["", "{", "nul", "{'a': 1}", "[1,]", "[" * 5000 + "]" * 5000])
def test_text_that_is_not_json_is_bad_json(text: str) -> None:
    assert code_of(lambda: decode_frame(text, 1 << 20)) is ErrorCode.BAD_JSON


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ([], ErrorCode.BAD_MESSAGE),
        ("hello", ErrorCode.BAD_MESSAGE),
        ({}, ErrorCode.BAD_MESSAGE),
        ({"type": None}, ErrorCode.BAD_MESSAGE),
        ({"type": "HELLO"}, ErrorCode.UNKNOWN_TYPE),
        ({"type": "hearts.play"}, ErrorCode.UNKNOWN_TYPE),
        ({"type": "hello", "req": "1"}, ErrorCode.BAD_MESSAGE),
        ({"type": "settings", "placement_help": 1}, ErrorCode.BAD_MESSAGE),
        ({"type": "solitaire.tap", "game": 5, "target": 1}, ErrorCode.BAD_MESSAGE),
        ({"type": "lang"}, ErrorCode.BAD_MESSAGE),
    ],
)
def test_invalid_messages_name_their_error(data: object, code: ErrorCode) -> None:
    assert code_of(lambda: parse_client(data)) is code


def test_valid_messages_parse_to_their_models() -> None:
    assert parse_client({"type": "hello"}) == Hello(type="hello", player=None)
    assert parse_client({"type": "solitaire.new", "code": "x", "req": 3}) == SolitaireNew(
        type="solitaire.new", code="x", req=3
    )
    tap = parse_client({"type": "solitaire.tap", "game": "g", "target": "stock", "extra": 1})
    assert isinstance(tap, SolitaireTap) and tap.target == "stock"
    partial = parse_client({"type": "settings", "move_errors": True})
    assert isinstance(partial, SettingsUpdate) and partial.placement_help is None


def test_request_ids_are_integers_only() -> None:
    assert request_id({"req": 4}) == 4
    assert request_id({"req": True}) is None
    assert request_id({"req": "4"}) is None
    assert request_id([4]) is None


def test_replies_echo_req_only_when_given() -> None:
    assert json.loads(encode(LangReply(lang="en"))) == {"type": "lang", "lang": "en"}
    assert json.loads(encode(LangReply(lang="en"), 9)) == {"type": "lang", "lang": "en", "req": 9}
    error = ErrorReply(code=ErrorCode.BAD_JSON, message="♥")
    assert encode(error) == '{"type":"error","code":"bad_json","message":"♥"}'


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "req", "game", "code", "target", "player",
                                       "lang", "move_errors", "x"]), inner, max_size=5),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(value=json_values, kind=st.sampled_from([*sorted(CLIENT_TYPES), "nope"]))
def test_any_json_value_is_either_a_message_or_a_protocol_error(value: object, kind: str) -> None:
    for data in (value, {**value, "type": kind} if isinstance(value, dict) else value):
        try:
            parsed = parse_client(data)
        except ProtocolError as err:
            assert err.code in (ErrorCode.BAD_MESSAGE, ErrorCode.UNKNOWN_TYPE)
        else:
            assert parsed.type in CLIENT_TYPES


LANGS: list[messages.Lang] = ["id", "en"]


@pytest.mark.parametrize("lang", LANGS)
def test_every_error_and_code_problem_has_a_message_in_both_languages(
    lang: messages.Lang,
) -> None:
    keys = [f"server.error.{c.value}" for c in ErrorCode]
    keys += [
        f"server.error.{c.value}"
        for c in (*SolitaireErrorCode, *HeartsErrorCode)
        if c not in (SolitaireErrorCode.BAD_CODE, HeartsErrorCode.BAD_CODE)
    ]
    keys.append("server.error.solitaire_stale")
    keys += [f"server.code.{p.value}" for p in CodeProblem]
    keys.append("server.code.empty")  # the solitaire's own word for an empty code
    keys += [f"server.hcode.{p.value}" for p in CodeProblem]  # Hearts' own words
    keys += ["server.hcode.empty", "server.hcode.people"]
    keys += ["server.move.must_match", "server.move.covered"]
    for key in keys:
        text = messages.text(lang, key, code="HH1", limit=1, type="t", field="f", seconds=1)
        assert text and text != key and "{" not in text, key
    assert set(keys) == {*messages.keys(), *SOLITAIRE_KEYS, *HEARTS_KEYS}
    assert messages.text("id", "server.move.must_match") == "Harus bernilai sama"
    assert messages.text("en", "server.move.must_match") == "Must be the same rank"


#: what frames and log entries hold: text (any character but half of one), whole numbers of
#: any size, booleans, None, and lists and objects of them
_whole_text = st.text(st.characters(exclude_categories=["Cs"]))
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | _whole_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_whole_text, inner, max_size=4),
    max_leaves=12,
)


@given(_json_values)
@settings(max_examples=400, deadline=None)
def test_json_text_writes_what_the_standard_library_writes(value: object) -> None:
    # orjson writes the frames; the page, the tests and the stored texts were made with the
    # standard library's compact, UTF-8 keeping form, and must not see a difference
    assert json_text(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_json_text_writes_keys_that_are_not_text_and_numbers_beyond_64_bits() -> None:
    assert json_text({1: [2**80, -(2**64)], "é": "\u2028"}) == '{"1":[' + str(2**80) + ",-" + (
        str(2**64) + '],"é":"\u2028"}'
    )


@given(_json_values)
@settings(max_examples=400, deadline=None)
def test_a_log_entry_is_stored_as_the_standard_library_writes_it(value: object) -> None:
    # the log's texts predate orjson: an entry written now must read, byte for byte, as one
    # written before (names with accents escaped, keys sorted)
    data = {"value": value, "type": "play"}
    assert _data_text(data) == json.dumps(data, sort_keys=True, separators=(",", ":"))
