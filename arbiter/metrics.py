"""The platform's Prometheus metrics: every metric is defined here, once.

Off unless an operator asks: ``arbiter serve``, ``arbiter arena`` and ``arbiter web`` take
``--metrics HOST:PORT`` (``enable``, then ``serve``), and then the places that already
know an event report it to the process's ``Metrics`` (``active()``; None when off, and
every reporter does nothing):

- the match runner, through a ``MatchObserver`` (``arbiter.match.runner.Metered``): matches
  started and finished, live matches, decisions, each bot's think time as the arbiter saw
  it, the arbiter's own time per decision, failures and forfeits by incident kind;
- the hub (``arbiter.server.botstream.Hub``): connected bots;
- hosting (``arbiter.hosting.botproc``): bot processes that did not start;
- the arena (``arbiter.arena.ladder``): entrants waiting for a table, encounters playing,
  entrants by status, suspensions;
- the store (``arbiter.store.db.transaction``): how long a write transaction took.

No label carries a secret or hidden information: labels are game names, bot names (public:
they are in every standing), arena names, and values of closed sets (end reasons, incident
kinds, entrant statuses). Never a token, a seed, a card or an action. (Counts by bot move as each
match ends, also in a batch the disclosure rule still closes: the operator's view, not a public one;
README "Metrics".) Bot names are
bounded: past ``MAX_BOTS`` distinct names (an ``--open`` server lets anyone pick one)
further bots share the label ``OTHER``.

A registry per process by default (``enable()``); a test that runs several servers in one
process gives each its own ``Metrics`` (``enable(Metrics())`` around it, ``disable()``).
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from typing import TYPE_CHECKING, Any, Iterator

# prometheus_client (~20 ms of CPU to import, its HTTP server and exposition with it) is
# imported where a Metrics is made or served: every process that runs a match imports this
# module (the runner reports to ``active()``), and metrics are off unless asked for.
if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

#: Distinct bot names a metric labels; later ones are counted as ``OTHER``.
MAX_BOTS = 200
OTHER = "_other"

#: Think time buckets (seconds): from a fast bot's sub-millisecond answer to a bank used up.
THINK_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: The arbiter's own time per decision (seconds): microseconds to a slow spectator feed.
OVERHEAD_BUCKETS = (0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05)
#: A store write transaction (seconds).
STORE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)


class Metrics:
    """One registry and its metrics (names as exposed, without the ``_total`` counters get)."""

    def __init__(self, registry: CollectorRegistry | None = None, process: bool = True):
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, PlatformCollector, ProcessCollector

        self.registry = r = registry if registry is not None else CollectorRegistry()
        if process:  # the process's CPU, memory and open files; the Python version
            ProcessCollector(registry=r)
            PlatformCollector(registry=r)
        self._bots: set[str] = set()
        self._lock = threading.Lock()
        self.matches_started = Counter("arbiter_matches_started", "Matches started, by game.", ["game"], registry=r)
        self.matches_finished = Counter("arbiter_matches_finished", "Matches finished, by game and how they ended (EndReason).",
                                        ["game", "reason"], registry=r)
        self.live_matches = Gauge("arbiter_live_matches", "Matches being played now, by game.", ["game"], registry=r)
        self.decisions = Counter("arbiter_decisions", "Decisions recorded (the arbiter's own choices for a seat included), "
                                 "by game and bot.", ["game", "bot"], registry=r)
        self.think = Histogram("arbiter_decision_seconds", "A bot's think time as the arbiter saw it (what its clock is "
                               "charged: the transport both ways included), by game and bot; seats the arbiter no "
                               "longer asks (disconnected) are not counted.", ["game", "bot"], buckets=THINK_BUCKETS, registry=r)
        self.overhead = Histogram("arbiter_overhead_seconds", "The arbiter's own time per decision, charged to no clock: from "
                                  "the previous answer until the seat is asked (engine step, telling the seats and "
                                  "spectators, the view), by game.", ["game"], buckets=OVERHEAD_BUCKETS, registry=r)
        self.failures = Counter("arbiter_seat_failures", "A seat's failures (incidents: timeout, illegal, malformed, "
                                "disconnect, crash), by game, bot and kind.", ["game", "bot", "kind"], registry=r)
        self.forfeits = Counter("arbiter_forfeits", "Matches a seat forfeited, by game, bot and the kind of failure.",
                                ["game", "bot", "kind"], registry=r)
        self.connected = Gauge("arbiter_connected_bots", "Bot streams connected now (sessions), by bot.", ["bot"], registry=r)
        self.bot_start_failures = Counter("arbiter_bot_start_failures", "Bot processes the arbiter started (in the sandbox) "
                                          "that never connected: exited, or too slow.", ["bot", "reason"], registry=r)
        self.arena_waiting = Gauge("arbiter_arena_waiting", "Arena entrants (active or awaiting their gate) not playing now: "
                                   "the queue for a table.", ["arena"], registry=r)
        self.arena_playing = Gauge("arbiter_arena_encounters_playing", "Arena encounters being played now.", ["arena"], registry=r)
        self.arena_entrants = Gauge("arbiter_arena_entrants", "Arena entrants by status (arbiter.store.arenas.STATUSES: "
                                    "active, candidate, suspended, replaced, withdrawn, rejected).", ["arena", "status"], registry=r)
        self.arena_suspensions = Counter("arbiter_arena_suspensions", "Arena entrants suspended for forfeiting.", ["arena"],
                                         registry=r)
        self.store_write = Histogram("arbiter_store_write_seconds", "One write transaction of the store, from BEGIN to COMMIT.",
                                     buckets=STORE_BUCKETS, registry=r)

    def bot(self, name: str) -> str:
        """``name`` as a label value: itself for the first ``MAX_BOTS`` names seen, else ``OTHER``."""
        if name in self._bots:
            return name
        with self._lock:
            if len(self._bots) < MAX_BOTS:
                self._bots.add(name)
                return name
        return OTHER

    def serve(self, host: str, port: int) -> tuple[Any, int]:
        """Serve this registry's exposition at ``http://host:port/metrics`` from
        prometheus_client's own HTTP server (a daemon thread, its own port; nothing of the
        web app). (the server, the port it listens on: ``port`` 0 takes a free one)."""
        from prometheus_client import start_http_server

        server, _thread = start_http_server(port, addr=host, registry=self.registry)
        return server, server.server_port


_active: Metrics | None = None


#: Set while work that is not the service's own runs (a bot's self-test: its seats, named
#: ``candidate`` and ``random-1``, are no bots of the service): nothing in it is counted.
_unmetered: contextvars.ContextVar[bool] = contextvars.ContextVar("arena_unmetered", default=False)


def active() -> Metrics | None:
    """The process's metrics, or None when they are off (the default) or inside ``unmetered()``."""
    return None if _unmetered.get() else _active


@contextlib.contextmanager
def unmetered() -> Iterator[None]:
    """Count nothing of what runs inside (and in the tasks and event loops started in it:
    they copy this context)."""
    token = _unmetered.set(True)
    try:
        yield
    finally:
        _unmetered.reset(token)


def enable(metrics: Metrics | None = None) -> Metrics:
    """Turn the process's metrics on (with ``metrics``, or a fresh registry) and return them."""
    global _active
    _active = metrics if metrics is not None else Metrics()
    return _active


def disable() -> None:
    global _active
    _active = None


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[V6]:PORT`` or a bare ``PORT`` (loopback: 127.0.0.1) as (host, port);
    ValueError saying what is wrong."""
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]")
    if not host:
        raise ValueError(f"{text!r}: name the interface, e.g. 127.0.0.1:9100")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{text!r}: expected HOST:PORT (a port from 0 to 65535), e.g. 127.0.0.1:9100")
    return host, int(port)
