"""A learned value of a Spades deal for issue 39's variance cut: gradient-boosted trees instead of
least squares (docs/strength.md, "Spades' 0.5x in the eighteenth session").

With deterministic bots a duplicate deal's margin U is a function of the deal; a value v(deal, bids)
fixed in advance, its expectation taken from bidding-only probes, corrects U without bias whatever v
is (``arbiter.rating.luck``). The linear values stop at about 0.78 of U's variance; this measures how
far a flexible model fitted on many deals of the pair gets, on deals it never saw:

* ``U``: trees on the deal's numbers (per seat: suit lengths, honours, the hand's crude tricks; per
  seating: every bid, each side's bids against its crude tricks; ``value_features``) predicting U;
* ``side``: trees predicting each side's points in each seating (four rows a deal: the side's and the
  opponents' hands and bids, which bot holds the side, its seat) and U from them: what the bots share
  is learnt once for both seatings;
* ``side + cards``: the same with every card's owner besides (52 x 4 bits).

The boosting rounds are chosen on the measured deals, so the figures are a bound from above on what
the model gives. Needs LightGBM (and scikit-learn, its estimator API) beside the arbiter's packages
(not dependencies of the project):

    python -m venv /tmp/ldv && /tmp/ldv/bin/pip install -e packages/card-arena-sdk -e . lightgbm scikit-learn
    /tmp/ldv/bin/python scripts/learned_deal_value.py --train 60000 --test 10000

(60,000 and 10,000 deals of heuristic against greedy, one hand: about 13 minutes of play on 2 cores,
kept in ``--cache`` for the next run; the fits about 10 minutes.)
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
from pathlib import Path

import lightgbm as lgb
import numpy as np

from arbiter.rating.luck import hand_numbers, value_features
from arbiter.tournament.probes import probe_seeds, replay_seatings
from cardarena.games.cards import Suit


def deals(tag: str, n: int, jobs: int, cache: Path) -> list:
    """``n`` deals of heuristic against greedy (both seatings) on the seeds of ``tag``, played once."""
    path = cache / f"{tag}-{n}.pkl"
    if path.exists():
        return pickle.loads(path.read_bytes())
    seeds, out = probe_seeds(tag, n), []
    for i in range(0, n, 1000):
        played = replay_seatings("spades", "heuristic", "greedy", seeds[i:i + 1000], (0, 1), {"deals": 1}, jobs=jobs)
        out += [[dataclasses.replace(r, actions=()) for r in pair] for pair in played]
        print(f"{tag}: {len(out)} of {n} deals", flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(out))
    return out


def hand_row(hand, bits: bool) -> list[float]:
    row: list[float] = []
    for s in Suit:
        ranks = {c.rank for c in hand if c.suit == s}
        row += [len(ranks)] + [float(r in ranks) for r in (1, 13, 12, 11, 10)]
        if bits:
            row += [float(r in ranks) for r in range(1, 14)]
    n = hand_numbers(hand)
    return row + [n["hcp"], n["quick"], n["voids"], n["singletons"]]


def deal_table(pairs) -> tuple[np.ndarray, np.ndarray]:
    """One row a deal and its U."""
    names = sorted(value_features(pairs[0]))
    rows = []
    for pair in pairs:
        row = [x for h in pair[0].hands for x in hand_row(h, False)]
        for r in pair:
            row += [float(b or 0) for b in r.bids]
            for bot in (0, 1):
                seats = r.side_of(bot)
                bid = sum(r.bids[s] or 0 for s in seats)
                quick = sum(hand_numbers(r.hands[s])["quick"] for s in seats)
                row += [bid, quick, bid - quick, sum(1 for s in seats if not r.bids[s])]
        vf = value_features(pair)
        rows.append(row + [vf.get(k, 0.0) for k in names])
    return np.array(rows), np.array([(p[0].margin + p[1].margin) / 2 for p in pairs])


def side_table(pairs, bits: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Four rows a deal (seating x side), the side's points, and +1 where bot A holds the side."""
    rows, points, sign = [], [], []
    for pair in pairs:
        for r in pair:
            bids = [r.bids[s] or 0 for s in range(4)]
            quick = [hand_numbers(h)["quick"] for h in r.hands]
            for side in (0, 1):
                own, opp = (side, side + 2), (1 - side, 3 - side)
                row = [side, r.who[side]]
                for s in own + opp:
                    row += hand_row(r.hands[s], bits)
                row += [bids[s] for s in own + opp] + [sum(bids[s] for s in own), sum(bids[s] for s in opp), sum(bids)]
                row += [sum(quick[s] - bids[s] for s in own), sum(quick[s] - bids[s] for s in opp)]
                row += [sum(1 for s in own if bids[s] == 0), sum(1 for s in opp if bids[s] == 0)]
                rows.append(row)
                points.append(r.summary.sides[side].points)
                sign.append(1.0 if r.who[side] == 0 else -1.0)
    return np.array(rows), np.array(points, float), np.array(sign)


def trees(x, y, xt, yt, leaves: int) -> np.ndarray:
    model = lgb.LGBMRegressor(n_estimators=3000, learning_rate=0.03, num_leaves=leaves, min_child_samples=40,
                              subsample=0.8, subsample_freq=1, colsample_bytree=0.7, verbose=-1, n_jobs=1)
    model.fit(x, y, eval_set=[(xt, yt)])
    best = int(np.argmin(model.evals_result_["valid_0"]["l2"])) + 1
    return model.predict(xt, num_iteration=best)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=int, default=60_000)
    ap.add_argument("--test", type=int, default=10_000)
    ap.add_argument("--sizes", default="15000,60000", help="training sizes to fit on (the first N deals)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path("learned-deal-value"))
    a = ap.parse_args()
    train, test = deals("gbm-train", a.train, a.jobs, a.cache), deals("gbm-test", a.test, a.jobs, a.cache)
    xt, u = deal_table(test)
    matches = np.array([r.margin for p in test for r in p])
    duplicate = 2 * u.var() / matches.var()
    print(f"{len(test)} measured deals: duplicate {duplicate:.3f} per match against independent deals")

    def say(what: str, pred: np.ndarray) -> None:
        ratio = (u - pred).var() / u.var()
        print(f"{what:44s} variance {ratio:.3f}  per match {duplicate * ratio:.3f}", flush=True)

    x, y = deal_table(train)
    vf = slice(x.shape[1] - len(value_features(train[0])), None)
    ones = lambda m: np.c_[np.ones(len(m)), m]  # noqa: E731
    say(f"least squares, value_features, {len(train)}", ones(xt[:, vf]) @ np.linalg.lstsq(ones(x[:, vf]), y, rcond=None)[0])
    for n in (int(s) for s in a.sizes.split(",")):
        say(f"trees on U, {n} deals", trees(x[:n], y[:n], xt, u, 31))
    for bits in (False, True):
        sx, sy, _ = side_table(train, bits)
        sxt, syt, sign = side_table(test, bits)
        for n in (int(s) for s in a.sizes.split(",")):
            pred = trees(sx[:4 * n], sy[:4 * n], sxt, syt, 63)
            say(f"trees per side{' + cards' if bits else ''}, {n} deals", (pred * sign).reshape(-1, 4).sum(1) / 2)


if __name__ == "__main__":
    main()
