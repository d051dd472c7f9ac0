"""axe-core on every Hearts page and state, in both languages: zero violations.

The states are those of :mod:`tests.browser.hearts_states`: the setup page (and its options
open), the join page, a table waiting for players, passing with cards picked, your turn, someone
else's turn, a trick just taken, the last-trick view, an illegal card tapped and its message,
the hand's summary and score sheet, the end of the match, the shared-device cover, the moon
choice (the shooter's, the others' wait, the result), ten seats of Cancellation, a seat open
elsewhere and an unknown table.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import axe
from tests.browser.conftest import ServerProcess
from tests.browser.hearts_states import STATES, open_state

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["id", "en"])
@pytest.mark.parametrize("name", STATES)
def test_each_hearts_state_passes_axe(
    page: Any, server: ServerProcess, name: str, lang: str
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    open_state(page, server, name, lang)
    assert page.evaluate("document.documentElement.lang") == lang
    axe.check(page, f"Hearts {name}, {lang}")
