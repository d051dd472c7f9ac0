"""What one ``hearts.state`` costs the server: build it, encode it, compress it, per seat.

Every change at a Hearts table makes each socket at it build its own ``hearts.state``
(:func:`heartsuit.server.hearts.frames.table_state`), encode it (pydantic ``model_dump`` and
``json.dumps``, :func:`heartsuit.server.core.protocol.encode`) and send it, which with
permessage-deflate (negotiated by browsers and by the ``websockets`` client) means a zlib
compression per frame. This times each step in one process, without a server, on a four-seat
table replayed to the middle of its first hand, and prints the frame's size raw and deflated.

    .venv/bin/python bench/hearts_state_cost.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import time
import zlib
from collections.abc import Callable

from heartsuit.hearts import Rules
from heartsuit.hearts.driver import computer_action
from heartsuit.server.core.protocol import encode
from heartsuit.server.hearts.frames import StateFrames, table_state
from heartsuit.server.hearts.live_table import LiveTable, SeatRecord, TableRecord


def mid_hand_table() -> LiveTable:
    """An online-like table of four people, 30 actions into its first hand (passes done)."""
    rules = Rules.preset("standard")
    record = TableRecord(
        id="benchtable000001",
        mode="online",
        preset="standard",
        rules=rules.to_dict(),
        seed=12345,
        invite="ABCD2345",
        created_at_ms=0,
    )
    seats = [SeatRecord(s, "human", f"Player {s + 1}", None, "0" * 64) for s in range(4)]
    live = LiveTable.replay(record, seats, [])
    live.apply(live.entry("start", {}, 0))
    for _ in range(30):
        match = live.match
        assert match is not None
        seat = live.awaiting()[0]
        action = computer_action(match, seat, "easy", "bench")
        live.apply(live.entry("action", action.to_dict(), 0))
    return live


def timed(step: Callable[[], object], repeats: int) -> float:
    """Median microseconds of ``step`` over ``repeats`` batches of 50 calls."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(50):
            step()
        samples.append((time.perf_counter() - started) / 50 * 1e6)
    return statistics.median(samples)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    live = mid_hand_table()
    since = live.version - 1

    def build() -> object:
        return table_state(
            live,
            you={1},
            view_seat=1,
            host=False,
            connected={0, 1, 2, 3},
            away=set(),
            since=since,
        )

    state = table_state(
        live, you={1}, view_seat=1, host=False, connected={0, 1, 2, 3}, away=set(), since=since
    )
    text = encode(state)
    data = text.encode()

    def deflate() -> bytes:
        # what permessage-deflate does per frame (a fresh context: no context takeover gain)
        packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        return packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)

    build_us = timed(build, repeats)
    dump_us = timed(lambda: state.model_dump(mode="json"), repeats)
    encode_us = timed(lambda: encode(state), repeats)
    deflate_us = timed(deflate, repeats)
    match = live.match
    assert match is not None
    view_us = timed(lambda: match.view(1), repeats)
    print(
        f"hearts.state of a four-person table mid-hand (version {live.version}), median of "
        f"{repeats} x 50 calls, one core:"
    )
    print(f"  frame size: {len(data)} bytes raw, {len(deflate())} bytes deflated")
    print(
        f"  build (table_state):            {build_us:7.0f} us  (of which Match.view once: "
        f"{view_us:.0f} us; table_state calls it twice for the seat shown)"
    )
    print(
        f"  encode (model_dump + json):     {encode_us:7.0f} us  (model_dump alone "
        f"{dump_us:.0f} us)"
    )
    print(f"  permessage-deflate:             {deflate_us:7.0f} us")
    total = build_us + encode_us + deflate_us
    print(
        f"  per seat: {total:.0f} us; per action at a four-person table (4 states): "
        f"{4 * total / 1000:.2f} ms -> at most {1e6 / (4 * total):.0f} actions/s on one core "
        f"for the states alone"
    )

    # the path the server takes: the shared parts encoded once per version for the table's
    # four sockets (a fresh cache each time, so each action pays for its shared parts once)
    def four_frames() -> object:
        frames = StateFrames()
        for seat in range(4):
            frames.text(
                live,
                you={seat},
                view_seat=seat,
                host=seat == 0,
                connected={0, 1, 2, 3},
                away=set(),
                since=since,
            )
        return frames

    action_us = timed(four_frames, repeats)
    per_action = action_us + 4 * deflate_us
    print(
        f"  shared parts once per version (StateFrames), 4 seats: {action_us:.0f} us to build and "
        f"encode, + 4 x deflate = {per_action / 1000:.2f} ms per action -> at most "
        f"{1e6 / per_action:.0f} actions/s on one core for the states alone"
    )

    # as the server runs: one StateFrames kept across versions (what it keeps longer than a
    # version, the table part, the score sheet, the finished tricks, is reused), 4 seats'
    # frames after every action of whole hands, CPU time of this process
    runs = [whole_hands(seed) for seed in range(7)]
    print(
        "  as the server does, over whole hands (7 seeds, median): 4 sockets' frames per "
        "version, CPU (without deflate):"
    )
    for name, label in (("whole", "a whole state to every socket"), ("patch", "with patches")):
        cpu = statistics.median(r[name][0] for r in runs)
        raw = statistics.median(r[name][1] for r in runs)
        packed = statistics.median(r[name][2] for r in runs)
        zlib_us = statistics.median(r[name][3] for r in runs)
        print(
            f"    {label:32s} {cpu:5.0f} us; {raw:6.0f} bytes raw, {packed:5.0f} deflated "
            f"(context kept per socket, as permessage-deflate does), deflate {zlib_us:4.0f} us"
        )


def whole_hands(seed: int) -> dict[str, tuple[float, float, float, float]]:
    """Per version, averaged over up to 224 actions of a four-person table: CPU microseconds
    to make the four sockets' frames, their bytes raw and deflated, and the deflate's CPU;
    ``whole``: a whole state to each socket, ``patch``: as the server sends them (a patch
    to every socket where one will do: a card played within a trick)."""
    rules = Rules.preset("standard")
    record = TableRecord(
        "benchtable000002", "online", "standard", rules.to_dict(), seed, "ABCD2345", 0
    )
    seats = [SeatRecord(s, "human", f"Player {s + 1}", None, "0" * 64) for s in range(4)]
    live = LiveTable.replay(record, seats, [])
    live.apply(live.entry("start", {}, 0))
    out = {}
    for way in ("whole", "patch"):
        live = LiveTable.replay(record, seats, [])
        live.apply(live.entry("start", {}, 0))
        frames = StateFrames()
        # permessage-deflate as uvicorn negotiates it: 12 window bits, memLevel 5, level 6
        packers = [zlib.compressobj(6, zlib.DEFLATED, -12, 5) for _ in range(4)]
        spent = raw = packed = packing = 0.0
        versions = 0
        for _ in range(224):
            if live.status != "playing" or live.match is None:
                break
            actor = live.awaiting()[0]
            action = computer_action(live.match, actor, "easy", "bench")
            live.apply(live.entry("action", action.to_dict(), 0))
            started = time.process_time()
            texts = []
            for seat in range(4):
                patch = None
                if way == "patch":
                    patch = frames.patch(live, view_seat=seat)
                texts.append(
                    patch
                    if patch is not None
                    else frames.text(
                        live,
                        you={seat},
                        view_seat=seat,
                        host=seat == 0,
                        connected={0, 1, 2, 3},
                        away=set(),
                        since=live.version - 1,
                    )
                )
            spent += time.process_time() - started
            started = time.process_time()
            for seat, text in enumerate(texts):
                data = text.text.encode()
                raw += len(data)
                packed += len(packers[seat].compress(data) + packers[seat].flush(zlib.Z_SYNC_FLUSH))
            packing += time.process_time() - started
            versions += 1
        out[way] = (
            spent / versions * 1e6,
            raw / versions,
            packed / versions,
            packing / versions * 1e6,
        )
    return out


if __name__ == "__main__":
    main()
