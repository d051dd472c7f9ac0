"""The examples of docs/adapters.md run as they are written, and do what they say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

import tests.adapters_support  # noqa: F401  (OpenSpiel's algorithms, safely under pytest)

DOC = Path(__file__).resolve().parent.parent / "docs" / "adapters.md"


def example(name: str) -> str:
    """The Python block that follows ``<!-- example: name -->`` in the page."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {name} -->\n```python\n(.*?)```", text, re.S)
    assert found, f"docs/adapters.md has no example {name!r}"
    return found.group(1)


def run(code: str) -> tuple[dict[str, Any], str]:
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(DOC), "exec"), namespace)
    return namespace, printed.getvalue()


def test_the_ismcts_example_plays_a_hand_of_black_maria() -> None:
    namespace, printed = run(example("ismcts"))
    state = namespace["state"]
    assert state.is_terminal()
    assert state.get_game().num_players() == 3
    returns = state.returns()
    # with K♠ and A♠ the hand holds 43 points, shared out: 3 × 43 − 43, or a moon
    assert sum(returns) in (2 * 43, 43)
    assert printed.startswith("returns (43 minus each seat's points):")


def test_the_pettingzoo_example_plays_a_hand_through_the_mask() -> None:
    namespace, printed = run(example("pettingzoo"))
    e = namespace["e"]
    assert e.code == "HE1-C8-AAAACZY"
    rewards = namespace["rewards"]
    assert sorted(rewards) == sorted(e.possible_agents)
    assert e.table.is_terminal()
    assert [rewards[a] for a in e.possible_agents] == [-p for p in e.table.points()]
    assert printed.startswith("HE1-C8-AAAACZY {")


@pytest.mark.parametrize("name", ["ismcts", "pettingzoo"])
def test_each_example_is_found_once(name: str) -> None:
    assert DOC.read_text(encoding="utf-8").count(f"<!-- example: {name} -->") == 1
