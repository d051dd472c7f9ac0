"""The server's packages import one way (DESIGN.md, "Shape of the code"): the core first, then
storage, players, each game, and last ``site/``, the one place that wires the games into the app.

The core and storage import no game, players import no game, and no game imports another; that
the rules cores (``heartsuit.hearts``, ``heartsuit.solitaire``) import nothing of the server is
``tests/test_purity.py``'s. Read from the sources with ``ast``: an import inside a function or
under ``TYPE_CHECKING`` counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent.parent / "src" / "heartsuit" / "server"
PACKAGE = "heartsuit.server"

#: what each package of the server may import of the others (the rest of heartsuit is free)
MAY_IMPORT: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "storage": frozenset({"core"}),
    "players": frozenset({"core", "storage"}),
    "hearts": frozenset({"core", "storage", "players"}),
    "solitaire": frozenset({"core", "storage", "players"}),
    "site": frozenset({"core", "storage", "players", "hearts", "solitaire"}),
}

#: imports against the rules, each kept until the step that removes it: (file, package it imports)
ALLOWED: frozenset[tuple[str, str]] = frozenset(
    {
        # a connection answers ``hello`` with the player, and a game's session is given the
        # Player: the core reaches up to players/ until the core owns the Player type and a
        # players interface that players/service.py implements (issue 29's next step)
        ("core/connection.py", "players"),
        ("core/game_service.py", "players"),
    }
)


def module_of(path: Path) -> str:
    parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` names both ``a`` and ``a.b``, since
    ``b`` may be a module); relative imports resolved."""
    here = module_of(path).split(".")
    if path.name != "__init__.py":
        here = here[:-1]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def server_package(module: str) -> str | None:
    """``heartsuit.server.hearts.service`` -> ``hearts``; None outside the server's packages."""
    parts = module.split(".")
    if parts[:2] != PACKAGE.split(".") or len(parts) < 3:
        return None
    return parts[2]


def wrong_way() -> set[tuple[str, str]]:
    """Every (file, package) where a file of one package imports a package it may not."""
    found = set()
    for path in sorted(SERVER.rglob("*.py")):
        rel = path.relative_to(SERVER)
        if len(rel.parts) < 2:
            continue  # server/__init__.py, the package's face
        own = rel.parts[0]
        for module in imported(path):
            other = server_package(module)
            if other is not None and other != own and other not in MAY_IMPORT[own]:
                found.add((rel.as_posix(), other))
    return found


def test_every_module_of_the_server_is_in_a_package_the_rules_name() -> None:
    loose = [p.name for p in SERVER.glob("*.py") if p.name != "__init__.py"]
    assert loose == [], "a module of the server belongs in one of its packages"
    packages = {p.name for p in SERVER.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(MAY_IMPORT), "say what a new package may import in MAY_IMPORT"


@pytest.mark.parametrize("package", ["core", "storage", "players"])
def test_the_core_storage_and_players_import_no_game(package: str) -> None:
    games = {"hearts", "solitaire", "site"}
    bad = {(f, p) for f, p in wrong_way() if f.startswith(f"{package}/") and p in games}
    assert not bad, f"{package}/ imports a game: {sorted(bad)}"


def test_no_game_imports_another() -> None:
    bad = {(f, p) for f, p in wrong_way() if p in {"hearts", "solitaire"}}
    assert not bad, sorted(bad)


def test_imports_run_one_way_but_for_the_named_exceptions() -> None:
    assert wrong_way() - ALLOWED == set()


def test_every_named_exception_is_still_needed() -> None:
    # when the step that removes one is done, its line goes too
    assert ALLOWED - wrong_way() == set()


def test_the_layout_check_sees_the_imports() -> None:
    # the rules are only as good as the reading: the app is seen to import both games
    app = imported(SERVER / "site" / "app.py")
    assert {server_package(m) for m in app} >= {"core", "storage", "players", "hearts", "solitaire"}
    assert "heartsuit.server.hearts.frames" in imported(SERVER / "hearts" / "endpoint.py")
