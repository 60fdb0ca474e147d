"""`arbiter analyse MATCH --seat N` on a stored match: a table of the seat's decisions, the
same numbers for the same seed, and clear errors for a seat or range that does not fit."""

from __future__ import annotations

from arbiter.cli import app
from arbiter.tournament.play import play_local, store_play
from tests.cli.test_reask_cli import _Out, invoke, runner  # invoke: output with line breaks folded


def wide_invoke(monkeypatch, *args: str):
    """``invoke`` on a console 250 columns wide, whatever width an earlier test made it at: a
    check that reads a whole table cell (an address, a played action's note) must not meet it
    wrapped over lines, each beside the other cells' pieces."""
    from arbiter.cli import _common

    monkeypatch.setattr(_common.out, "_width", 250)
    return _Out(runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "250"}))


def test_analyse_on_the_command_line(tmp_path):
    record = play_local("spot", ["random", "heuristic", "heuristic"], seed=2, options={"players": 3, "hands": 1},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    args = ("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--to", "6")
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    assert "values in the seat's money at the end of the hand" in r.output
    assert "seat 0 (random)" in r.output and "lost in all against the best valued action" in r.output
    assert "seat 0: 6 decisions" in r.output
    assert invoke(*args).output == r.output  # seeded: the same command, the same analysis

    for extra, message in [(("--seat", "3"), "has seats 0 to 2"), (("--seat", "0", "--from", "0"), "counted from 1"),
                           (("--seat", "0", "--samples", "0"), "--samples 0"),
                           (("--seat", "0", "--max-actions", "1"), "--max-actions 1"), (("--seat", "0", "--top", "-1"), "--top -1")]:
        r = invoke("analyse", record.match_id, "--db", str(db), *extra)
        assert r.exit_code == 2 and message in r.output, (extra, r.output)
        assert "Traceback" not in r.output
    r = invoke("analyse", "no-such-match", "--db", str(db))
    assert r.exit_code == 2 and "Traceback" not in r.output
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--from", "-5")  # --to not given: not "None"
    assert r.exit_code == 2 and "error: --from -5: decisions are counted from 1" in r.output, r.output
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--from", "3", "--to", "2")
    assert r.exit_code == 2 and "error: --from 3 --to 2: decisions are counted from 1" in r.output, r.output


def test_hindsight_on_the_command_line(tmp_path):
    import pytest

    pytest.importorskip("endplay")
    record = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=6, options={"deals": 1},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "1", "--hindsight")
    assert r.exit_code == 0, r.output
    flat = r.output
    assert "seat 1 in hindsight: tricks its side wins from each card play" in flat
    assert "without Spades' rule that spades may not be led until broken" in flat
    from arbiter.analysis.hindsight import double_dummy
    from arbiter.cli._common import plural

    lost = sum(c.lost for c in double_dummy(record, 1))
    assert f"seat 1: {plural(lost, 'trick')} given away in hindsight" in flat, flat  # "1 trick", not "1 tricks"
    # a range of bids only: no card play to count, said so, not a table of headers over no row
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "1", "--hindsight", "--to", "1")
    assert r.exit_code == 0 and "seat 1: no card play with a choice to count in hindsight" in r.output, r.output
    assert "best cards" not in r.output, r.output

    spot = play_local("spot", ["random"] * 3, seed=2, options={"players": 3, "hands": 1}, transport="inproc")
    store_play(db, spot)
    r = invoke("analyse", spot.match_id, "--db", str(db), "--hindsight")
    assert r.exit_code == 2 and "Spades only" in r.output


def test_an_action_the_arbiter_played_for_the_bot_says_so(tmp_path, monkeypatch):
    """A decision where the bot answered an illegal action and the arbiter played the first
    legal one (``--policy default``) is marked so in the table, as the inspector marks it:
    the loss is the bot's failure's, not a choice it made."""
    from tests.cli.test_reask_cli import ZOO

    record = play_local("spot", [f"{ZOO}:ReturnIllegal", "heuristic"], seed=5, options={"hands": 1},
                        transport="inproc", policy="default")
    forced = [a for a in record.actions if a.seat == 0 and a.forced]
    assert forced, "the zoo bot's illegal answer was played by the arbiter"
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = wide_invoke(monkeypatch, "analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--to", "3")
    assert r.exit_code == 0, r.output
    assert "(by the arbiter: illegal)" in r.output, r.output


def test_a_range_past_the_seats_last_decision_is_refused(tmp_path):
    """``--from`` past the seat's last decision selects nothing: said, not an empty table."""
    record = play_local("spot", ["random", "heuristic"], seed=2, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    n = sum(1 for a in record.actions if a.seat == 0)
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--from", str(n + 1))
    assert r.exit_code == 2, r.output
    assert f"seat 0 has {n} decisions" in r.output, r.output
    assert "Traceback" not in r.output and "values in" not in r.output, r.output  # no header over nothing


def test_a_fine_decision_says_fine(tmp_path):
    """Every valued decision is named by its verdict, "fine" as well as "mistake" and
    "unsure", as the inspector names it (the column was blank for "fine"), and the summary
    counts each verdict."""
    from arbiter.analysis.stored import analysed_rows
    from cardarena.replay import step_number

    record = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=7, options={"deals": 1},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    rows = analysed_rows(record, 1, samples=16, first=11)
    fine = [r for r in rows if r.verdict == "fine"]
    assert fine, [r.verdict for r in rows]
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "16", "--from", "11", "--top", "0")
    assert r.exit_code == 0, r.output
    f = fine[0]
    assert f" {f.number} {step_number(f.step)} {f.chosen} " in r.output and f"{f.loss:.1f} ± {f.loss_se:.1f} fine" in r.output, r.output
    assert f"{len(fine)} fine" in r.output, r.output


def test_a_bot_with_no_costly_decision_is_told_so(tmp_path):
    """``--bot NAME`` where every analysed decision of the bot lost nothing says so in words,
    not with an empty table titled "the 0 costliest decisions"."""
    record = play_local("spite-and-malice", ["random", "heuristic"], seed=1, options={"max_turns": 2},
                        transport="inproc")  # a draw at the turn limit: nothing a decision does changes it
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    assert invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2").exit_code == 0
    r = invoke("analyse", "--bot", "random", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "0 costliest" not in r.output and "┏" not in r.output, r.output
    assert "no decision of random lost anything against the best valued action in 1 analysed match" in r.output, r.output


def test_a_registered_bots_name_alone_finds_every_version(tmp_path, monkeypatch):
    """A registered bot sits as ``name@version``; ``--bot name`` (the name its author gave
    it) lists the costliest decisions of every version of it, instead of "no analysed match
    of mine: analyse one first" beside an analysed one."""
    import dataclasses

    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    record = dataclasses.replace(record, seat_names=("mine@0.1", "heuristic"))  # as a registered version sits
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    assert invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2").exit_code == 0
    exact = invoke("analyse", "--bot", "mine@0.1", "--db", str(db))
    assert exact.exit_code == 0 and "in 1 analysed match" in exact.output, exact.output
    r = wide_invoke(monkeypatch, "analyse", "--bot", "mine", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "no analysed match" not in r.output and "in 1 analysed match" in r.output, r.output
    assert f"/m/{record.match_id}/inspect?seat=0" in r.output

    r = invoke("analyse", "--bot", "min", "--db", str(db))  # a name is a whole name, not a prefix
    assert r.exit_code == 2 and "no match of 'min' in" in r.output, r.output


def test_a_bot_that_played_no_match_is_refused(tmp_path):
    """``--bot`` with a name no seat of the store sat under (a typo, a version never
    played) said "no analysed match of it: analyse one first" and succeeded, sending its
    author to analyse matches that do not exist; it is refused, naming the name and the
    store. A bot that played but has no analysed match is still told to analyse one."""
    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = invoke("analyse", "--bot", "heurstic", "--db", str(db))
    assert r.exit_code == 2 and f"no match of 'heurstic' in {db}" in r.output, r.output
    r = invoke("analyse", "--bot", "heuristic", "--db", str(db))
    assert r.exit_code == 0 and "no analysed match of heuristic" in r.output, r.output


def test_a_bot_with_no_analysed_match_is_given_one_to_analyse(tmp_path):
    """A bot that played but has no analysed match was sent to `arbiter bots show` for its
    matches, which lists a registered bot's only ("no bot 'mybot' in the registry" for a file
    bot's author); it is given its newest match as a command to run, seat and store included."""
    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = invoke("analyse", "--bot", "heuristic", "--db", str(db))
    said = " ".join(r.output.split())
    assert r.exit_code == 0 and "bots show" not in said, said
    assert f"`arbiter analyse {record.match_id} --seat 1 --db {db}`" in said, said


def test_the_inspectors_address_comes_with_the_command_that_serves_it(tmp_path):
    """"seat 0: analysis stored in DB (the inspector: /m/ID/inspect?seat=0)": an address of no
    server a newcomer had started; it names `arbiter web --db DB` with it."""
    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--top", "0")
    assert r.exit_code == 0, r.output
    assert f"(the inspector: arbiter web --db {db}, then /m/{record.match_id}/inspect?seat=0)" in r.output, r.output
    r = invoke("analyse", "--bot", "random", "--db", str(db))  # a bot's costliest decisions, each with its address
    assert r.exit_code == 0 and f"/m/{record.match_id}/inspect?seat=0" in r.output, r.output
    assert f"(each inspect address is a page of arbiter web --db {db}; or in the terminal: arbiter analyse MATCH --seat S " \
           f"--from N --to N --db {db})" in r.output, r.output


def test_a_file_bot_is_found_by_the_name_evaluate_gave_it(tmp_path, monkeypatch):
    """`arbiter evaluate spades mybot.py heuristic --db D` ends "mybot.py lost most in deal K:
    arbiter analyse MATCH --seat S"; its author then asks ``analyse --bot mybot.py`` and was told
    "no match of 'mybot.py'": a file bot sits in its matches by its stem (mybot). The file's
    name (or a folder's, ``mybot/``) finds them; a name that sat nowhere is still refused as given."""
    import dataclasses

    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    record = dataclasses.replace(record, seat_names=("mybot", "heuristic"))  # as `evaluate mybot.py` seats it
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    assert invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2").exit_code == 0
    for given in ("mybot.py", "./mybot.py", "mybot/"):
        r = wide_invoke(monkeypatch, "analyse", "--bot", given, "--db", str(db))
        assert r.exit_code == 0 and "mybot: the" in r.output and f"/m/{record.match_id}/inspect?seat=0" in r.output, r.output
    r = invoke("analyse", "--bot", "other.py", "--db", str(db))
    assert r.exit_code == 2 and "no match of 'other.py' in" in r.output, r.output


def test_the_header_promises_more_states_only_where_a_decision_may_take_them(tmp_path):
    """"up to N sampled states (B unless a verdict needs more)" only where N > B: at a budget
    no decision may pass, "up to 2 (2 unless a verdict needs more)" said it might."""
    from arbiter.analysis.values import most_states

    record = play_local("spot", ["random", "heuristic"], seed=2, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    assert most_states("spot", 2) == 2 and most_states("spades", 64) > 64
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--to", "1")
    assert r.exit_code == 0, r.output
    assert "up to 2 sampled states per decision, seed 0" in r.output and "unless a verdict" not in r.output, r.output


def test_a_seat_with_no_decision_is_said_so(tmp_path):
    """A match that ended before a seat was asked anything (a bot that failed at its start):
    the seat "had no decision in this match", as the inspector says, not an empty table."""
    from tests.cli.test_reask_cli import ZOO

    record = play_local("spot", [f"{ZOO}:RaiseInStart", "heuristic", "random"], seed=0,
                        options={"hands": 1, "players": 3}, transport="inproc")
    assert not any(a.seat == 1 for a in record.actions)
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "2")
    assert r.exit_code == 0, r.output
    assert "seat 1 (heuristic) had no decision in this match" in r.output and "┏" not in r.output, r.output


def test_an_analysis_not_stored_sends_nobody_to_the_inspector(request):
    """A store `arbiter analyse` cannot write: the analysis is printed, "not stored", and
    the line no longer points at the inspector page, which has no analysis to show."""
    from tests.cli.badinput import unprivileged, unprivileged_root

    root = unprivileged_root(request, "arena-ro-analyse-")  # not tmp_path: an ordinary user must reach it
    record = play_local("spot", ["random", "heuristic"], seed=2, options={"hands": 1}, transport="inproc")
    db = root / "arena.sqlite"
    store_play(db, record)
    args = ("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--top", "0")
    assert invoke(*args[:-4], "--seat", "1", "--samples", "2").exit_code == 0  # imports made as root
    db.chmod(0o444)
    with unprivileged():
        r = invoke(*args)
    assert r.exit_code == 0, r.output
    assert "analysis not stored: cannot write" in r.output and "inspect?seat=0" not in r.output, r.output


def test_a_bots_costliest_decisions_keep_their_inspector_address_whole(tmp_path, monkeypatch):
    """In a terminal narrower than the table, the "inspect" column was cut to "/m/679d…":
    an address that opens nothing; then folded over four lines at 80 columns, which pastes
    as nothing either. It stays whole on one line: the match, seat and decision number it
    holds are left out first (the caption says so), the actions wrap at their spaces."""
    import re

    from arbiter.cli import _common

    record = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    assert invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2").exit_code == 0
    for width in (90, 80):
        monkeypatch.setattr(_common.out, "width", width)
        r = runner.invoke(app, ["analyse", "--bot", "random", "--db", str(db), "--top", "3"], catch_exceptions=False,
                          env={"COLUMNS": str(width)})
        assert r.exit_code == 0, r.output
        assert "…" not in r.output and max(map(len, r.output.splitlines())) <= width, r.output
        whole = [line for line in r.output.splitlines() if re.search(rf"/m/{record.match_id}/inspect\?seat=0&d=\d+\s*$", line)]
        assert len(whole) == 3, r.output  # each of the 3 on one line, at the line's end


def test_bot_refuses_the_flags_of_a_match_analysis_and_a_top_that_lists_nothing(tmp_path):
    """``--bot`` reads analyses already stored: --seat, --samples, --from... were dropped without a
    word (an author asking for seat 2's decisions got every seat's), and --top 0 listed 10 (the
    help says 0 lists none), --top -1 slices from the end; each is refused, naming it."""
    db = str(tmp_path / "none.sqlite")
    r = invoke("analyse", "--bot", "mine", "--db", db, "--seat", "2", "--samples", "16", "--from", "3")
    assert r.exit_code == 2 and "--seat, --samples, --from: for analysing a match" in r.output, r.output
    r = invoke("analyse", "--bot", "mine", "--db", db, "--top", "0")
    assert r.exit_code == 2 and "--top 0 with --bot would list nothing" in r.output, r.output
    r = invoke("analyse", "--bot", "mine", "--db", db, "--top", "-1")
    assert r.exit_code == 2 and "--top -1: a number of decisions" in r.output, r.output


def test_a_record_file_of_an_unknown_game_is_refused_in_words(tmp_path):
    """A hand-edited record file naming no game of the arena: the analysis looked its units
    up by the name first (a KeyError traceback); it says what the replay says."""
    import json

    record = play_local("spot", ["random"] * 3, seed=2, options={"players": 3, "hands": 1}, transport="inproc")
    data = json.loads(record.to_json())
    data["game"] = "poker"
    path = tmp_path / "poker.json"
    path.write_text(json.dumps(data))
    r = _Out(runner.invoke(app, ["analyse", str(path), "--seat", "0"], env={"COLUMNS": "120"}))
    assert r.exit_code == 1 and "unknown game 'poker'" in r.output, r.output
    assert "Traceback" not in r.output and "KeyError" not in r.output


def test_the_decision_table_keeps_each_action_whole_at_80_columns(tmp_path, monkeypatch):
    """At 80 columns the table was squeezed: every value wrapped over two lines and an action
    cut to "play hand:KD -> center:n…", what the table is for. The step and the values go
    first instead (the caption says so), each decision on one line, its actions whole."""
    from arbiter.analysis.stored import analysed_rows
    from arbiter.cli import _common

    record = play_local("spite-and-malice", ["random", "heuristic"], seed=3, options={"max_turns": 8},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    rows = [r for r in analysed_rows(record, 0, samples=2, last=4) if r.values]
    monkeypatch.setattr(_common.out, "width", 80)
    r = runner.invoke(app, ["analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--to", "4"],
                      catch_exceptions=False, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "…" not in r.output and "-0.0 " not in r.output and max(map(len, lines)) <= 80, r.output
    for row in rows:
        assert any(line.split()[:1] == [str(row.number)] and f" {row.played} " in line and f" {row.best} " in line
                   for line in lines), (row, r.output)
    assert "not shown: widen the terminal, or open the inspector" in " ".join(r.output.split()), r.output
    path = tmp_path / "match.json"  # a record file has no inspector page to send anyone to
    path.write_text(record.to_json())
    r = runner.invoke(app, ["analyse", str(path), "--seat", "0", "--samples", "2", "--to", "4"],
                      catch_exceptions=False, env={"COLUMNS": "80"})
    assert r.exit_code == 0 and "not shown: widen the terminal)" in " ".join(r.output.split()), r.output
    assert "inspector" not in r.output, r.output


def test_a_match_lost_by_forfeit_says_so(tmp_path):
    """A bot that crashed lost by forfeit: no decision's value shows it (its last decision
    read "nothing was played", 0 mistakes), so the analysis says how the match ended, in
    `arbiter play`'s words, the failure's detail included."""
    from tests.cli.test_reask_cli import ZOO

    record = play_local("spite-and-malice", [f"{ZOO}:RaiseInChoose", "random"], seed=3, options={"max_turns": 30},
                        transport="inproc")
    assert record.outcome.reason.is_forfeit
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = invoke("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2")
    assert r.exit_code == 0, r.output
    assert "result: random (seat 1) won by forfeit: RaiseInChoose (seat 0) crashed" in r.output, r.output
    assert "choose raised RuntimeError: boom" in r.output, r.output


def test_a_bot_of_several_games_gets_one_table_per_game(tmp_path, monkeypatch):
    """A bundled bot plays every game: ``--bot random`` ranked its Spades losses (points)
    and its Spot losses (money) in one table by their numbers alone, units unsaid. Each game
    has its own table now, its units in the title, its own top."""
    db = tmp_path / "arena.sqlite"
    spades = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=6, options={"deals": 1},
                        transport="inproc")
    spot = play_local("spot", ["random", "heuristic"], seed=4, options={"hands": 1}, transport="inproc")
    for record in (spades, spot):
        store_play(db, record)
        args = ("analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "2", "--max-actions", "3")
        assert invoke(*args).exit_code == 0
    r = wide_invoke(monkeypatch, "analyse", "--bot", "random", "--db", str(db), "--top", "2")
    assert r.exit_code == 0, r.output
    said = r.output
    assert "random at spades: the 2 costliest decisions; losses in points" in said, said
    assert "random at spot: the 2 costliest decisions; losses in the seat's money" in said, said
    spot_table = said[said.index("random at spot:"):]
    assert spot.match_id in spot_table and spades.match_id not in spot_table, said
    assert "random plays 2 games here: each its own table, from 2 analysed matches in all" in said, said


def test_the_help_says_the_analysis_is_kept_in_the_store():
    """`arbiter analyse` writes its analysis into --db: its help said only "Value each
    decision ... and mark its mistakes", not that the store is written, that the inspector
    reads it back, what the verdicts are, or that a withheld match is refused."""
    r = invoke("analyse", "--help")
    assert r.exit_code == 0, r.output
    for words in ("kept in --db (the store is written)", "/m/MATCH/inspect?seat=S", "a mistake (it cost more than the",
                  "never another seat's hidden cards", "withholds (a duplicate tournament's not finished: running, or interrupted, and then how to resume it) is refused"):
        assert words in r.output, (words, r.output)


def test_a_match_id_too_long_for_a_file_name_or_empty_is_refused_in_words(tmp_path):
    """The loader asks the file system first whether the id names a record file: an id
    longer than a file name may be got "error: xxx…(all 300 characters): File name too
    long", and an empty one ": a folder, not a match id" (Path("") is "."). Both say what
    the store or the argument lacks, as `arbiter replay`, which loads a match the same way."""
    record = play_local("spot", ["random", "heuristic"], seed=2, options={"hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    long = "x" * 300
    for command in ("analyse", "replay"):
        r = invoke(command, long, "--db", str(db))
        assert r.exit_code == 2 and f"no match '{'x' * 80}' in {db}" in r.output, r.output
        assert "File name too long" not in r.output and long not in r.output, r.output
    r = invoke("analyse", "", "--db", str(db))
    assert r.exit_code == 2 and "an empty match id: give a match id from the store or a match record file" in r.output


def test_analyse_replay_and_the_inspector_number_steps_alike(tmp_path, monkeypatch):
    """`arbiter analyse` listed a decision at step 9 that `arbiter replay` showed as "step 10
    of 60" (and `replay --at` as "after step 9"): analyse printed the actions played before
    it, replay the action's own number. Every decision analyse lists is found at its step in
    the replay, in `replay --at`, and on the inspector's and the web replay's pages."""
    import re

    from arbiter.present import inspector, web
    from arbiter.store.db import Store

    record = play_local("spades", ["heuristic", "random", "heuristic", "random"], seed=3, options={"deals": 1},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    total = len(record.actions)
    from arbiter.cli import _common

    monkeypatch.setattr(_common.out, "_width", 250)  # one table row a line, to read its cells
    r = runner.invoke(app, ["analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "2", "--to", "8",
                            "--top", "0"], catch_exceptions=False, env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    listed = [(int(m[1]), int(m[2]), m[3]) for m in
              (re.match(r"\s*(\d+)\s+(\d+)\s+(\S+(?: \S+)*?)\s{2,}", line) for line in r.output.splitlines()) if m]
    assert len(listed) >= 4, r.output
    stepped = invoke("replay", record.match_id, "--db", str(db), "--seat", "1").output
    with Store(db, read_only=True) as store:
        for number, step, played in listed:
            assert f"step {step} of {total}: seat 1 (random) {played}" in stepped, (number, step, played)
            at = invoke("replay", record.match_id, "--db", str(db), "--seat", "1", "--at", str(number))
            assert f"decision {number} (step {step} of {total})" in at.output and f"played: {played}" in at.output, at.output
            page = inspector.inspect_page(store, record.match_id, {"seat": ["1"], "d": [str(number)]}, "n")
            assert f">step {step}</a>)" in page and f"view=seat1&amp;step={step}" in page, page
            shown = web.replay_page(store, record.match_id, {"step": [str(step)], "view": ["seat1"]})
            assert f"Step {step}: seat 1 (random) {played}" in shown


def test_unsure_beside_the_best_play_says_why(tmp_path, monkeypatch):
    """A row "play 2C ... best play 2C ... 0.0 ± 0.0 unsure" read as a contradiction: the
    loss is against the best valued, the played action itself there, while "fine" is about
    every other action (each within the fine margin at 99.9%, and a deal not drawn yet). A
    legend under the table says so in the game's units, and the inspector's decision too;
    a table without such a row has none."""
    from arbiter.analysis.stored import stored_analysis
    from arbiter.analysis.values import unsure_at_best
    from arbiter.present import inspector
    from arbiter.store.db import Store

    record = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=7, options={"deals": 1},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    with Store(db) as store:  # the seat's analysis, computed once and stored: the commands below read it
        rows, _ = stored_analysis(store, record.match_id, 1, samples=8)
    args = ("analyse", record.match_id, "--db", str(db), "--seat", "1", "--samples", "8", "--top", "0")
    r = wide_invoke(monkeypatch, *args, "--to", "6")
    assert r.exit_code == 0, r.output
    why = unsure_at_best("spades")
    assert why in r.output, r.output
    assert "cannot vouch for \"fine\" (nothing better by 1 point or more, 99.9%)" in why
    assert "a deal not drawn could change it" in why  # Spades bounds by the deal's stake
    assert "a tie too" in unsure_at_best("spot")  # at Spot "fine" means every other action worse
    r = wide_invoke(monkeypatch, *args, "--to", "3")  # no unsure row with the best play there
    assert r.exit_code == 0 and "unsure" in r.output and why not in r.output, r.output
    with Store(db) as store:
        at_best = next(r for r in rows if r.verdict == "unsure" and r.played_best and r.chosen == r.best)
        other = next(r for r in rows if r.verdict == "unsure" and not r.played_best)
        page = inspector.inspect_page(store, record.match_id, {"seat": ["1"], "d": [str(at_best.number)]}, "n")
        assert 'id="unsure-why"' in page and "cannot vouch for &#34;fine&#34;" in page, page
        page = inspector.inspect_page(store, record.match_id, {"seat": ["1"], "d": [str(other.number)]}, "n")
        assert 'id="unsure-why"' not in page
