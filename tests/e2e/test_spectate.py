"""The leak test from the spectator's side: a real `arbiter serve`, bot processes over gRPC
and a spectator client on the Spectate service, for every game.

While the match runs, the spectator must never receive a hidden card:
- Spades: no card of any hand before it is played;
- Spot: no card in a hand or in the stock (cards taken from the face-up discard pile, and
  hands shown at the end of a hand, are public by the rules);
- Spite and Malice: no hand card, no stock card, no face-down pay-off card.
The ground truth is the match replayed from its seed and actions after it ends, read from
the engine's internals (not from its view seam, which is what is being tested).
After the match, the spectator sees the full deal.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import Counter

import grpc
import pytest

from cardarena.wire import codec as convert
from cardarena.games import Card, events_for, get_game
from cardarena.games.cards import InvalidCardError
from arbiter.server.client import SpectateError, list_matches, raw_watch
from arbiter.server.client import watch as follow
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from tests.cli.badinput import run_in_process
from tests.conftest import ROOT, start_serve, stop_bots, stop_serve
from tests.games.test_spite_malice_properties import public_choice, view_choice

SLOW = "tests/e2e/slowbot.py:SlowBot"
MATCHES = [
    ("spades", 4, {"deals": "2"}),
    ("spite-and-malice", 2, {}),
    ("spot", 4, {"hands": "2"}),
]


def _cards_in(msg, path: str = "") -> list[tuple[str, Card]]:
    """Every (field path, card) in a protobuf message: string fields that are card tokens."""
    out = []
    for field, value in msg.ListFields():
        where = f"{path}.{field.name}" if path else field.name
        values = value if field.is_repeated else [value]
        for v in values:
            if field.message_type is not None:
                if field.message_type.GetOptions().map_entry:
                    continue
                out.extend(_cards_in(v, where))
            elif isinstance(v, str):
                try:
                    out.append((where, Card.parse(v)))
                except InvalidCardError:
                    pass
    return out


def _hidden(game: str, state) -> Counter:
    """The multiset of cards nobody outside may see now, from the engine's internals."""
    out: Counter = Counter()
    if game == "spades":
        for h in state.hands:
            out.update(h)
    elif game == "spot":
        for h in state._hands:
            out.update(h)
        out.update(state._stock)
    else:
        for h in state.hands:
            out.update(h)
        out.update(state.stock)
        for s, pile in enumerate(state.payoff):
            out.update(pile[: state.hidden[s]])
    return out


class Watcher(threading.Thread):
    """A spectator: waits for a match to appear, then records every frame with its arrival time."""

    def __init__(self, address: str, token: str = ""):
        super().__init__(daemon=True)
        self.address = address
        self.token = token
        self.frames: list[tuple[float, spb.WatchFrame]] = []
        self.running_when_joined = False
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            # as a spectator finds a match to join mid-way: ListMatches, asked again and
            # again (what is under test; Watch without a match id is another path)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                running = [m for m in list_matches(self.address, include_finished=False, token=self.token) if m.running]
                if running:
                    self.running_when_joined = True
                    break
                time.sleep(0.005)
            for frame in raw_watch(self.address, running[0].match_id if running else "", token=self.token):
                self.frames.append((time.monotonic(), frame))
        except Exception as exc:  # noqa: BLE001 - reported by the test
            self.error = exc


#: The tests that share the module's `arbiter` fixture: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
SHARED = pytest.mark.xdist_group("spectate")


@pytest.fixture(scope="module")
def arbiter(module_serve):
    return module_serve  # (tests/conftest.py)


@pytest.fixture(scope="module")
def slow_bots(arbiter) -> list[str]:
    """As many slow bots on the module's arbiter as a match of MATCHES seats (each plays
    every game): the games' matches take their first seats, one after another. A process
    each per match was six more bot starts (~0.4 CPU-s each)."""
    names = [f"slow{i}" for i in range(max(n for _, n, _ in MATCHES))]
    for name in names:
        arbiter.start_bot(SLOW, name)
    arbiter.wait_sessions(names)
    return names


@SHARED
@pytest.mark.parametrize("game,n,options", MATCHES, ids=[m[0] for m in MATCHES])
def test_spectator_never_sees_a_hidden_card_and_sees_the_full_deal_after(arbiter, slow_bots, game, n, options):
    names = slow_bots[:n]
    watcher = Watcher(arbiter.address, arbiter.spectator_token)
    watcher.start()
    seed = 21
    with grpc.insecure_channel(arbiter.address) as ch:
        summary = pb_grpc.MatchesStub(ch).RunMatch(
            pb.RunMatchRequest(game=game, seats=names, seed=seed, options=options, admin_token=arbiter.admin_token),
            timeout=240)
    match_done = time.monotonic()
    watcher.join(30)
    assert watcher.error is None, watcher.error
    assert watcher.running_when_joined, "the spectator did not find the match while it ran"
    frames = [f for _, f in watcher.frames]
    kinds = [f.WhichOneof("frame") for f in frames]
    assert kinds[0] == "header" and kinds[-1] == "over" and set(kinds[1:-1]) == {"step"}
    steps = [f.step for f in frames[1:-1]]
    assert [s.index for s in steps] == list(range(1, len(summary.actions) + 1))
    # each action as a spectator reads it (the engine's action_text; a blind-nil give names no card)
    g = get_game(game, options)
    seats = [st.seat for st in steps]
    assert [st.action for st in steps] == [g.action_text(g.parse_action(a), seat, None)
                                          for a, seat in zip(summary.actions, seats)]
    # a good part of the frames arrived while the match was still running
    live = sum(1 for t, f in watcher.frames if t < match_done and f.WhichOneof("frame") == "step")
    assert live >= len(steps) // 4, f"only {live} of {len(steps)} steps arrived during the match"

    # Ground truth: replay the match from its seed and actions.
    state = g.new_initial_state(seed)
    played: set[Card] = set()  # Spades: cards played so far
    seen: Counter = Counter()  # cards the spectator has seen face up so far (max copies at once)
    views = [frames[0].header.view] + [s.view for s in steps]
    events = [[]] + [list(s.events) for s in steps]
    for k, (view, evs) in enumerate(zip(views, events)):
        if k:
            action = summary.actions[k - 1]
            new = state.apply(g.parse_action(action))
            if game == "spades" and action.startswith("play "):
                played.add(Card.parse(action.split()[1]))
            # the events are exactly the public ones
            assert [e.text for e in evs] == [e.text for e in events_for(new, None)]
        assert not frames[0].header.hands and all(not s.hands for s in steps), "hands sent to a live spectator"
        if state.is_terminal:
            assert k == len(steps)
            break  # the last move ended the game: its frame may show everything (checked below)
        cards = _cards_in(view) + [(f"event.{e.kind}", Card.parse(c)) for e in evs for c in e.cards]
        if k and game == "spades":  # the action text names no card that is not on the table
            cards += [("step.action", c) for c in _card_tokens(steps[k - 1].action)]
        where = f"{game} step {k}"
        if game == "spades":
            for path, c in cards:
                assert c in played, f"{where}: {path} shows {c}, which has not been played"
        else:
            hidden = _hidden(game, state)
            shown = Counter()
            history = []
            for path, c in cards:
                # Cards moved this turn, a recycled centre pile, cards taken from the face-up
                # discard pile and cards laid off (on their melds too) must have been seen face up (or shown by a public event, which
                # the events check above ties to the engine's public events), now or before. Hands shown at the end of a Spot hand
                # are public by the rules (their cards were redealt since).
                field = path.split(".")[1] if "." in path else path
                if path.startswith("event."):
                    seen[c] = max(seen[c], 1)  # a public event shows it (a card played from a hand)
                elif field in ("pickups", "taken_discard", "recycled", "turn_moves", "layoffs"):
                    history.append((path, c))
                elif field == "last_hand" or path.endswith("players.payoff_top"):
                    continue  # payoff_top: the same card as the top of payoff_face_up, checked below
                elif field == "first_player_turn_ups":
                    continue  # turned up before everyone (rules §6), wherever they lie since: checked below
                else:
                    shown[c] += 1
            for c, count in shown.items():
                # identical cards of a multi-deck game: no more copies than lie face up
                total = sum(1 for x in _all_cards(game, state) if x == c)
                assert count <= total - hidden[c], f"{where}: {c} shown {count}x but {hidden[c]} of {total} are hidden"
                seen[c] = max(seen[c], count)
            for path, c in history:
                assert seen[c] > 0, f"{where}: {path} shows {c}, never seen face up"
            if game == "spite-and-malice":
                for p in _decoded(game, view).players:
                    assert p.payoff_top == (p.payoff_face_up[-1] if p.payoff_face_up else None)
                # the first player's choice: as the engine's public events told it
                assert view_choice(_decoded(game, view)) == public_choice(events_for(state.log, None))
        assert not getattr(_decoded(game, view), "hand"), f"{where}: the spectator view holds a hand"

    # After the match: the full deal.
    over = frames[-1].over
    assert state.is_terminal and convert.outcome_from_proto(over.outcome) == state.outcome()
    assert list(over.actions) == list(summary.actions) and over.seed == seed
    final = convert.view_from_proto(game, over.final_view)
    assert final == state.spectator_view()
    if game == "spades":
        assert final.record, "no dealt hands after the match"
        for deal in final.record:
            assert sorted(c for h in deal.hands for c in h.cards) == sorted(Card(i) for i in range(52))
    elif game == "spot":
        assert Counter(final.unused_stock) == Counter(state._stock)
        assert final.last_hand is not None and len(final.last_hand.hands) == n
    else:
        assert final.reveal is not None
        assert [Counter(h.cards) for h in final.reveal.hands] == [Counter(h) for h in state.hands]
        assert Counter(final.reveal.stock) == Counter(state.stock)
        assert [list(p.cards) for p in final.reveal.payoffs] == [list(p) for p in state.payoff]


def _card_tokens(text: str) -> list[Card]:
    out = []
    for token in text.replace(":", " ").split():
        try:
            out.append(Card.parse(token))
        except InvalidCardError:
            pass
    return out


BLIND_NIL = "tests/e2e/blindnil_bot.py:BlindNilBot"


@SHARED
@pytest.mark.parametrize("token", ["", "organiser-chosen-secret"], ids=["generated-token", "spectator-token"])
def test_a_spectator_never_learns_the_cards_of_a_blind_nil_exchange(token, request):
    """Two blind-nil bidders on `arbiter serve` (with --spectator-token, and without: then
    it makes one, as the module's `arbiter` was started, whose slow bots are their partners
    there): every exchange's give reads "give two cards" to the watcher, and no frame before
    the result names an exchanged card before it is played."""
    if token:
        s, own = start_serve("--spectator-token", token), True
        partners = ["r2", "r3"]
    else:
        s, own = request.getfixturevalue("arbiter"), False
        partners = request.getfixturevalue("slow_bots")[:2]
    assert s.spectator_token == (token or s.spectator_token) and len(s.spectator_token) >= 16
    started = len(s.bots)
    try:
        names = ["bn0", "bn1", *partners]  # one blind-nil bidder per side: its partner exchanges with it
        for name in names:
            if name.startswith("bn") or own:  # (the module's slow bots are running)
                s.start_bot(BLIND_NIL if name.startswith("bn") else SLOW, name)
        s.wait_sessions(names)
        watcher = Watcher(s.address, token=s.spectator_token)
        watcher.start()
        options = {"deals": "3", "blind_nil": "true", "blind_nil_exchange": "true"}
        with grpc.insecure_channel(s.address) as ch:
            summary = pb_grpc.MatchesStub(ch).RunMatch(
                pb.RunMatchRequest(game="spades", seats=names, seed=5, options=options, admin_token=s.admin_token),
                timeout=240)
        watcher.join(30)
        assert watcher.error is None, watcher.error
        frames = [f for _, f in watcher.frames]
        gives = [a for a in summary.actions if a.startswith("give ")]
        assert gives, "no blind-nil exchange happened: the test proves nothing"
        exchanged = {c for a in gives for c in _card_tokens(a)}
        played: set[Card] = set()
        steps = [f.step for f in frames if f.WhichOneof("frame") == "step"]
        assert len(steps) == len(summary.actions)
        for st, action in zip(steps, summary.actions):
            if action.startswith("give "):
                assert st.action == "give two cards", st.action
            if action.startswith("play "):
                played.add(Card.parse(action.split()[1]))
            shown = _card_tokens(st.action) + [c for _, c in _cards_in(st)]
            early = [c for c in shown if c in exchanged and c not in played]
            assert not early, f"step {st.index} ({action!r}) shows exchanged cards {early} before they are played"
        assert frames[-1].WhichOneof("frame") == "over"
    finally:
        if own:
            stop_serve(s)
        else:  # the module's arbiter: its blind-nil bidders go, its slow bots stay for the next test
            stop_bots(s.bots[started:])
            del s.bots[started:]


def _all_cards(game: str, state) -> list[Card]:
    if game == "spite-and-malice":
        return list(state.all_cards().elements())
    from cardarena.games.cards import STANDARD_DECK

    return list(STANDARD_DECK)


def _decoded(game: str, view):
    return convert.view_from_proto(game, pb.View(**{convert.game_field(game): getattr(view, convert.game_field(game))}))


@SHARED
def test_watch_errors_are_clear(arbiter):
    with grpc.insecure_channel(arbiter.address) as ch:
        stub = spb_grpc.SpectateStub(ch)
        with pytest.raises(grpc.RpcError) as e:  # a server started with no flags: spectators need its token
            list(stub.Watch(spb.WatchRequest(match_id="no-such-match"), timeout=10))
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        token = arbiter.spectator_token
        with pytest.raises(grpc.RpcError) as e:
            list(stub.Watch(spb.WatchRequest(match_id="no-such-match", token=token), timeout=10))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND and "no-such-match" in e.value.details()
        with pytest.raises(grpc.RpcError) as e:
            list(stub.Watch(spb.WatchRequest(match_id="x", hidden_cards=True, token=token), timeout=10))
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "spectator-delay" in e.value.details()


def test_hidden_cards_come_only_with_the_delay_and_the_cli_watches():
    """With --spectator-delay, a hidden-cards watch gets every hand, that many seconds late."""
    s = start_serve("--spectator-delay", "1.5")
    try:
        names = ["d0", "d1"]
        for name in names:
            s.start_bot("heuristic", name)
        s.wait_sessions(names)
        # a short game (few cards to pay off, a turn limit): every watch below, the terminal's
        # redrawn table above all, goes through each of its steps
        options = {"payoff_size": "2", "max_turns": "20"}
        with grpc.insecure_channel(s.address) as ch:
            summary = pb_grpc.MatchesStub(ch).RunMatch(
                pb.RunMatchRequest(game="spite-and-malice", seats=names, seed=4, options=options, admin_token=s.admin_token),
                timeout=120)
        done = time.monotonic()
        got = list(raw_watch(s.address, summary.match_id, hidden_cards=True, token=s.spectator_token))
        # the match is kept after it ends; each frame is released 1.5 s after its move
        assert time.monotonic() - done >= 1.0
        assert got[0].header.delay_ms == 1500 and len(got[0].header.hands) == 2
        g = get_game("spite-and-malice", options)
        state = g.new_initial_state(4)
        for f, action in zip(got[1:-1], summary.actions):
            state.apply(g.parse_action(action))
            assert [Counter(h.cards) for h in f.step.hands] == [Counter(str(c) for c in h) for h in state.hands]
        # the public watch of the same match carries no hands
        public = list(raw_watch(s.address, summary.match_id, token=s.spectator_token))
        assert all(not f.step.hands for f in public[1:-1]) and not public[0].header.hands
        # the CLI in a terminal redraws the table in place, every hand on it (the live
        # display's path: a process of its own, on a pseudo-terminal); then, not in a terminal
        # (run in this process: a process each was ~0.6 CPU-s of imports), it renders it
        # (one line per step, then the full deal and result) and lists it
        code, shown = _in_a_terminal([sys.executable, "-m", "arbiter", "watch", summary.match_id, "--hidden-cards",
                                      "--server", s.address, "--token", s.spectator_token])
        reach = ("--server", s.address, "--token", s.spectator_token)
        plain = run_in_process("watch", summary.match_id, *reach, timeout=60)
        listed = run_in_process("watch", "--list", *reach, timeout=60)
        out, listing = plain.stdout, listed.stdout
        assert plain.returncode == 0, plain.stderr
        assert f"step {len(summary.actions)}: seat" in out and "the full deal" in out
        assert "result (completed)" in out or "result (" in out
        assert listed.returncode == 0 and summary.match_id in listing and "finished" in listing
        assert code == 0 and "Traceback" not in shown and "every hand shown" in shown, shown[-2000:]
        assert "the full deal" in shown and "result (" in shown, shown[-2000:]
    finally:
        stop_serve(s)


def _in_a_terminal(argv: list[str], timeout: float = 90) -> tuple[int, str]:
    """Run ``argv`` with a pseudo-terminal as its stdout and stderr: (exit code, all it wrote)."""
    import os
    import pty
    import select

    parent, child = pty.openpty()
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=child, stderr=child,
                            env={**os.environ, "COLUMNS": "160", "LINES": "60", "TERM": "xterm"})
    os.close(child)
    out = bytearray()
    try:
        while True:
            ready, _, _ = select.select([parent], [], [], timeout)
            if not ready:
                proc.kill()
                break
            try:
                chunk = os.read(parent, 65536)
            except OSError:  # the terminal's other side closed: the process is gone
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(parent)
    return proc.wait(30), out.decode(errors="replace")


def test_a_tournament_run_can_be_watched_live(tmp_path):
    """`arbiter tournament run` announces its arbiter; a spectator there sees a match live
    (public view: no hand in any frame before the match is over)."""
    import asyncio
    import queue

    from arbiter.store.db import Store
    from arbiter.tournament.run import TournamentSpec, run_tournament

    slow = str(ROOT / "tests/e2e/slowbot.py")
    spec = TournamentSpec(game="spades", bots=(slow, "random"), options={"deals": 1}, deals=2, name="live")
    addresses: queue.Queue[tuple[str, str]] = queue.Queue()
    result: dict = {}

    def run() -> None:
        with Store(tmp_path / "live.sqlite") as store:
            result["rows"] = asyncio.run(run_tournament(
                spec, store, concurrency=1,
                on_progress=lambda p: p.watch_address and addresses.put((p.watch_address, p.watch_token))))

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    address, token = addresses.get(timeout=60)
    # the run's arbiter is the bots' arbiter too: spectating needs the organiser's token
    assert len(token) >= 16
    for wrong in ("", "guess"):
        with pytest.raises(SpectateError, match="PERMISSION_DENIED.*spectator token"):
            list_matches(address, token=wrong)
        with pytest.raises(SpectateError, match="PERMISSION_DENIED"):
            next(iter(follow(address, token=wrong)))
    watcher = Watcher(address, token)
    watcher.start()
    runner.join(120)
    watcher.join(30)
    assert watcher.error is None and watcher.running_when_joined
    kinds = [f.WhichOneof("frame") for _, f in watcher.frames]
    assert kinds[0] == "header" and kinds[-1] == "over" and kinds.count("step") > 10
    header = watcher.frames[0][1].header
    assert header.match_id in {r.match_id for r in result["rows"]}
    for _, frame in watcher.frames[:-1]:
        body = getattr(frame, frame.WhichOneof("frame"))
        assert not body.hands and not body.view.spades.hand  # a spectator holds no seat's cards
    # duplicate deals: the same cards come back with the seats swapped, so the end of one
    # seating shows the outcome but neither the deal nor the seed
    over = watcher.frames[-1][1].over
    assert over.outcome.ranks and not over.HasField("final_view") and over.seed == 0 and not over.actions


def test_an_arena_encounter_is_watched_live_as_a_tournament_is(tmp_path):
    """An arena's matches go to the same spectating hub, on the arena's own server behind
    the spectator token of its credentials file: public frames while a match runs, and at
    its end what an encounter's disclosure allows (the outcome; neither deal nor seed, as a
    duplicate tournament's seating), no hidden cards without a delay."""
    import asyncio
    import queue

    from arbiter.arena.ladder import Arena, ArenaSpec, ServiceConfig, serve_submissions

    slow = str(ROOT / "tests/e2e/slowbot.py")
    spec = ArenaSpec(game="spades", name="watched", options={"deals": 1}, house=(slow, "random"), seed=3)
    service = ServiceConfig(port=0, credentials=str(tmp_path / "credentials.json"), db=str(tmp_path / "arena.sqlite"))
    addresses: queue.Queue[tuple[str, str]] = queue.Queue()
    result: dict = {}

    def run() -> None:
        async def main() -> None:
            running, creds = await serve_submissions(service.db, service)
            ladder = Arena(spec, service.db, poll=0)
            ladder.open()
            ladder.spectators = running.spectators
            addresses.put((running.address, creds.spectator))
            try:
                await ladder.run(max_encounters=1)
                result["matches"] = ladder.matches_played
            finally:
                ladder.close()
                await running.stop(0.5)

        asyncio.run(main())

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    address, token = addresses.get(timeout=60)
    with pytest.raises(SpectateError, match="PERMISSION_DENIED"):
        list_matches(address, token="not-the-spectator-token")
    watcher = Watcher(address, token)
    watcher.start()
    watcher.join(120)
    with pytest.raises(grpc.RpcError) as refused:  # no delay: no hidden cards, as a tournament
        next(iter(raw_watch(address, watcher.frames[0][1].header.match_id, hidden_cards=True, token=token)))
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    runner.join(180)
    assert result.get("matches"), result
    assert watcher.error is None and watcher.running_when_joined
    kinds = [f.WhichOneof("frame") for _, f in watcher.frames]
    assert kinds[0] == "header" and kinds[-1] == "over" and kinds.count("step") > 10
    assert watcher.frames[0][1].header.match_id.startswith("a")  # an encounter's match (a{arena}-e{n}-{k})
    for _, frame in watcher.frames[:-1]:
        body = getattr(frame, frame.WhichOneof("frame"))
        assert not body.hands and not body.view.spades.hand
    over = watcher.frames[-1][1].over
    assert over.outcome.ranks and not over.HasField("final_view") and over.seed == 0 and not over.actions


def test_watch_with_no_match_running_says_it_waits(serve):
    """`arbiter watch --server HOST:PORT` with no match running printed nothing for as long as
    the arbiter waited for one (a minute), and looked hung. It says, at once, that it waits for
    the next match to start and how to stop; Ctrl-C stops it (exit 130)."""
    import os
    import select
    import signal

    watch = subprocess.Popen([sys.executable, "-m", "arbiter", "watch", "--server", serve.address, "--token",
                              serve.spectator_token], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, env=dict(os.environ, COLUMNS="200"))
    try:
        ready, _, _ = select.select([watch.stdout], [], [], 30)
        line = watch.stdout.readline() if ready else ""
        assert line.strip() == (f"no match is running on {serve.address}: waiting for the next one to start "
                                "(Ctrl-C to stop)"), line
        assert watch.poll() is None  # still waiting
        watch.send_signal(signal.SIGINT)
        _, err = watch.communicate(timeout=30)
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.communicate()
    assert watch.returncode == 130 and "Traceback" not in err, err
