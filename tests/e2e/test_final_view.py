"""What a seat learns when a match of a duplicate tournament ends, read from the bot's side.

A running duplicate tournament is closed (cardarena.disclosure): the deal of a match comes
back in its twin seating. The engine's spectator view of an ended game is the whole deal
(Spite and Malice: every hand, pay-off pile and the stock; Spot: the unused stock), so a
MatchEnd carrying it would tell a bot the cards it is about to be dealt in the twin
seating. For every game a real tournament is played, over each hosted transport (the
local channel, the default, and gRPC), by bot processes that read
the wire themselves (``hostile/final_view.py``: the SDK never hands a bot the final view,
but the message carries it) and write down every MatchEnd they receive. Each seat's must
carry exactly its own view of the ended game, and no card that stayed hidden from it the
whole match: cards found by scanning the message's text, against what the replayed
engine says the seat ever saw (its views at every step, the events it was shown). For
Spot and Spite and Malice such hidden cards exist at the end (so the check can fail).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import re
from pathlib import Path

import pytest
from google.protobuf import text_format

import arbiter.batch.engine as batch_engine
from arbiter.hosting.botproc import TRANSPORTS, BotHost
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament
from cardarena import disclosure
from cardarena.games import events_for, get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire import codec

SPY = Path(__file__).parent / "hostile" / "final_view.py"
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])([SHDC])(?![A-Za-z0-9])")

# one deck each (every card token names one card), short games
CASES = {
    "spades": {"deals": 1},
    "spot": {"players": 2, "hands": 1},
    "spite-and-malice": {"decks": 1, "payoff_size": 5, "max_turns": 40},
}


def tokens(msg) -> set[str]:
    return {m.group(0) for m in CARD_TOKEN.finditer(text_format.MessageToString(msg))}


def match_ends(log_dir: Path) -> dict[tuple[str, int], list[pb.MatchEnd]]:
    """Every MatchEnd the bot processes wrote down, by (match, seat)."""
    got: dict[tuple[str, int], list[pb.MatchEnd]] = {}
    for path in log_dir.glob("*.stderr.log"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("MATCHEND "):
                end = pb.MatchEnd.FromString(base64.b64decode(line.split()[1]))
                got.setdefault((end.match_id, end.seat), []).append(end)
    return got


def seen_and_end(game, record, seat: int) -> tuple[set[str], pb.View, pb.View]:
    """(every card token the seat saw during the match: its view at every step and the
    events shown to it; its own view of the ended game; the spectator's, the whole deal)."""
    state = game.new_initial_state(record.seed)
    seen = tokens(codec.view_to_proto(game.name, state.view(seat)))
    for a in record.actions:
        state.apply(game.parse_action(a.action))
        seen |= tokens(codec.view_to_proto(game.name, state.view(seat)))
    assert state.is_terminal
    for e in events_for(state.log, seat):
        seen |= tokens(codec.event_to_proto(e))
    return seen, codec.view_to_proto(game.name, state.view(seat)), codec.view_to_proto(game.name, state.spectator_view())


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("game_name", list(CASES))
def test_no_seat_of_a_duplicate_tournament_is_told_a_hidden_card_at_the_end(tmp_path, monkeypatch, game_name, transport):
    log_dir = tmp_path / "bot-logs"
    log_dir.mkdir()
    # the tournament's own bot host, told to keep its processes' stderr where we read it
    monkeypatch.setattr(batch_engine, "BotHost", functools.partial(BotHost, log_dir=log_dir))
    spec = TournamentSpec(game=game_name, bots=(f"a={SPY}", f"b={SPY}"), options=CASES[game_name], deals=1, seed=29,
                          name=f"end-{game_name}", decision_ms=0, bank_ms=0)  # no clock: a loaded machine is no failure
    assert spec.duplicate and spec.disclosure.closed
    with Store(tmp_path / "t.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=2, transport=transport))
    assert len(rows) >= 2 and len({r.seed for r in rows}) == 1  # one deal, in its seatings
    game = get_game(game_name, CASES[game_name])
    ends = match_ends(log_dir)
    hidden_somewhere = 0
    for row in rows:
        record = row.record()
        assert record.outcome.reason.finishes_the_game, record.incidents  # played to its end (or a stalemate)
        for seat in range(game.num_seats):
            [end] = ends[row.match_id, seat]  # read from the bot process's side of the socket
            seen, own, whole = seen_and_end(game, record, seat)
            hidden = tokens(whole) - seen  # in the whole deal, never seen by this seat
            hidden_somewhere += len(hidden)
            leaked = tokens(end) & hidden
            assert not leaked, f"{game_name} {row.match_id} seat {seat}: MatchEnd carries hidden {sorted(leaked)}"
            assert end.HasField("final_view") and end.final_view == own, \
                f"{game_name} {row.match_id} seat {seat}: the final view is not the seat's own view of the ended game"
    if game_name == "spades":
        assert hidden_somewhere == 0  # every card is played by the end: nothing is left to hide
    else:
        assert hidden_somewhere > 0  # the whole deal would have told them something


def test_the_final_view_follows_the_disclosure():
    """The one rule the runner asks: the whole deal only where no deal comes back."""
    game = get_game("spite-and-malice", CASES["spite-and-malice"])
    state = game.new_initial_state(3)
    assert disclosure.OPEN.final_view(state, 0) is None  # not over: nothing extra for anyone
    while not state.is_terminal:
        state.apply(state.legal_actions()[0])
    whole, own = state.spectator_view(), state.view(1)
    assert whole != own and whole.reveal is not None and own.reveal is None
    running = disclosure.of_tournament("t", finished=False, duplicate=True)
    assert running.final_view(state, 1) == own and running.final_view(state, None) is None
    assert disclosure.of_tournament("t", finished=False, duplicate=False).final_view(state, 1) == whole
    assert disclosure.of_tournament("t", finished=True, duplicate=True).final_view(state, 1) == whole
    assert disclosure.of_encounter("ladder", 3, "playing").final_view(state, 1) == own
    assert disclosure.of_encounter("ladder", 3, "abandoned").final_view(state, 1) == own
    assert disclosure.of_encounter("ladder", 3, "done").final_view(state, 1) == whole
    assert disclosure.UNSAID.final_view(state, 1) == own  # a config that says nothing tells nothing extra
