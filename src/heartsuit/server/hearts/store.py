"""Storage of Hearts tables: the tables, their seats and each table's append-only event log.

The log (``hearts_events``, primary key (table, seq)) is the truth; the ``hearts_tables`` row
(status, version) and the ``hearts_seats`` rows summarise it and are written in the same
transaction as the entry they follow, so they never disagree with it. A second writer of the
same seq fails on the primary key: :class:`EntryConflict` tells the service that its copy of the
table is stale (it catches up from the log and checks the intent again). Seat tokens are never
stored, only their SHA-256.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

import orjson
from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from heartsuit.server.hearts.live_table import LogEntry, SeatRecord, TableRecord
from heartsuit.server.storage.db import Database, MoveConflict, Step, StoreError, metadata

tables = Table(
    "hearts_tables",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("mode", String(16), nullable=False),
    Column("preset", String(16), nullable=False),
    Column("rules", Text, nullable=False),
    # decimal text: a secret seed has 129 bits (migration 0008)
    Column("seed", String(40), nullable=False),
    Column("invite", String(16), nullable=True, unique=True),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    Index("ix_hearts_tables_status", "status"),
)

seats = Table(
    "hearts_seats",
    metadata,
    Column("table_id", String(40), ForeignKey("hearts_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("name", String(64), nullable=False),
    Column("level", String(16), nullable=True),
    Column("token_hash", String(64), nullable=True),
)

events = Table(
    "hearts_events",
    metadata,
    Column("table_id", String(40), ForeignKey("hearts_tables.id"), primary_key=True),
    # the primary key (table, seq) is what makes a second writer of the same entry fail
    Column("seq", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("data", Text, nullable=False),
    Column("at_ms", BigInteger, nullable=False),
)


class EntryConflict(MoveConflict):
    """Another writer already logged this seq: the caller's copy of the table is stale."""


class TableStore(Protocol):
    async def create_table(
        self, table: TableRecord, seats: Sequence[SeatRecord], log: Sequence[LogEntry]
    ) -> None: ...
    async def get_table(
        self, table_id: str
    ) -> tuple[TableRecord, list[SeatRecord], list[LogEntry]] | None: ...
    async def table_by_invite(self, invite: str) -> str | None: ...
    async def versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The logged version of each table (those that exist)."""
        ...

    async def entries_after(self, table_id: str, seq: int) -> list[LogEntry]:
        """The log entries of ``table_id`` from ``seq`` on (a copy at version ``seq`` catches
        up with them)."""
        ...

    async def append(
        self,
        table: TableRecord,
        entry: LogEntry,
        seats: Sequence[SeatRecord] = (),
        also: Sequence[Step] = (),
    ) -> None:
        """Log ``entry``, store ``table`` as the row and ``seats`` as changed, and run the
        steps ``also`` (what the entry changes elsewhere: the statistics of a match it ends),
        all or nothing.

        Raises :class:`EntryConflict` when the log already holds ``entry.seq``.
        """
        ...

    async def active_tables(self) -> list[str]:
        """Ids of tables whose match is under way (to resume computer turns after a restart)."""
        ...


def _table_row(table: TableRecord) -> dict[str, Any]:
    return {
        "id": table.id,
        "mode": table.mode,
        "preset": table.preset,
        "rules": json.dumps(table.rules, sort_keys=True),
        "seed": str(table.seed),
        "invite": table.invite,
        "created_at_ms": table.created_at_ms,
        "status": table.status,
        "version": table.version,
    }


def _seat_row(table_id: str, seat: SeatRecord) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "seat": seat.seat,
        "kind": seat.kind,
        "name": seat.name,
        "level": seat.level,
        "token_hash": seat.token_hash,
    }


def _data_text(data: dict[str, Any]) -> str:
    """An entry's data as the log keeps it: ``json.dumps(data, sort_keys=True,
    separators=(",", ":"))``, which escapes every character beyond printable ASCII. orjson writes
    the same text five times faster when there is none (a card played, a pass: nearly every
    entry); a name with an accent is written by the standard library, as always."""
    try:
        text = orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        text = ""  # what orjson does not write (a number beyond 64 bits, ...)
    if text and text.isascii() and "\x7f" not in text:  # (the standard library escapes DEL too)
        return text
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _entry_row(table_id: str, entry: LogEntry) -> dict[str, Any]:
    return {
        "table_id": table_id,
        "seq": entry.seq,
        "kind": entry.kind,
        "data": _data_text(entry.data),
        "at_ms": entry.at_ms,
    }


# the statements of an append (constants, so that appends that arrive together are written
# with one executemany each: see Database.write)
_LOG_ENTRY = insert(events)
_TABLE_SUMMARY = (
    update(tables)
    .where(tables.c.id == bindparam("b_id"))
    .values(status=bindparam("b_status"), version=bindparam("b_version"))
)
_SEAT_ROW = (
    update(seats)
    .where(seats.c.table_id == bindparam("b_table_id"), seats.c.seat == bindparam("b_seat"))
    .values(
        kind=bindparam("b_kind"),
        name=bindparam("b_name"),
        level=bindparam("b_level"),
        token_hash=bindparam("b_token_hash"),
    )
)


#: the log from a seq on (built once: every process at a table runs it on every change made
#: elsewhere)
_ENTRIES_AFTER = (
    select(events)
    .where(events.c.table_id == bindparam("b_table_id"), events.c.seq >= bindparam("b_seq"))
    .order_by(events.c.seq)
)


def _seat_params(table_id: str, seat: SeatRecord) -> dict[str, Any]:
    return {f"b_{key}": value for key, value in _seat_row(table_id, seat).items()}


class SqlTableStore:
    """:class:`TableStore` on the site's :class:`~heartsuit.server.storage.db.Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def create_table(
        self, table: TableRecord, seat_rows: Sequence[SeatRecord], log: Sequence[LogEntry]
    ) -> None:
        async with self.db.writing() as conn:
            await conn.execute(insert(tables).values(**_table_row(table)))
            await conn.execute(insert(seats), [_seat_row(table.id, s) for s in seat_rows])
            if log:
                await conn.execute(insert(events), [_entry_row(table.id, e) for e in log])

    async def get_table(
        self, table_id: str
    ) -> tuple[TableRecord, list[SeatRecord], list[LogEntry]] | None:
        def read(conn: Connection) -> tuple[TableRecord, list[SeatRecord], list[LogEntry]] | None:
            row = conn.execute(select(tables).where(tables.c.id == table_id)).first()
            if row is None:
                return None
            seat_rows = conn.execute(
                select(seats).where(seats.c.table_id == table_id).order_by(seats.c.seat)
            )
            seat_list = [
                SeatRecord(r.seat, r.kind, r.name, r.level, r.token_hash) for r in seat_rows
            ]
            entry_rows = conn.execute(
                select(events).where(events.c.table_id == table_id).order_by(events.c.seq)
            )
            log = [LogEntry(r.seq, r.kind, json.loads(r.data), r.at_ms) for r in entry_rows]
            record = TableRecord(
                id=row.id,
                mode=row.mode,
                preset=row.preset,
                rules=json.loads(row.rules),
                seed=int(row.seed),
                invite=row.invite,
                created_at_ms=row.created_at_ms,
                status=row.status,
                version=row.version,
            )
            return record, seat_list, log

        return await self.db.read(read)

    async def versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        # one statement (on PostgreSQL outside a transaction: one round trip instead of three,
        # and the same answer): every process at a table catches up this way on every change
        # made elsewhere
        if not table_ids:
            return {}
        query = select(tables.c.id, tables.c.version).where(tables.c.id.in_(list(table_ids)))
        return await self.db.read(
            lambda conn: {str(r.id): int(r.version) for r in conn.execute(query)}, single=True
        )

    async def entries_after(self, table_id: str, seq: int) -> list[LogEntry]:
        params = {"b_table_id": table_id, "b_seq": seq}
        return await self.db.read(
            lambda conn: [
                LogEntry(r.seq, r.kind, json.loads(r.data), r.at_ms)
                for r in conn.execute(_ENTRIES_AFTER, params)
            ],
            single=True,
        )

    async def table_by_invite(self, invite: str) -> str | None:
        query = select(tables.c.id).where(tables.c.invite == invite)
        row = await self.db.read(lambda conn: conn.execute(query).first(), single=True)
        return None if row is None else str(row.id)

    async def append(
        self,
        table: TableRecord,
        entry: LogEntry,
        seat_rows: Sequence[SeatRecord] = (),
        also: Sequence[Step] = (),
    ) -> None:
        if table.version != entry.seq + 1:
            raise StoreError(f"the row of {table.id} does not follow entry {entry.seq}")
        try:
            await self.db.write(
                Step(_LOG_ENTRY, [_entry_row(table.id, entry)]),
                Step(
                    _TABLE_SUMMARY,
                    [{"b_id": table.id, "b_status": table.status, "b_version": table.version}],
                ),
                Step(_SEAT_ROW, [_seat_params(table.id, seat) for seat in seat_rows]),
                *also,
                # a table's rows: several processes' batches take them in one order
                key=table.id,
            )
        except IntegrityError as exc:
            raise EntryConflict(f"entry {entry.seq} of table {table.id} is already logged") from exc

    async def active_tables(self) -> list[str]:
        query = select(tables.c.id).where(tables.c.status == "playing")
        return await self.db.read(
            lambda conn: [str(r.id) for r in conn.execute(query)], single=True
        )
