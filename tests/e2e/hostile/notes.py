"""Tries to leave itself a note for its next process, and looks for the notes of earlier
(or concurrent) processes of the same bot: with duplicate deals a note such as "deal 7:
north holds AS KS..." would let a later process of the same deal know every hand.

On its first decision in each match it reports what it finds (``HOSTILE {"kind":
"notes", ...}``), then leaves a note everywhere it can:

* files: its working directory, ``$HOME``, ``$TMPDIR``, ``/tmp``, ``/dev/shm``;
* memory: a global of its own module, an attribute of a module the SDK imported before
  the bot (``sdk.runner``), ``sys``, ``builtins``;
* the environment (``os.environ``, i.e. putenv);
* sockets: a TCP listener on loopback, an abstract Unix socket, Unix socket files in its
  working directory and ``/tmp``;
* a child process left running (double fork, new session) that holds those sockets;
* a SysV shared memory segment (IPC outlives its creator), a key in its session keyring;
* the PID counter ("timing"): it forks a few throwaway processes, so a later process in
  the same PID namespace would see its own pid jump.

It also reports who and where it is (uid, pid, cwd, limits, capabilities, what ``/proc``
shows) so a test can check the confinement itself. Then it plays its first legal action.
"""

import builtins
import ctypes
import json
import os
import resource
import socket
import sys
import time

import sdk.runner
from sdk import Bot

NOTE = b"deal seen"
PORT = 47_123
ABSTRACT = b"\0arena-notes-bot"
SHM_KEY = 0x4152_4E41
MY_NOTES: list = []  # a module global: a fresh import starts it empty

_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p


def _paths():
    out = {"cwd": os.path.join(os.getcwd(), "note"), "tmp": "/tmp/note", "dev_shm": "/dev/shm/note"}
    for var in ("HOME", "TMPDIR"):
        if os.environ.get(var):
            out[var.lower()] = os.path.join(os.environ[var], "note")
    return out


def _connect(family, addr):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            s.connect(addr)
            return "CONNECTED"
    except OSError as exc:
        return f"no: {type(exc).__name__}"


def _shm_read():
    shmid = _libc.shmget(SHM_KEY, 0, 0)
    if shmid < 0:
        return "no"
    addr = _libc.shmat(shmid, None, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        return "exists (unreadable)"
    data = ctypes.string_at(addr, len(NOTE))
    _libc.shmdt(ctypes.c_void_p(addr))
    return f"FOUND {data!r}"


_KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(os.uname().machine)  # (add_key, keyctl)
KEY_SPEC_SESSION_KEYRING = -3


def _key_search():
    if _KEYCTL is None:
        return "no: unknown architecture"
    r = _libc.syscall(_KEYCTL[1], 10, KEY_SPEC_SESSION_KEYRING, b"user", b"arena-note", 0)  # KEYCTL_SEARCH
    return "FOUND" if r >= 0 else f"no: {os.strerror(ctypes.get_errno())}"


def _key_add():
    if _KEYCTL is None:
        return "n/a"
    r = _libc.syscall(_KEYCTL[0], b"user", b"arena-note", NOTE, len(NOTE), KEY_SPEC_SESSION_KEYRING)
    return "ADDED" if r >= 0 else f"blocked: {os.strerror(ctypes.get_errno())}"


def look() -> dict:
    found = {}
    for where, path in _paths().items():
        found[f"file_{where}"] = "FOUND" if os.path.exists(path) else "no"
    found["listing_cwd"] = sorted(os.listdir("."))
    found["module_global"] = "FOUND" if MY_NOTES else "no"
    found["sdk_module"] = "FOUND" if hasattr(sdk.runner, "_arena_note") else "no"
    found["sys"] = "FOUND" if hasattr(sys, "_arena_note") else "no"
    found["builtins"] = "FOUND" if hasattr(builtins, "_arena_note") else "no"
    found["environ"] = "FOUND" if "ARENA_NOTE" in os.environ else "no"
    found["tcp"] = _connect(socket.AF_INET, ("127.0.0.1", PORT))
    found["abstract_socket"] = _connect(socket.AF_UNIX, ABSTRACT)
    found["unix_socket_cwd"] = _connect(socket.AF_UNIX, os.path.join(os.getcwd(), "note.sock"))
    found["unix_socket_tmp"] = _connect(socket.AF_UNIX, "/tmp/note.sock")
    found["sysv_shm"] = _shm_read()
    found["keyring"] = _key_search()
    return found


def whoami() -> dict:
    caps = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("CapPrm", "CapEff", "NoNewPrivs"):
                caps[key] = value.strip()
    return {
        "uid": os.getuid(), "pid": os.getpid(), "cwd": os.getcwd(), "home": os.environ.get("HOME"),
        "env": sorted(os.environ), "caps": caps, "nice": os.nice(0),
        "procs": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
        "limits": {n: resource.getrlimit(getattr(resource, n))[0] for n in
                   ("RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CORE")},
        "cpu_at_first_decision": round(time.process_time(), 3),
    }


def _listen_all() -> list:
    held = []
    for family, addr in ((socket.AF_INET, ("127.0.0.1", PORT)), (socket.AF_UNIX, ABSTRACT),
                         (socket.AF_UNIX, os.path.join(os.getcwd(), "note.sock")), (socket.AF_UNIX, "/tmp/note.sock")):
        try:
            s = socket.socket(family, socket.SOCK_STREAM)
            if family == socket.AF_INET:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(addr)
            s.listen(8)
            held.append(s)
        except OSError:
            pass
    return held


def leave() -> dict:
    left = {}
    for where, path in _paths().items():
        try:
            with open(path, "wb") as f:
                f.write(NOTE)
            left[f"file_{where}"] = "WROTE"
        except OSError as exc:
            left[f"file_{where}"] = f"blocked: {type(exc).__name__}"
    MY_NOTES.append(NOTE)
    sdk.runner._arena_note = NOTE
    sys._arena_note = NOTE
    builtins._arena_note = NOTE
    os.environ["ARENA_NOTE"] = NOTE.decode()
    left["keyring"] = _key_add()
    shmid = _libc.shmget(SHM_KEY, 4096, 0o1000 | 0o666)  # IPC_CREAT, readable by anyone
    if shmid >= 0:
        addr = _libc.shmat(shmid, None, 0)
        ctypes.memmove(addr, NOTE, len(NOTE))
        _libc.shmdt(ctypes.c_void_p(addr))
        left["sysv_shm"] = "CREATED"
    else:
        left["sysv_shm"] = f"blocked: {os.strerror(ctypes.get_errno())}"
    # A child that outlives this process (double fork, own session), holding listeners;
    # the sockets are bound here first, so this process holds them too (its first
    # decision's report must not wait for the child).
    held = _listen_all()
    left["listeners"] = len(held)
    try:
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(20)
            os._exit(0)
        os.waitpid(pid, 0)
        left["daemon"] = "STARTED"
    except OSError as exc:
        left["daemon"] = f"blocked: {type(exc).__name__}"
    # the pid counter: seven throwaway processes
    for _ in range(7):
        try:
            p = os.fork()
            if p == 0:
                os._exit(0)
            os.waitpid(p, 0)
        except OSError:
            break
    _HELD.extend(held)
    return left


_HELD: list = []


class NotesBot(Bot):
    name = "notes"
    games = ("spades",)

    def on_match_start(self, info):
        self.reported = False

    def choose(self, view, legal_actions):
        if not self.reported:
            self.reported = True
            report = {"kind": "notes", "match": self.match_id if hasattr(self, "match_id") else None,
                      "found": look(), "me": whoami()}
            report["left"] = leave()
            print("HOSTILE " + json.dumps(report), file=sys.stderr, flush=True)
        return legal_actions[0]
