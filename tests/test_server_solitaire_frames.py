"""The frames of Heart to Heart's states, written by pydantic's JSON encoder for speed, are
exactly the text :func:`heartsuit.server.protocol.encode` writes, for every state of a game
played to its end (and for a ``stale`` refusal, and an event with a message in Indonesian)."""

from __future__ import annotations

import json

from heartsuit.server import messages
from heartsuit.server.protocol import encode
from heartsuit.server.solitaire_endpoint import _encoded
from heartsuit.server.solitaire_protocol import Event, SolitaireStale, SolitaireState
from heartsuit.server.solitaire_view import game_view, tap_event
from heartsuit.solitaire import Game
from heartsuit.solitaire.taps import check_target
from tests.test_server_games import flat_win

CODE = "HH1-N-AAAAAAM"


def frames_agree(reply: SolitaireState | SolitaireStale, req: int | None) -> None:
    fast = encode(_encoded(reply), req)
    assert fast == encode(reply, req)
    assert json.loads(fast) == {
        **reply.model_dump(mode="json"),
        **({} if req is None else {"req": req}),
    }


def test_every_state_of_a_won_game_is_framed_as_encode_frames_it() -> None:
    game = Game.from_code(CODE, now=0.0)
    taps = flat_win(CODE)
    said: list[str] = []
    # a mismatch or a covered card now and then, with "Move errors" on, in both languages
    for index, target in enumerate([*taps[:3], 1, *taps[3:]]):
        result = game.tap(check_target(target), now=index / 2)
        view = game_view(
            game,
            game_id="g-1",
            started_at_ms=1_700_000_000_000,
            now_ms=index * 500,
            placement_help=index % 3 != 0,
            under_way=True,
            log_length=index + 1,
            clock_running=index % 2 == 0,
            daily=index % 5 == 0,
        )
        lang: messages.Lang = "id" if index % 2 else "en"
        event = tap_event(result, move_errors=True, lang=lang)
        if event.message is not None:
            said.append(event.message)
        frames_agree(SolitaireState(game=view, event=event), index if index % 4 else None)
        if index % 7 == 0:
            text = messages.text(lang, "server.error.solitaire_stale")
            frames_agree(SolitaireStale(message=text, game=view), index)
    assert game.outcome.value == "won" and said  # a message was among the events
    frames_agree(SolitaireState(game=view, event=Event(kind="resumed", repeat=True)), 3)
