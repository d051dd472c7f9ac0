"""Write a new migration script:
``python -m heartsuit.server.storage.new_migration NAME "what it does"``.

``NAME`` is the revision id and the file's name, numbered after the newest
(``0003_hearts_tables``). With ``--autogenerate`` the script's body is drafted by comparing
the tables the ``*_store`` modules declare with a scratch SQLite database migrated to the
newest revision; read and finish the draft by hand (data moves, PostgreSQL and SQLite alike).
A tool for developers, kept out of the migrations package so that the package needs nothing
of the stores it serves.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import tempfile
from pathlib import Path

from alembic import command
from sqlalchemy import MetaData, create_engine

import heartsuit.server
from heartsuit.server.storage import migrations
from heartsuit.server.storage.db import metadata


def _store_tables() -> MetaData:
    """The tables every store module (``store`` or ``*_store`` in any package of the server)
    declares (importing them declares them)."""
    for module in pkgutil.walk_packages(heartsuit.server.__path__, "heartsuit.server."):
        name = module.name.rsplit(".", 1)[-1]
        if name == "store" or name.endswith("_store"):
            importlib.import_module(module.name)
    return metadata


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m heartsuit.server.storage.new_migration")
    parser.add_argument("name", help="the revision id, e.g. 0002_player_preferences")
    parser.add_argument("message", help="one line: what the migration does")
    parser.add_argument("--autogenerate", action="store_true", help="draft the body")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        engine = create_engine(f"sqlite:///{Path(scratch) / 'scratch.sqlite3'}")
        with engine.begin() as conn:
            migrations.upgrade(conn)
            cfg = migrations.config(conn, _store_tables() if args.autogenerate else None)
            # the file is named by the revision alone: versions/0003_hearts_tables.py
            cfg.set_main_option("file_template", "%%(rev)s")
            command.revision(
                cfg, message=args.message, rev_id=args.name, autogenerate=args.autogenerate
            )
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
