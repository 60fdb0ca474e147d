"""Hosted Python bots with their own packages: a cached environment per lock file.

A bot folder's ``bot.toml`` may say ``requirements = "requirements.txt"`` (pinned
packages, inside the folder: ``cardarena.runtimes``). The arbiter then makes, once per
distinct lock file and interpreter, a virtual environment of its own interpreter under
the cache (``~/.cache/cardarena/botenvs``; ``ARENA_BOTENV_CACHE`` moves it), installs
the packages into it with its own pip (the environment has none), and puts the SDK on its path (a ``.pth`` file naming the folders
the arbiter imports ``sdk`` and grpc from, after the environment's own packages). The bot
runs with that environment's Python inside the usual sandbox, which shows the
environment read-only; the limits, the self-test and the rest are those of any bot. The
platform's own dependencies do not grow: a package one bot needs lives in its
environment only.

The install runs on the host, as the arbiter's user, outside any sandbox. So it installs
wheels only (``--only-binary=:all:``: installing a wheel runs none of its code, where
building a source distribution runs its author's), from a lock file of pinned packages and
nothing else (``lock_fault``: no option line that could point pip elsewhere or allow
source builds again, no URL or path), and it never starts the environment's own Python
outside the sandbox (a wheel's ``.pth`` file runs at every start of it). What the packages
do when the bot imports them happens in the bot's sandbox. It is still the operator's
choice, off by default: ``ARENA_INSTALL_BOT_ENVS=1`` in the arbiter's
environment allows it for the bots the operator names (folders on the command line, in a
tournament file); ``ARENA_INSTALL_BOT_ENVS=all`` also for bots submitted to the arena's
Bots service (``arbiter.batch.submissions``: without it such a submission is refused
before anything of it runs, the refusal saying what to do). An environment already in the cache is used without installing anything. The
install runs with a minimal environment (the path, the locale and pip's index settings,
a scratch home): none of the arbiter's variables, tokens or credentials reach it, and it
ends with the arbiter however the arbiter ends (``_WITH_US``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import sdk
from arbiter import scratch

ALLOW_VAR = "ARENA_INSTALL_BOT_ENVS"
CACHE_VAR = "ARENA_BOTENV_CACHE"
#: pip's own settings passed through to an install (where packages come from); nothing else
PIP_VARS = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT",
            "PIP_CONSTRAINT", "PIP_NO_INDEX", "PIP_TRUSTED_HOST")
INSTALL_TIMEOUT = 900


class BotEnvError(Exception):
    """A bot environment that may not or could not be made; the message says why."""


def allowed() -> bool:
    """Whether the operator lets the arbiter install what bots declare."""
    return os.environ.get(ALLOW_VAR, "").strip().lower() not in ("", "0", "false", "no")


def allowed_for_submissions() -> bool:
    """Whether the operator lets the arbiter install what bots submitted by others (the
    arena's public Submit) declare: only ``ARENA_INSTALL_BOT_ENVS=all``."""
    return os.environ.get(ALLOW_VAR, "").strip().lower() == "all"


def submission_refusal(requirements: str) -> str:
    """Why a submitted bot that declares packages is refused, and what to do."""
    return (f"the bot declares Python packages to install (bot.toml: requirements = {requirements!r}), and this "
            f"arena installs nothing a submission declares (its operator may allow it with {ALLOW_VAR}=all): "
            "submit the bot without `requirements`, using only the standard library and the SDK, or ask the "
            "arena's operator to host it")


#: One requirement of a lock file: a pinned package (``name[extras]==version``), an
#: environment marker after ``;`` (pip-compile writes them), then its ``--hash`` options.
_PINNED = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._, -]*\])?\s*===?\s*[A-Za-z0-9.+!_-]+"
                     r"(?:\s*;[^-#]*(?:-[^-#][^-#]*)*)?(?:\s+--hash[= ][A-Za-z0-9]+:[0-9a-fA-F]+)*")


def lock_fault(data: bytes) -> str:
    """Why ``data`` is not a lock file of pinned packages and nothing else, in words ("" if
    it is): what pip reads besides them (an option line such as ``--index-url`` or
    ``--no-binary``, a URL, a path, a range) would let a bot's author choose what the
    arbiter runs on the host (module docstring)."""
    text = data.decode("utf-8", errors="replace").replace("\\\n", " ")
    for n, raw in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        if not line:
            continue
        if line.startswith("-"):
            return (f"line {n} is an option ({line[:60]!r}); a lock file here holds pinned packages only: "
                    "pip's settings are the operator's (PIP_INDEX_URL and the like)")
        if not _PINNED.fullmatch(line):
            return f"line {n} ({line[:60]!r}) is not a pinned package: write name==version (a lock file)"
    return ""


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_VAR) or Path.home() / ".cache" / "cardarena" / "botenvs")


def sdk_paths() -> list[str]:
    """The folders the bot's environment must see to import the SDK and its grpc/protobuf."""
    grpc = importlib.util.find_spec("grpc")  # located, not imported: protobuf stays at the edge
    paths = [str(Path(sdk.__file__).resolve().parent.parent)]
    if grpc is not None and grpc.origin:
        paths.append(str(Path(grpc.origin).resolve().parent.parent))
    return list(dict.fromkeys(paths))


def key_of(requirements: bytes) -> str:
    """The cache key: the lock file's bytes, the interpreter, the SDK's folders."""
    h = hashlib.sha256()
    for part in (sys.version, sys.platform, *sdk_paths()):
        h.update(part.encode() + b"\0")
    h.update(requirements)
    return h.hexdigest()[:24]


def python_of(env: Path) -> Path:
    return env / "bin" / "python"


def visible_dirs(env: Path) -> tuple[Path, ...]:
    """What the sandbox must show, read-only, of a bot in ``env``: the environment, and the
    training environments of the author's package (``cardarena_envs``: a reference bot
    such as OpenSpiel's IS-MCTS plays through its wrappers), which the sandbox does not
    show a plain Python bot."""
    envs = importlib.util.find_spec("cardarena_envs")  # located, not imported
    extra = (Path(next(iter(envs.submodule_search_locations))).resolve(),) if envs and envs.submodule_search_locations else ()
    return (env, *extra)


def ensure(folder: str | os.PathLike, requirements: str, allow: bool | None = None) -> Path:
    """The environment (its folder) for ``folder``'s lock file ``requirements``: from the
    cache, or made now if the operator allows installs; BotEnvError otherwise."""
    lock = Path(folder) / requirements
    try:
        data = lock.read_bytes()
    except OSError as exc:
        raise BotEnvError(f"bot {folder}: bot.toml names requirements {requirements!r}, which cannot be read: "
                          f"{exc.strerror or exc}") from None
    env = cache_dir() / key_of(data)
    if (env / ".ok").is_file():
        return env
    if not (allowed() if allow is None else allow):
        raise BotEnvError(
            f"bot {folder} declares Python packages to install ({requirements}): installing what a bot declares is "
            f"the operator's choice and is off on this arbiter (set {ALLOW_VAR}=1 to allow it)")
    if why := lock_fault(data):
        raise BotEnvError(f"bot {folder}: {requirements}: {why}")
    return _make(env, data)


def _clean_env(home: Path) -> dict[str, str]:
    keep = {k: os.environ[k] for k in PIP_VARS if k in os.environ}
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(home),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1", **keep}


def _make(env: Path, requirements: bytes) -> Path:
    env.parent.mkdir(parents=True, exist_ok=True)
    # The environment as it is made, and a scratch home for the install, both removed after:
    # named for this process (``arbiter.scratch``), so what an arbiter ended mid-install (a
    # second Ctrl-C, SIGKILL) left is swept by the next install here, where a folder named
    # for its pid alone stayed for good.
    tmp = scratch.make("arena-botenv-", env.parent)
    tmp.chmod(0o755)  # the bot reads it, under a uid of its own in the sandbox
    base = getattr(sys, "_base_executable", sys.executable)
    home = scratch.make("arena-piphome-", env.parent)
    try:
        # no pip of its own: copying pip into every environment (ensurepip) was about 4 CPU-s of a
        # make; the arbiter's own pip installs into it below
        _run([base, "-m", "venv", "--without-pip", str(tmp)], home, _clean_env(home), "making the environment")
        (tmp / "requirements.txt").write_bytes(requirements)
        if requirements.strip():
            if importlib.util.find_spec("pip") is None:
                raise BotEnvError("installing a bot's packages needs pip in the arbiter's own Python environment "
                                  f"({sys.executable}), which has none: python -m ensurepip installs it")
            # wheels only: building a source distribution runs its author's code here, on the host.
            # The arbiter's pip, with this interpreter (the environment's is the same version: the
            # cache key says so), into the environment's prefix; what the arbiter has installed is
            # installed again there (--ignore-installed), so the environment holds all it needs.
            _run([sys.executable, "-m", "pip", "install", "-q", "--only-binary=:all:", "--prefix", str(tmp),
                  "--ignore-installed", "--no-warn-script-location", "-r", str(tmp / "requirements.txt")],
                 home, _clean_env(home), "installing its packages")
        _point_scripts(tmp, env)
        # found here, not by asking the environment's Python: it would run the .pth files of
        # what was just installed, on the host
        purelib = sysconfig.get_path("purelib", "venv", vars={"base": str(tmp), "platbase": str(tmp)})
        # After the environment's own packages: the SDK and its grpc, from the arbiter.
        (Path(purelib) / "zz_cardarena_sdk.pth").write_text("\n".join(sdk_paths()) + "\n")
        (tmp / ".ok").write_text("")
        try:
            os.replace(tmp, env)
        except OSError:  # another arbiter made it meanwhile
            if not (env / ".ok").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return env


#: A console script's first line as pip writes it: ``#!PYTHON``, or, for a path too long for the
#: kernel's ``#!``, ``#!/bin/sh`` then ``'''exec' "PYTHON" "$0" "$@"`` and ``' '''`` (pip's
#: trampoline, three lines).
_SHEBANG = re.compile(rb"\A#!(?P<direct>/\S*python[\w.]*)\n|\A#!/bin/sh\n'''exec' \"(?P<sh>/[^\"]*python[\w.]*)\" ")
#: The longest ``#!`` line every Linux kernel reads whole (older ones stop at 127 bytes).
_SHEBANG_MAX = 127
_TRAMPOLINE = "#!/bin/sh\n'''exec' \"{}\" \"$0\" \"$@\"\n' '''\n"


def _point_scripts(made: Path, env: Path) -> None:
    """Point what the install wrote into ``made``'s bin/ at the environment where it will be,
    ``env``: a console script (a package's command-line entry) starts the Python pip was run
    with, the arbiter's own (it installs with ``--prefix``), which sees none of the environment's
    packages; and the activate scripts name ``made``, the folder renamed ``env`` once complete."""
    python = str(python_of(env))
    first = f"#!{python}\n" if len(python) + 2 <= _SHEBANG_MAX else _TRAMPOLINE.format(python)
    for f in (made / "bin").iterdir():
        if f.is_symlink() or not f.is_file():
            continue
        data = f.read_bytes()
        if m := _SHEBANG.match(data):
            rest = data[m.end():] if m["direct"] else data.split(b"\n", 3)[3]  # the trampoline's three lines
            data = first.encode() + rest
        data = data.replace(str(made).encode(), str(env).encode())
        f.write_bytes(data)


#: What each step of an install runs through (``python -I -S -c _WITH_US PID ARGV...``), so
#: that it ends with the arbiter however the arbiter ends: the kernel kills it once the thread
#: that started it is gone (PR_SET_PDEATHSIG, kept across the exec), and it runs nothing if
#: the arbiter ``PID`` was gone before that was set. A pip install waiting on its index ran
#: on, orphaned, after a second Ctrl-C had ended `arbiter serve` (a stop the install held).
#: A wrapper, not a ``preexec_fn``: that is unsafe in the arbiter's threaded process.
_WITH_US = """
import ctypes, os, signal, sys
libc = ctypes.CDLL(None)
if hasattr(libc, "prctl"):  # (Linux's; elsewhere the install runs as it did)
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)
if os.getppid() != int(sys.argv[1]):
    sys.exit(70)
os.execv(sys.argv[2], sys.argv[2:])
"""


def _run(argv: list[str], cwd: Path, env: dict[str, str], what: str) -> None:
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _WITH_US, str(os.getpid()), *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise BotEnvError(f"a bot environment failed while {what}:\n{tail}")
