"""axe-core in the real browser: ``check(page, "what the page shows")`` fails on any violation.

axe-core comes bundled in the ``axe-playwright-python`` package (a dev extra); it is injected
through Playwright's ``evaluate``, which the pages' Content-Security-Policy does not block. Every
rule axe runs by default applies (WCAG 2.0/2.1/2.2 A and AA and its best practices); a failure
names each rule, its impact, and the elements it found, so the message says what to fix.
"""

from __future__ import annotations

from typing import Any, Final

from axe_playwright_python.sync_playwright import Axe

_AXE = Axe()


#: rules axe-core ships but leaves off by default ("experimental") that the Heart to Heart pages
#: are checked with as well: the spoken name of a control starts with its visible text
EXPERIMENTAL: Final = ("label-content-name-mismatch",)


def violations(
    page: Any, context: str | None = None, experimental: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (``context``: a selector to limit it;
    ``experimental``: rules to turn on besides the default ones)."""
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if experimental:
        options["rules"] = {rule: {"enabled": True} for rule in experimental}
    result = _AXE.run(page, context=context, options=options)
    found: list[dict[str, Any]] = result.response["violations"]
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


def check(
    page: Any, state: str, context: str | None = None, experimental: tuple[str, ...] = ()
) -> None:
    """Fail with a readable list if axe-core finds any violation on the page in this state."""
    found = violations(page, context, experimental)
    assert not found, f"axe-core on {page.url} ({state}):\n{describe(found)}"
