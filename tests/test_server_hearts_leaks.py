"""No frame to any seat ever names a card that seat may not know (DESIGN.md, principle 3).

Whole online matches of every preset are played over the real WebSocket by people in two seats
(the rest are computers); every frame each socket received — states, replies, errors with their
fresh state, end-of-hand summaries — is checked against the table replayed from the database
to the version the frame carries. A last test shows that the check catches a leak.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from heartsuit.server.hearts import frames as hearts_view
from tests.hearts_support import PRESETS, Seat, check_no_leaks, play_until_over
from tests.server_support import SendNow, Site, running_site


@pytest.fixture(params=["asgi", "at-once"])
def site(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Site]:
    """Frames through the ASGI send only, and also written at once (``heartsuit serve``'s
    way, with which a notice is answered in the publisher's call, without its queue)."""
    send_now = SendNow() if request.param == "at-once" else None
    with running_site(
        tmp_path / "site.sqlite3", hearts_pace_ms=0, hearts_grace_ms=60_000, send_now=send_now
    ) as s:
        yield s


def play_online_match(site: Site, preset: str, fields: dict[str, Any]) -> tuple[str, list[Seat]]:
    with ExitStack() as stack:
        host = Seat(stack.enter_context(site.peer()))
        options = {"target": 40, **fields.pop("options", {})}
        host.create(mode="online", preset=preset, options=options, **fields)
        guest = Seat(stack.enter_context(site.peer()))
        guest.ask("hearts.invite", invite=host.state["table"]["invite"])
        guest.sit(host.table, 1, "Guest")
        host.ask("hearts.start", table=host.table, token=host.token)
        seats = [host, guest]
        # a stale intent and an illegal one, so that error frames are checked too
        host.ask("hearts.play", table=host.table, token=host.token, card="2C", version=0)
        play_until_over(seats)
        # a reconnecting page: a full resync, and one that asks for what it missed
        again = Seat(stack.enter_context(site.peer()))
        again.seat = 1
        again.open(host.table, [guest.token], take_over=True)
        again.open(host.table, [guest.token], version=3)
        guest.frames.extend(again.frames)
        return host.table, seats


@pytest.mark.parametrize(
    "preset, fields", PRESETS, ids=[f"{p}-{f.get('players', '')}" for p, f in PRESETS]
)
def test_no_frame_names_a_card_its_seat_may_not_know(
    site: Site, preset: str, fields: dict[str, Any]
) -> None:
    table, seats = play_online_match(site, preset, dict(fields))
    assert seats[0].state["over"] is not None
    checked = check_no_leaks(site.db_path, table, {s.seat: s.frames for s in seats})
    assert checked > 50


def test_the_leak_check_catches_a_leak(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    honest = hearts_view.public_part

    def leaky(view: Any, awaiting: Any) -> dict[str, Any]:
        data = honest(view, awaiting)
        data["neighbour"] = list(data.get("trick") or [])  # harmless...
        # ...and one seat's whole hand, which every other seat now receives
        data["peek"] = [c.code for c in view.hand]
        return data

    honest_dict = hearts_view._view_dict

    def leaky_dict(view: Any) -> dict[str, Any]:
        # the same leak where the frames every socket shares are built
        return {**honest_dict(view), "peek": [c.code for c in view.hand]}

    monkeypatch.setattr(hearts_view, "public_part", leaky)
    monkeypatch.setattr(hearts_view, "_view_dict", leaky_dict)
    with ExitStack() as stack:
        device = Seat(stack.enter_context(site.peer()))
        device.create(
            mode="hotseat", seats=[{"kind": "human"}, {"kind": "human"}], options={"target": 10}
        )
        # on a shared device the public part is built from seat 0's view: seat 1 must not see it
        device.seat = 1
        with pytest.raises(AssertionError, match="names"):
            check_no_leaks(site.db_path, device.table, {1: device.frames})
