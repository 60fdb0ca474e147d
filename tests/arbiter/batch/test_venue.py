"""Where a match is played is read once (``arbiter.batch.venue.parse_where``) and opened by
one function (``open_venue``); and no bot in the arbiter's process touches the referee.

The misbehaving bots are the e2e zoo's (tests/e2e/zoo.py): here they play in this
process only (no server, no bot process); tests/e2e/test_driver_parity.py plays the
same bots over every venue and compares the records' hashes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.batch.settings import is_trusted
from arbiter.batch.venue import HOSTED, Kind, VenueError, Where, describe, parse_where
from arbiter.store.db import Store
from arbiter.tournament.play import play_local, store_play
from cardarena.games import ConfigError, EndReason
from cardarena.records import MatchRecord
from cardarena.replay import verify_record

ZOO = Path(__file__).parents[2] / "e2e" / "zoo.py"
SPOT = dict(seed=5, decision_ms=0, bank_ms=0)  # no clock: nothing here is about time


# -- one reading of where ----------------------------------------------------------------


@pytest.mark.parametrize("text, kind", [("inproc", Kind.INPROC), ("grpc", Kind.GRPC), ("LOCAL", Kind.LOCAL),
                                        ("remote", Kind.REMOTE)])
def test_each_kind_reads_as_itself_and_was_asked_for(text, kind):
    where = parse_where(text)
    assert where.kind is kind and where.asked


def test_auto_plays_installed_bots_in_process_and_anything_else_hosted(tmp_path):
    bot = tmp_path / "mine.py"
    bot.write_text("")
    assert parse_where("auto", bots=["random", "heuristic", "bots.noisy:Noisy30"]) == Where(Kind.INPROC, asked=False)
    for other in (str(bot), "mine@1", f"{bot}:Mine"):
        assert not is_trusted(other)
        assert parse_where(None, bots=["random", other]) == Where(Kind.LOCAL, asked=False)


def test_hosted_bots_play_on_the_local_channel_unless_told():
    """The one default of the bots the arbiter hosts itself (``HOSTED``): the local channel;
    every caller's default is it (a tournament, ``arbiter play``, the arena, the host)."""
    import inspect

    from arbiter.arena.ladder import ArenaSpec
    from arbiter.hosting.botproc import DEFAULT_TRANSPORT, BotHost, BotPool
    from arbiter.tournament.play import play_local
    from arbiter.tournament.run import run_tournament

    assert HOSTED == Where(Kind.LOCAL) == parse_where(DEFAULT_TRANSPORT) and DEFAULT_TRANSPORT == "local"
    for fn in (play_local, run_tournament):
        assert inspect.signature(fn).parameters["transport"].default == DEFAULT_TRANSPORT
    assert inspect.signature(BotHost).parameters["transport"].default == DEFAULT_TRANSPORT
    assert BotPool.__dataclass_fields__["transport"].default == DEFAULT_TRANSPORT
    assert ArenaSpec(game="spades").transport == DEFAULT_TRANSPORT


@pytest.mark.parametrize("text, cluster, allowed, words", [
    ("pigeon", None, tuple(Kind), "transport: expected inproc, grpc, local, remote, auto, got 'pigeon'"),
    ("inproc", "tcp://10.0.0.5:8786", tuple(Kind), "inproc cannot be used with a cluster"),
    ("cluster", None, tuple(Kind), "cluster needs the scheduler's address"),
    ("grpc", "http://nowhere", tuple(Kind), "cluster: "),
    ("remote", None, (Kind.INPROC, Kind.GRPC), "remote cannot be used here (expected inproc or grpc)"),
    # a cluster is allowed by its address (--cluster), not as a transport to type: not in the list
    ("remote", None, (Kind.INPROC, Kind.GRPC, Kind.LOCAL, Kind.CLUSTER),
     "transport: remote cannot be used here (expected inproc or grpc or local)"),
])
def test_a_venue_that_cannot_be_read_is_refused_with_what_was_wrong(text, cluster, allowed, words):
    with pytest.raises(VenueError) as err:
        parse_where(text, cluster=cluster, allowed=allowed)
    assert words in str(err.value)
    assert isinstance(err.value, ConfigError)  # the CLI's usage errors: no traceback


def test_a_bad_cluster_address_is_named_as_the_caller_names_it():
    # a command's flag (evaluate: "--cluster") or a spec's key (a tournament file's "cluster")
    with pytest.raises(VenueError, match=r"^--cluster: expected a Dask scheduler address"):
        parse_where("auto", cluster="foo", field="--transport")
    with pytest.raises(VenueError, match=r"^cluster: expected a Dask scheduler address"):
        parse_where("auto", cluster="foo")


def test_a_cluster_address_goes_with_auto_or_grpc():
    assert parse_where("auto", cluster="tcp://10.0.0.5:8786") == Where(Kind.CLUSTER, "tcp://10.0.0.5:8786")
    assert parse_where("grpc", cluster="tcp://10.0.0.5:8786").kind is Kind.CLUSTER
    assert parse_where("local", cluster="tcp://10.0.0.5:8786").kind is Kind.CLUSTER


def test_a_clusters_workers_host_their_bots_on_the_wire_asked_for():
    """On a cluster the workers' bot processes use the wire the batch names (``grpc`` or
    ``local``), the hosted default when it names none; each match's task carries it."""
    from arbiter.batch.cluster import OnCluster
    from arbiter.batch.plan import PlannedMatch
    from arbiter.hosting.botproc import DEFAULT_TRANSPORT
    from cardarena.records import MatchConfig

    address = "tcp://10.0.0.5:8786"
    match = PlannedMatch(0, MatchConfig(game="spades", seed=1, options={"deals": 1}), ("random",) * 4)
    for text, wire in (("grpc", "grpc"), ("local", "local"), ("auto", DEFAULT_TRANSPORT), (None, DEFAULT_TRANSPORT)):
        where = parse_where(text, cluster=address)
        assert where.kind is Kind.CLUSTER and where.transport == wire
        venue = OnCluster(address, {"random": None}, "batch", transport=where.transport)
        assert venue.job(match).transport == wire


def test_each_kind_names_its_own_wire():
    """A venue's wire is what its bots speak: gRPC or the local channel when hosted, gRPC for
    connected (remote) bots, none in process (its bots are objects in the arbiter's process)."""
    assert [parse_where(k).transport for k in ("grpc", "local", "remote", "inproc")] == ["grpc", "local", "grpc", None]


def test_the_words_say_when_a_files_bot_ran_in_the_arbiters_process(tmp_path):
    assert "without the sandbox's limits" in describe(parse_where("inproc"), ["random", str(ZOO)])
    assert describe(parse_where("inproc"), ["random"]) == "in process"
    assert "the default for these bots" in describe(parse_where("auto", bots=["random"]), ["random"])


def test_the_words_say_which_bots_of_a_local_venue_speak_grpc():
    node = str(Path(__file__).parents[3] / "examples" / "node-bot")
    where = parse_where("auto", bots=[node, str(ZOO)])
    assert where.kind is Kind.LOCAL
    assert "node bots over gRPC" in describe(where, [node, str(ZOO)])
    assert "over gRPC" not in describe(where, [str(ZOO)])
    # a registered bot is written name@version; its runtime is its stored folder's (as launched)
    assert "node bots over gRPC" in describe(where, ["nodebot@1", str(ZOO)], [node, str(ZOO)])
    assert "over gRPC" not in describe(where, ["nodebot@1", str(ZOO)])


# -- no bot touches the referee (in process) --------------------------------------------


def _zoo(bot: str, **kwargs) -> MatchRecord:
    return play_local("spot", [f"{ZOO}:{bot}", "random", "random", "random"], transport="inproc", **{**SPOT, **kwargs})


def test_a_bot_rewriting_its_result_changes_nothing_stored(tmp_path):
    record = _zoo("RewriteOutcome")
    assert record.outcome is not None and 999.0 not in record.outcome.scores
    assert verify_record(record) == record.outcome  # the rules' result, not the bot's
    db = tmp_path / "a.sqlite"
    store_play(db, record)
    with Store(db, read_only=True) as store:
        stored = store.match(record.match_id)
    assert stored.outcome == record.outcome and 999.0 not in stored.outcome.scores


def test_a_bot_rewriting_its_view_and_legal_actions_plays_the_match_it_would_have_played():
    # RewriteView and RewriteOutcome choose alike (their own seeded rng); only what they
    # scribble on differs, and none of it is the referee's
    scribbler, honest = _zoo("RewriteView"), _zoo("RewriteOutcome")
    assert not scribbler.incidents
    assert [(a.seat, a.action) for a in scribbler.actions] == [(a.seat, a.action) for a in honest.actions]
    assert scribbler.outcome == honest.outcome


@pytest.mark.parametrize("bot, words", [("RaiseBaseException", "raised _OwnBaseException: past every"),
                                        ("RaiseCancelled", "raised CancelledError")])
def test_any_exception_a_bot_raises_is_its_recorded_failure(bot, words):
    record = _zoo(bot)
    assert record.outcome is not None and record.outcome.reason is EndReason.FORFEIT_CRASH
    [incident] = record.incidents
    assert incident.seat == 0 and incident.kind == "crash" and words in incident.detail


def test_os_exit_in_choose_disconnects_the_seat_and_the_arbiter_goes_on():
    record = _zoo("HardExit")  # were os._exit called for real, this test process would be gone
    [incident] = record.incidents
    assert incident.kind == "disconnect" and incident.seat == 0
    assert record.outcome is not None and record.outcome.reason.is_forfeit and record.outcome.ranks[0] == 4


@pytest.mark.e2e  # it forks a process
def test_os_exit_is_a_bots_only_while_its_code_runs_on_its_thread_and_in_this_process():
    """A bot's ``os._exit`` is caught only on the thread running the bot: a process forked
    meanwhile by another thread (a pool's worker, ``evaluate -j 2``) ends with its own
    ``os._exit``, which used to raise there, so the child ran on as a copy of the test."""
    import os
    import threading

    from arbiter.hosting import inprocess

    inside, leave = threading.Event(), threading.Event()
    caught: list[int] = []

    def bot_thread() -> None:
        with inprocess.bot_code():
            inside.set()
            leave.wait(30)
            try:
                os._exit(5)
            except inprocess._Exited as exc:
                caught.append(exc.code)

    t = threading.Thread(target=bot_thread)
    t.start()
    try:
        assert inside.wait(30)
        pid = os.fork()  # from this thread, not the bot's, while the bot's code runs
        if pid == 0:  # the child: its os._exit must be the real one
            try:
                os._exit(7)
            finally:
                inprocess._REAL_EXIT(3)  # reached only if os._exit raised here
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 7
    finally:
        leave.set()
        t.join(30)
    assert caught == [5]  # the bot's own thread still gets the driver's exit


def test_a_bot_that_cannot_be_copied_is_refused_before_the_match_with_the_reason():
    with pytest.raises(ConfigError) as err:
        _zoo("Uncopyable")
    text = str(err.value)
    # the reason and what to do; not "play it hosted": a hosted process copies the bot for each match too
    assert "cannot play" in text and "cannot be copied" in text and "on_match_start" in text
    assert "--transport grpc" not in text


def test_a_files_bot_asked_in_process_says_so_in_its_record_and_the_store(tmp_path):
    record = _zoo("RewriteOutcome")
    assert record.venue.startswith("inproc (asked for") and record.venue.endswith("not installed code: RewriteOutcome)")
    assert MatchRecord.from_json(record.to_json()).venue == record.venue
    installed = play_local("spot", ["random"] * 4, transport="inproc", **SPOT)
    assert installed.venue == "" and '"venue"' not in installed.to_json()  # the usual: nothing to say


# -- the record's content hash -----------------------------------------------------------


def test_the_content_hash_is_what_was_played_not_how():
    a = play_local("spot", ["random", "heuristic", "random", "heuristic"], transport="auto", **SPOT)
    b = play_local("spot", ["random", "heuristic", "random", "heuristic"], transport="inproc", **SPOT)
    assert a.match_id == b.match_id or True  # ids and timings may differ; the content may not
    assert a.content_hash() == b.content_hash() and len(a.content_hash()) == 64
    b.actions[-1] = type(b.actions[-1])(b.actions[-1].seat, b.actions[-1].action + " ", 0)
    assert a.content_hash() != b.content_hash()
    other_seed = play_local("spot", ["random", "heuristic", "random", "heuristic"], transport="inproc",
                            **{**SPOT, "seed": 6})
    assert other_seed.content_hash() != a.content_hash()


def test_arbiter_play_says_when_a_files_bot_played_in_its_process(tmp_path):
    from typer.testing import CliRunner

    from arbiter.cli import app

    r = CliRunner().invoke(app, ["play", "spot", f"{ZOO}:RewriteOutcome", "random", "random", "random", "--seed", "5",
                                 "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    assert "played inproc (asked for; not installed code: RewriteOutcome): without the sandbox's limits" in " ".join(r.output.split())
    with Store(tmp_path / "a.sqlite", read_only=True) as store:
        [row] = store.matches(store.tournaments()[0].id)
        assert row.record().venue.startswith("inproc (asked for")


@pytest.mark.parametrize("where", ["inproc", "remote"])
def test_a_venue_for_any_game_is_hosted_only(where):
    """``open_venue(..., game=None)`` (a bot's vetting: each match its own game, the Hello
    read by the caller) is for hosted processes; anywhere else it is refused, naming where."""
    import asyncio

    from arbiter.batch.venue import open_venue

    async def open_it():
        async with open_venue(parse_where(where), {"a": "random"}, None):
            pass

    with pytest.raises(VenueError, match=f"hosted only, not {where}"):
        asyncio.run(open_it())


@pytest.fixture(params=["python", "c"])
def copier(request, monkeypatch):
    """Each copy test runs on ``bot_copy``'s Python loop (the reference) and on its C one
    (arbiter/hosting/_copyc.c), where it is built."""
    from arbiter.hosting import inprocess

    if request.param == "python":
        monkeypatch.setattr(inprocess, "_copyc", None)
    else:
        built = inprocess._load_copyc()
        if built is None:
            pytest.skip("the C copier is not built here (make venv builds it)")
        monkeypatch.setattr(inprocess, "_copyc", built)
    return request.param


@pytest.mark.parametrize("name,options", [("spades", {"deals": 1}), ("spot", {"hands": 1}),
                                          ("spite-and-malice", {"max_turns": 30})])
def test_a_bots_copy_of_its_views_shares_no_dataclass_with_the_referees(name, options, copier):
    """``bot_copy`` along a real match (one memo per seat, as an in-process seat keeps): every
    dataclass a view holds, however deep (in tuples, lists and dicts: each game's views), and
    every legal action is the bot's own (written through ``object.__setattr__``, the referee's
    view stays as it was), and what did not change since the last step is the copy made then
    (the memo), not copied again."""
    import dataclasses
    import random

    from arbiter.hosting.inprocess import bot_copy
    from cardarena.games import get_game

    def parts(value, out):
        if dataclasses.is_dataclass(value):
            out.append(value)
            for f in dataclasses.fields(value):
                parts(getattr(value, f.name), out)
        elif isinstance(value, (tuple, list)):
            for v in value:
                parts(v, out)
        elif isinstance(value, dict):
            for k, v in value.items():
                parts(k, out)
                parts(v, out)
        return out

    game = get_game(name, options)
    state, rng, memo, before, nested = game.new_initial_state(5), random.Random(1), {}, {}, 0
    while not state.is_terminal:
        view = state.view(0)  # seat 0's view at every step, its turn or not
        mine = bot_copy(view, memo)
        assert mine == view
        theirs, copied = parts(view, []), parts(mine, [])
        assert len(theirs) == len(copied) > (1 if name == "spades" else 0)  # a Spot view may hold none yet
        nested = max(nested, len(theirs))
        assert not {id(x) for x in theirs} & {id(x) for x in copied}
        for original, copy in zip(theirs, copied):
            if id(original) in before:  # unchanged since the last step: the same copy
                assert before[id(original)][1] is copy
        before = {id(x): (x, c) for x, c in zip(theirs, copied)}
        deep = copied[-1]
        name = dataclasses.fields(deep)[0].name
        kept = getattr(theirs[-1], name)
        object.__setattr__(deep, name, "scribbled")
        assert getattr(theirs[-1], name) == kept
        object.__setattr__(deep, name, kept)  # put back: the memo serves it again next step
        legal = state.legal_actions()  # dataclasses under Action's empty __slots__: copied too
        offered = [bot_copy(a, memo) for a in legal]
        assert offered == legal and not {id(a) for a in parts(offered, [])} & {id(a) for a in parts(legal, [])}
        state.apply(rng.choice(legal))
    assert nested > 1


def test_a_bots_copy_of_a_list_or_dict_copies_the_dataclasses_in_it(copier):
    """No game's view holds a dataclass in a list or a dict yet, nor a slotted dataclass:
    ``bot_copy`` copies one there too (the list, the dict and each dataclass, key or value, a
    slotted one's fields), and a memo serves each again; and what is set beside a dataclass's
    fields (a cached property) is copied with them."""
    import functools
    from dataclasses import dataclass

    from arbiter.hosting.inprocess import bot_copy

    @dataclass(frozen=True)
    class Part:
        n: int

    @dataclass(frozen=True, slots=True)
    class Slotted:
        part: Part
        n: int

    @dataclass(frozen=True)
    class Whole:
        parts: list
        by: dict

    a, b, memo = Part(1), Part(2), {}
    value = Whole([a, 3, b], {a: b, "k": [b]})
    mine = bot_copy(value, memo)
    assert mine == value
    inner = [mine.parts[0], mine.parts[2], *mine.by, *mine.by.values(), mine.by["k"][0]]
    assert not {id(x) for x in inner} & {id(a), id(b)} and mine.parts is not value.parts and mine.by is not value.by
    assert bot_copy([a, {"x": b}], memo) == [mine.parts[0], {"x": mine.parts[2]}]
    again = bot_copy([a, {"x": b}], memo)
    assert again[0] is mine.parts[0] and again[1]["x"] is mine.parts[2]
    held = Slotted(Part(3), 4)
    copied = bot_copy(held, {})
    assert copied == held and copied is not held and copied.part is not held.part and not hasattr(copied, "__dict__")

    @dataclass(frozen=True)
    class Cached:
        part: Part

        @functools.cached_property
        def doubled(self):
            return Part(self.part.n * 2)

    cached = Cached(Part(5))
    assert cached.doubled == Part(10)  # set beside the fields, in the instance's dict
    mine = bot_copy(cached, {})
    assert vars(mine) == vars(cached) and mine.doubled is not cached.doubled and mine.part is not cached.part


def test_a_bot_rewriting_an_interned_action_changes_no_one_elses_and_plays_what_it_wrote(copier):
    """The engines hand every seat the same (interned) action objects, and the in-process seat
    gives the runner the engine's own object back for an answer that is still the copy of one
    (``inprocess._original``: the runner's checks find it by identity). A bot that rewrites
    every action it is offered through ``object.__setattr__`` changes none of the referee's
    nor what another seat is offered, and its rewritten answer reaches the runner as what it
    wrote (a copy of it), not as the interned action it was copied from."""
    import asyncio
    import random

    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import TurnRequest
    from cardarena.games import get_game
    from cardarena.records import MatchInfo
    from sdk import Bot

    kept, offered = [], []

    class Scribbler(Bot):
        games = ("*",)

        def choose(self, view, legal_actions):
            for a, b in zip(legal_actions, legal_actions[1:] + legal_actions[:1]):  # each written as the next
                object.__setattr__(a, "card", b.card)
            kept.append(legal_actions[0])
            return legal_actions[0]  # the second action's value now

    class Honest(Bot):
        games = ("*",)

        def choose(self, view, legal_actions):
            offered.append([(type(a), dict(a.__dict__)) for a in legal_actions])
            return legal_actions[0]

    game = get_game("spades", {"deals": 1})
    state, rng = game.new_initial_state(5), random.Random(2)
    while not (state.phase.name == "PLAY" and len(state.legal_actions()) > 2):
        state.apply(rng.choice(state.legal_actions()))
    legal = state.legal_actions()
    assert legal == state.legal_actions() and all(a is b for a, b in zip(legal, state.legal_actions()))  # interned
    before = [(type(a), dict(a.__dict__)) for a in legal]
    s, other = state.current_seat, (state.current_seat + 1) % 4
    scribbler, honest = InProcessSeat(Scribbler()), InProcessSeat(Honest())

    async def ask(seat_client, seat):
        await seat_client.start(MatchInfo("m", "spades", game.describe_options(), seat, 4, game.teams))
        return await seat_client.decide(TurnRequest("m", 1, seat, state.view(seat), legal, 0, 0))

    written = asyncio.run(ask(scribbler, s))
    assert written == type(legal[0])(card=legal[1].card) and written != legal[0]  # what it wrote is what it played
    assert written is not kept[0] and written is not legal[1]  # a copy of its answer: neither its object nor the referee's
    assert [(type(a), dict(a.__dict__)) for a in legal] == before  # the referee's actions as they were
    assert [(type(a), dict(a.__dict__)) for a in state.legal_actions()] == before
    answer = asyncio.run(ask(honest, other))  # another seat offered the same interned objects
    assert offered == [before]
    assert answer is legal[0]  # an untouched answer: the engine's own object, found by identity


@pytest.mark.e2e
def test_worker_processes_are_not_forks_of_a_process_that_may_run_grpc_threads():
    """``InProcess``'s worker processes (``evaluate -j 2``, the tools' pools) come from a fork
    server (``engine.worker_context``), never from a fork of this process: a process that
    serves or calls gRPC runs gRPC's threads, and a child forked while one of them held a lock
    may spin on it for ever. The workers' parent is the fork server; they play as before."""
    import asyncio
    import os

    from arbiter.batch.engine import InProcess

    async def main() -> tuple[int, ...]:
        venue = InProcess({"a": "random", "b": "random"}, processes=2)
        await venue.open()
        try:
            return tuple(await asyncio.gather(*(asyncio.wrap_future(venue._pool.submit(os.getppid)) for _ in range(2))))
        finally:
            await venue.close()

    parents = asyncio.run(main())
    assert os.getpid() not in parents and len(set(parents)) == 1, parents
