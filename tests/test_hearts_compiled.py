"""The compiled engine (mypyc) and its Python modules: which one runs, stale builds, pickles.

``./dev test`` compiles the engine's core before the tests and sets
``HEARTSUIT_EXPECT_COMPILED=1``: the suite then runs against the compiled modules, this file
checks that they really run, and one test runs the engine's own tests again against the
Python modules (``HEARTSUIT_PURE=1``) in a subprocess, so both are exercised by every run.
"""

from __future__ import annotations

import copy
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import heartsuit.hearts
from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.compiled import BUILT, MODULES, PURE_SWITCH, extension_files
from heartsuit.hearts.rules import PRESET_NAMES

SRC = Path(heartsuit.__file__).resolve().parent.parent
HEARTS = SRC / "heartsuit" / "hearts"
EXPECTED = os.environ.get("HEARTSUIT_EXPECT_COMPILED") == "1"
# the engine's tests that run again against the Python modules
ENGINE_TESTS = [
    "tests/test_hearts_legal.py",
    "tests/test_hearts_flow.py",
    "tests/test_hearts_game.py",
    "tests/test_hearts_golden.py",
    "tests/test_hearts_views.py",
    "tests/test_hearts_moon.py",
    "tests/test_hearts_match.py",
    "tests/test_hearts_compiled.py",
]


def probe(env: dict[str, str], pythonpath: Path = SRC) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter importing the engine from ``pythonpath``: which one runs."""
    code = (
        "import heartsuit.hearts as h, heartsuit.hearts.game as g\n"
        "print(h.COMPILED, g.__file__, getattr(g, 'EDITED', False), sep='\\n')\n"
    )
    full = {**os.environ, **env, "PYTHONPATH": str(pythonpath)}
    full.pop("PYTHONWARNINGS", None)
    return subprocess.run(
        [sys.executable, "-c", code], env=full, capture_output=True, text=True, check=True
    )


def test_the_compiled_engine_runs_when_the_tests_expect_it() -> None:
    game = sys.modules["heartsuit.hearts.game"]
    compiled_files = [sys.modules[f"heartsuit.hearts.{name}"].__file__ or "" for name in MODULES]
    if EXPECTED:
        assert heartsuit.hearts.COMPILED, heartsuit.hearts.CORE
        assert heartsuit.hearts.CORE == "compiled (mypyc)"
    # whichever runs, the flag tells the truth about every module
    assert all(f.endswith(".py") != heartsuit.hearts.COMPILED for f in compiled_files)
    assert (game.__file__ or "").endswith(".py") != heartsuit.hearts.COMPILED


def test_the_pure_switch_runs_the_python_modules() -> None:
    shown = probe({PURE_SWITCH: "1"}).stdout.split("\n")
    assert shown[0] == "False"
    assert shown[1] == str(HEARTS / "game.py")


def needs_build() -> None:
    if not heartsuit.hearts.COMPILED:
        if EXPECTED:
            pytest.fail(f"the compiled engine was expected: {heartsuit.hearts.CORE}")
        pytest.skip(f"no compiled engine here ({heartsuit.hearts.CORE}): see ./dev test")


def copy_of_the_package(tmp_path: Path) -> Path:
    """The package with its build, as a separate tree (the checkout is never touched)."""
    shutil.copytree(
        SRC / "heartsuit", tmp_path / "heartsuit", ignore=shutil.ignore_patterns("__pycache__")
    )
    for group in SRC.glob("heartsuit_core__mypyc.*"):
        shutil.copy2(group, tmp_path / group.name)
    return tmp_path


def test_the_copy_of_a_build_runs_compiled(tmp_path: Path) -> None:
    needs_build()
    root = copy_of_the_package(tmp_path)
    shown = probe({}, root)
    assert shown.stdout.split("\n")[:3] == ["True", shown.stdout.split("\n")[1], "False"]
    assert not shown.stdout.split("\n")[1].endswith(".py")
    assert "RuntimeWarning" not in shown.stderr


@pytest.mark.parametrize("module", MODULES)
def test_an_edited_source_never_runs_stale_compiled_code(tmp_path: Path, module: str) -> None:
    # the install is editable: an edited .py beside its compiled extension must run as
    # written, with a warning, and never as the extension built from the old text
    needs_build()
    root = copy_of_the_package(tmp_path)
    source = root / "heartsuit" / "hearts" / f"{module}.py"
    source.write_text(source.read_text() + "\nEDITED = True\n")
    shown = probe({}, root)
    compiled, game_file, edited = shown.stdout.split("\n")[:3]
    assert compiled == "False"
    assert game_file == str(root / "heartsuit" / "hearts" / "game.py")
    assert edited == ("True" if module == "game" else "False")
    assert "RuntimeWarning" in shown.stderr and "stale" in shown.stderr
    # every compiled module runs as Python then, the edited one as edited
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import heartsuit.hearts.{module} as m; print(m.EDITED, m.__file__)",
        ],
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.split() == ["True", str(source)]


def test_a_build_with_a_module_no_longer_listed_runs_the_python_modules(
    tmp_path: Path,
) -> None:
    needs_build()
    root = copy_of_the_package(tmp_path)
    hearts = root / "heartsuit" / "hearts"
    game_extension = next(p for p in extension_files(hearts) if p.name.startswith("game."))
    # as if "deal" had been compiled once and dropped from the list since
    shutil.copy2(game_extension, hearts / game_extension.name.replace("game.", "deal.", 1))
    shown = probe({}, root)
    assert shown.stdout.split("\n")[0] == "False"
    assert "no longer listed" in shown.stderr


def test_a_build_without_its_digest_module_runs_the_python_modules(tmp_path: Path) -> None:
    needs_build()
    root = copy_of_the_package(tmp_path)
    for built in (root / "heartsuit" / "hearts").glob(f"{BUILT}.*"):
        built.unlink()
    shown = probe({}, root)
    assert shown.stdout.split("\n")[0] == "False"
    assert "incomplete" in shown.stderr


@pytest.mark.slow
def test_the_engine_tests_pass_with_the_python_modules() -> None:
    # the suite itself runs compiled here; the Python modules are the reference and the
    # fallback, so the engine's tests run against them too
    if not heartsuit.hearts.COMPILED:
        pytest.skip("this run already uses the Python modules")
    root = SRC.parent
    env = {**os.environ, PURE_SWITCH: "1"}
    env.pop("HEARTSUIT_EXPECT_COMPILED", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ENGINE_TESTS],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout


def random_hand(preset: str, seed: int, cards: int) -> Hand:
    rnd = random.Random(seed)
    hand = Hand.deal(Rules.preset(preset), seed, pass_direction="hold")
    for _ in range(cards):
        seat = hand.to_play
        assert seat is not None
        hand.play(seat, rnd.choice(hand.legal_plays(seat)))
    return hand


def state(hand: Hand) -> tuple[object, ...]:
    return (
        hand.to_dict(),
        hand.holdings,
        hand.taken,
        hand.tricks,
        hand.trick,
        hand.to_play,
        hand.hearts_broken,
        hand.points_taken(),
        hand.held_over,
        hand.phase,
    )


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("cards", [0, 6, 13])
def test_a_hand_pickles_and_copies_and_plays_on_alike(preset: str, cards: int) -> None:
    hand = random_hand(preset, 7, cards)
    copies = [
        pickle.loads(pickle.dumps(hand)),
        copy.deepcopy(hand),
        pickle.loads(pickle.dumps(hand, protocol=2)),
    ]
    for other in copies:
        assert type(other) is Hand
        assert state(other) == state(hand)
    # every copy plays on exactly as the original: the same events, refusals and end
    rnd = random.Random(1)
    while (seat := hand.to_play) is not None:
        legal = hand.legal_plays(seat)
        card = rnd.choice(legal)
        events = hand.play(seat, card)
        for other in copies:
            assert other.legal_plays(seat) == legal
            assert other.play(seat, card) == events
    for other in copies:
        assert state(other) == state(hand)
        assert other.points() == hand.points()


def test_a_shallow_copy_is_a_hand_of_the_same_state() -> None:
    hand = random_hand("standard", 3, 5)
    other = copy.copy(hand)
    assert type(other) is Hand
    assert state(other) == state(hand)
