"""The server's CPU per Heart to Heart tap through the whole WebSocket stack, in one process.

No sockets and no other process: the site (``heartsuit serve``'s uvicorn configuration, its
WebSocket protocol class, the app, a temporary SQLite file) is handed a fake transport, and
``--players`` clients (``websockets``' sans-I/O client with permessage-deflate as browsers
negotiate it) play as ``bench/solitaire_load.py``'s players do: hello, a random deal, then one
tap at a time (the first pair the view offers, else the stock; a new deal when a game ends),
each client's next tap once its reply came. The process's CPU time (all threads: the writer
thread's too) minus the clients' own (their main-thread CPU, measured around their work) is the
server's; divided by the taps it is the figure to compare. With no kernel, no other process
and CPU time rather than wall time, it moves far less with the machine's load than the load
benches do, so that two versions of the frame path can be compared (``PYTHONPATH=…/src``).

    .venv/bin/python bench/ws_frames.py [--taps 3000] [--players 20] [--runs 5] [--lang]

``--lang``: ``lang`` round trips instead (answered by the connection itself: the frame path
alone, in and out, without any game or the database).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Opcode
from websockets.uri import parse_uri

PORT = 8000


class FakeTransport(asyncio.Transport):
    """What the protocol writes, kept for the client; reading is never really paused."""

    def __init__(self, wrote: asyncio.Event) -> None:
        super().__init__()
        self.out: list[bytes] = []
        self.wrote = wrote
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.out.append(bytes(data))
        self.wrote.set()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", PORT)}.get(
            name, default
        )

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def abort(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0


class Client:
    """One page: a sans-I/O WebSocket client on the protocol's fake transport."""

    def __init__(self, config: Any, state: Any, rng: random.Random) -> None:
        self.wrote = asyncio.Event()
        self.transport = FakeTransport(self.wrote)
        self.proto = config.ws(config=config, server_state=state, app_state={})
        self.proto.connection_made(self.transport)
        self.ws = ClientProtocol(
            parse_uri(f"ws://127.0.0.1:{PORT}/ws"),
            extensions=[
                ClientPerMessageDeflateFactory(
                    server_max_window_bits=12,
                    client_max_window_bits=12,
                    compress_settings={"memLevel": 5},
                )
            ],
        )
        self.rng = rng
        self.game: dict[str, Any] = {}
        self.game_text = ""
        self.partner: object = None
        #: this client's own CPU (seconds, main thread), to subtract from the process's
        self.cpu = 0.0

    async def _exchange(self, data: bytes) -> list[Any]:
        self.proto.data_received(data)
        replies: list[Any] = []
        while not replies:
            await self.wrote.wait()
            self.wrote.clear()
            started = time.thread_time()
            self.ws.receive_data(b"".join(self.transport.out))
            self.transport.out.clear()
            for event in self.ws.events_received():
                if getattr(event, "opcode", None) is Opcode.TEXT:
                    replies.append(json.loads(event.data))
                elif hasattr(event, "status_code"):
                    replies.append(event)
            self.cpu += time.thread_time() - started
        return replies

    async def open(self) -> None:
        request = self.ws.connect()
        request.headers["Origin"] = f"http://127.0.0.1:{PORT}"
        self.ws.send_request(request)
        # as uvicorn's HTTP protocol hands an upgrade over: h11 lowercased the header names
        head, *lines = b"".join(self.ws.data_to_send()).split(b"\r\n")
        lowered = [line.split(b":", 1)[0].lower() + line[line.find(b":") :] for line in lines]
        (response,) = await self._exchange(b"\r\n".join([head, *lowered]))
        if response.status_code != 101:
            raise RuntimeError(f"refused: {response.status_code} {response.body!r}")
        await self.ask({"type": "hello"})
        await self.deal()

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        started = time.thread_time()
        self.ws.send_text(json.dumps(message).encode())
        data = b"".join(self.ws.data_to_send())
        self.cpu += time.thread_time() - started
        replies = await self._exchange(data)
        reply: dict[str, Any] = replies[-1]
        return reply

    async def deal(self) -> None:
        reply = await self.ask({"type": "solitaire.new", "leave": self.game.get("id")})
        if reply.get("type") != "solitaire.state":
            raise RuntimeError(f"no new game: {reply}")
        self.game, self.partner = reply["game"], None
        self.game_text = json.dumps(reply, ensure_ascii=False, separators=(",", ":"))

    async def lang(self) -> None:
        """A ``lang`` round trip: the frame path alone (no game, no database)."""
        reply = await self.ask({"type": "lang", "lang": "en", "req": 1})
        if reply.get("type") != "lang":
            raise RuntimeError(f"not a lang reply: {reply}")

    async def tap(self) -> None:
        if self.game.get("outcome") != "playing":
            await self.deal()
            return
        started = time.thread_time()
        if self.partner is not None:
            target, self.partner = self.partner, None
        else:
            pairs = (self.game.get("answers") or {}).get("pairs") or []
            if pairs:
                target, self.partner = pairs[0]
            else:
                target = "stock"
        message = {
            "type": "solitaire.tap",
            "game": self.game["id"],
            "target": target,
            "intent": f"i{self.rng.getrandbits(60):x}",
            "base": self.game["log_length"],
        }
        self.cpu += time.thread_time() - started
        reply = await self.ask(message)
        if reply.get("type") != "solitaire.state":
            raise RuntimeError(f"a tap was refused: {reply}")
        self.game = reply["game"]


async def one_run(taps: int, players: int, seed: int, lang: bool = False) -> tuple[float, float]:
    """The server's CPU microseconds per tap (new deals count as taps too): all its threads,
    and its event loop's thread alone (where every frame is read, handled and written)."""
    from uvicorn.server import ServerState

    from heartsuit.cli.serve_cmd import uvicorn_config
    from heartsuit.server.core.settings import Settings, sqlite_url

    with tempfile.TemporaryDirectory() as tmp:
        many = 1_000_000  # every client comes from one address: lift the limits, as the benches do
        settings = Settings(
            database_url=sqlite_url(Path(tmp) / "bench.sqlite3"),
            port=PORT,
            max_connections_per_address=many,
            hellos_per_minute=many,
            new_players_per_minute=many,
            new_games_per_minute=many,
        )
        config = uvicorn_config(settings, log_level="warning")
        config.load()
        app = config.loaded_app
        while not hasattr(app, "router"):
            app = app.app  # uvicorn's wrappers, if any
        async with app.router.lifespan_context(app):
            state = ServerState()
            rng = random.Random(seed)
            clients = [Client(config, state, rng) for _ in range(players)]
            for client in clients:
                await client.open()
            for _ in range(5):  # warm up
                await asyncio.gather(*(client.tap() for client in clients))
            act = Client.lang if lang else Client.tap
            for client in clients:
                client.cpu = 0.0
            rounds = max(1, taps // players)
            started, loop_started = time.process_time(), time.thread_time()
            for _ in range(rounds):
                await asyncio.gather(*(act(client) for client in clients))
            own = sum(client.cpu for client in clients)
            cpu = time.process_time() - started - own
            loop_cpu = time.thread_time() - loop_started - own
            for client in clients:
                client.proto.connection_lost(None)
            await asyncio.gather(*state.tasks, return_exceptions=True)
    taps_done = rounds * players
    return cpu * 1e6 / taps_done, loop_cpu * 1e6 / taps_done


async def send_cost(sends: int, seed: int) -> float:
    """Microseconds of the event loop's CPU per ``Connection.send`` of an already encoded
    2.2 KB state frame (deflate included), nothing read in between: the send path alone."""
    from uvicorn.server import ServerState

    from heartsuit.cli.serve_cmd import uvicorn_config
    from heartsuit.server.core import connection as connection_module
    from heartsuit.server.core.protocol import Encoded
    from heartsuit.server.core.settings import Settings, sqlite_url

    made: list[Any] = []
    original = connection_module.Connection.__init__

    def record(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        made.append(self)

    connection_module.Connection.__init__ = record  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=sqlite_url(Path(tmp) / "bench.sqlite3"), port=PORT)
        config = uvicorn_config(settings, log_level="warning")
        config.load()
        app = config.loaded_app
        while not hasattr(app, "router"):
            app = app.app
        async with app.router.lifespan_context(app):
            state = ServerState()
            client = Client(config, state, random.Random(seed))
            await client.open()
            frame = Encoded(client.game_text)
            connection = made[-1]
            for _ in range(200):
                await connection.send(frame)
            client.transport.out.clear()
            started = time.thread_time()
            for i in range(sends):
                await connection.send(frame, i)
                if i % 64 == 0:
                    client.transport.out.clear()
            cost = (time.thread_time() - started) * 1e6 / sends
            client.proto.connection_lost(None)
            await asyncio.gather(*state.tasks, return_exceptions=True)
    connection_module.Connection.__init__ = original  # type: ignore[method-assign]
    return cost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=3000)
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--lang", action="store_true", help="lang round trips instead of taps: the frame path alone"
    )
    parser.add_argument(
        "--sends", type=int, default=0, help="time this many sends of one state frame instead"
    )
    args = parser.parse_args()
    import logging

    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover - uvloop is a serving dependency
        runner = asyncio.run
    if args.sends:
        sends = [runner(send_cost(args.sends, seed)) for seed in range(args.runs)]
        print(
            f"Connection.send of a state frame (event loop CPU): median "
            f"{statistics.median(sends):.1f} µs, min {min(sends):.1f} µs "
            f"(runs: {', '.join(f'{c:.1f}' for c in sends)})"
        )
        return 0
    runs = [runner(one_run(args.taps, args.players, seed, args.lang)) for seed in range(args.runs)]
    print(
        f"{args.players} players, {args.taps} taps per run, {args.runs} runs; server CPU per tap:"
    )
    for name, costs in (
        ("all threads", [r[0] for r in runs]),
        ("event loop", [r[1] for r in runs]),
    ):
        print(
            f"  {name}: median {statistics.median(costs):.1f} µs, min {min(costs):.1f} µs "
            f"(runs: {', '.join(f'{c:.0f}' for c in costs)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
