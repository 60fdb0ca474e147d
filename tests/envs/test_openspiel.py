"""The OpenSpiel wrappers (cardarena_envs.openspiel), in the bench environment that has
open-spiel (.venv-bench: `make test` and `make bench` make it; open-spiel is never a
dependency of .venv): skipped only where open-spiel cannot be installed."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from tests.conftest import ROOT

BENCH_PYTHON = ROOT / ".venv-bench" / "bin" / "python"

SCRIPT = r"""
import json, random
import pyspiel
import cardarena_envs.openspiel as cs
from cardarena.games import get_game
for name, options in (("spades", {"deals": 1}), ("spot", {"players": 3, "hands": 1}),
                      ("spite-and-malice", {"payoff_size": 4})):
    game = pyspiel.load_game(cs.GAMES[name], {"options": json.dumps(options)})
    engine = get_game(name, options)
    rng = random.Random(1)
    state = game.new_initial_state()
    assert state.is_chance_node()
    state.apply_action(42)
    actions, resampled = [], 0
    while not state.is_terminal():
        p = state.current_player()
        assert len(state.information_state_tensor(p)) == game.information_state_tensor_shape()[0]
        if len(actions) % 7 == 0:
            other = cs.resample(state, p, random.Random(len(actions)))
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert sorted(other.legal_actions()) == sorted(state.legal_actions())
            resampled += 1
        a = rng.choice(state.legal_actions())
        actions.append(state.action_to_string(p, a))
        state.apply_action(a)
    real = engine.new_initial_state(42)
    for text in actions:
        real.apply(engine.parse_action(text))
    assert state.returns() == [float(x) for x in real.outcome().scores]
    print(name, len(actions), resampled)

# IS-MCTS (OpenSpiel's own search, our forward model resampling) as an SDK bot, in the harness
from sdk.harness import play_match
from sdk.loading import load_bot
bot, rnd = cs.ISMCTSReferenceBot(), load_bot("random")
bot.simulations = 25
record = play_match("spades", [bot, rnd, bot, rnd], seed=3, options={"deals": 1})
print("ismcts", record.outcome.scores)
"""


@pytest.mark.e2e  # a process: the bench environment's Python
@pytest.mark.skipif(not BENCH_PYTHON.exists(), reason="no bench environment with open-spiel (make bench)")
def test_the_games_play_through_openspiel_with_the_engines_outcome_and_resampling() -> None:
    done = subprocess.run([str(BENCH_PYTHON), "-c", SCRIPT], cwd=ROOT, env={"PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=120)
    if "No module named 'pyspiel'" in done.stderr:
        pytest.skip("the bench environment has no open-spiel")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4, done.stdout
    scores = [float(x) for x in lines[3].split("(")[1].rstrip(")").split(",")]
    assert scores[0] > scores[1], lines[3]  # the search's side beats random


@pytest.mark.parametrize(("missing", "said"), [
    ("pyspiel", "cardarena_envs.openspiel needs open-spiel, which no extra installs: pip install open-spiel"),
    ("numpy", "cardarena_envs.openspiel needs numpy, of the envs extra: pip install 'card-arena-sdk[envs]'"),
], ids=["open-spiel", "numpy"])
def test_without_open_spiel_the_import_says_how_to_install_it(monkeypatch, missing, said) -> None:
    """The README's `import cardarena_envs.openspiel` outside .venv-bench ended in a bare
    "No module named 'pyspiel'"."""
    monkeypatch.setitem(sys.modules, missing, None)  # what an import of a missing package meets
    monkeypatch.delitem(sys.modules, "cardarena_envs.openspiel", raising=False)
    with pytest.raises(ModuleNotFoundError) as missed:
        importlib.import_module("cardarena_envs.openspiel")
    assert str(missed.value).startswith(said) and missed.value.name == missing
