"""The ladder-efficiency bench (arbiter.tools.arena_bench) on a small field, and the
noisy bots it is built on."""

from __future__ import annotations

import asyncio

from arbiter.hosting.loading import load_bot
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.tools.arena_bench import ladder_efficiency, noisy_bots, run_once
from cardarena.records import MatchConfig


def test_noisy_bots_are_named_by_their_noise_and_replay_exactly():
    assert noisy_bots((0, 30)) == ("n00=bots.noisy:Noisy0", "n30=bots.noisy:Noisy30")
    bot = load_bot("bots.noisy:Noisy30")
    assert bot.noise == 0.3 and bot.name == "noisy-30"
    config = MatchConfig(game="spades", seed=4, options={"deals": 1})
    runs = [asyncio.run(run_match(config, [InProcessSeat(bot, f"s{i}") for i in range(4)])) for _ in range(2)]
    assert [a.action for a in runs[0].actions] == [a.action for a in runs[1].actions]


def test_both_schedules_reach_a_clear_order_and_the_ratio_is_reported():
    lad = run_once("ladder", 1, levels=(0, 70), max_matches=800)
    rr = run_once("round-robin", 1, levels=(0, 70), max_matches=800)
    assert lad.reached and rr.reached and 0 < lad.matches <= 800
    eff = ladder_efficiency(runs=1, levels=(0, 70), max_matches=800, jobs=1)
    assert eff.ratio == eff.runs[0][0].matches / eff.runs[0][1].matches
    assert set(eff.as_dict()) >= {"ratio", "target", "pass", "runs"}
