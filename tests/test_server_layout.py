"""The server's packages import one way (DESIGN.md, "Shape of the code"): the core first, then
storage, players, each game, and last ``site/``, the one place that wires the games into the app.

The core and storage import no game, players import no game, and no game imports another; that
the rules cores (``heartsuit.hearts``, ``heartsuit.solitaire``) import nothing of the server is
``tests/test_purity.py``'s. Read from the sources with ``ast``: an import inside a function or
under ``TYPE_CHECKING`` counts too.
"""

from __future__ import annotations

import ast
import re
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
ALLOWED: frozenset[tuple[str, str]] = frozenset()


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


#: the words that name a game (a whole word of a name or a text: not "heartsuit")
GAME_WORDS = re.compile(r"(?<![a-z])(hearts?|solitaire|h2h)(?![a-z])", re.IGNORECASE)


def named_games(path: Path) -> list[tuple[int, str]]:
    """Each name (variable, attribute, function, class, argument) and each text that is not a
    docstring in ``path`` that names a game, with its line: comments and docstrings may speak
    of the games as examples, the code may not depend on one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = "" if id(node) in docstrings else node.value
        elif isinstance(node, ast.Name):
            text = node.id
        elif isinstance(node, ast.Attribute):
            text = node.attr
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = node.name
        elif isinstance(node, ast.arg):
            text = node.arg
        else:
            continue
        if GAME_WORDS.search(text.replace("_", " ")):
            found.append((getattr(node, "lineno", 0), text))
    return found


@pytest.mark.parametrize("package", ["core", "storage", "players"])
def test_the_core_storage_and_players_name_no_game(package: str) -> None:
    named = {
        f"{path.relative_to(SERVER)}:{line}: {text[:40]!r}"
        for path in sorted((SERVER / package).rglob("*.py"))
        if "migrations" not in path.parts  # a migration names the tables it made, once
        for line, text in named_games(path)
    }
    assert not named, sorted(named)


def test_the_game_names_check_sees_a_game(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""Hearts in a docstring is fine."""\n'
        "# so is solitaire in a comment\n"
        "heartsuit_name = 'heartsuit'\n"
        "UNKNOWN_TABLE_CODE = 1\n"
        "pace = settings.hearts_pace_ms\n"
        "kinds = ('solitaire.new',)\n",
        encoding="utf-8",
    )
    assert [text for _, text in named_games(planted)] == [
        "hearts_pace_ms",
        "solitaire.new",
    ]


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
