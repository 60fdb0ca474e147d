"""Where matches are played: parsed once at the edge, opened by one function.

Every caller that plays matches (tournaments, ``arbiter evaluate``, ``arbiter play``, the
arena, a person's table, the bench) says where with a ``Where``, parsed from the text a
user wrote by ``parse_where``, the one parser of ``--transport``/``transport =``, and gets
its venue for ``arbiter.batch.engine.play_batch`` from ``open_venue``, the one factory:

* ``inproc``: the bots in this process (``InProcess``; trusted code: by default only bots
  installed with the arbiter, ``settings.is_trusted``; a file or a registered bot plays
  here only when asked for explicitly, and every record of it says so, ``record.venue``);
* ``local``: sandboxed bot processes of a ``BotHost`` on a private arbiter, on its local
  channel (``Hosted``; ``HOSTED``, the one default for hosted bots); ``grpc``: the same
  processes over gRPC (a bot of another runtime speaks gRPC on either);
* ``remote``: bots that connected on their own to a running arbiter (``Connected``);
* ``cluster``: a Dask cluster's workers, each hosting its bots (``OnCluster``).

A bot that cannot play where it is sent is refused before any match, with the reason
(``VenueError``: it does not play the game, it cannot be copied for a match in process).
"""

from __future__ import annotations

import contextlib
import enum
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Collection, Mapping, Sequence

from arbiter.batch.cluster import ClusterError, OnCluster, bot_refs
from arbiter.batch.engine import BotsDoNotPlay, Connected, InProcess, hosted
from arbiter.batch.settings import SpecError, bad_scheduler_address, check_named, is_trusted, not_carried, resolve_bot
from arbiter.hosting.botproc import DEFAULT_TRANSPORT, BotStartError, runtime_of
from arbiter.hosting.loading import game_names, load_bot
from cardarena.runtimes import PYTHON
from arbiter.hosting.inprocess import cannot_play_in_process


class Kind(enum.Enum):
    """The kinds of venue."""

    INPROC = "inproc"
    GRPC = "grpc"
    LOCAL = "local"
    REMOTE = "remote"
    CLUSTER = "cluster"


#: What a user may write (``--transport``): a kind, or ``auto`` (the default: in process
#: for bots installed with the arbiter, hosted over gRPC for anything else).
AUTO = "auto"


class VenueError(SpecError):
    """A venue that cannot be used as asked; the message says why and what to write instead."""


class BadSchedulerAddress(VenueError, ClusterError):
    """A cluster's address that does not read as a Dask scheduler's (``bad_scheduler_address``):
    a settings error and a cluster error alike."""


@dataclass(frozen=True)
class Where:
    """Where a batch is played: a kind, the cluster's scheduler address, whether the
    user asked for it (False: ``auto`` chose it), and on a cluster the wire its workers'
    bots were asked to use (None: the hosted default)."""

    kind: Kind
    address: str | None = None
    asked: bool = True
    wire: str | None = None

    @property
    def hosted(self) -> bool:
        """Bot processes on a private arbiter (gRPC or the local channel)."""
        return self.kind in (Kind.GRPC, Kind.LOCAL)

    @property
    def transport(self) -> str | None:
        """The wire of a hosted venue (``BotHost``'s ``transport``), of a cluster's workers'
        bots, or of connected (remote) bots: gRPC; None in process, where there is no wire."""
        if self.kind is Kind.CLUSTER:
            return self.wire or DEFAULT_TRANSPORT
        return {Kind.LOCAL: "local", Kind.GRPC: "grpc", Kind.REMOTE: "grpc"}.get(self.kind)

    def __str__(self) -> str:
        return f"cluster {self.address}" if self.kind is Kind.CLUSTER else self.kind.value


INPROC, GRPC, LOCAL = Where(Kind.INPROC), Where(Kind.GRPC), Where(Kind.LOCAL)
#: Where hosted bots play unless told (the default of ``--transport`` wherever the arbiter
#: starts the bots, and ``auto``'s choice for bots not installed with it): bot processes on
#: the private arbiter's local channel (``botproc.DEFAULT_TRANSPORT``; docs/performance.md).
HOSTED = Where(Kind(DEFAULT_TRANSPORT))


def describe(where: Where, bots: Sequence[str] = (), launched: Sequence[str] | None = None) -> str:
    """Where a batch of ``bots`` (their sources as written) is played, in words for its
    output: and when code that is not installed with the arbiter runs in its process, that it
    does. ``launched``: the same bots as launched (a registered ``name@version`` resolved to
    its stored folder, ``settings.resolve_bot``), whose manifests say their runtimes."""
    text = {Kind.INPROC: "in process", Kind.GRPC: "hosted (bot processes over gRPC)",
            Kind.LOCAL: "hosted (bot processes on the local channel)", Kind.REMOTE: "remote (connected bots)",
            Kind.CLUSTER: f"on the cluster {where.address}"}[where.kind]
    if where.kind is Kind.LOCAL and (other := sorted({r.name for b in (bots if launched is None else launched)
                                                          if (r := runtime_of(b)) is not PYTHON})):
        text += f" ({', '.join(other)} bots over gRPC: the local channel's frames are the Python SDK's)"
    untrusted = [b for b in bots if not is_trusted(b)]
    if where.kind is Kind.INPROC and untrusted:
        text += f" as asked: {', '.join(untrusted)} ran in the arbiter's process, without the sandbox's limits"
    elif not where.asked:
        text += " (the default for these bots; --transport to choose)"
    return text


def parse_where(text: str | Where | None = AUTO, *, cluster: str | None = None, bots: Sequence[str] = (),
                allowed: Collection[Kind] = tuple(Kind), field: str = "transport") -> Where:
    """The one reading of a transport (``inproc``, ``grpc``, ``local``, ``remote``,
    ``auto``) and a cluster's address. ``auto`` (or None) plays ``bots`` (their sources) in
    process if every one of them is installed with the arbiter, else hosted (``HOSTED``); a
    ``cluster`` address goes with ``auto`` or a hosted kind only (its workers host the bots).
    VenueError naming ``field`` for anything else, or a kind not in ``allowed``."""
    if isinstance(text, Where):
        where = text
    else:
        text = AUTO if text is None else str(text).strip().lower()
        known = [k.value for k in Kind if k is not Kind.CLUSTER and k in allowed]
        if cluster is not None:
            if text not in (AUTO, Kind.GRPC.value, Kind.LOCAL.value, Kind.CLUSTER.value):
                raise VenueError(f"{field}: a cluster's workers host every bot as a sandboxed process; "
                                 f"{text} cannot be used with a cluster")
            if why := bad_scheduler_address(cluster):
                # named as the caller names its own field: "--cluster" for a command's flag, "cluster" for a spec's key
                raise BadSchedulerAddress(f"{'--cluster' if field.startswith('--') else 'cluster'}: {why}")
            where = Where(Kind.CLUSTER, cluster, asked=True,
                          wire=text if text in (Kind.GRPC.value, Kind.LOCAL.value) else None)
        elif text == AUTO:
            where = Where(Kind.INPROC if bots and all(is_trusted(b) for b in bots) else HOSTED.kind, asked=False)
        elif text == Kind.CLUSTER.value:
            raise VenueError(f"{field}: cluster needs the scheduler's address (--cluster tcp://HOST:PORT)")
        else:
            try:
                where = Where(Kind(text))
            except ValueError:
                raise VenueError(f"{field}: expected {', '.join([*known, AUTO])}, got {text!r}") from None
    if where.kind not in allowed:
        names = [k.value for k in Kind if k in allowed and k is not Kind.CLUSTER]  # a cluster is its address, not a word
        raise VenueError(f"{field}: {where.kind.value} cannot be used here (expected {' or '.join(names)})")
    return where


@contextlib.asynccontextmanager
async def open_venue(
    where: Where,
    bots: Mapping[str, str],
    game: str | None,
    *,
    db_path: Any = None,
    hub: Any = None,
    isolation: str = "deal",
    copies: int = 1,
    processes: int = 1,
    max_restarts: int = 3,
    warm: int = 1,
    concurrency: int | None = None,
    spectators: Any = None,
    observers: Callable[[Any], Sequence[Any]] | None = None,
    on_start: Callable[[str], None] | None = None,
    on_versions: Callable[[dict[str, str]], None] | None = None,
    on_start_error: Callable[[BotStartError], None] | None = None,
    batch: str = "",
    ship_bots: bool = True,
    sandbox: Any = None,
    log_dir: Any = None,
    loaded: Mapping[str, Any] | None = None,
    workers: int = 1,
    own_names: Collection[str] = (),
    planned: Mapping[str, int] | None = None,
) -> AsyncIterator[Any]:
    """The venue of ``where`` for ``bots`` (seat name -> bot as written: a bundled name, a
    file or folder, ``module:Class``, a registered ``name@version`` looked up in the store
    at ``db_path``), for matches of ``game``; closed (its processes and arbiter stopped)
    when the block ends, whatever happens.

    In process: each bot is loaded once (``loaded`` gives bots already loaded, by name),
    and one that does not play ``game`` or cannot be copied for a match is refused here
    (VenueError); ``workers`` > 1 plays each match in one of that many worker processes. Hosted: ``hosting.botproc.BotHost`` options (``isolation``, ``copies``,
    ``processes``, ``max_restarts``, ``warm``, ``sandbox``, ``log_dir``, ``planned``), ``spectators``
    (a hub the private arbiter serves, observing every match) and ``on_start(address)``
    once the bots are up; a bot that does not connect raises BotStartError, unless
    ``on_start_error`` takes it (then its seats disconnect in their matches: a forfeit, in
    the record); one whose Hello does not claim ``game`` is refused (VenueError).
    ``observers(config)``: each match's observers when the hub that serves them is not
    the venue's own (an arena's server: hosted and remote matches). Remote:
    the bots connected to ``hub``. Cluster: ``batch`` names the batch on the workers.
    ``on_versions(name -> version)`` hears what the bots said they are.

    ``game`` None (hosted only): the venue plays each match's own game, and checks none:
    the caller reads what each bot's Hello claims (``venue.hello``; ``own_names``: the
    bots whose Hello gives their own name, not their seat name), as a bot's vetting does."""
    if game is None and not where.hosted:
        raise VenueError(f"a venue for any game is hosted only, not {where}")
    if game is not None and where.kind is not Kind.INPROC and (why := not_carried(game)):
        raise VenueError(why)
    if where.kind is Kind.INPROC:
        objects = {}
        for name, spec in bots.items():
            bot = loaded[name] if loaded is not None and name in loaded else load_bot(resolve_bot(spec, db_path))
            if not bot.plays(game):  # (one error for both ways a bot is reached: BotsDoNotPlay, naming its seat)
                raise BotsDoNotPlay(spec, game, game_names(bot.games), name)
            if why := cannot_play_in_process(bot):
                raise VenueError(f"bot {spec!r} cannot play: {why}")
            objects[name] = bot
        untrusted = sorted(n for n, spec in bots.items() if not is_trusted(spec))
        label = f"inproc (asked for; not installed code: {', '.join(untrusted)})" if untrusted else ""
        if workers > 1:  # the workers load each bot by its spec
            yield InProcess({n: resolve_bot(spec, db_path) for n, spec in bots.items()}, processes=workers,
                            concurrency=concurrency, label=label)
        else:
            yield InProcess(objects, concurrency=concurrency, label=label)
    elif where.hosted:
        sources = {name: resolve_bot(spec, db_path) for name, spec in bots.items()}
        for source in sources.values():
            check_named(source)
        async with hosted(sources, game, isolation=isolation, copies=copies, processes=processes,
                          max_restarts=max_restarts, warm=warm, spectators=spectators, concurrency=concurrency or 1,
                          on_start=on_start, on_start_error=on_start_error, transport=where.transport,
                          own_names=own_names,
                          **{k: v for k, v in (("sandbox", sandbox), ("log_dir", log_dir), ("planned", planned))
                             if v is not None},
                          ) as (venue, sessions):
            if on_versions is not None:
                on_versions({n: s.bot_version for n, s in sessions.items()})
            if observers is not None:
                venue.observers = observers
            yield venue
    elif where.kind is Kind.REMOTE:
        if hub is None:
            raise VenueError("transport: remote bots connect to a running arbiter; there is none here")
        yield Connected(hub, game, observers or (lambda config: ()), concurrency=concurrency or 1)
    else:
        assert where.address is not None
        refs = bot_refs(list(bots.values()), list(bots), db_path, ship=ship_bots)
        yield OnCluster(where.address, refs, batch, max_restarts=max_restarts,
                        isolation=isolation, transport=where.transport, on_versions=on_versions)
