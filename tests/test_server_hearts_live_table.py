"""A table in memory: replay from its log, staleness of intents, events for reconnecting pages."""

from __future__ import annotations

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import IllegalMove, Match, Rules
from heartsuit.hearts.actions import Pass, Play
from heartsuit.server.hearts.live_table import (
    INVITE_LENGTH,
    LiveTable,
    LogEntry,
    SeatRecord,
    TableError,
    TableRecord,
    hash_token,
    new_invite,
    new_token,
    normalize_invite,
)

SEED = 12


def record(mode: str = "computer", preset: str = "standard") -> TableRecord:
    rules = Rules.preset(preset)
    return TableRecord("table-0001", mode, preset, rules.to_dict(), SEED, None, 0)  # type: ignore[arg-type]


def seats(token: str = "t" * 32) -> list[SeatRecord]:
    return [
        SeatRecord(0, "human", "Ana", None, hash_token(token)),
        *(SeatRecord(s, "computer", f"C{s}", "normal") for s in (1, 2, 3)),
    ]


def started() -> LiveTable:
    live = LiveTable.replay(record(), seats(), [])
    live.apply(live.entry("start", {}, 1))
    return live


def first_pass(live: LiveTable, seat: int) -> Pass:
    assert live.match is not None
    return Pass(seat, live.match.view(seat).hand[:3])


def test_a_table_is_a_replay_of_its_log() -> None:
    live = started()
    log = [LogEntry(0, "start", {}, 1)]
    for seat in range(4):
        entry = live.entry("action", first_pass(live, seat).to_dict(), 2)
        live.apply(entry)
        log.append(entry)
    again = LiveTable.replay(record(), seats(), log)
    assert again.version == live.version == 5
    assert again.match is not None and live.match is not None
    assert again.match.to_dict() == live.match.to_dict()
    assert again.status == "playing"
    assert again.record.version == 5


def test_the_lobby_has_no_match_until_it_starts() -> None:
    live = LiveTable.replay(record("online"), seats(), [])
    assert live.status == "lobby" and live.awaiting() == ()
    with pytest.raises(TableError):
        live.apply(live.entry("action", {"type": "play", "seat": 0, "card": "2C"}, 1))
    assert live.version == 0


def test_an_illegal_action_changes_nothing() -> None:
    live = started()
    before = live.match.to_dict() if live.match else None
    with pytest.raises(IllegalMove):
        live.apply(live.entry("action", Pass(0, (Card.parse("QS"),)).to_dict(), 1))
    assert live.version == 1
    assert live.match is not None and live.match.to_dict() == before


def test_an_entry_out_of_sequence_is_refused() -> None:
    live = started()
    with pytest.raises(TableError):
        live.apply(LogEntry(5, "start", {}, 1))


def test_passes_commute_but_anything_else_makes_an_intent_stale() -> None:
    live = started()
    seen = live.version
    live.apply(live.entry("action", first_pass(live, 1).to_dict(), 2))
    # another seat's pass does not change what seat 0 may pass
    assert not live.is_stale(seen, first_pass(live, 0))
    # the same seat passing twice is the engine's to refuse, and stale for an old version
    assert live.is_stale(seen, first_pass(live, 1))
    for seat in (0, 2, 3):
        live.apply(live.entry("action", first_pass(live, seat).to_dict(), 3))
    assert live.match is not None
    opener = live.match.awaiting()[0]
    card = live.match.view(opener).legal[0]
    assert not live.is_stale(live.version, Play(opener, card))
    assert live.is_stale(live.version - 1, Play(opener, card))
    assert live.is_stale(live.version + 1, Play(opener, card))
    assert live.is_stale(-1, Play(opener, card))


def test_seat_changes_do_not_make_an_intent_stale() -> None:
    live = started()
    seen = live.version
    live.apply(live.entry("seat", {"seat": 2, "kind": "computer", "name": "X", "level": "easy"}, 2))
    assert live.seats[2].level == "easy"
    assert not live.is_stale(seen, first_pass(live, 0))


def test_events_since_a_version_and_a_resync_when_forgotten() -> None:
    live = started()
    live.apply(live.entry("action", first_pass(live, 0).to_dict(), 2))
    assert live.events_since(live.version) == []
    assert live.events_since(1) == [{"type": "passed", "seat": 0}]
    assert live.events_since(None) is None
    assert live.events_since(live.version + 3) is None
    assert live.events_json_since(1) == '[{"type":"passed","seat":0}]'
    assert live.events_json_since(live.version) == "[]"
    assert live.events_json_since(None) is None
    live.recent.clear()
    live.recent.append((live.version, ""))
    assert live.events_since(0) is None


def test_a_rematch_only_after_the_match_and_with_a_new_seed() -> None:
    live = started()
    with pytest.raises(TableError):
        live.apply(live.entry("rematch", {"seed": 99}, 1))
    assert live.match is not None
    # play the whole match out through the table
    match: Match = live.match
    while not match.is_over:
        seat = match.awaiting()[0]
        view = match.view(seat)
        action = Pass(seat, view.hand[:3]) if view.must_pass else Play(seat, view.legal[0])
        live.apply(live.entry("action", action.to_dict(), 1))
    assert live.status == "over"
    live.apply(live.entry("rematch", {"seed": 99}, 1))
    status: str = live.status
    assert status == "playing" and live.match is not None and live.match.seed == 99
    assert live.match_no == 1


def test_tokens_are_found_by_their_hash_only() -> None:
    token = new_token()
    live = LiveTable.replay(record(), seats(token), [])
    assert live.seat_of_token(token) == 0
    assert live.seat_of_token(new_token()) is None
    assert all(s.token_hash != token for s in live.seats)
    assert len(token) >= 32


def test_invites_are_unambiguous_and_forgiving_of_case_and_spaces() -> None:
    invite = new_invite()
    assert len(invite) == INVITE_LENGTH
    assert normalize_invite(f"  {invite.lower()[:4]}-{invite.lower()[4:]} ") == invite
    assert normalize_invite("AAAA") is None
    assert normalize_invite("ABCDEFG0") is None  # 0 is never in an invite
    assert normalize_invite("ABCDEFGß") is None


def test_a_log_from_before_shooters_chose_replays_as_it_was_played() -> None:
    from heartsuit.hearts import Moon
    from tests.test_hearts_moon import SEED as MOON_SEED
    from tests.test_hearts_moon import SHOOTER, moon_match

    def old_table(match: Match, status: str) -> LiveTable:
        rules = match.rules.to_dict()
        row = TableRecord("table-moon", "hotseat", "standard", rules, MOON_SEED, None, 0, status)  # type: ignore[arg-type]
        actions = [a.to_dict() for a in match.actions if not isinstance(a, Moon)]
        log = [LogEntry(0, "start", {}, 0)]
        log += [LogEntry(n + 1, "action", a, 0) for n, a in enumerate(actions)]
        return LiveTable.replay(row, seats(), log)

    # the match went on after the moon: the replay scores it as the old engine did
    match = moon_match()
    match.choose_moon(SHOOTER, match.hand.best_moon_choice())
    match.pass_cards(0, match.hand.holdings[0][:3])
    going = old_table(match, "playing")
    assert going.match is not None and going.version == 1 + len(match.actions) - 1
    assert going.match.score_sheet() == match.score_sheet()
    # the match ended on the moon (the row says over): still over, the shooter winning
    ended = moon_match(target=20)
    ended.choose_moon(SHOOTER, ended.hand.best_moon_choice())
    assert ended.is_over
    over = old_table(ended, "over")
    assert over.status == "over" and over.match is not None and over.match.winners == (SHOOTER,)
    # a table logged today that stops at a moon waits for the shooter
    waiting = old_table(moon_match(), "playing")
    assert waiting.status == "playing" and waiting.awaiting() == (SHOOTER,)


def test_the_facts_every_socket_is_shown_are_made_once_per_version() -> None:
    live = LiveTable.replay(record("online"), seats(), [])
    lobby = live.facts()
    assert lobby == ("lobby", tuple(seats()), SEED, 0) and live.facts() is lobby
    live.apply(live.entry("start", {}, 1))
    assert live.facts()[0] == "playing"
    # the person at seat 0 leaves: the next person is the host
    live.apply(live.entry("seat", {"seat": 0, "kind": "open", "name": ""}, 2))
    live.apply(live.entry("seat", {"seat": 3, "kind": "human", "name": "Bo"}, 3))
    status, shown_seats, seed, host = live.facts()
    assert host == 3 and shown_seats == tuple(live.seats) and shown_seats[0].kind == "open"
    assert (status, seed) == ("playing", live.seed)
