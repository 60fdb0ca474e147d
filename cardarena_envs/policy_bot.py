"""A bot that plays a saved linear policy over the SDK encoding (pure SDK: no numpy).

``python -m cardarena_envs.train`` writes a bot folder holding a copy of this file as
``bot.py`` and the policy as ``policy.json`` beside it; ``arbiter play GAME FOLDER ...``
plays it like any folder bot. At every decision the bot encodes its view with
``sdk.encoding`` (the same functions the trainer used), scores each legal action's index
``i`` as ``bias[i] + weights[i] . x``, and plays the highest (ties: the first legal one).
An index the policy never saw in training scores below every seen one.

The policy file: ``{"format": "cardarena-linear-policy/1", "game", "options", "size",
"num_actions", "teacher", "rows": {index: [size floats]}, "bias": {index: float}}``. The bot
refuses (a clear error at the match start) a match whose encoding differs in shape.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cardarena.games.options import options_to_dict
from sdk import Bot
from sdk.encoding import encoder

FORMAT = "cardarena-linear-policy/1"
UNSEEN = -1e9


def load_policy(path: str | os.PathLike) -> dict:
    """The policy at ``path``, checked; ValueError naming what is wrong."""
    try:
        policy = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the policy {path}: {exc}") from None
    if not isinstance(policy, dict) or policy.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} policy")
    return policy


def options_apart(trained: dict, enc) -> tuple[str, str] | None:
    """The options the policy was trained with that the encoder ``enc`` does not have, and
    ``enc``'s, as ``KEY=VALUE, ...`` texts (None if none differ): the sizes alone ("1307
    values; this match's has 1364") left the trainer to find which option (Spot's
    ``players``) moved them."""
    now = json.loads(json.dumps(options_to_dict(enc.options), default=str))
    apart = sorted(k for k in trained.keys() | now.keys() if trained.get(k) != now.get(k))
    if not apart:
        return None
    said = lambda opts: ", ".join(f"{k}={json.dumps(opts.get(k))}" for k in apart)  # noqa: E731
    return said(trained), said(now)


class LinearPolicyBot(Bot):
    """Plays the linear policy of ``policy.json`` (beside this file, or ``policy_path``)."""

    name = "learned"
    version = "1"
    games = ("*",)

    def __init__(self, policy_path: str | os.PathLike | None = None) -> None:
        super().__init__()
        path = policy_path or os.environ.get("CARDARENA_POLICY") or Path(__file__).with_name("policy.json")
        self.policy = load_policy(path)
        self.games = (self.policy["game"],)
        size = self.policy["size"]
        self.rows = {int(i): [float(w) for w in row] for i, row in self.policy["rows"].items()}
        self.bias = {int(i): float(b) for i, b in self.policy["bias"].items()}
        if any(len(row) != size for row in self.rows.values()):
            raise ValueError(f"{path}: a weight row is not {size} long")

    def on_match_start(self, info) -> None:
        self.enc = encoder(info.game, info.options)
        if (self.enc.size, self.enc.num_actions) != (self.policy["size"], self.policy["num_actions"]):
            apart = options_apart(self.policy["options"], self.enc)
            which = f" ({apart[0]}; this match: {apart[1]})" if apart else ""
            raise ValueError(
                f"the policy was trained for {self.policy['game']}{which} "
                f"with an encoding of {self.policy['size']} values and {self.policy['num_actions']} actions; this "
                f"match's has {self.enc.size} and {self.enc.num_actions}")

    def score(self, x: list[float], index: int) -> float:
        row = self.rows.get(index)
        if row is None:
            return UNSEEN
        return self.bias[index] + sum(w * v for w, v in zip(row, x) if v)

    def choose(self, view, legal_actions):
        x = self.enc.encode(view)
        indices = self.enc.legal_indices(legal_actions)
        best = max(range(len(indices)), key=lambda k: (self.score(x, indices[k]), -k))
        return legal_actions[best]
