"""Train a linear policy by imitation of a bot, and write it as a bot folder.

    python -m cardarena_envs.train spades --teacher heuristic --episodes 300 --seed 1 \\
        -o deals=1 --out mybot
    arbiter play spades mybot random mybot random --option deals=2

The teacher (any bot name ``sdk.loading`` knows) plays ``episodes`` seeded matches
against itself through ``sdk.harness.play_match``; at every decision of every seat the
trainer records the seat's ``sdk.encoding`` tensor, the legal actions' indices and the
teacher's choice. A multinomial logistic regression over the legal actions (softmax of
``bias[i] + weights[i] . x`` restricted to the mask, numpy, seeded minibatch gradient
descent) is fitted to those choices and saved as ``policy.json`` beside a copy of
``cardarena_envs.policy_bot`` as ``bot.py``: the bot encodes with the same functions at
play time. The run prints its agreement with the teacher on held-out matches.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Any, Mapping

# The fit's small matrix products are fastest on one thread; a BLAS thread per core fights
# the other processes of a shared machine (ten times slower on 2 busy cores). Only takes
# effect when numpy is first imported here (``python -m cardarena_envs.train``).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from cardarena_envs import missing_extra  # noqa: E402

try:
    import numpy as np
except ModuleNotFoundError as _exc:  # the envs extra is not installed: say how, not a traceback
    if (_said := missing_extra("python -m cardarena_envs.train", _exc)) is None:
        raise
    if __name__ == "__main__":
        print(f"error: {_said}", file=sys.stderr)
        raise SystemExit(2) from None
    raise _said from None

from cardarena.games import GAMES, facts, get_game  # noqa: E402
from cardarena.games.base import options_to_dict  # noqa: E402
from cardarena.names import does_not_play  # noqa: E402
from sdk import Bot  # noqa: E402
from cardarena_envs import policy_bot  # noqa: E402
from sdk.bot import fresh_copy, game_names  # noqa: E402
from sdk.encoding import Encoder, encoder_for_game  # noqa: E402
from sdk.harness import play_match  # noqa: E402
from sdk.loading import load_bot  # noqa: E402


class _Sink(list):
    """The recorder's data: shared by every copy the harness makes of the recorder."""

    def __deepcopy__(self, memo):
        return self


class _Recorder(Bot):
    """Plays as ``teacher`` and records (tensor, legal indices, chosen index) per decision."""

    def __init__(self, teacher: Bot, enc: Encoder, sink: _Sink) -> None:
        super().__init__()
        self.teacher, self.enc, self.sink = teacher, enc, sink
        self.name = getattr(teacher, "name", "teacher")

    def __deepcopy__(self, memo):  # the harness's copy per match: a fresh teacher, the same sink
        return _Recorder(fresh_copy(self.teacher), self.enc, self.sink)

    def _start(self, info) -> None:
        super()._start(info)
        self.teacher._start(info)

    def on_events(self, events) -> None:
        self.teacher.on_events(events)

    def on_match_end(self, result) -> None:
        self.teacher.on_match_end(result)

    def choose(self, view, legal_actions):
        action = self.teacher.choose(view, legal_actions)
        if isinstance(action, str):
            action = get_game(self.info.game, self.info.options).parse_action(action)
        self.sink.append((self.enc.encode(view), self.enc.legal_indices(legal_actions), self.enc.action_index(action)))
        return action


def collect(game: str, options: Mapping[str, Any], teacher: str, episodes: int, seed: int) -> list:
    """The teacher's decisions in ``episodes`` self-play matches, deal seeds from ``seed``."""
    g = get_game(game, dict(options))
    enc = encoder_for_game(g)
    sink = _Sink()
    rng = random.Random(seed)
    for _ in range(episodes):
        bots = [_Recorder(load_bot(teacher), enc, sink) for _ in range(g.num_seats)]
        play_match(game, bots, seed=rng.randrange(2**62), options=options)
    return list(sink)


def fit(data: list, num_actions: int, seed: int, epochs: int = 12, lr: float = 0.5, batch: int = 256,
        l2: float = 1e-4) -> tuple[dict[int, np.ndarray], dict[int, float]]:
    """Masked softmax regression; returns weight rows and biases for the actions seen legal."""
    seen = sorted({i for _, legal, _ in data for i in legal})
    col = {i: k for k, i in enumerate(seen)}
    X = np.asarray([x for x, _, _ in data], dtype=np.float32)
    M = np.zeros((len(data), len(seen)), dtype=bool)
    y = np.empty(len(data), dtype=np.int64)
    for n, (_, legal, chosen) in enumerate(data):
        M[n, [col[i] for i in legal]] = True
        y[n] = col[chosen]
    W = np.zeros((len(seen), X.shape[1]), dtype=np.float32)
    b = np.zeros(len(seen), dtype=np.float32)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(len(data))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            xb, mb, yb = X[idx], M[idx], y[idx]
            logits = xb @ W.T + b
            logits[~mb] = -np.inf
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), yb] -= 1.0
            W -= lr * (p.T @ xb / len(idx) + l2 * W)
            b -= lr * p.mean(axis=0)
    return {i: W[k] for i, k in col.items()}, {i: float(b[k]) for i, k in col.items()}


def agreement(policy: dict, data: list) -> float:
    """The share of ``data``'s decisions where the policy picks the teacher's action."""
    if not data:
        return 0.0
    bot = policy_bot.LinearPolicyBot.__new__(policy_bot.LinearPolicyBot)
    bot.rows = {int(i): row for i, row in policy["rows"].items()}
    bot.bias = {int(i): b for i, b in policy["bias"].items()}
    hits = 0
    for x, legal, chosen in data:
        best = max(range(len(legal)), key=lambda k: (bot.score(x, legal[k]), -k))
        hits += legal[best] == chosen
    return hits / len(data)


def train(game: str, options: Mapping[str, Any] | None = None, teacher: str = "heuristic", episodes: int = 200,
          seed: int = 0, holdout: int = 20) -> tuple[dict, float]:
    """Collect, fit, and return (the policy as saved, its held-out agreement with the teacher)."""
    options = dict(options or {})
    g = get_game(game, options)
    enc = encoder_for_game(g)
    # a bot is asked only for the games it declares (arbiter play refuses the others): its
    # moves elsewhere (a fallback, the first legal action) are nothing to learn from
    plays = load_bot(teacher)
    if not plays.plays(g.name):
        raise ValueError(does_not_play(teacher, g.name, game_names(plays.games)))
    data = collect(game, options, teacher, episodes, seed)
    held = collect(game, options, teacher, holdout, seed + 1_000_003) if holdout else []
    rows, bias = fit(data, enc.num_actions, seed)
    policy = {
        "format": policy_bot.FORMAT, "game": g.name, "options": options_to_dict(g.options), "teacher": teacher,
        "episodes": episodes, "seed": seed, "size": enc.size, "num_actions": enc.num_actions,
        "rows": {str(i): [round(float(w), 5) for w in row] for i, row in rows.items()},
        "bias": {str(i): round(float(v), 5) for i, v in bias.items()},
    }
    return policy, agreement(policy, held)


def write_bot(policy: dict, out: str | Path) -> Path:
    """A bot folder: ``bot.py`` (the policy bot) and ``policy.json``; returns the folder."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(policy_bot.__file__, folder / "bot.py")
    (folder / "policy.json").write_text(json.dumps(policy, separators=(",", ":"), default=str))
    return folder


def out_problem(out: str | Path) -> str | None:
    """Why the bot folder cannot be written at ``out`` (None: it can), checked before the
    training: a file there, a folder that cannot be made or written, or a folder holding a
    ``bot.py`` of another bot (``write_bot`` would replace it; a learned bot's own folder,
    its ``policy.json`` beside it, is written again)."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        return f"--out {out}: is a file, not a folder (the bot folder to write)"
    if (folder / "bot.py").exists():
        try:
            policy_bot.load_policy(folder / "policy.json")
        except ValueError:
            return (f"--out {out}: holds a bot.py that is not a learned policy's; writing there would replace it: "
                    "give another folder")
    existing = next(p for p in (folder, *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        return f"--out {out}: {existing} is a file, not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"--out {out}: {existing} is not writable"
    return None


def check_note(policy: dict) -> str | None:
    """What to know before ``arbiter bots check`` or a submission, when the policy's encoding
    has another shape than at the options they ask its game at (each game's standard ones,
    ``facts("smoke_options")``: Spot with four players): the bot refuses those matches, so
    the check fails and a submission is refused, though it plays its own tables well."""
    standard = encoder_for_game(get_game(policy["game"], dict(facts("smoke_options")[policy["game"]])))
    if (standard.size, standard.num_actions) == (policy["size"], policy["num_actions"]):
        return None
    apart = policy_bot.options_apart(policy["options"], standard)
    mine, theirs = apart if apart else ("these options", "its standard options")
    return (f"note: arbiter bots check (and so a submission) asks {policy['game']} with {theirs}, an encoding of another "
            f"shape than this bot's ({mine}): the bot refuses those matches, so the check fails; train with those "
            "options to submit it")


def _option(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` as ``arbiter play -o`` takes it (the engine reads the value's text)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"--option {text!r}: expected KEY=VALUE, e.g. deals=1")
    return key.strip(), value.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardarena_envs.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help=f"the game: {', '.join(GAMES)}")
    parser.add_argument("--teacher", default="heuristic", help="the bot to imitate (a bundled name, FILE.py, a folder)")
    parser.add_argument("--episodes", type=int, default=200, help="self-play matches of the teacher to learn from")
    parser.add_argument("--seed", type=int, default=0, help="seeds the deals and the fit")
    parser.add_argument("-o", "--option", type=_option, action="append", default=[], help="KEY=VALUE, as in arbiter rules GAME")
    parser.add_argument("--out", default="learned-bot", help="the bot folder to write (bot.py, policy.json)")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")
    if args.seed < 0:
        parser.error("--seed must be 0 or more")
    if problem := out_problem(args.out):  # before the training, not after it
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        policy, agree = train(args.game, dict(args.option), args.teacher, args.episodes, args.seed)
    except Exception as exc:  # a bad game, option or teacher: one line, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        folder = write_bot(policy, args.out)
    except OSError as exc:  # what out_problem cannot foresee (a full disk, a folder it may not create)
        print(f"error: cannot write the bot folder {args.out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    matches = f"{args.episodes} match{'' if args.episodes == 1 else 'es'}"
    print(f"{folder}: {len(policy['rows'])} actions learned from {matches} of {args.teacher}; "
          f"agrees with it on {agree:.0%} of held-out decisions")
    if note := check_note(policy):
        print(note, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
