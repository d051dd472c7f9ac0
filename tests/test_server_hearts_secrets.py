"""No hand can be known before it is played: the match seed stays on the server while it runs.

A match's seed deals every one of its hands, so a frame that carries it (as a game code, as the
number, or as a hand's shuffle seed derived from it) gives every hand away. Whole matches of every
preset are played over the real WebSocket in each mode (online, on one device, against the
computer); every frame every socket received is checked against the table replayed from the
database to the frame's version. Tables where people play each other are dealt from a secret
128-bit seed that no code can name; a finished match is replayed face up for anyone, a running
one is refused.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.hearts import Match, Rules
from heartsuit.hearts.codes import (
    RULE_SETS,
    SECRET_SEED_BITS,
    SEED_COUNT,
    format_code,
    has_code,
    parse_code,
    secret_seed,
)
from heartsuit.hearts.deal import deal_cards, deal_seed
from heartsuit.server.hearts import frames as hearts_view
from heartsuit.server.hearts.live_table import LiveTable
from tests.hearts_support import (
    PRESETS,
    Seat,
    frames_with_their_table,
    play_until_over,
    table_log,
    waited,
)
from tests.server_support import Site, running_site

MODES = ["online", "hotseat", "computer"]
#: a short match: a few hands of every preset
TARGET = 30


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with running_site(tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_grace_ms=60_000) as s:
        yield s


# --- playing whole matches in each mode -------------------------------------------------------


def play_match(
    site: Site, stack: ExitStack, mode: str, preset: str, fields: dict[str, Any]
) -> tuple[str, list[Seat]]:
    """A whole match of ``preset`` in ``mode``; the table and the sockets that played it."""
    fields = dict(fields)
    options = {"target": TARGET, **fields.pop("options", {})}
    host = Seat(stack.enter_context(site.peer()))
    if mode == "online":
        host.create(mode="online", preset=preset, options=options, **fields)
        guest = Seat(stack.enter_context(site.peer()))
        guest.ask("hearts.invite", invite=host.state["table"]["invite"])
        guest.sit(host.table, 1, "Guest")
        # a stranger who followed the invite and only watches the lobby
        watcher = Seat(stack.enter_context(site.peer()))
        watcher.frames.append(watcher.ask("hearts.invite", invite=host.state["table"]["invite"]))
        host.ask("hearts.start", table=host.table, token=host.token)
        play_until_over([host, guest])
        return host.table, [host, guest, watcher]
    if mode == "hotseat":
        created = host.create(
            mode="hotseat",
            preset=preset,
            options=options,
            seats=[{"kind": "human"}, {"kind": "human"}],
            **fields,
        )
        tokens = {t["seat"]: t["token"] for t in created["tokens"]}
        play_on_one_device(host, tokens)
        return host.table, [host]
    host.create(mode="computer", preset=preset, options=options, **fields)
    play_until_over([host])
    return host.table, [host]


def play_on_one_device(device: Seat, tokens: dict[int, str]) -> None:
    """The people of a shared device take turns (look, then act) until the match is over."""
    while device.state["over"] is None:
        mine = [s for s in device.state["awaiting"] if s in tokens]
        if not mine and waited(device.state):
            # between hands the computers wait for the device's "next hand"
            device.ask("hearts.next", table=device.table, token=tokens[waited(device.state)[0]])
            continue
        if not mine:
            device.until(
                lambda s: s["over"] is not None
                or any(a in tokens for a in [*s["awaiting"], *waited(s)])
            )
            continue
        turn = mine[0]
        device.seat, device.token = turn, tokens[turn]
        device.ask("hearts.look", table=device.table, token=tokens[turn])
        reply = device.act()
        assert reply["type"] in ("hearts.state", "hearts.patch"), reply


# --- the check ----------------------------------------------------------------------------------


def secret_texts(live: LiveTable) -> set[str]:
    """Every way a frame could carry the running match's seed: its game code (when it has one),
    the number in decimal and hex, and each dealt hand's shuffle seed derived from it."""
    match = live.match
    assert match is not None
    seed = live.seed
    texts = {str(seed), f"{seed:x}", f"{seed:X}"}
    if has_code(seed):
        texts.add(format_code(live.record.preset, seed, players=live.rules.players))
    for number in range(match.hand_number + 2):  # the hands dealt, and the next one's
        texts.add(str(deal_seed(live.rules, seed, number)))
    return texts


def check_no_seed(db_path: Path, table_id: str, frames: list[dict[str, Any]]) -> int:
    """Raise AssertionError if a frame carries the seed of a match still running at the frame's
    version (or the last version the socket saw); returns how many frames were checked."""
    checked = 0
    for live, frame in frames_with_their_table(db_path, table_id, frames):
        if live.match is None or live.status == "over":
            continue  # no deal yet, or the match is over: its code may be told
        text = json.dumps(frame)
        for secret in secret_texts(live):
            assert secret not in text, f"a frame at version {live.version} carries {secret}: {text}"
        checked += 1
    return checked


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "preset, fields", PRESETS, ids=[f"{p}-{f.get('players', '')}" for p, f in PRESETS]
)
def test_no_frame_of_a_running_match_carries_its_seed(
    site: Site, mode: str, preset: str, fields: dict[str, Any]
) -> None:
    with ExitStack() as stack:
        table, sockets = play_match(site, stack, mode, preset, fields)
    checked = sum(check_no_seed(site.db_path, table, s.frames) for s in sockets)
    assert checked > 20
    # once the match is over, everyone at the table is told how to replay it
    record, _, _ = table_log(site.db_path, table)
    for socket in sockets:
        if not socket.state:
            continue  # the watcher saw the lobby only
        info = socket.state["table"]
        assert socket.state["over"] is not None
        assert info["replay_url"] == f"/hearts/replay/{table}/1"
        if mode == "computer":
            assert info["code"] == format_code(
                preset, record.seed, players=Rules.from_dict(record.rules).players
            )
        else:
            assert info["code"] is None  # a secret seed has no code
            assert not has_code(record.seed)


@pytest.mark.parametrize("mode", MODES)
def test_the_check_catches_a_seed_put_back(
    site: Site, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    honest = hearts_view.table_info

    def leaky(live: LiveTable, **kw: Any) -> Any:
        # the bug this file is about: the code (or the seed) in every frame from the start
        return honest(live, **kw).model_copy(update={"code": live.code or str(live.seed)})

    monkeypatch.setattr(hearts_view, "table_info", leaky)
    with ExitStack() as stack:
        table, sockets = play_match(site, stack, mode, "standard", {})
    with pytest.raises(AssertionError, match="carries"):
        check_no_seed(site.db_path, table, sockets[0].frames)


# --- the seed of a table of people is not in the short space ------------------------------------


@pytest.mark.parametrize("mode", ["online", "hotseat"])
def test_a_table_of_people_is_dealt_from_a_secret_seed_no_code_names(site: Site, mode: str) -> None:
    """A seat knows its own hand and every public event; the project's own ways from a text to a
    seed (a game code) reach only the 26^7 code seeds, and the table's seed is not one of them,
    so trying every code finds no seed that deals this hand."""
    seeds = []
    with ExitStack() as stack:
        for _ in range(3):
            me = Seat(stack.enter_context(site.peer()))
            seats = [{"kind": "human"}, {"kind": "human"}] if mode == "hotseat" else None
            me.create(mode=mode, preset="standard", seats=seats)
            if mode == "online":
                me.ask("hearts.start", table=me.table, token=me.token)
                me.until(lambda s: s["view"] is not None)
            else:
                me.ask("hearts.look", table=me.table, token=me.token)
            record, _, _ = table_log(site.db_path, me.table)
            seed = record.seed
            rules = Rules.preset("standard")
            hand = me.state["view"]["hand"]
            # the seed in the database is the one that dealt this hand...
            dealt = {c.code for c in deal_cards(rules, seed, 0)[0][me.seat]}
            assert set(hand) == dealt
            # ...and no code, nor a seed cut down to a code's size, deals it
            assert not has_code(seed) and seed >> SECRET_SEED_BITS == 1
            short = {c.code for c in deal_cards(rules, seed % SEED_COUNT, 0)[0][me.seat]}
            assert short != dealt
            assert me.state["table"]["code"] is None
            seeds.append(seed)
    assert len(set(seeds)) == 3


@given(st.sampled_from(RULE_SETS), st.integers(0, SEED_COUNT - 1))
def test_no_game_code_names_a_secret_seed(rule_set: str, number: int) -> None:
    from heartsuit.gamecodes import NUMBER_COUNT

    assert NUMBER_COUNT == SEED_COUNT
    variant = parse_code(f"HE1-{rule_set}-AAAAAAA")
    code = parse_code(format_code(variant.preset, number, players=variant.players))
    assert code.seed < SEED_COUNT and has_code(code.seed)
    assert not has_code(secret_seed())


def test_a_secret_seed_has_128_random_bits() -> None:
    """Every one of the 128 bits varies across draws (a seed drawn from a short range, or a
    stuck bit, fails); the bit above them marks the seed as secret."""
    draws = [secret_seed() for _ in range(200)]
    assert all(d >> SECRET_SEED_BITS == 1 for d in draws)
    low = [d & ((1 << SECRET_SEED_BITS) - 1) for d in draws]
    for bit in range(SECRET_SEED_BITS):
        ones = sum((d >> bit) & 1 for d in low)
        assert 0 < ones < len(low), bit
    # and a secret seed deals like any other: a whole match plays from it
    match = Match.new(Rules.preset("standard"), draws[0])
    assert len(match.hand.holdings[0]) == 13


# --- the replay ---------------------------------------------------------------------------------


def test_a_replay_of_a_running_match_is_refused_and_shows_nothing(site: Site) -> None:
    with ExitStack() as stack:
        host = Seat(stack.enter_context(site.peer()))
        host.create(mode="online", preset="standard")
        stranger = Seat(stack.enter_context(site.peer()))
        # in the lobby, and once the match runs
        lobby = stranger.ask("hearts.replay", table=host.table)
        assert lobby["type"] == "error" and lobby["code"] == "match_running"
        host.ask("hearts.start", table=host.table, token=host.token)
        host.until(lambda s: s["view"] is not None)
        for ask in ({}, {"match": 1}):
            refused = stranger.ask("hearts.replay", table=host.table, **ask)
            assert refused["type"] == "error" and refused["code"] == "match_running", refused
            assert refused["state"] is None
            assert "still being played" in refused["message"] or "masih" in refused["message"]
        assert stranger.ask("hearts.replay", table=host.table, match=2)["code"] == ("unknown_table")
        assert stranger.ask("hearts.replay", table="nosuchtable")["code"] == "unknown_table"
        assert stranger.ask("hearts.replay", table="bad table!")["code"] == "bad_message"


def test_a_finished_match_is_replayed_face_up_for_anyone(site: Site) -> None:
    with ExitStack() as stack:
        me = Seat(stack.enter_context(site.peer()))
        me.create(mode="computer", preset="standard", options={"target": TARGET})
        play_until_over([me])
        final = me.state
        stranger = Seat(stack.enter_context(site.peer()))
        replay = stranger.ask("hearts.replay", table=me.table)
        assert replay["type"] == "hearts.replay", replay
        # the same as the match the engine replays from the log
        record, seats, log = table_log(site.db_path, me.table)
        live = LiveTable.replay(record, seats, log)
        match = live.match
        assert match is not None and match.is_over
        assert replay["match"] == 1 and replay["matches"] == 1
        assert replay["code"] == final["table"]["code"] == format_code("standard", record.seed)
        assert replay["sheet"] == final["sheet"]
        assert replay["winners"] == final["over"]["winners"]
        assert [s["kind"] for s in replay["seats"]] == ["human", "computer", "computer", "computer"]
        assert len(replay["hands"]) == len(match.score_sheet())
        for hand, record_hand in zip(match.hands, replay["hands"], strict=True):
            deal, _ = deal_cards(match.rules, record.seed, hand.hand_number)
            assert record_hand["deal"] == [[c.code for c in cards] for cards in hand.dealt]
            assert [sorted(h) for h in record_hand["deal"]] == [
                sorted(c.code for c in cards) for cards in deal
            ]
            assert record_hand["tricks"] == [t.to_dict() for t in hand.tricks]
            assert sum(len(t["plays"]) for t in record_hand["tricks"]) == 52
            penalties = [[c.code for c in t if match.rules.card_points(c)] for t in hand.taken]
            assert record_hand["penalties"] == penalties
            assert sum(c.startswith(("QS",)) for p in penalties for c in p) == 1
        # a rematch: the finished match stays replayable, the new one is refused
        me.ask("hearts.rematch", table=me.table, token=me.token)
        me.until(lambda s: s["table"]["status"] == "playing")
        assert me.state["table"]["code"] is None and me.state["table"]["replay_url"] is None
        again = stranger.ask("hearts.replay", table=me.table)
        assert again["match"] == 1 and again["hands"] == replay["hands"]
        assert stranger.ask("hearts.replay", table=me.table, match=2)["code"] == "match_running"


def test_a_code_is_refused_for_a_table_of_people(site: Site) -> None:
    with ExitStack() as stack:
        me = Seat(stack.enter_context(site.peer()))
        for mode in ("online", "hotseat"):
            reply = me.ask("hearts.create", mode=mode, code="HE1-S-AAAAAAM")
            assert reply["type"] == "error" and reply["code"] == "bad_code", reply
            assert "melawan komputer" in reply["message"]  # (the site speaks Indonesian)
        # against the computer a code still deals its match
        me.create(mode="computer", code="HE1-S-AAAAAAM")
        expected = deal_cards(Rules.preset("standard"), 12, 0)[0][0]
        assert sorted(me.state["view"]["hand"]) == sorted(c.code for c in expected)


def test_a_kept_replay_still_counts_the_matches_finished_since(site: Site) -> None:
    with ExitStack() as stack:
        me = Seat(stack.enter_context(site.peer()))
        me.create(mode="computer", preset="three", options={"target": 20})
        play_until_over([me])
        stranger = Seat(stack.enter_context(site.peer()))
        first = stranger.ask("hearts.replay", table=me.table, match=1)
        assert first["matches"] == 1
        me.ask("hearts.rematch", table=me.table, token=me.token)
        me.until(lambda s: s["table"]["status"] == "playing")
        play_until_over([me])
        again = stranger.ask("hearts.replay", table=me.table, match=1)  # made once, kept
        assert again["matches"] == 2 and again["hands"] == first["hands"]
        assert stranger.ask("hearts.replay", table=me.table)["match"] == 2
