"""bench/hearts_external.py: the requests it sends another Hearts program and what it accepts.

A fake program (a few lines of Python) stands in for the real one, which is not part of
heartsuit: the requests are checked field by field, seats turned so the asking seat is 0, and a
refusal or a card that is not legal stops the run instead of being replaced."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.bots.heuristic import HeuristicBot

BENCH = Path(__file__).resolve().parent.parent / "bench" / "hearts_external.py"

# follows the led suit with its first card of it when it can, else plays its first card;
# passes its first three cards; every request is kept in the file named by its first argument
FAKE = """#!{python}
import sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    fields = [f.strip() for f in line.split("|")]
    hand = fields[1].split()
    if line.startswith("PASS"):
        print(" ".join(hand[:3]), flush=True)
        continue
    trick = fields[6].split()
    led = trick[1][-1] if len(trick) > 1 else None
    same = [c for c in hand if c[-1] == led]
    print({answer}, flush=True)
"""


@pytest.fixture
def external() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("hearts_external", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    if module._driver is not None:
        module._driver.kill()
        module._driver.wait()


def fake_driver(tmp_path: Path, answer: str = "(same or hand)[0]") -> tuple[Path, Path]:
    path = tmp_path / "driver"
    path.write_text(FAKE.format(python=sys.executable, answer=answer))
    path.chmod(0o755)
    log = tmp_path / "requests.txt"
    wrapper = tmp_path / "run-driver"
    wrapper.write_text(f"#!/bin/sh\nexec {path} {log}\n")
    wrapper.chmod(0o755)
    return wrapper, log


def seat_two_following() -> Hand:
    """A passed (left) hand played with each seat's first legal card until seat 2 follows."""
    hand = Hand.deal(Rules(), 11, pass_direction="left")
    for seat in range(4):
        hand.pass_cards(seat, HeuristicBot().choose_pass(hand.view(seat)))
    while True:
        turn = hand.to_play
        trick = hand.view(2).trick
        if turn == 2 and trick is not None and trick.plays and len(hand.tricks) >= 2:
            return hand
        assert turn is not None
        hand.play(turn, hand.view(turn).legal[0])


def test_a_play_request_turns_the_seats_so_the_asking_seat_is_zero(
    external: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver, log = fake_driver(tmp_path)
    monkeypatch.setenv(external.DRIVER_VARIABLE, str(driver))
    view = seat_two_following().view(2)
    card = external.ExternalBot("ext1000x20", 7).choose_play(view)
    assert card in view.legal
    head, hand, direction, passed, received, tricks, trick, scores = (
        f.strip() for f in log.read_text().splitlines()[0].split("|")
    )
    assert head == "PLAY 1000 20 7"
    assert hand.split() == [c.code for c in view.hand]
    assert direction == "left"  # seat 2 passes to seat 3, one after it
    assert passed.split() == [c.code for c in view.passed]
    assert received.split() == [c.code for c in view.received]
    assert scores == "0 0 0 0"
    done = [t.split() for t in tricks.split(";")]
    assert len(done) == len(view.tricks)
    for sent, record in zip(done, view.tricks, strict=True):
        assert int(sent[0]) == (record.leader - 2) % 4
        assert sent[1:] == [c.code for _, c in record.plays]
    assert view.trick is not None
    sent = trick.split()
    assert int(sent[0]) == (view.trick.leader - 2) % 4
    assert sent[1:] == [c.code for _, c in view.trick.plays]


def test_a_pass_request_names_the_direction_from_the_asking_seat(
    external: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver, log = fake_driver(tmp_path)
    monkeypatch.setenv(external.DRIVER_VARIABLE, str(driver))
    for direction, seen in (("left", "left"), ("right", "right"), ("across", "across")):
        view = Hand.deal(Rules(), 3, pass_direction=direction, scores=(5, 6, 7, 8)).view(1)
        chosen = external.ExternalBot("ext10000x30", 1).choose_pass(view)
        assert chosen == view.hand[:3]
        fields = [f.strip() for f in log.read_text().splitlines()[-1].split("|")]
        assert fields[0] == "PASS 10000 30 1"
        assert fields[2] == seen
        assert fields[3] == "6 7 8 5"  # the scores from the asking seat on


def test_a_refusal_or_a_card_not_legal_stops_the_run(
    external: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = seat_two_following().view(2)
    assert len(view.legal) > 1
    stray = next(c.code for c in Rules().deck() if c not in view.legal)
    for answer, why in (('"ERR no world fits"', "ERR"), (f'"{stray}"', "not a legal card")):
        driver, _ = fake_driver(tmp_path, answer)
        monkeypatch.setenv(external.DRIVER_VARIABLE, str(driver))
        if external._driver is not None:
            external._driver.kill()
            external._driver.wait()
            monkeypatch.setattr(external, "_driver", None)  # a fresh driver for the answer
        with pytest.raises(external.ExternalError, match=why):
            external.ExternalBot("ext1000x20", 1).choose_play(view)


def test_a_malformed_program_name_is_refused(external: ModuleType) -> None:
    with pytest.raises(external.ExternalError, match="ext<sims>x<worlds>"):
        external.factory("ext1000", 0)
    assert external.factory("hard", 0).name != "ext1000x20"
