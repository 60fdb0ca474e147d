"""`arbiter evaluate`: a duplicate match between two bots, in process, with its margin ± s.e.

    arbiter evaluate spades search heuristic --deals 20 --seed 1 -o deals=1 --jobs 2
    arbiter evaluate spades heuristic random --sprt 0,50 --bounds -700,700 -o deals=1   # stop when decided
    arbiter evaluate spades heuristic greedy --sprt 0,20 --sd-bound 45 -o deals=1      # deals' s.d. at most 45
    arbiter evaluate spades mybot.py greedy --sprt 0,20 --db eval.sqlite -o deals=1   # with 100 of the pair's deals there: short
    arbiter evaluate spades mybot.py greedy --sprt 0,20 --sd-bound auto --db eval.sqlite -o deals=1   # S from earlier ones
    arbiter evaluate spades mybot.py greedy --sprt 0,20 --db eval.sqlite -o deals=1 --plan  # deals each test would need
    arbiter evaluate spades heuristic random --sprt 0.5,0.6 --sequential score -o deals=1  # on the pair score
    arbiter evaluate spot search heuristic --sprt 0,5 --sequential normal -o hands=1 --db eval.sqlite   # resumable
    arbiter evaluate spades search heuristic --sprt 0.5,0.55 --sequential score --cluster tcp://10.0.0.5:8786 -j 32
    arbiter evaluate spades heuristic greedy --deals 400 --luck-adjusted -o deals=1    # the deal's luck taken out
    arbiter evaluate spot heuristic random --deals 200 --luck-adjusted -o hands=1       # the draws' luck taken out
"""

from __future__ import annotations

import contextlib
import json
import math
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape

from cardarena.games import GAMES
from arbiter.batch.settings import check_store_for_registered, is_trusted
from arbiter.rating.betting import SEQUENTIAL
from arbiter.rating.luck import MIN_DEALS as LUCK_MIN_DEALS
from arbiter.rating.sprt import MIN_DEALS
from arbiter.cli._common import (environment, ENV_STOP_GRACE, ENV_BOT_ENVS,
    OptionOpt, PresetOpt, UsageError, _parse_options, _run, app, check_writable, creating_store, err, interrupted_run,
    is_stdout, need, out, show_progress, terminate_as_interrupt, write_text,
)

if TYPE_CHECKING:
    from arbiter.tournament.evaluate import EvalResult

#: The cap on deals of a sequential test when --deals is not given.
SPRT_MAX_DEALS = 1000
FIXED_DEALS = 10


@app.command(epilog=environment(ENV_STOP_GRACE, ENV_BOT_ENVS))
def evaluate(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
    bot_a: Annotated[str, typer.Argument(help="Bot A: bundled name (random, heuristic, search...), FILE.py, a folder, or name@version from the registry of --db.")],
    bot_b: Annotated[str, typer.Argument(help="Bot B, the reference A is measured against.")],
    deals: Annotated[
        Optional[int],
        typer.Option("--deals", help=f"Deals to play; each is played twice, the bots swapping seats. With --sprt: the "
                                     f"most to play (default {SPRT_MAX_DEALS}; else {FIXED_DEALS}).")] = None,
    seed: Annotated[Optional[int], typer.Option(
        "--seed", help="Deal seed: the same seed replays the same deals. Default: 0 for bots installed with the arbiter; "
                       "a secret one if a bot is not (a file, folder or registered bot could compute the deals of a "
                       "known seed): drawn at random, or with --db the seed of the same evaluation left "
                       "unfinished there (with --name: of the evaluation of that name), resumed; printed at the "
                       "end")] = None,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (1: play in this process). With "
                                                           "--transport local or grpc: matches at once. With "
                                                           "--cluster: matches sent at a time (1: 16).")] = 1,
    decision_ms: Annotated[int, typer.Option("--decision-ms", help="Per-decision limit given to the bots in ms (0: none).")] = 0,
    sprt: Annotated[
        Optional[str],
        typer.Option("--sprt", metavar="M0,M1",
                     help="Sequential test, H0: A's margin per deal <= M0 against H1: >= M1 (game units; with "
                          "--sequential score: A's expected pair score, 0.5 = equal); stops as soon as one is "
                          "accepted.")] = None,
    sequential: Annotated[
        Optional[str], typer.Option("--sequential", help="With --sprt: betting (the default without --db: an anytime-valid "
                                               "test on the margin, its error rates hold on any distribution of deals "
                                               "within --bounds; with --db where it holds no 100 deals of this pair "
                                               "played by today's bot files, the default is betting until the run has "
                                               "played 50 deals, then variance at 1.42x their s.d.), "
                                               "variance (the default with --sd-bound, and with --db where it holds "
                                               "those 100 deals: anytime-valid on any distribution "
                                               "whose s.d. is at most --sd-bound, checked as it goes; as short as "
                                               "the normal SPRT), "
                                               "score (another question: does A win more often, on the pair's "
                                               "win/draw/loss score 0..1, M0,M1 in expected score; not a stand-in "
                                               "for the margin), normal (the normal-approximation "
                                               "SPRT: fewer deals on near-normal margins, errs up to 8x too often on "
                                               "skewed ones).")] = None,
    sd_bound: Annotated[
        Optional[str],
        typer.Option("--sd-bound", metavar="S|auto", help="With --sprt: the most a deal margin's s.d. can be (game units; "
                                                     "e.g. from an earlier evaluation, with room); selects --sequential "
                                                     "variance. auto (with --db): 1.2x (1 + 2/sqrt(N) over N deals: less with more) the s.d. of the deal margins "
                                                     "of the same two bots stored there (same game and options, their "
                                                     "evaluations and duplicate round robins' tables of two pooled, once they "
                                                     "hold 100 deals), else the largest "
                                                     "of the pairs with either bot, else of any; kept for a resumed "
                                                     "run. The deals are checked "
                                                     "against it as they come: if they contradict it, the run stops "
                                                     "and says so.")] = None,
    bounds: Annotated[
        Optional[str],
        typer.Option("--bounds", metavar="LO,HI", help="With --sequential betting: the least and most a deal's margin can "
                                                       "be (game units, under the options played); a deal outside is "
                                                       "clipped. Derived without it from the rules: the widest margin "
                                                       "they allow under the options played, which a forfeit counts "
                                                       "(one Spades hand: -900,900; a single game of Spite and Malice: "
                                                       "-1,1); the output says them.")] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="With --sprt: chance of accepting H1 when the margin is M0.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="With --sprt: chance of accepting H0 when the margin is M1.")] = 0.05,
    min_deals: Annotated[
        Optional[int], typer.Option("--min-deals", help=f"With --sprt: no decision before this many deals (default: "
                                                        f"none for betting, variance and score, which need none to be valid; "
                                                        f"{MIN_DEALS} for normal).")] = None,
    sprt_model: Annotated[
        str, typer.Option("--sprt-model", help="With --sequential normal: glr (the Gaussian likelihood ratio, variance "
                                               "estimated) or normal (its linear approximation: quicker far from both, "
                                               "less exact).")] = "glr",
    db: Annotated[
        Optional[Path],
        typer.Option("--db", help="Store every match in this SQLite file; the same command run again resumes, "
                                  "and with a larger --deals extends it: only the deals added are played; with a smaller "
                                  "--deals (no --name) its first deals are read, none played. On a secret seed (a bot "
                                  "not installed here, no --seed) it resumes or extends only an unfinished evaluation "
                                  "or the one --name names, and reads none: after a finished one a new one starts on "
                                  "a new seed. Nothing is written until the run has started (its bots up, its cluster reached). A "
                                  "FILE not there yet is created once the game, its options and the bots are checked (a typo makes "
                                  "none), and said so on stderr.")] = None,
    name: Annotated[Optional[str], typer.Option("--name", help="With --db: the stored evaluation's name (default from the command).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="With --db: replace a stored evaluation of that name instead of resuming, once the new run has started (its bots up): one that cannot start leaves it as it was.")] = False,
    json_path: Annotated[Optional[Path], typer.Option("--json", help="Write the result and every match's scores to this JSON file (-: to stdout, the report then on stderr).")] = None,
    cluster: Annotated[
        Optional[str],
        typer.Option("--cluster", help="Play the matches on the Dask scheduler at this address (tcp://HOST:PORT), as "
                                       "tournaments do there: the bots as sandboxed processes on the workers, their "
                                       "files shipped; the same result as here (docs/cluster.md).")] = None,
    luck_adjusted: Annotated[
        bool,
        typer.Option("--luck-adjusted", help=f"Also give the margin with the luck taken out, beside the raw one, "
                                             f"from {LUCK_MIN_DEALS} deals on (slopes fitted on other deals: "
                                             f"unbiased); with --sprt (and --sd-bound or --sequential normal) the test "
                                             f"reads the adjusted margins. Spades, -o deals=1: the deal's luck, each "
                                             f"deal's bids against its cards, their expectation from --probes "
                                             f"bidding-only deals of the same bots (bundled bots or --transport inproc: "
                                             f"the probes play in this process). Spot and Spite and Malice: the luck "
                                             f"of the cards drawn from the stock, each against the stock's mean, read "
                                             f"from the records (no probes, any transport).")] = False,
    probes: Annotated[
        Optional[int],
        typer.Option("--probes", help="With --luck-adjusted: bidding-only probe deals that give the features' "
                                      "expectation (default 2000; a probe is about an eighth of a match).")] = None,
    probes_file: Annotated[
        Optional[Path],
        typer.Option("--probes-file", help="With --luck-adjusted: keep the probes in this JSON file for the next "
                                           "evaluation of the same bots, game and options, which reads them instead of "
                                           "playing them (20 played again each time, to check the bots still bid "
                                           "so), and the deals of each evaluation, from which the next one's sequential "
                                           "test fits its correction before its first deal.")] = None,
    plan: Annotated[
        bool,
        typer.Option("--plan", help="With --sprt and --db: play nothing; say how many deals each test (betting, "
                                    "--sd-bound auto or the --sd-bound given, normal) would need at M0, at M1 and at "
                                    "this pair's stored margin, and how often it would accept each side, by running it "
                                    "on deals drawn from those of the same two bots stored in --db (else their kin's), "
                                    "beside the fixed-length test's deals at their s.d.")] = False,
    transport: Annotated[
        str,
        typer.Option("--transport", help="auto (the default): bundled bots in this process, a file's or a registered "
                                         "bot hosted as local; inproc: the bots in this process (trusted code, the "
                                         "quickest); local: each bot as sandboxed processes on a private arbiter's local "
                                         "channel (plain frames, no HTTP/2), as tournaments play them; grpc: those "
                                         "processes over gRPC. The same deals, seatings and seeds every way.")] = "auto",
) -> None:
    """Play BOT_A against BOT_B on duplicate deals and print A's mean margin ± standard error.

    With --sprt M0,M1 the deals are played in order and the run stops at the first deal where the sequential test accepts H0 (margin <= M0) or H1 (margin >= M1), or at --deals with "no decision". With --sd-bound S the test is the variance-bounded one (--sequential variance): its error rates hold on any distribution of deals whose s.d. is at most S (skewed, heavy-tailed), it needs about as few deals as the normal SPRT, and the deals are checked against S as they come; --sd-bound auto (with --db) takes S as 1.2x the s.d. of the same two bots' deal margins stored there (their evaluations pooled, once they hold 100 deals; the room 1 + 2/sqrt(N) over N deals, less as they grow; else their kin's), and says which. With --db and no test named (--sequential, --sd-bound or --bounds), the store chooses: where it holds 100 deals of this very pair (either order, their other evaluations), every one played by today's bot files, the test is the variance-bounded one at --sd-bound auto's bound (measured within its error rates on every shape tried, docs/strength.md); else the betting test until the run itself has played 50 deals of the pair, then the variance-bounded test at 1.42x their s.d., the betting test's evidence carried over (about 2.1x a fixed test's deals on close Spades bots at 0,20 where the betting test alone takes 5x), and the output says why. Without either the default test (--sequential betting) holds its error rates on any deal distribution but needs the margin's bounds (--bounds; derived from the rules of every game under the options played: one Spades hand -900..900, a single game of Spite and Malice -1..1, Spot's and longer matches as wide as their rules allow), and is slow when they are much wider than the deals (the output says how many deals any test valid within those bounds needs; a narrower --bounds tests the margin clipped to it); --sequential score asks another question, "does A win more often" (the pair's win/draw/loss score), and is no stand-in for the margin; --sequential normal is the older SPRT, quicker on near-normal margins only (docs/strength.md). With --db it can be stopped and resumed: the same command continues where it was.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from arbiter.store.db import READ_ERRORS, Store
    from arbiter.tournament.evaluate import MAX_DEALS, EvalResult, check_evaluation, evaluate as run_evaluation
    from arbiter.rating.betting import known_bounds
    from arbiter.tournament.probes import LUCK_PROBES

    options = _run(_parse_options, option)
    if deals is not None and not 1 <= deals <= MAX_DEALS:
        _run(_raise, UsageError(f"--deals must be from 1 to {MAX_DEALS}, got {deals}"))
    test = None
    sequential_given = sequential is not None  # (--sd-bound's default, variance, is not a --sequential given)
    if sequential is None:
        sequential = "variance" if sd_bound is not None else "betting"
    if sprt is not None:
        kind = sequential
        if plan and kind == "betting" and bounds is None and _run(known_bounds, game, options, preset) is None:
            kind = "normal"  # the plan says the betting test needs --bounds here, and runs the others
        test = _run(_sprt, kind, sprt, alpha, beta, bounds, min_deals, sprt_model,
                    lambda: _run(known_bounds, game, options, preset), sd_bound, plan)
        if not sequential_given and sd_bound is None and bounds is None and db is not None and not plan \
                and not luck_adjusted:
            from arbiter.rating.catoni import OwnDealsOrBetting

            # no test named (--bounds names the betting test): the store says which, the variance-bounded
            # test on this pair's own 100 deals, else betting
            test = OwnDealsOrBetting(test)
    else:  # a test's flags without the test were dropped without a word
        given = [flag for flag, on in (("--sequential", sequential_given), ("--bounds", bounds is not None),
                                       ("--sd-bound", sd_bound is not None), ("--alpha", alpha != 0.05),
                                       ("--beta", beta != 0.05), ("--min-deals", min_deals is not None),
                                       ("--sprt-model", sprt_model != "glr")) if on]
        if given:
            _run(_raise, UsageError(f"{', '.join(given)}: the sequential test's settings need --sprt M0,M1 (the "
                                    "sequential test, H0: margin <= M0, H1: margin >= M1)"))
    cap = deals if deals is not None else (SPRT_MAX_DEALS if test else FIXED_DEALS)
    if test is not None and min_deals is not None and min_deals > cap:
        _run(_raise, UsageError(f"--min-deals {min_deals}: more than the {cap} deals the test may play (--deals)"))
    if test is not None and getattr(test, "min_deals", 0) > cap:  # its own minimum: a run that cannot decide
        _run(_raise, UsageError(f"--deals {cap}: fewer than the {test.min_deals} deals the normal SPRT plays before it "
                                f"may decide (--min-deals, default {MIN_DEALS} for it): give --deals {test.min_deals} "
                                f"or more, or another --sequential"))
    if not luck_adjusted:
        _run(need, (("--probes", probes is not None), ("--probes-file", probes_file is not None)), "--luck-adjusted")
    if plan:
        # a run's own settings would do nothing here, as a test's do without --sprt: refused, not dropped
        given = [flag for flag, on in (("--name", name is not None), ("--fresh", fresh), ("--jobs", jobs != 1),
                                       ("--decision-ms", decision_ms != 0), ("--json", json_path is not None),
                                       ("--transport", transport != "auto"), ("--cluster", cluster is not None)) if on]
        if given:
            one = len(given) == 1
            _run(_raise, UsageError(f"{', '.join(given)}: {'a setting' if one else 'settings'} of a run (the matches "
                                    f"played, stored, named or written), and --plan plays nothing: leave "
                                    f"{'it' if one else 'them'} out, or run without --plan"))
        _run(_plan, game, (bot_a, bot_b), options, preset, test,
             sequential if sequential_given or sd_bound is not None else "default", sd_bound, db, cap, seed or 0,
             luck_adjusted, bounds, alpha, beta, min_deals, sprt_model)
        return
    drawn = seed is None and not all(is_trusted(b) for b in (bot_a, bot_b))
    # Seeds are secrets (README): deals follow from the seed by a public scheme, so a bot
    # that is not installed with the arbiter never plays the deals of a known seed (None: the
    # library draws one, or resumes the same evaluation left unfinished in --db).
    seed = None if drawn else (0 if seed is None else seed)
    # one file for two outputs: the JSON written over the probes file, or onto the store it ran into
    outputs = [(flag, path) for flag, path in (("--json", json_path), ("--probes-file", probes_file), ("--db", db))
               if path is not None and not is_stdout(path)]
    for i, (flag, path) in enumerate(outputs):
        for other, where in outputs[i + 1:]:
            if path.resolve() == where.resolve():
                _run(_raise, UsageError(f"{flag} {path}: the same file as {other}: give each its own file"))
    if probes_file is not None:
        _run(check_writable, probes_file, "--probes-file")
    if luck_adjusted:
        _run(_check_luck, game, options, preset, bot_a, bot_b, transport, cluster, test, probes, probes_file)
        # known before the probes: the margin would be "none", and nothing kept for a later test (--probes-file)
        if test is None and cap < LUCK_MIN_DEALS and probes_file is None:
            _run(_raise, UsageError(f"--deals {cap}: fewer than the {LUCK_MIN_DEALS} deals --luck-adjusted needs for a "
                                    "margin (its slopes are fitted on deals held apart from the one they correct): "
                                    f"give --deals {LUCK_MIN_DEALS} or more (or --probes-file FILE, to keep these deals "
                                    "for a later sequential test's correction)"))
    if db is None:
        _run(need, (("--name", name is not None), ("--fresh", fresh)), "--db")
    if sd_bound == "auto" and test is not None and db is None:
        _run(_raise, UsageError("--sd-bound auto reads the s.d. of the evaluations stored before this one: give --db "
                                "FILE (or --sd-bound S)"))
    if sd_bound == "auto" and test is not None and not db.exists():  # refused before a store is made for nothing
        _run(_raise, UsageError(f"--sd-bound auto reads the s.d. of the evaluations stored before this one, and there "
                                f"is no store at {db} yet: run an evaluation into it first (a fixed number of deals, "
                                "or the default betting test), or give --sd-bound S"))
    if json_path is not None and not is_stdout(json_path):  # before the deals are played, not after
        _run(check_writable, json_path, "--json")
    # The store opened and locked before anything is played, --luck-adjusted's probes too (minutes
    # for a searching bot): one that cannot keep the matches (no folder, not a store, read-only), or
    # that another run is writing, is said now, not after them (the run keeps the lock it finds taken).
    # A scheduler's stop (SIGTERM) ends it as Ctrl-C does, from the store's opening on: the probes too.
    _run(check_evaluation, game, (bot_a, bot_b), options, preset)  # a typo refused before a store is made for it
    if db is not None:
        _run(check_store_for_registered, (bot_a, bot_b), db)  # not a store made for a bot that cannot be in it
        creating_store(db)
    with terminate_as_interrupt(), _run(Store, db) if db is not None else contextlib.nullcontext() as store:
        if store is not None:
            _run(store.lock)
            if luck_adjusted and sd_bound == "auto" and test is not None:  # before the probes, not after them
                _run(_auto_bound_exists, store, game, bot_a, bot_b, options, preset, test)
        columns = [TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[stat]}", markup=False),
                   TimeElapsedColumn()]
        with show_progress(*columns) as progress:
            deal_task = progress.add_task(f"{bot_a} vs {bot_b}: deals", total=cap, stat="")
            llr_task = None
            if test is not None:
                llr_task = progress.add_task("evidence", total=1000, stat="")

            def on_deal(r: EvalResult) -> None:
                progress.update(deal_task, completed=r.deals, stat=f"margin {r.margin}")
                s = r.sprt_state
                if llr_task is not None and s is not None:
                    progress.update(llr_task, completed=round(1000 * s.progress), stat=s.evidence())

            luck = None
            if luck_adjusted:
                from arbiter.tournament.probes import luck_probes

                n_probes = LUCK_PROBES if probes is None else probes
                probe_task = progress.add_task(f"{bot_a} vs {bot_b}: probe deals (bidding only)", total=n_probes,
                                               stat="", visible=game == "spades")
                luck = _run(luck_probes, game, bot_a, bot_b, options, preset, n_probes,
                            progress=lambda k: progress.update(probe_task, completed=k), file=probes_file)
                progress.remove_task(probe_task)

            started: list[EvalResult] = []  # the result, once the run knows what it continues or begins

            def on_start(r: EvalResult) -> None:
                started.append(r)
                for line in (_edited_line(r, db), _after_finished_line(r, db)):  # said now, not only once it is over
                    if line is not None:
                        progress.print(line, highlight=False, markup=False, soft_wrap=True)

            def run(store: Store | None) -> EvalResult:
                try:
                    return run_evaluation(
                        game, bot_a, bot_b, deals=cap, seed=seed, options=options, preset=preset, jobs=jobs,
                        decision_ms=decision_ms, sprt=test, store=store, name=name, fresh=fresh, on_deal=on_deal,
                        cluster=cluster, transport=transport, luck=luck, on_start=on_start,
                    )
                except KeyboardInterrupt:  # as `arbiter tournament run` says it: where the matches are, how to go on
                    if store is None:
                        raise
                    r = started[0] if started else None
                    kept = None
                    if r is not None and not r.begun and r.stored_as is not None:  # the store as it was
                        with contextlib.suppress(*READ_ERRORS):
                            kept = shlex.quote(r.stored_as) if store.stored_spec(r.stored_as) is not None else None
                    said = interrupted_run(db, "evaluation", r is not None and r.begun, fresh, kept,
                                           r is not None and r.read_of is None)
                    err.print(said, markup=False, highlight=False, soft_wrap=True)  # one line, a path never cut
                    raise typer.Exit(130) from None

            result = _run(run, store)
    if probes_file is not None and result.luck_features:
        from arbiter.tournament.probes import keep_fit

        seeds = sorted({(m.deal, m.seed) for m in result.matches})
        _run(keep_fit, probes_file, [s for _, s in seeds], result.deal_margins(), result.luck_features)
    # the report on stdout, or on stderr when the JSON goes there (--json -: stdout is the JSON alone)
    report = err if is_stdout(json_path) else out
    if result.read_of is not None:  # a stored evaluation of more deals: its first ones are these, read
        if result.read_held < result.read_of:  # its test stopped it: the deals past its decision were never played
            first = "the" if result.max_deals >= result.read_held else f"its first {result.max_deals} of the"
            held = (f"{first} {result.read_held} deals its sequential test stopped it after (of {result.read_of} "
                    "planned), the same seed")
        else:
            held = f"its first {result.max_deals} of {result.read_of} deals, the same seed"
        report.print(f"read from {result.stored_as} in {db} ({held}): {result.resumed} matches, none played, nothing of "
                     "it changed", highlight=False, markup=False, soft_wrap=True)
    elif result.resumed:
        report.print(f"resumed {result.stored_as}: {result.resumed} matches were already in {db}", highlight=False, markup=False)
    elif (line := _edited_line(result, db) or _after_finished_line(result, db)) is not None:  # (said at the start too)
        report.print(line, highlight=False, markup=False, soft_wrap=True)
    # each fact on one line (a script reads them), as text: a bot's path, an evaluation's name are not markup
    report.print(result.summary(), highlight=False, soft_wrap=True, markup=False)
    forfeits = result.forfeit_summary()
    if forfeits:
        if db is not None:  # each one, with its bot's stderr (a hosted bot's is nowhere else)
            forfeits += (f"; arbiter tournament show {shlex.quote(result.stored_as or '')} --failures --db "
                         f"{shlex.quote(str(db))} lists each")
        report.print(forfeits, highlight=False, soft_wrap=True, markup=False)
    luck_line = result.luck_summary()
    if luck_line:
        report.print(luck_line, highlight=False, soft_wrap=True, markup=False)
    if result.played or db is None:
        report.print(f"played: {result.venue}", highlight=False, soft_wrap=True, markup=False)
    else:  # no venue opened: where its matches were played is the stored run's, not this command's --transport
        report.print(f"played: none by this run, its {len(result.matches)} matches read from {db} as they were played "
                     "there", highlight=False, soft_wrap=True, markup=False)
    if drawn:
        how = "drawn at random" if result.seed_source == "drawn" else f"that of {result.stored_as}, resumed"
        report.print(f"seed {result.seed} {how} (a bot not installed with the arbiter could compute the deals of a known "
                     f"seed); --seed {result.seed} replays these deals", highlight=False, soft_wrap=True, markup=False)
    line = result.sprt_summary()
    if line:
        report.print(line, highlight=False, soft_wrap=True, markup=False)  # names --sd-bound auto's evaluations
    hint = worst = None
    if db is not None:  # the lines read from the store after the run, on one read-only connection
        from arbiter.store.db import StoreError

        try:
            with Store(db, read_only=True) as store:
                hint, worst = _auto_hint(store, result), _worst_line(store, db, result)
        except StoreError:
            pass
    if hint:
        report.print(hint, highlight=False, soft_wrap=True, markup=False)  # names stored evaluations: text
    se = "-" if result.margin.no_spread is not None else f"{result.stderr:.3f}"  # one deal, or all alike: none
    report.print(f"margin {result.mean_margin:+.3f}  s.e. {se}  win rate {result.win_rate:.3f}  matches {len(result.matches)}")
    if db is not None:
        kept = "stored" if result.read_of is None else f"its {result.read_held} deals" + (
            f" (of {result.read_of} planned: its test stopped it)" if result.read_held < result.read_of else "")
        report.print(f"{kept} in {escape(str(db))} as {escape(result.stored_as)}; [bold]arbiter standings {escape(shlex.quote(result.stored_as))} "
                     f"--db {escape(shlex.quote(str(db)))}[/] reads it",
                     highlight=False, soft_wrap=True)  # the command stays on one line, to copy
        if worst:
            report.print(worst, highlight=False, soft_wrap=True, markup=False)
    if json_path is not None:
        command = shlex.join(["arbiter", *sys.argv[1:]]) if sys.argv[1:2] == ["evaluate"] else ""
        text = json.dumps(result.to_json(command), separators=(",", ":")) + "\n"
        if is_stdout(json_path):
            sys.stdout.write(text)
        else:
            _run(write_text, json_path, text, "--json")
            report.print(f"matches written to {json_path}", highlight=False, soft_wrap=True, markup=False)


def _edited_line(result: EvalResult, db: Path | None) -> str | None:
    """The same command, a bot file edited since the evaluation it would continue: a new one
    (``EvalResult.edited``), said why, and the ways on (None: not so)."""
    if result.edited is None or result.resumed or result.read_of is not None:
        return None
    old, files = result.edited
    seed = ", on a new seed" if result.seed_source == "drawn" else ""
    left = " (left unfinished)" if result.seed_source == "drawn" else ""
    return (f"a new evaluation, {result.stored_as}{seed}: {', '.join(files)} changed since {old}{left} in {db}, which "
            f"was played with the file as it was (put it back to resume that one with this command; none deletes it: "
            f"--name {shlex.quote(old)} --fresh plays this file's evaluation in its place)")


def _after_finished_line(result: EvalResult, db: Path | None) -> str | None:
    """A new evaluation on a new secret seed where the same command's earlier one is finished
    (``EvalResult.after_finished``): said, with the way to continue that one instead (None: not so)."""
    if result.after_finished is None or result.resumed or result.read_of is not None:
        return None
    name, decided = result.after_finished
    way = (f"its sequential test decided: arbiter tournament show {shlex.quote(name)} --db {shlex.quote(str(db))} "
           "says what" if decided else f"--name {shlex.quote(name)} with a larger --deals plays more of its deals instead")
    return (f"a new evaluation, {result.stored_as}, on a new seed: {name} in {db}, of the same bots and settings, is "
            f"finished, and on a secret seed the same command does not continue a finished one ({way})")


def _sprt(kind: str, text: str, alpha: float, beta: float, bounds: str | None, min_deals: int | None, model: str,
          game_bounds, sd_bound: str | None = None, plan: bool = False):
    from arbiter.rating.betting import parse_bounds, sequential_test

    if kind not in SEQUENTIAL:
        raise UsageError(f"--sequential: expected one of {', '.join(SEQUENTIAL)}, got {kind!r}")
    # --plan runs every test whichever is chosen: each takes its own setting (--bounds the betting
    # test's, --sd-bound the variance test's, --sprt-model the normal SPRT's); a run refuses the others'
    if bounds is not None and kind != "betting" and not plan:
        raise UsageError(f"--bounds: only the betting test uses bounds (--sequential {kind} does not)")
    if model != "glr" and kind != "normal" and not plan:
        raise UsageError(f"--sprt-model: only the normal SPRT has a model (--sequential normal; --sequential {kind} "
                         "has none)")
    if plan and kind != "variance":
        sd_bound = None  # the plan's variance column reads it (_plan), not the chosen test
    try:
        lo_hi = parse_bounds(bounds) if bounds is not None else None
        if kind != "betting":
            lo_hi = None
        elif lo_hi is None:
            lo_hi = game_bounds()
        return sequential_test(kind, text, alpha, beta, bounds=lo_hi, min_deals=min_deals, model=model, sd_bound=sd_bound)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None


def _auto_bound_exists(store: Store, game: str, bot_a: str, bot_b: str, options: dict, preset: str | None,
                       test: AutoVarianceTest) -> None:
    """ConfigError now if ``--sd-bound auto`` will find no stored deals to read its bound from
    (``sd_from_store``, as the evaluation asks it once its probes are played): with
    ``--luck-adjusted`` those are minutes of play for a searching bot, played for a refusal.
    The evaluation being resumed counts among them here (it has its bound kept); the run itself
    reads without it, as before."""
    from arbiter.tournament.evaluate import sd_from_store

    sd_from_store(store, game, (bot_a, bot_b), dict(options or {}), preset, room=test.room, min_deals=test.history)


def _check_luck(game: str, options, preset, bot_a: str, bot_b: str, transport: str, cluster, test,
                probes=None, probes_file=None) -> None:
    """--luck-adjusted's conditions, before anything is played: a game it can correct, bots it may
    play in this process (the probes), a test whose assumptions hold for the corrected margins."""
    from arbiter.batch.venue import Kind, parse_where
    from arbiter.rating.betting import BettingTest
    from arbiter.rating.draws import DRAW_GAMES
    from arbiter.tournament.probes import check_probes, luck_game_error

    why = luck_game_error(game, options, preset)
    if why:
        raise UsageError(why)
    if game in DRAW_GAMES:
        given = [f for f, v in (("--probes", probes), ("--probes-file", probes_file)) if v is not None]
        if given:
            raise UsageError(f"{' and '.join(given)}: {game}'s draws are centred on expectations known exactly, "
                             f"with no probes: leave {'them' if len(given) > 1 else 'it'} out")
        if isinstance(test, BettingTest):
            raise UsageError("--luck-adjusted with --sprt: the betting tests' bounds are the raw margin's (or the "
                             "score's), which a correction does not keep; give --sd-bound S (S bounding the adjusted "
                             "margin's s.d.) or --sequential normal")
        return
    if probes is not None:
        check_probes(probes)
    where = parse_where(transport, cluster=cluster, bots=(bot_a, bot_b),
                        allowed=(Kind.INPROC, Kind.GRPC, Kind.LOCAL, Kind.CLUSTER), field="--transport")
    if where.kind is not Kind.INPROC:
        raise UsageError("--luck-adjusted plays its bidding-only probes in this process: bundled bots, or "
                         "--transport inproc for a bot you trust (not a cluster or hosted bots)")
    if isinstance(test, BettingTest):
        raise UsageError("--luck-adjusted with --sprt: the betting tests' bounds are the raw margin's (or the score's), "
                         "which a correction does not keep; give --sd-bound S (S bounding the adjusted margin's s.d.) "
                         "or --sequential normal")


def _auto_hint(store, result) -> str | None:
    """After a betting test on the margin: what ``--sd-bound auto`` would read from this store, if
    it holds an evaluation to read (the quicker test, named where it applies; None otherwise)."""
    from arbiter.rating.betting import BettingTest
    from arbiter.rating.catoni import AutoVarianceTest
    from arbiter.store.db import StoreError
    from arbiter.tournament.evaluate import sd_from_store
    from cardarena.games import ConfigError

    t = result.sprt
    if not isinstance(t, BettingTest) or t.kind != "margin":
        return None
    try:
        source = sd_from_store(store, result.game, (result.bot_a, result.bot_b), result.options, result.preset,
                               exclude=result.stored_as)
    except (ConfigError, StoreError):
        return None
    auto = AutoVarianceTest(t.m0, t.m1, t.alpha, t.beta).resolve(source.largest, source.room)
    n = auto.expected_deals(source.largest)
    about = f": about {math.ceil(n)} deals at M1 if this pair's deals vary as those did" if math.isfinite(n) else ""
    return (f"--sd-bound auto would test at s.d. at most {auto.sd_bound:g} here ({source.describe()}){about}; "
            f"its error rates hold if this pair's s.d. is at most {auto.sd_bound:g} (docs/strength.md); --plan "
            f"compares every test on these deals before a run")


def _worst_line(store, db: Path, result) -> str | None:
    """Where bot A lost most, and the command that says why (``arbiter analyse``); None if it lost
    no match or the store cannot say."""
    from arbiter.store.db import StoreError
    from arbiter.tournament.evaluate import worst_match

    try:
        w = worst_match(store, result)
    except StoreError:
        return None
    if w is None:
        return None
    who = f"{result.bot_a} (bot A)" if result.bot_a == result.bot_b else result.bot_a  # a bot against itself: which copy
    if w.failure:  # forfeited: no decision of it cost the match, its failure did
        return (f"{who} lost most in deal {w.deal}, seating {w.rotation} (margin {w.margin:+g}, forfeited: seat {w.seat} "
                f"{w.failure}): arbiter tournament show {shlex.quote(result.stored_as or '')} --match {w.match_id} "
                f"--db {shlex.quote(str(db))} says why, with the bot's stderr")
    return (f"{who} lost most in deal {w.deal}, seating {w.rotation} (margin {w.margin:+g}): "
            f"arbiter analyse {w.match_id} --seat {w.seat} --db {shlex.quote(str(db))} says which of its decisions cost it")


def _plan(game: str, bots: tuple[str, str], options, preset, test, sequential: str, sd_bound: str | None,
          db: Path | None, cap: int, seed: int, luck_adjusted: bool, bounds: str | None,
          alpha: float, beta: float, min_deals: int | None, sprt_model: str) -> None:
    """--plan: each test run on the stored deals (``arbiter.tournament.plan``), as a table."""
    from arbiter.cli.layout import Column, console_width, fitted_table
    from arbiter.rating.betting import known_bounds, parse_bounds
    from arbiter.store.db import Store
    from arbiter.tournament.evaluate import default_is_bounded
    from arbiter.tournament.plan import deals_plan

    if test is None or db is None:
        raise UsageError("--plan needs --sprt M0,M1 (the question) and --db FILE (the stored deals it reads)")
    if luck_adjusted:
        raise UsageError("--plan reads the stored margins as played: not with --luck-adjusted")
    if getattr(test, "kind", "margin") != "margin":  # the normal SPRT has no kind: it tests the margin
        raise UsageError(f"--plan: --sequential {sequential} asks another question than the margin; "
                         "plan the margin's tests (betting, variance, normal)")
    if not db.exists():
        raise UsageError(f"--plan: no store at {db}: run an evaluation with --db first")
    lo_hi = parse_bounds(bounds) if bounds is not None else known_bounds(game, options, preset)
    with Store(db, read_only=True) as store:
        try:
            p = deals_plan(store, game, bots, options, preset, test.m0, test.m1, alpha, beta, bounds=lo_hi,
                           sd_bound="auto" if sd_bound is None else sd_bound, min_deals=min_deals, model=sprt_model,
                           cap=cap, seed=seed)
        except ValueError as exc:  # a setting one of the tests beside the chosen one refuses (--min-deals 1: normal)
            raise UsageError(f"--{exc}") from None
    out.print(f"{bots[0]} vs {bots[1]} at {game}, H0: margin {p.m0:g} or less, H1: {p.m1:g} or more (alpha {p.alpha:g}, "
              f"beta {p.beta:g}): each test run {p.runs} times on deals drawn from {p.describe_source()}, moved to "
              f"each margin (at most {p.cap} deals a run, --deals)", highlight=False, soft_wrap=True, markup=False)  # stored names: text
    # with no test named, the one the store's deals choose (OwnDealsOrBetting): the pair's own, today's files
    default = ("auto",) if default_is_bounded(p.among, p.edited) else ("switch",)
    chosen = {"betting": ("betting",), "variance": ("auto", "variance"), "normal": ("normal",), "default": default}[sequential]
    tests = [r for r in p.rows if r.at_m0 is not None]
    margins = [(f"at {p.m0:g} (H0)", "at_m0", "H1"), (f"at {p.m1:g} (H1)", "at_m1", "H0")]
    if p.stored_margin is not None:
        margins.append((f"at {p.stored_margin:+.4g} (stored)", "at_stored", "H1"))

    def cell(r, side: str) -> str:
        share = r.p_h1 if side == "H1" else r.p_h0
        return f"{r.mean_deals:.0f} ({side} {share:.1%})" + (f" {r.undecided / r.runs:.1%} open" if r.undecided else "")

    columns = [Column("mean deals", justify="left")]
    columns += [Column(("* " if r.name in chosen else "") + r.name, wrap=True) for r in tests] + [Column("fixed")]
    cells = [[label, *[cell(getattr(r, at), side) for r in tests], str(p.fixed)] for label, at, side in margins]
    out.print(fitted_table(columns, cells, width=console_width()), width=console_width())
    said = "; ".join(("* " if r.name in chosen else "") + f"{r.name}: {r.flags}" + (f" ({r.why})" if r.why else "")
                     for r in p.rows)
    out.print(f"{said}; fixed: the fixed-length test at s.d. {p.sd:.4g}, normal approximation. *: the test this command "
              f"runs (with no test named: auto where the deals drawn from are this pair's own, all by today's bot files, "
              f"else switch: the betting test until the run's own first deals give an s.d. bound). (H1 x%): how often it accepted H1 (at {p.m0:g} the wrong answer, at most alpha by each test's "
              f"design; the normal SPRT's hold on near-normal deals only); (H0 x%) at {p.m1:g} likewise, at most beta; "
              f"open: runs undecided at {p.cap} deals. Deals unlike these (a new version that plays otherwise, a rare "
              f"deal not yet seen) need otherwise; nothing was played.", highlight=False, soft_wrap=True)


def _raise(exc: Exception) -> None:
    raise exc
