"""``hearts.hint`` over /ws: the normal computer's choice for the seat whose turn it is, which
changes nothing; refused on an online table created without hints, out of turn, or on a state
that has moved on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.hearts_support import Seat, table_log
from tests.server_support import Site, running_site


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    with running_site(tmp_path / "site.sqlite3", hearts_pace_ms=0) as s:
        yield s


def seat(site: Site, stack: ExitStack) -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang="en")
    return Seat(peer)


def hint(person: Seat, version: int | None = None) -> dict[str, Any]:
    return person.ask(
        "hearts.hint",
        table=person.table,
        token=person.token,
        version=person.version if version is None else version,
    )


def test_a_hint_names_cards_of_the_hand_and_changes_nothing(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer")
        # once the computers have passed (they pass meanwhile), the table waits for this seat
        state = me.until(lambda s: me.my_turn(s) and list(s["awaiting"]) == [0])
        assert state["table"]["hints"] is True
        reply = hint(me)
        assert reply["type"] == "hearts.hint", reply
        assert reply["seat"] == 0 and reply["version"] == me.version
        cards = reply["cards"]
        assert isinstance(cards, list)
        assert len(cards) == 3 and set(cards) <= set(state["view"]["hand"])  # the pass
        assert hint(me)["cards"] == cards  # the same question, the same answer
        # (the computers pass meanwhile): nothing of this seat's is in the log
        entries = table_log(site.db_path, me.table)[2]
        assert not [e for e in entries if e.kind == "action" and e.data["seat"] == 0]
        me.ask("hearts.pass", table=me.table, token=me.token, cards=cards, version=me.version)
        state = me.until(lambda s: s["public"]["phase"] == "play" and me.my_turn(s))
        played = hint(me)
        assert played["type"] == "hearts.hint"
        assert played["cards"] == [c for c in played["cards"] if c in state["view"]["legal"]]
        assert len(played["cards"]) == 1


def test_hints_online_only_when_the_table_allows_them(site: Site) -> None:
    with ExitStack() as stack:
        for allowed in (False, True):
            host = seat(site, stack)
            host.create(mode="online", name="Host", hints=allowed)
            guest = seat(site, stack)
            lobby = guest.ask("hearts.invite", invite=host.state["table"]["invite"])
            assert lobby["hints"] is allowed  # whoever joins sees it
            host.ask("hearts.start", table=host.table, token=host.token)
            host.until(host.my_turn)
            reply = hint(host)
            if allowed:
                assert reply["type"] == "hearts.hint", reply
                hand = host.state["view"]["hand"]
                assert len(reply["cards"]) == 3 and set(reply["cards"]) <= set(hand)
            else:
                assert reply["type"] == "error" and reply["code"] == "hints_off", reply


def test_a_hint_out_of_turn_or_on_an_old_state_is_refused(site: Site) -> None:
    with ExitStack() as stack:
        me = seat(site, stack)
        me.create(mode="computer", options={"passing": False})
        state = me.until(lambda s: me.my_turn(s))
        stale = hint(me, state["table"]["version"] + 5)
        assert stale["type"] == "error" and stale["code"] == "stale"
        card = state["view"]["legal"][0]
        me.ask("hearts.play", table=me.table, token=me.token, card=card, version=me.version)
        if 0 not in me.state["awaiting"]:
            reply = hint(me)
            assert reply["type"] == "error" and reply["code"] in ("not_your_turn", "stale")
