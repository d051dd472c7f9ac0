"""A Hearts table in memory: its row, its seats and the match rebuilt from its event log.

A table is the unit of play on the site, whatever the mode: a match (rules + seed + actions),
seats (a person holding a seat token, whose hash alone is stored; a computer with a level; or an
open seat in an online lobby), an invite code for online tables, and an append-only event log
keyed by (table, seq). The log is the truth: :class:`LiveTable` is a replay of it, and the same
:meth:`LiveTable.apply` that replays an entry applies a new one, so a table resumed after a
restart is exactly the table that was left.

Nothing here does I/O; :mod:`heartsuit.server.hearts.service` stores and announces.

Log entries (``kind`` and ``data``):

- ``start``: the host started the match (online); computer and same-device tables log it at once;
- ``action``: a pass, a play or a moon choice, as :meth:`heartsuit.hearts.actions.Action.to_dict`
  writes it (a log written before shooters chose has no moon choice: its replay scores such a
  moon as the engine did then, :meth:`heartsuit.hearts.match.Match.settle_old_moon`);
- ``seat``: a seat changed hands (``{"seat", "kind", "name", "level"}``; never a token);
- ``rematch``: a new match with the same seats (``{"seed": s}``);
- ``ready``: between hands, a person said "next hand" (``{"seat": s}``): see :class:`Between`;
- ``pace``: how fast the computers play from now on (``{"pace": "slow" | "normal" | "fast"}``);
- ``hints``: an online table whose people may ask for hints (``{"hints": true}``, logged at its
  creation only: everyone who joins sees it).

A match's seed deals all of its hands, so it is a secret while the match runs. Tables against
the computer take a code's seed (:data:`~heartsuit.hearts.codes.SEED_COUNT` of them, a code
such as ``HE1-S-AAAAAAM``); tables where people play each other (online, same device) take a
secret 128-bit seed that no code can write (:func:`~heartsuit.hearts.codes.secret_seed`). Either
way the seed stays on the server (the table row and the log) until the match is over: frames
carry :attr:`LiveTable.code` only then (:mod:`heartsuit.server.hearts.frames`).

The table's *version* is the length of its log: every intent names the version the page saw,
and :meth:`LiveTable.is_stale` decides whether what happened since changes the intent's meaning.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from heartsuit.hearts import Match, Rules
from heartsuit.hearts.actions import Action, Pass, action_from_dict
from heartsuit.hearts.codes import SEED_COUNT, code_of, secret_seed
from heartsuit.server.core.protocol import json_text

Mode = Literal["computer", "hotseat", "online"]
Status = Literal["lobby", "playing", "over"]
SeatKind = Literal["human", "computer", "open"]
EntryKind = Literal["start", "action", "seat", "rematch", "ready", "pace", "hints"]
Pace = Literal["slow", "normal", "fast"]
PACES: tuple[Pace, ...] = ("slow", "normal", "fast")

#: how many recent versions' public events a table remembers for reconnecting pages
RECENT_VERSIONS = 256

#: invite codes: 8 letters and digits without look-alikes (0/O, 1/I/L): 31^8 ≈ 8.5e11
INVITE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
INVITE_LENGTH = 8


def new_table_id() -> str:
    return secrets.token_urlsafe(12)


def new_token() -> str:
    """A seat token: 192 random bits; only its hash is ever stored."""
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_invite() -> str:
    return "".join(secrets.choice(INVITE_ALPHABET) for _ in range(INVITE_LENGTH))


def normalize_invite(text: str) -> str | None:
    """An invite as typed (any case, spaces or a dash in the middle); None if it cannot be one."""
    cleaned = "".join(text.split()).replace("-", "")
    if not cleaned.isascii():
        return None
    cleaned = cleaned.upper()
    if len(cleaned) != INVITE_LENGTH or any(c not in INVITE_ALPHABET for c in cleaned):
        return None
    return cleaned


def new_seed(mode: Mode) -> int:
    """A new match's seed: a code's for a table against the computer (a player can only cheat
    themself, and the code replays the deal once the match is over), a secret one where people
    play each other (see the module's docstring)."""
    if mode == "computer":
        return secrets.randbelow(SEED_COUNT)
    return secret_seed()


@dataclass(frozen=True, slots=True)
class TableRecord:
    """A table's row: what it is, plus a summary of its log (status and version)."""

    id: str
    mode: Mode
    preset: str
    rules: dict[str, Any]
    #: the seed of the first match (a rematch's seed is in its log entry); secret while it runs
    seed: int
    invite: str | None
    created_at_ms: int
    status: Status = "lobby"
    version: int = 0


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    kind: SeatKind
    name: str
    level: str | None = None
    #: SHA-256 of the seat token of a person; None for computer and open seats
    token_hash: str | None = None


@dataclass(frozen=True, slots=True)
class LogEntry:
    seq: int
    kind: EntryKind
    data: dict[str, Any]
    at_ms: int


@dataclass(slots=True)
class Between:
    """The wait between two hands: the computers hold the new hand's first moves until the
    people have seen the summary of the hand before (DESIGN.md's log is the truth: all of it
    comes from the log, so a restart or another process knows who is still to confirm).

    A person is ready once they said so (a ``ready`` entry) or acted in the new hand (a pass
    or a card: playing on counts as ready). On a computer or shared-device table the people
    share one screen, so one of them being ready is all of them. A move of a computer seat
    ends the wait (the computers went on: after everyone was ready, or, online, after the
    timer that the table's owner runs from ``since_ms``)."""

    #: the number of the hand waited for (0-based, as the engine counts)
    hand: int
    #: when the hand before ended (the ``at_ms`` of the entry that ended it)
    since_ms: int
    ready: set[int] = field(default_factory=set)


class TableError(ValueError):
    """A log entry that cannot be applied (the caller turns it into a protocol error)."""


@dataclass(slots=True)
class LiveTable:
    """A table replayed from its log; :meth:`apply` is the only way it changes."""

    record: TableRecord
    seats: list[SeatRecord]
    rules: Rules
    match: Match | None = None
    match_no: int = 0
    #: per entry: (kind, seat of an action, whether it was a pass) — what staleness needs
    history: list[tuple[EntryKind, int | None, bool]] = field(default_factory=list)
    #: (version after the entry, the public events it caused as JSON: the items of a list,
    #: without its brackets), most recent last. Text, not the dicts: a table keeps 256 versions
    #: of them, and text is nothing the garbage collector walks (docs/bench-hearts.md,
    #: "The garbage collector")
    recent: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=RECENT_VERSIONS))
    #: between two hands, who has said "next hand" (None: no wait)
    between: Between | None = None
    #: how fast the computers play (the last ``pace`` entry)
    pace: Pace = "normal"
    #: an online table created with hints allowed (a ``hints`` entry)
    hints_on: bool = False
    #: when the table last changed (the ``at_ms`` of its newest entry): the computers' pace
    #: counts from it
    changed_ms: int = 0
    #: (version, :meth:`facts` at it): made once per version, for every socket at the table
    _facts: tuple[int, tuple[Status, tuple[SeatRecord, ...], int, int | None]] | None = field(
        default=None, repr=False, compare=False
    )

    @classmethod
    def replay(
        cls, record: TableRecord, seats: Sequence[SeatRecord], log: Sequence[LogEntry]
    ) -> LiveTable:
        table = cls(replace(record, status="lobby", version=0), list(seats), _rules(record))
        for entry in log:
            table.apply(entry, replaying=True)
        match = table.match
        if record.status == "over" and match is not None and match.hand.phase == "moon":
            # stored as over before shooters chose: that engine had scored this last moon
            match.settle_old_moon()
            table.record = replace(table.record, status=table.status)
        return table

    # --- state ------------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return len(self.history)

    @property
    def status(self) -> Status:
        if self.match is None:
            return "lobby"
        return "over" if self.match.is_over else "playing"

    @property
    def code(self) -> str | None:
        """The current match's game code; None when its seed is a secret one, which no code
        writes. Whether it may be shown is the caller's to decide (only once the match is
        over: :func:`heartsuit.server.hearts.frames.table_info`)."""
        return code_of(self.record.preset, self.seed, players=self.rules.players)

    @property
    def seed(self) -> int:
        return self.match.seed if self.match is not None else self.record.seed

    def awaiting(self) -> tuple[int, ...]:
        return () if self.match is None else self.match.awaiting()

    def facts(self) -> tuple[Status, tuple[SeatRecord, ...], int, int | None]:
        """The status, the seats, the seed and the host's seat (the first person's: the
        creator's, seat 0, unless they left) at this version, made once per version (only
        :meth:`apply` changes a table, and each entry is a version)."""
        kept = self._facts
        version = len(self.history)
        if kept is not None and kept[0] == version:
            return kept[1]
        seats = tuple(self.seats)
        host = next((s.seat for s in seats if s.kind == "human"), None)
        facts = (self.status, seats, self.seed, host)
        self._facts = (version, facts)
        return facts

    def waiting(self) -> tuple[int, ...]:
        """The people the computers wait for before the new hand goes on (see :class:`Between`);
        empty when nobody is waited for."""
        between = self.between
        match = self.match
        if between is None or match is None or match.is_over or match.hand_number != between.hand:
            return ()
        people = [s.seat for s in self.seats if s.kind == "human"]
        if self.record.mode != "online":
            return () if between.ready.intersection(people) else tuple(people)
        return tuple(seat for seat in people if seat not in between.ready)

    @property
    def hints(self) -> bool:
        """Whether the people may ask for hints: always against the computer and on one
        device, online only when the table was created so."""
        return self.record.mode != "online" or self.hints_on

    def seat_of_token(self, token: str) -> int | None:
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None

    def is_stale(self, version: int, action: Action) -> bool:
        """Whether an intent made at ``version`` may no longer mean what its sender meant.

        Only passes commute: passing is simultaneous, so a pass chosen while other seats were
        passing still applies. Anything else that happened since (a card played, a new hand, a
        rematch) makes the intent stale, and the page is sent the fresh state instead.
        """
        return self.moved_since(version, action.seat, passing=isinstance(action, Pass))

    def moved_since(self, version: int, seat: int, *, passing: bool) -> bool:
        """Whether what ``seat`` may do (pass when ``passing``, else play) may have changed
        since ``version``: see :meth:`is_stale`."""
        if version > self.version or version < 0:
            return True
        for kind, by, was_pass in self.history[version:]:
            if kind in ("seat", "ready", "pace", "hints"):
                continue  # none changes what a card or a pass means
            if kind == "action" and was_pass and passing and by != seat:
                continue
            return True
        return False

    def events_since(self, version: int | None) -> list[dict[str, Any]] | None:
        """The public events after ``version``, or None when they are no longer all known."""
        text = self.events_json_since(version)
        return None if text is None else list(json.loads(text))

    def events_json_since(self, version: int | None) -> str | None:
        """:meth:`events_since` as the JSON text of the list (how frames carry it)."""
        if version is None or version > self.version:
            return None
        if version == self.version:
            return "[]"
        if not self.recent or self.recent[0][0] > version + 1:
            return None
        # the versions in ``recent`` rise one by one: only its last entries are read (a
        # socket one version behind reads one, not the whole window)
        newer: list[str] = []
        for after, events in reversed(self.recent):
            if after <= version:
                break
            if events:
                newer.append(events)
        return "[" + ",".join(reversed(newer)) + "]"

    # --- changes ----------------------------------------------------------------------------

    def apply(
        self, entry: LogEntry, *, replaying: bool = False, action: Action | None = None
    ) -> list[dict[str, Any]]:
        """Apply one log entry (replayed or new); returns the public events it caused.

        ``action``: the action of an ``action`` entry, when the caller has it already (the
        entry's data is its ``to_dict()``), so that it is not read back from the dict.

        Raises :class:`TableError` or the engine's ``IllegalMove``/``ValueError`` and changes
        nothing when the entry does not fit the table's state.
        """
        if entry.seq != self.version:
            raise TableError(f"entry {entry.seq} does not follow version {self.version}")
        seat: int | None = None
        was_pass = False
        events: list[dict[str, Any]]
        if entry.kind == "start":
            if self.match is not None:
                raise TableError("the match has already started")
            self.match = Match.new(self.rules, self.record.seed)
            events = [{"type": "started"}]
        elif entry.kind == "action":
            if self.match is None:
                raise TableError("the match has not started")
            if self.match.is_over:
                raise TableError("the match is over")
            if action is None:
                action = action_from_dict(entry.data)
            play = self.match.replay if replaying else self.match.apply
            hand_before = self.match.hand_number
            events = [e.to_dict() for e in play(action)]
            seat, was_pass = action.seat, isinstance(action, Pass)
            self._after_action(seat, hand_before, entry.at_ms)
        elif entry.kind == "seat":
            seat = _apply_seat(self.seats, entry.data)
            events = [{"type": "seat", "seat": seat}]
        elif entry.kind == "rematch":
            if replaying and self.match is not None and self.match.hand.phase == "moon":
                self.match.settle_old_moon()  # an old log: its last moon was scored then
            if self.match is None or not self.match.is_over:
                raise TableError("a rematch comes after the match is over")
            self.match = Match.new(self.rules, int(entry.data["seed"]))
            self.match_no += 1
            self.between = None
            events = [{"type": "rematch"}]
        elif entry.kind == "ready":
            seat = self._ready(entry.data)
            events = [{"type": "ready", "seat": seat}]
        elif entry.kind == "pace":
            pace = entry.data.get("pace")
            if pace not in PACES:
                raise TableError(f"no such pace {pace!r}")
            self.pace = pace
            events = [{"type": "pace", "pace": pace}]
        elif entry.kind == "hints":
            if self.match is not None:
                raise TableError("hints are chosen when the table is created")
            self.hints_on = bool(entry.data.get("hints"))
            events = []
        else:  # pragma: no cover - the store only holds the kinds above
            raise TableError(f"unknown log entry kind {entry.kind!r}")
        self.history.append((entry.kind, seat, was_pass))
        self.changed_ms = entry.at_ms
        version = len(self.history)
        self.recent.append((version, json_text(events)[1:-1]))
        r = self.record
        # replace(r, status=..., version=...), written out: this runs for every change
        self.record = TableRecord(
            r.id, r.mode, r.preset, r.rules, r.seed, r.invite, r.created_at_ms, self.status, version
        )
        return events

    def _after_action(self, seat: int, hand_before: int, at_ms: int) -> None:
        match = self.match
        assert match is not None
        if match.hand_number != hand_before:
            # this move ended a hand: the next waits for its people (not after the last)
            self.between = None if match.is_over else Between(match.hand_number, at_ms)
        elif self.between is not None:
            if self.seats[seat].kind == "computer":
                self.between = None  # the computers went on: the wait is over
            else:
                self.between.ready.add(seat)  # a person who plays on is ready

    def _ready(self, data: dict[str, Any]) -> int:
        try:
            seat = int(data["seat"])
        except (KeyError, TypeError, ValueError) as exc:
            raise TableError(f"a ready entry needs a seat, not {data!r}") from exc
        if seat not in self.waiting():
            raise TableError(f"seat {seat} is not waited for")
        assert self.between is not None
        self.between.ready.add(seat)
        return seat

    def entry(self, kind: EntryKind, data: dict[str, Any], at_ms: int) -> LogEntry:
        """The next log entry of this table."""
        return LogEntry(self.version, kind, data, at_ms)


def _rules(record: TableRecord) -> Rules:
    return Rules.from_dict(record.rules)


def _apply_seat(seats: list[SeatRecord], data: dict[str, Any]) -> int:
    try:
        number = int(data["seat"])
        kind = data["kind"]
    except (KeyError, TypeError, ValueError) as exc:
        raise TableError(f"a seat entry needs seat and kind, not {data!r}") from exc
    if not 0 <= number < len(seats) or kind not in ("human", "computer", "open"):
        raise TableError(f"no such seat change {data!r}")
    old = seats[number]
    seats[number] = SeatRecord(
        number,
        kind,
        str(data.get("name", old.name)),
        data.get("level"),
        data.get("token_hash") if kind == "human" else None,
    )
    return number
