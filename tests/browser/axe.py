"""axe-core in the real browser: ``check(page, "what the page shows")`` fails on any violation.

axe-core comes bundled in the ``axe-playwright-python`` package (a dev extra); it is injected
through Playwright's ``evaluate``, which the pages' Content-Security-Policy does not block. Every
rule axe runs by default applies (WCAG 2.0/2.1/2.2 A and AA and its best practices); a failure
names each rule, its impact, and the elements it found, so the message says what to fix.
"""

from __future__ import annotations

from typing import Any

from axe_playwright_python.sync_playwright import Axe

_AXE = Axe()


def violations(page: Any, context: str | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (``context``: a selector to limit it)."""
    found: list[dict[str, Any]] = _AXE.run(page, context=context).response["violations"]
    return found


def describe(found: list[dict[str, Any]]) -> str:
    lines = []
    for rule in found:
        lines.append(f"{rule['id']} ({rule['impact']}): {rule['help']}")
        for node in rule["nodes"][:5]:
            lines.append(f"    {' '.join(map(str, node['target']))}: {node['failureSummary']}")
        if len(rule["nodes"]) > 5:
            lines.append(f"    ... and {len(rule['nodes']) - 5} more")
    return "\n".join(lines)


def check(page: Any, state: str, context: str | None = None) -> None:
    """Fail with a readable list if axe-core finds any violation on the page in this state."""
    found = violations(page, context)
    assert not found, f"axe-core on {page.url} ({state}):\n{describe(found)}"
