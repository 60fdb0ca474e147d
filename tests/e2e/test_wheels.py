"""The two wheels, as a user gets them (#31 item 1): both build with `python -m build`
from a copy of the checkout's files (sdist, then the wheel from the sdist); the author's
wheel alone goes into a clean virtual environment (`python -m venv`, its grpcio and protobuf
from the package index); there the platform cannot be imported, and a bot written against
the SDK plays a match on an `arbiter serve` of the project's own venv, against the bundled
bots, over real gRPC.

The wheels and the author's venv are built once for the module (under pytest's tmp dir).
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import grpc
import pytest

from arbiter.hosting.stop import stop_processes
from cardarena.games import EndReason, get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.wire import codec
from tests.conftest import ROOT, start_serve, stop_serve

#: The tests that share the module's wheels and venv: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("wheels")]

AUTHOR_PACKAGES = ("cardarena", "sdk", "cardarena_envs")
PLATFORM_PACKAGES = ("arbiter", "bots")

#: A bot as an author writes it, importing the SDK only.
BOT = '''\
import sys

from sdk import Bot, run
from sdk.spades import Bid, Look, Play, power


class LowestCard(Bot):
    """Looks at its cards, bids 3 (else its lowest bid), plays its lowest legal card."""

    name = "lowest"
    games = ("spades",)

    def on_match_start(self, info):
        self.decisions = 0

    def choose(self, view, legal_actions):
        self.decisions += 1
        looks = [a for a in legal_actions if isinstance(a, Look)]
        if looks:
            return looks[0]
        bids = [a for a in legal_actions if isinstance(a, Bid) and not a.blind]
        if bids:
            return next((b for b in bids if b.tricks == 3), bids[0])
        plays = [a for a in legal_actions if isinstance(a, Play)]
        if plays:
            return min(plays, key=lambda p: power(p.card))
        return legal_actions[0]

    def on_match_end(self, result):
        print(f"match over: seat {result.seat}, {self.decisions} decisions", file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(LowestCard())
'''


def _run(cmd: list, timeout: float = 240, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)


def _tracked_files() -> list[str]:
    """The checkout's files as a commit of it would hold them (tracked, or new and not ignored)."""
    listed = _run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, timeout=60)
    assert listed.returncode == 0, f"git ls-files: {listed.stderr}"
    return sorted(p for p in set(listed.stdout.split("\0")) if p and (ROOT / p).is_file())


def _clean_env() -> dict[str, str]:
    """This process's environment without what would put the checkout or its venv on sys.path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _pip(python: Path, *args) -> subprocess.CompletedProcess:
    """pip (this venv's, 22.3 or later) acting on the environment of ``python``, which has none of
    its own: the venv then holds exactly what the wheel brings."""
    return _run([sys.executable, "-m", "pip", "--python", python, *args], env=_clean_env(), timeout=300)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> tuple[Path, list[str]]:
    """A copy of the checkout's files: what a fresh clone builds, without a local build/ or egg-info."""
    files = _tracked_files()
    src = tmp_path_factory.mktemp("checkout")
    for rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    return src, files


@pytest.fixture(scope="module")
def wheels(checkout, tmp_path_factory) -> dict[str, Path]:
    src, _ = checkout
    dist = tmp_path_factory.mktemp("dist")
    # The author's: sdist, then the wheel from the unpacked sdist (hatch_build.py finds its
    # packages in the checkout, then in the sdist); the platform's: sdist and wheel too. With
    # this venv's backends (the dev extra has them; build checks each build-system.requires
    # against them): an isolated build env for each would cost most of the test's time.
    for project in (src / "packages" / "card-arena-sdk", src):
        built = _run([sys.executable, "-m", "build", "--no-isolation", project, "--outdir", dist])
        assert built.returncode == 0, f"python -m build {project}: {built.stdout[-2000:]}{built.stderr[-3000:]}"
    found = {w.name.split("-")[0]: w for w in dist.glob("*.whl")}
    assert set(found) == {"card_arena_sdk", "card_arena"}, sorted(p.name for p in dist.iterdir())
    assert sorted(p.name.split("-")[0] for p in dist.glob("*.tar.gz")) == ["card_arena", "card_arena_sdk"]
    return {"author": found["card_arena_sdk"], "platform": found["card_arena"]}


@pytest.fixture(scope="module")
def author_venv(wheels, tmp_path_factory) -> tuple[Path, Path]:
    """A clean venv with the author's wheel alone; (its python, a folder with the bot in it)."""
    venv = tmp_path_factory.mktemp("author") / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv], env=_clean_env())
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = _pip(python, "install", "-q", wheels["author"])
    assert installed.returncode == 0, installed.stderr[-3000:]
    work = tmp_path_factory.mktemp("bot")
    (work / "lowest_bot.py").write_text(BOT)
    return python, work


def _wheel_files(wheel: Path) -> tuple[set[str], dict[str, str]]:
    """A wheel's files outside its .dist-info, and the .dist-info's files by name."""
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = {n.split("/", 1)[1]: z.read(n).decode() for n in names if n.split("/")[0].endswith(".dist-info")}
    return {n for n in names if not n.split("/")[0].endswith(".dist-info")}, info


def _requires(metadata: str) -> tuple[set[str], set[str]]:
    """Names a METADATA requires: (always, only with an extra)."""
    always, extra = set(), set()
    for req in Parser().parsestr(metadata).get_all("Requires-Dist") or []:
        name = req.split(";")[0].strip().split("[")[0]
        name = name.split("=")[0].split("<")[0].split(">")[0].split("~")[0].split("!")[0].strip().lower()
        (extra if "extra ==" in req else always).add(name)
    return always, extra


def test_each_wheel_holds_its_packages_and_their_data_and_nothing_else(checkout, wheels):
    _, files = checkout
    author, author_info = _wheel_files(wheels["author"])
    wanted = {f for f in files if f.split("/")[0] in AUTHOR_PACKAGES and f.endswith((".py", ".pyi"))}
    assert author == wanted, f"lacks {sorted(wanted - author)}, has besides {sorted(author - wanted)}"
    platform, platform_info = _wheel_files(wheels["platform"])
    # every file of the platform's packages, data too (the tools' recorded deals, the bot template),
    # but the source of its optional C extension (the in-process copier, arbiter/hosting/_copyc.c:
    # compiled in a checkout by make venv, as the SDK's wire encoder is; a wheel's install has
    # the Python copy, as the SDK's wheel has the Python encoder)
    wanted = {f for f in files if f.split("/")[0] in PLATFORM_PACKAGES and not f.endswith(".c")}
    assert platform == wanted, (f"the platform's wheel lacks {sorted(wanted - platform)} (pyproject.toml "
                                f"[tool.setuptools.package-data] takes a file type), has besides {sorted(platform - wanted)}")
    assert "bots/template/bot.py" in platform and any(f.startswith("arbiter/tools/data/") for f in platform)

    assert _requires(author_info["METADATA"])[0] == {"grpcio", "protobuf"}
    version = Parser().parsestr(author_info["METADATA"])["Version"]
    assert Parser().parsestr(platform_info["METADATA"])["Version"] == version
    assert f"Requires-Dist: card-arena-sdk=={version}" in platform_info["METADATA"].splitlines()
    entry_points = platform_info["entry_points.txt"]
    assert "arbiter = arbiter.__main__:main" in entry_points and "random = bots.random_bot:RandomBot" in entry_points


def test_the_author_venv_has_the_sdk_and_nothing_of_the_platform(wheels, author_venv):
    python, work = author_venv
    # what is installed there, as `pip list` reads it (the .dist-info folders of its
    # site-packages), read here: `pip --python` was two interpreters importing pip (~0.4 CPU-s)
    site = list(python.parent.parent.glob("lib/python*/site-packages"))
    assert len(site) == 1, site
    installed = {d.metadata["Name"].lower().replace("_", "-") for d in importlib.metadata.distributions(path=[str(site[0])])}
    platform_only = _requires(_wheel_files(wheels["platform"])[1]["METADATA"])[0] - {"grpcio", "protobuf", "card-arena-sdk"}
    assert platform_only and not installed & (platform_only | {"card-arena"}), installed
    assert {"card-arena-sdk", "grpcio", "protobuf"} <= installed, installed

    for platform_package in PLATFORM_PACKAGES:
        tried = _run([python, "-c", f"import {platform_package}"], env=_clean_env(), cwd=work)
        assert tried.returncode != 0 and f"No module named '{platform_package}'" in tried.stderr, tried.stderr

    # the bundled bots are the platform's but for `random` (the SDK's own, an opponent with this
    # package alone), and the training environments their extra's: each says so
    bundled = _run([python, "-m", "sdk", "--bot", "heuristic"], env=_clean_env(), cwd=work, timeout=60)
    assert bundled.returncode == 2 and "Traceback" not in bundled.stderr, bundled.stderr
    assert "unknown bot 'heuristic'" in bundled.stderr and "the other bundled bots come with card-arena" in bundled.stderr
    envs = _run([python, "-c", "import cardarena_envs; cardarena_envs.env"], env=_clean_env(), cwd=work, timeout=60)
    assert envs.returncode != 0 and "pip install 'card-arena-sdk[envs]'" in envs.stderr, envs.stderr

    # the core and the SDK come from the venv, and play a match in process (sdk.harness)
    script = (
        "import cardarena, sdk\n"
        "from cardarena.replay import verify_record\n"
        "from sdk.harness import play_match\n"
        "from lowest_bot import LowestCard\n"
        "record = play_match('spades', [LowestCard() for _ in range(4)], seed=3, options={'deals': 1})\n"
        "print(sdk.__file__, cardarena.__file__, verify_record(record).reason.name)\n"
    )
    played = _run([python, "-c", script], env=_clean_env(), cwd=work, timeout=120)
    assert played.returncode == 0, played.stderr[-3000:]
    sdk_file, core_file, reason = played.stdout.split()
    venv = python.parent.parent
    assert Path(sdk_file).is_relative_to(venv) and Path(core_file).is_relative_to(venv)
    assert reason in ("COMPLETED", "TURN_LIMIT")


def test_a_bot_from_the_author_venv_plays_on_an_arbiter_serve(author_venv, tmp_path):
    python, work = author_venv
    s = start_serve()
    authors: dict[str, tuple[subprocess.Popen, Path]] = {}
    try:
        for name in ("north", "east", "south", "west"):  # the author's bot, and the SDK's own random bot
            log = tmp_path / f"{name}.log"
            command = ["lowest_bot.py"] if name in ("north", "south") else ["-m", "sdk", "--bot", "random"]
            with open(log, "w") as err:
                proc = subprocess.Popen(
                    [str(python), *command, "--address", s.address, "--name", name],
                    cwd=work, env=dict(_clean_env(), ARENA_TOKEN=s.bot_token(name)),
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            authors[name] = (proc, log)
        seats = ["north", "east", "south", "west"]
        s.wait_sessions(seats)
        with grpc.insecure_channel(s.address) as ch:
            summary = pb_grpc.MatchesStub(ch).RunMatch(pb.RunMatchRequest(
                game="spades", seats=seats, seed=11, options={"deals": "1"}, admin_token=s.admin_token), timeout=120)
        assert not summary.incidents, summary.incidents
        outcome = codec.outcome_from_proto(summary.outcome)
        assert outcome.reason in (EndReason.COMPLETED, EndReason.TURN_LIMIT)
        assert summary.decisions == len(summary.actions) >= 52
        game = get_game("spades", {"deals": "1"})  # the record replays, from the seed alone
        state = game.new_initial_state(11)
        for text in summary.actions:
            state.apply(game.parse_action(text))
        assert state.is_terminal and state.outcome() == outcome
    finally:
        stop_serve(s)  # the arbiter closes the streams: the author's bots end on their own (first=None)
        stop_processes([proc for proc, _ in authors.values()], 30, first=None)  # 30 s for them all, not each
    for name, (proc, log) in authors.items():
        text = log.read_text()
        assert "Traceback" not in text, text
        assert text.startswith(f"connected to {s.address} as {name} "), text  # `python mybot.py` says so too
        if name in ("east", "west"):
            continue
        seat = ["north", "east", "south", "west"].index(name)
        decisions = [line for line in text.splitlines() if line.startswith(f"match over: seat {seat}, ")]
        assert decisions and int(decisions[0].split(", ")[1].split()[0]) >= 13, text
