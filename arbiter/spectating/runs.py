"""Where a tournament (or a ladder) running on this machine can be watched: its arbiter's
address and spectator token, written beside its store while it runs (readable by the
store's user only) and removed when it ends. `arbiter tournament run` and `arbiter arena`
write it, `arbiter watch --db STORE` and the tournament's web page read it."""

from __future__ import annotations

import json
import os
from pathlib import Path


class NotRunning(Exception):
    """No tournament is running from the store (the message says why)."""


def watch_file(db: Path) -> Path:
    """Where a tournament running from the store ``db`` says how to watch it (beside the
    store, readable by its user only): ``arbiter watch --db`` reads it."""
    return db.with_name(db.name + ".watch")


def announce_run(db: Path, address: str, token: str, tournament: str, kind: str = "tournament") -> Path:
    """Say where the run from ``db`` can be watched (its arbiter's address and spectator
    token, this process's id; ``kind``: a tournament's run or an arena's ladder); the file it wrote."""
    path = watch_file(db)
    # written whole beside it, then put in its place: a reader (arbiter watch, the web page) never
    # reads it half written, as it could when the file was truncated and written in place
    part = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"address": address, "token": token, "tournament": tournament, "pid": os.getpid(), "kind": kind}, f)
    os.replace(part, path)
    return path


def run_kind(db: Path) -> str:
    """What the watch file beside ``db`` announces: "tournament" (also a file written before
    arenas wrote one, or none) or "arena"."""
    try:
        kind = json.loads(watch_file(db).read_text()).get("kind")
    except (OSError, ValueError, AttributeError):
        return "tournament"
    return "arena" if kind == "arena" else "tournament"


def forget_run(path: Path | None) -> None:
    if path is not None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def running_from(db: Path) -> tuple[str, str, str]:
    """(address, spectator token, tournament) of the tournament running from ``db`` on this
    machine; NotRunning saying why there is none."""
    path = watch_file(db)
    try:
        info = json.loads(path.read_text())
        address, token, tournament, pid = info["address"], info["token"], info["tournament"], int(info["pid"])
    except FileNotFoundError:
        raise NotRunning(f"no tournament is running from {db}, nor a ladder (`arbiter tournament run --db {db}` and "
                         f"`arbiter arena` with this store say where to watch them as they start)") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise NotRunning(f"{path}: not a tournament's watch file ({exc})") from None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        if info.get("kind") == "arena":
            raise NotRunning(f"no ladder is running from {db}: the last one ({tournament}) stopped (its leaderboard: "
                             f"arbiter web --db {db})") from None
        raise NotRunning(f"no tournament is running from {db}: the last one ({tournament}) stopped "
                         f"(arbiter standings {tournament} --db {db})") from None
    except PermissionError:  # another user's process: alive
        pass
    return address, token, tournament
