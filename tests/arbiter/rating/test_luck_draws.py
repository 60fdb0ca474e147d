"""The luck of the draws at Spot and Spite and Malice (arbiter/rating/draws.py, `arbiter evaluate
--luck-adjusted` on those games, issue 39): every draw from the stock scored against the stock's
exact mean, read from the records replayed by the engine; the features' mean 0 on seeded matches;
the flag end to end (evaluate, its sequential test, the standings of a stored evaluation); what it
refuses. The variance it cuts is measured in the bench (`draws.*`, `python -m arbiter.tools.bench -s
statistics`) and docs/strength.md ("The draws")."""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

from arbiter.batch.plan import deal_seed
from arbiter.cli import app
from arbiter.rating.draws import DRAW_FEATURES, deal_features, draw_luck, draw_names, zero_check
from arbiter.rating.luck import MIN_DEALS
from arbiter.rating.stats import mean_se
from arbiter.store.db import Store
from arbiter.tournament.evaluate import evaluate
from arbiter.tournament.probes import luck_probes, replay_seatings, stored_luck
from cardarena.games import ConfigError
from tests.arbiter.rating.test_luck import evaluate_error

#: One worker runs the module: its module fixture, the stored Spot evaluation
#: (``spot_eval``, ~1 CPU-s), was made again on every worker that
#: ran a run of its tests (xdist hands a module out in runs of eight).
pytestmark = pytest.mark.xdist_group("luck-draws")

SPOT = {"hands": 1}
SM = {"payoff_size": 5, "stalemate_rule": "fewer_payoff_wins"}  # short games


def _seatings(game: str, options: dict, deals: int, seed: int, a: str = "random", b: str = "random"):
    return replay_seatings(game, a, b, [deal_seed(seed, d) for d in range(deals)], (0, 1), options)


@pytest.mark.parametrize("game,options,deals", [("spot", SPOT, 20), ("spite-and-malice", SM, 12)])
def test_every_feature_has_mean_zero_on_seeded_matches(game, options, deals) -> None:
    """Each feature of every draw is centred on the stock's exact mean, so its sum over a seat's draws
    has expectation 0 whatever the bots do: over seeded matches its mean is within 3.5 s.e. of 0, the
    s.e. clustered by deal (``zero_check``: random against random plays the same match in both
    seatings), while the drawn cards' own features are not: the centring is what makes it 0 (uncentred,
    on these deals and with this s.e., every feature's mean is 4.3 s.e. or more from 0, most over 10)."""
    names = draw_names(game, every=True)
    luck = [[draw_luck(game, options, r.seed, r.actions) for r in pair] for pair in _seatings(game, options, deals, 11)]
    assert sum(seat["draws"] for deal in luck for seating in deal for seat in seating) > 10 * deals
    for k, m in zero_check(luck, names).items():
        assert m.se and abs(m.mean) < 3.5 * m.se, (k, m)


def test_spot_scores_every_draw_from_the_stock_and_none_from_the_discards() -> None:
    (pair,) = _seatings("spot", SPOT, 1, 3)
    for r in pair:
        luck = draw_luck("spot", SPOT, r.seed, r.actions)
        from cardarena.games import get_game

        state = get_game("spot", SPOT).new_initial_state(r.seed)
        stock_draws = [0] * len(luck)
        for a in r.actions:
            if a == "draw stock":
                stock_draws[state.current_seat] += 1
            state.apply(state.game.parse_action(a))
        assert [s["draws"] for s in luck] == stock_draws and sum(stock_draws) > 0


def test_a_draws_luck_is_the_drawn_cards_features_less_the_stocks_mean() -> None:
    """Each match's first scored draw alone (its actions cut after it): the seat's sum is
    f(drawn) - E f over the stock it came from, per feature (the module's definition, worked
    out here from the feature function on the state before the draw)."""
    from arbiter.rating.draws import _GAMES
    from cardarena.games import get_game

    (pair,) = _seatings("spot", SPOT, 1, 3)
    checked = 0
    for r in pair:
        state = get_game("spot", SPOT).new_initial_state(r.seed)
        for i, a in enumerate(r.actions):
            seat = state.current_seat
            if a != "draw stock":
                state.apply(state.game.parse_action(a))
                continue
            stock = list(state.stock_cards())
            events = state.apply(state.game.parse_action(a))
            (drawn,) = [e.cards for e in events if e.kind == "draw" and e.visible_to is not None]
            names, feats = _GAMES["spot"]
            f = feats(state, seat, [c for c in state.hand_cards(seat) if c not in drawn])
            luck = draw_luck("spot", SPOT, r.seed, r.actions[:i + 1])[seat]
            for j, name in enumerate(names):
                want = sum(f(c)[j] for c in drawn) - len(drawn) * sum(f(c)[j] for c in stock) / len(stock)
                assert luck[name] == pytest.approx(want), (name, luck, want)
            assert luck["draws"] == 1
            checked += 1
            break
    assert checked == len(pair)


def test_a_deals_features_are_bot_a_minus_bot_b_over_the_seatings() -> None:
    one = [{"deadwood": 1.0, "draws": 2.0}, {"deadwood": -2.0, "draws": 1.0},
           {"deadwood": 3.0, "draws": 1.0}, {"deadwood": 0.0, "draws": 1.0}]
    f = deal_features([(one, (0, 1, 0, 1)), (one, (1, 0, 1, 0))])
    assert f == {"deadwood": pytest.approx((1 + 3) / 2 - (-2 + 0) / 2 + (-2 + 0) / 2 - (1 + 3) / 2)}


@pytest.fixture(scope="module")
def spot_eval(tmp_path_factory):
    """A stored evaluate --luck-adjusted of Spot (MIN_DEALS deals): the store and the result."""
    db = tmp_path_factory.mktemp("draws") / "arena.db"
    luck = luck_probes("spot", "heuristic", "random", SPOT)
    assert luck.draws and luck.decisions == 0 and luck.expected.names == DRAW_FEATURES["spot"]
    with Store(db) as store:
        r = evaluate("spot", "heuristic", "random", deals=MIN_DEALS, seed=4, options=SPOT, store=store, name="spot",
                     luck=luck)
    return db, r


def test_the_flag_on_spot_reads_the_records_replayed_by_the_engine(spot_eval) -> None:
    """evaluate --luck-adjusted on Spot: no probes (exact expectations), each deal's features those
    of its matches replayed by the engine, the adjusted mean within 3 s.e. of the raw one."""
    _, r = spot_eval
    again = _seatings("spot", SPOT, 2, 4, "heuristic", "random")
    assert [deal_features([(draw_luck("spot", SPOT, s.seed, s.actions), s.who) for s in pair]) for pair in again] \
        == r.luck_features[:2]
    adj = r.luck
    assert adj is not None and adj.exact and adj.probe_se == 0 and adj.raw.mean == pytest.approx(r.mean_margin)
    assert abs(adj.mean - adj.raw.mean) < 3 * math.hypot(adj.se, adj.raw.se or 0)
    assert r.to_json()["luck"]["of"] == "draws"


def test_the_standings_of_a_stored_spot_evaluation_say_the_same(spot_eval, tmp_path) -> None:
    db, played = spot_eval
    with Store(db, read_only=True) as store:
        again = stored_luck(store, "spot", lambda *a: luck_probes(*a))
    assert again.luck_features == played.luck_features and again.luck.mean == pytest.approx(played.luck.mean)
    out = CliRunner().invoke(app, ["standings", "spot", "--db", str(db), "--luck-adjusted"])
    assert out.exit_code == 0, out.output
    assert "the margin above is raw; with the luck of the draws taken out" in out.output
    adj = played.luck
    assert f"luck-adjusted margin {adj.mean:+.2f} ± {adj.se:.2f} (s.e.), raw {adj.raw}" in out.output
    assert "the luck of the cards drawn from the stock" in out.output and "probe" not in out.output
    with pytest.raises(ConfigError, match="no probes"):
        luck_probes("spot", "heuristic", "random", SPOT, file=tmp_path / "p.json")


def test_the_sequential_test_reads_the_adjusted_margins_and_says_so() -> None:
    out = CliRunner().invoke(app, ["evaluate", "spot", "heuristic", "random", "--deals", "8", "-o", "hands=1",
                                   "--luck-adjusted", "--sprt", "0,300", "--sd-bound", "200"])
    assert out.exit_code == 0, out.output
    assert "on the luck-adjusted margin" in out.output and "centred on the draws' expectations, exact" in out.output
    assert "luck-adjusted margin: none, " in out.output and "deals are fewer than" in out.output


def test_spite_and_malice_short_games_give_an_adjusted_margin() -> None:
    shorter = {**SM, "payoff_size": 2}  # MIN_DEALS deals to play: 1.9 CPU-s, 2.8 at 5 (every deal still draws wild cards)
    luck = luck_probes("spite-and-malice", "heuristic", "random", shorter)
    r = evaluate("spite-and-malice", "heuristic", "random", deals=MIN_DEALS, seed=2, options=shorter, luck=luck)
    adj = r.luck
    assert adj is not None and adj.exact and adj.features == len(DRAW_FEATURES["spite-and-malice"])
    assert any(f["wild"] != 0 for f in r.luck_features)


@pytest.mark.parametrize("args,words", [
    (["spot", "heuristic", "random", "-o", "hands=1", "--luck-adjusted", "--probes", "100"], "no probes"),
    (["spite-and-malice", "heuristic", "random", "--luck-adjusted", "--probes-file", "p.json"], "no probes"),
    (["spite-and-malice", "heuristic", "random", "--luck-adjusted", "--sprt", "0,0.5"], "--sd-bound"),
])
def test_what_the_draws_refuse_is_one_clear_error(args, words) -> None:
    line = evaluate_error(args)
    assert words in line, line


def test_every_draws_bench_figure_has_a_label_and_a_target() -> None:
    from arbiter.tools.statreport import BENCH_LABELS, DRAW_PAIRS, draw_key

    keys = {f"draws.{draw_key(g, a, b)}.{k}" for g, a, b, _ in DRAW_PAIRS
            for k in ("ratio", "per_match", "plain_per_match", "shift_z", "feature_z", "null_rank")}
    assert len(keys) == 24 and keys <= set(BENCH_LABELS)
    assert {g for g, *_ in DRAW_PAIRS} == {"spot", "spite-and-malice"}



def test_the_null_rank_tells_a_correction_that_cuts_from_one_that_harms() -> None:
    """The bench's ``draws.*.null_rank`` on seeded simulated deals (150 deals, 2 features): a
    correction by features that explain a tenth of the margins ranks below every sign flip of them,
    the same correction with its sign flipped above every one, and features unrelated to the
    margins in between: their rank is uniform, so over ten seeded sets of them (this one and the
    next nine) it lies within 0.05..0.95 on at least eight (each falls outside one time in ten) and
    averages about 1/2; a null that does not flip ranks every one 0 (docs/strength.md, "The draws")."""
    import random

    from arbiter.rating.luck import FOLDS, RIDGE, regression_adjusted
    from arbiter.tools.statreport import null_rank

    rng = random.Random(5)
    feats = [{"x": rng.gauss(0, 1), "y": rng.gauss(0, 1)} for _ in range(150)]
    noise = [rng.gauss(0, 1) for _ in feats]
    names, zero = ("x", "y"), {"x": 0.0, "y": 0.0}

    def rank(margins, corrected) -> float:
        seen = (mean_se(corrected).se / mean_se(margins).se) ** 2
        return null_rank(seen, margins, feats, names, random.Random(1), 100)

    cut = [0.33 * (f["x"] - f["y"]) + e for f, e in zip(feats, noise)]
    fitted = regression_adjusted(cut, feats, zero, names, FOLDS, RIDGE).corrected
    assert rank(cut, fitted) == 0.0
    assert rank(cut, [2 * m - c for m, c in zip(cut, fitted)]) == 1.0  # the correction added, not taken away
    unrelated = []
    for seed in range(5, 15):
        if seed > 5:
            rng = random.Random(seed)
            feats = [{"x": rng.gauss(0, 1), "y": rng.gauss(0, 1)} for _ in range(150)]
            noise = [rng.gauss(0, 1) for _ in feats]
        unrelated.append(rank(noise, regression_adjusted(noise, feats, zero, names, FOLDS, RIDGE).corrected))
    assert sum(0.05 <= r <= 0.95 for r in unrelated) >= 8, unrelated
    assert 0.3 <= sum(unrelated) / len(unrelated) <= 0.7, unrelated


def test_the_null_rank_holds_a_correct_correction_where_the_margins_spread_with_the_features() -> None:
    """The null rank's sign flips keep each deal's |features| with its margin: on seeded simulated deals
    whose margins spread more where the features are large (a size s a deal, lognormal; features s
    times theirs, the margin's noise s^2 times its own, its mean owing them nothing; 250 deals, the
    bench's Spite and Malice size), a correct correction stays below the far pairs' 0.99 on every set,
    where shuffling the features over the deals (the null before the tenth session) ranks it at 0.99
    or above on three of these four; and the same correction with its sign flipped, on margins the
    features do explain, is still caught (docs/strength.md, "The far pairs' null rank")."""
    import random

    from arbiter.rating.luck import FOLDS, RIDGE, regression_adjusted
    from arbiter.tools.statreport import _flipped_ratio, null_rank

    names, zero = ("x", "y"), {"x": 0.0, "y": 0.0}
    for seed in range(4):
        rng = random.Random(seed)
        size = [rng.lognormvariate(0, 0.6) for _ in range(250)]
        feats = [{"x": s * rng.gauss(0, 1), "y": s * rng.gauss(0, 1)} for s in size]
        noise = [rng.gauss(0, 1) * s**2 for s in size]
        seen = regression_adjusted(noise, feats, zero, names, FOLDS, RIDGE).variance_ratio
        assert null_rank(seen, noise, feats, names, random.Random(1), 50) < 0.99, seed
        cut = [0.7 * (f["x"] + f["y"]) + e for f, e in zip(feats, noise)]
        harm = _flipped_ratio(cut, regression_adjusted(cut, feats, zero, names, FOLDS, RIDGE))
        assert null_rank(harm, cut, feats, names, random.Random(1), 50) >= 0.99, seed


@pytest.mark.parametrize("given,named", [(["--probes", "10"], "--probes: "), (["--probes-file", "p.json"], "--probes-file: "),
                                         (["--probes", "10", "--probes-file", "p.json"], "--probes and --probes-file: ")])
def test_a_draw_games_probes_flags_are_refused_by_the_ones_given(given, named) -> None:
    """Spot and Spite and Malice take no probes: "--probes 10" alone was refused as "--probes and
    --probes-file: ... leave them out", naming a flag not given."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    r = CliRunner().invoke(app, ["evaluate", "spot", "heuristic", "random", "-o", "hands=1", "--deals", "40",
                                 "--luck-adjusted", *given])
    assert r.exit_code == 2 and f"error: {named}spot's draws" in r.output, r.output
    assert ("leave them out" if " and " in named else "leave it out") in r.output, r.output


def test_spite_and_malice_reach_lets_a_wild_card_stand_only_for_what_the_rules_allow() -> None:
    """The book rules: a joker may not stand for an A (wild_excluded_ranks), so a drawn joker
    cannot start a pile and, with no ace anywhere, carries nothing up to the pay-off 2D; reach
    read every wild card as filling any gap, the ace too, and scored the joker's draw as
    reaching the pay-off card. A natural ace does reach it."""
    from arbiter.rating.draws import _sm_features
    from cardarena.games import get_game
    from cardarena.games.cards import Card

    g = get_game("spite-and-malice", None, "book")
    st = g.state_from_layout(payoffs=["4D 2D", "4D 10C"], hands=["9S 9S 9H 9C", "9S 9S 9H 9H 9C"], stock="5C 7H")
    names = ("playable", "wild", "bridge", "payoff_rank", "reach", "run")
    f = _sm_features(st, 0, list(st.hands[0][:4]))
    joker, ace = dict(zip(names, f(Card.parse("JK")))), dict(zip(names, f(Card.parse("AH"))))
    assert joker["playable"] == 0.0 and joker["reach"] == 0.0 and joker["run"] == 0.0
    assert ace["playable"] == 1.0 and ace["reach"] == 1.0
