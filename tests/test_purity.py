"""The rules cores import no web or asyncio code (DESIGN.md, principle 1)."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "heartsuit"
FORBIDDEN = {"asyncio", "starlette", "uvicorn", "sqlalchemy", "pydantic", "heartsuit.server",
             "heartsuit.cli", "aiosqlite", "asyncpg", "httpx", "websockets"}
PURE_FILES = sorted(
    [*(SRC / "solitaire").rglob("*.py"), *(SRC / "hearts").rglob("*.py"), SRC / "cards.py",
     SRC / "shuffle.py", SRC / "gamecodes.py"]
)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_rules_core_imports_nothing_from_the_web_or_asyncio(path: Path) -> None:
    bad = {
        name for name in imported_modules(path)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    }
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_purity_check_sees_the_cores() -> None:
    assert len(PURE_FILES) >= 5


def test_the_table_driver_is_pure_and_reproducible() -> None:
    # the driver runs computer turns for the site; the server decides when, it decides what,
    # so it reads no clock, starts no thread and never uses Python's own random (DESIGN.md, 4)
    table = SRC / "hearts" / "driver.py"
    assert table in PURE_FILES
    clocks_and_chance = {"time", "datetime", "threading", "random", "secrets"}
    assert not imported_modules(table) & (FORBIDDEN | clocks_and_chance)


def test_only_the_arena_and_the_cli_show_progress_bars() -> None:
    # tqdm draws on a terminal: the arena (bots/) and the command line may use it, the rules
    # core may not, nor may it reach the arena (which would bring tqdm along)
    core = [p for p in PURE_FILES if "bots" not in p.relative_to(SRC).parts]
    assert SRC / "hearts" / "game.py" in core and SRC / "hearts" / "driver.py" in core
    for path in core:
        names = imported_modules(path)
        assert not {n for n in names if n == "tqdm" or n.startswith("tqdm.")}, path.name
        assert not {n for n in names if n.startswith("heartsuit.hearts.bots.arena")}, path.name
    assert not (SRC / "hearts" / "arena.py").exists()  # the arena lives in bots/


# the research adapters' libraries (heartsuit[openspiel], heartsuit[pettingzoo]) are optional
ADAPTER_LIBRARIES = {"pyspiel", "open_spiel", "pettingzoo", "gymnasium", "numpy"}


def _imports_any(path: Path, names: set[str]) -> set[str]:
    return {
        name for name in imported_modules(path)
        if any(name == f or name.startswith(f + ".") for f in names)
    }


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_rules_core_imports_no_adapter_or_its_libraries(path: Path) -> None:
    bad = _imports_any(path, ADAPTER_LIBRARIES | {"heartsuit.adapters"})
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_only_the_adapters_import_their_libraries() -> None:
    # the site, the command line and the bots run without the optional extras installed;
    # of the adapters, only the OpenSpiel and PettingZoo modules themselves need them
    adapters = SRC / "adapters"
    outside = [p for p in SRC.rglob("*.py") if adapters not in p.parents]
    assert SRC / "cli" / "__init__.py" in outside and SRC / "server" / "site" / "app.py" in outside
    for path in [*outside, adapters / "__init__.py", adapters / "shared.py"]:
        assert not _imports_any(path, ADAPTER_LIBRARIES), path.relative_to(SRC)
    users = {p.name for p in adapters.glob("*.py") if _imports_any(p, ADAPTER_LIBRARIES)}
    assert users == {"openspiel.py", "pettingzoo.py"}


def test_importing_the_library_loads_no_adapter_library() -> None:
    import subprocess
    import sys

    code = (
        "import sys, heartsuit.hearts, heartsuit.solitaire, heartsuit.cli, "
        "heartsuit.server.site.app, heartsuit.adapters.shared; "
        f"print(sorted(m for m in {sorted(ADAPTER_LIBRARIES)!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=SRC.parent.parent)
    assert out.stdout.strip() == "[]"
