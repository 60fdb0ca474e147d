"""The spectator hub asks the engine and the match's disclosure, and keeps no game of its own.

Matches are played by the real runner with bundled bots in process and fed to a hub with
a delay of 0 (so hidden-cards watchers are allowed and get frames at once). In a match
whose deal comes back (a running duplicate tournament's, an arena encounter's) the hub
must never hold a hand, nor end with the deal, the seed or the actions, whatever a
watcher asks. In an open match it holds exactly the hands the engine's own state has at
every step (read from the runner's state, not a shadow), shows them only to a
hidden-cards watcher, and never to a public one.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.hosting.loading import load_bot
from arbiter.match import run_match
from arbiter.spectating.hub import SpectatorHub
from cardarena import disclosure
from cardarena.frames import HeaderFrame, OverFrame, StepFrame
from cardarena.games import State
from cardarena.records import MatchConfig

GAMES = {
    "spite-and-malice": ({"payoff_size": 5, "max_turns": 40}, 2),
    "spot": ({"players": 3, "hands": 1}, 3),
    "spades": ({"deals": 1}, 4),
}


def play(hub: SpectatorHub, config: MatchConfig, n: int):
    """Play ``config`` with the hub watching; (record, its live match, the feed)."""
    [feed] = hub.observers(config)

    async def main():
        seats = [InProcessSeat(load_bot("random"), f"r{i}") for i in range(n)]
        return await run_match(config, seats, observers=[feed])

    record = asyncio.run(main())
    return record, hub.matches[record.match_id], feed


def watch(hub: SpectatorHub, live, hidden_cards: bool) -> list:
    async def main():
        return [f async for f in hub.follow(live, hidden_cards)]

    return asyncio.run(main())


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("rule", [disclosure.of_tournament("dup", finished=False, duplicate=True),
                                  disclosure.of_encounter("ladder", None, "playing")], ids=["tournament", "encounter"])
def test_a_closed_match_never_puts_a_hand_in_the_hub(game, rule):
    options, n = GAMES[game]
    hub = SpectatorHub(delay=0)
    record, live, feed = play(hub, MatchConfig(game, seed=8, options=options, match_id="m", disclosure=rule), n)
    assert not feed.sees_hands  # so the runner never handed it a seat's view
    for _, frame in live.frames:  # what the hub holds, not only what it sends
        if isinstance(frame, (HeaderFrame, StepFrame)):
            assert frame.hands is None and frame.view.seat is None and not getattr(frame, "private_action", "")
    over = live.frames[-1][1]
    assert isinstance(over, OverFrame) and over.final_view is None and over.seed == 0 and not over.actions
    assert over.outcome == record.outcome  # the result is shown: standings add it up anyway
    for hidden_cards in (False, True):  # a delayed hidden-cards watcher gets no more
        got = watch(hub, live, hidden_cards)
        assert len(got) == len(live.frames) and all(getattr(f, "hands", None) is None for f in got)
    assert not any(isinstance(v, State) for v in vars(feed).values())  # no shadow game


@pytest.mark.parametrize("game", list(GAMES))
def test_an_open_match_shows_the_engines_hands_only_to_a_delayed_watcher(game):
    options, n = GAMES[game]
    hub = SpectatorHub(delay=0)
    config = MatchConfig(game, seed=8, options=options, match_id="m", disclosure=disclosure.OPEN)
    record, live, feed = play(hub, config, n)
    assert feed.sees_hands and not any(isinstance(v, State) for v in vars(feed).values())
    g = config.make_game()
    state = g.new_initial_state(config.seed)
    frames = [f for _, f in live.frames]
    assert frames[0].hands == tuple(tuple(state.view(s).hand) for s in range(n))
    for frame, action in zip(frames[1:-1], record.actions):
        state.apply(g.parse_action(action.action))
        assert frame.hands == tuple(tuple(state.view(s).hand) for s in range(n))  # the engine's, step by step
        assert frame.action == g.action_text(g.parse_action(action.action), action.seat, None)
    assert frames[-1].final_view == state.spectator_view() and frames[-1].seed == config.seed
    public = watch(hub, live, hidden_cards=False)
    assert all(getattr(f, "hands", None) is None and not getattr(f, "private_action", "") for f in public)
    delayed = watch(hub, live, hidden_cards=True)
    assert [getattr(f, "hands", None) for f in delayed[:-1]] == [f.hands for f in frames[:-1]]
    # without a delay the hub keeps no hand even of an open match
    hub = SpectatorHub()
    _, live, feed = play(hub, config, n)
    assert not feed.sees_hands and all(getattr(f, "hands", None) is None for _, f in live.frames)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_closed_matchs_last_step_shows_no_more_than_a_running_table(game):
    """An engine's spectator view of an ended game is the whole deal (``State.spectator_view``:
    Spite and Malice's hands, pay-off piles and stock, Spot's unused stock, Spades' hands as
    dealt). A closed match ended with its outcome only, but its last step carried that view:
    every watcher of a running duplicate tournament or an arena encounter saw, one frame
    before the end, the deal its other seatings play again. Each step's view is a running
    table's; the last one is the table as it stood before the action that ended the game."""
    options, n = GAMES[game]
    hub = SpectatorHub(delay=0)
    rule = disclosure.of_encounter("ladder", None, "playing")
    config = MatchConfig(game, seed=8, options=options, match_id="m", disclosure=rule)
    record, live, _ = play(hub, config, n)
    g = config.make_game()
    state = g.new_initial_state(config.seed)
    running = []
    for action in record.actions:
        before = state.spectator_view()
        state.apply(g.parse_action(action.action))
        running.append(state.spectator_view() if not state.is_terminal else before)
    assert state.is_terminal and state.spectator_view() != running[-1]  # the engine reveals at the end
    steps = [f for _, f in live.frames if isinstance(f, StepFrame)]
    assert [f.view for f in steps] == running


def test_a_watcher_waiting_for_the_next_match_gets_it_even_if_it_is_over_already():
    """``find("")`` waits for the next match to start, then took the newest *running* one: a
    match that ended before the waiter resumed (its first step already its last) left none,
    and the Watch failed with an IndexError from the servicer. The waiter gets that match."""
    from arbiter.spectating.hub import LiveMatch

    async def main():
        hub = SpectatorHub()
        waiter = asyncio.ensure_future(hub.find("", wait=5))
        await asyncio.sleep(0)  # it waits
        live = LiveMatch("m", "spades", ("a", "b", "c", "d"), 0.0)
        hub._open(live)
        hub._close(live)  # over before the waiter runs again
        return await waiter

    assert asyncio.run(main()).match_id == "m"


def test_a_delayed_watcher_sees_a_deals_hands_only_once_that_deal_is_over():
    """A delay alone keeps nothing stale: a Spades hand 30 s old, less the cards played
    since (public, and seen by every seat), is the hand held now, and Spot's and Spite and
    Malice's keep most of their cards. So a hidden-cards watcher of a running match gets a
    frame only once the deal it shows is over (a later frame shows another deal, or the
    match ended), and no sooner than the delay after it."""
    hub = SpectatorHub(delay=0)
    config = MatchConfig("spades", seed=8, options={"deals": 2}, match_id="m", disclosure=disclosure.OPEN)
    _, done, _ = play(hub, config, 4)
    frames = done.frames
    deals = [f.view.deal for _, f in frames[:-1]]
    second = deals.index(2)  # the first frame of deal 2 (the step that ended deal 1 dealt it)

    def running(upto: int):
        """The match as it stood with its first ``upto`` frames, still being played."""
        live = dataclasses.replace(done, frames=list(frames[:upto]), running=True, changed=None)
        hub.matches["m"] = live
        return live

    async def released(live, expected: int | None = None) -> list:
        """The frames a hidden-cards watcher of ``live`` gets: ``expected`` of them, awaited (a
        bounded wait, failing if they do not come), or with None, those of a bounded wait."""
        got = []
        enough = asyncio.Event()

        async def follow():
            async for f in hub.follow(live, hidden_cards=True):
                got.append(f)
                if len(got) == expected:
                    enough.set()

        task = asyncio.ensure_future(follow())
        if expected is None:
            await asyncio.sleep(0.2)  # an absence (no delay: a frame that may be shown is shown at once)
        else:
            # (with no delay the follower yields every frame it may show without yielding the loop, then
            # waits for the deal's end: one held back would have come in the same step, before this wakes)
            async with asyncio.timeout(30):
                await enough.wait()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        return got

    assert asyncio.run(released(running(second - 5))) == []  # deal 1 in play: none of its hands
    got = asyncio.run(released(running(second + 3), second))  # deal 2 in play: deal 1's frames, not deal 2's
    assert len(got) == second and {f.view.deal for f in got} == {1} and all(f.hands for f in got)
    assert len(asyncio.run(released(running(len(frames)), len(frames)))) == len(frames)  # over: everything
