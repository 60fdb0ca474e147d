"""What every plan's settings share: how a bot is written in them and found, and how a
settings file is read.

A bot is ``"SPEC"`` (a bundled name, ``FILE.py[:Class]``, a folder, ``module:Class`` or a
registered ``name@version``) or ``"NAME=SPEC"`` to choose its display name. Tournaments,
``arbiter evaluate``, ``arbiter play``, the arena's house bots and a person's table all
name, resolve and trust bots by these rules (``bot_names``, ``bot_sources``,
``resolve_bot``, ``is_trusted``), and read their TOML settings with ``read_toml`` and
``check_table``; each plan's own errors are ``SpecError``s naming the field.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Mapping, Sequence

from arbiter.hosting.loading import BUNDLED, BotLoadError, bots_beside, did_you_mean, game_names, load_bot, shadowing, unknown_bot_message
from arbiter.store.db import Store
from arbiter.store.registry import RegistryError, collect, is_registered_ref, lookup, registered_versions
from cardarena.games import ConfigError
from cardarena.runtimes import MANIFEST
from cardarena.names import does_not_play


#: A Dask scheduler's address: [scheme://]HOST:PORT (tcp://10.0.0.5:8786, [::1]:8786).
_SCHEDULER_ADDRESS = re.compile(r"^([a-z][a-z0-9+]*://)?(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):\d+$")


def bad_scheduler_address(address: Any) -> str:
    """Why ``address`` is not a Dask scheduler's address ('' if it is one): the one rule for
    ``cluster`` in tournament and arena specs and for ``--cluster`` everywhere. Here, not in
    ``arbiter.batch.cluster``: a spec checks it, and importing the cluster driver (with it the
    arbiter's gRPC server) for it cost every ``arbiter tournament`` start ~0.15 s of CPU."""
    if isinstance(address, str) and _SCHEDULER_ADDRESS.match(address):
        return ""
    return f"expected a Dask scheduler address such as tcp://10.0.0.5:8786 (what `dask scheduler` prints), got {address!r}"


def not_carried(game: str) -> str:
    """Why bots outside the arbiter's process (hosted, connected, on a cluster) cannot play
    ``game`` ("" if they can): the protocol does not carry it (``codec.carries``). Here, not in
    ``arbiter.batch.venue``, so that /play's pages ask it without importing the venue."""
    from cardarena.wire.codec import carries  # (the protobuf messages: only when asked)

    if carries(game):
        return ""
    return (f"{game} is not carried by the protocol (no View and Action messages for it in protos/cardarena/v1/): "
            "its bots can play only in the arbiter's process (--transport inproc); docs/architecture.md says what "
            "a game of the product adds")


class SpecError(ConfigError):
    """Settings (a tournament spec, a ladder, a match) that cannot run; the message names
    the field and the reason."""


def bot_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: ``NAME=`` if given, ``name@version`` as is, a class given
    (``module:Class``, ``FILE.py:Class``) by its class, else the spec's stem, made unique with
    -2, -3... in order. (A class was once named by its module's stem: ``bots.noisy:Noisy30``
    was "bots", two classes of ``zoo.py`` "zoo" and "zoo-2"; a store's records keep the names
    they were played under, and a resumed tournament its entrants'.)"""
    names: list[str] = []
    seen: dict[str, int] = {}
    for spec in specs:
        alias, sep, rest = spec.partition("=")
        cls = spec.rpartition(":")[2]
        if sep and alias.strip():
            base = alias.strip()
        elif is_registered_ref(spec):
            base = spec
        elif ":" in spec and cls.isidentifier() and cls.lstrip("_"):
            base = cls.lstrip("_")
        else:
            # a folder bot named with the trailing slash a shell completes (``mybot/``) is ``mybot``,
            # and the folder one is in (``.``, docs/other-languages.md) is named as that folder is
            path = spec.split(":")[0].rstrip("/" + os.sep) or spec
            if os.path.basename(path) in (".", ".."):
                path = os.path.abspath(path)
            base = os.path.splitext(os.path.basename(path))[0] or spec
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return tuple(names)


def name_clash(specs: Sequence[str]) -> str:
    """Why the bots ``specs`` as written cannot all be told apart by name ('' if they can): a
    name chosen (``NAME=SPEC``) for two of them, which ``bot_names`` would have made ``NAME``
    and ``NAME-2`` unasked, or a name chosen that another bot's automatic one also takes
    (``random,random,random-2=greedy``). Names not chosen are made unique by ``bot_names``."""
    chosen: dict[str, list[str]] = {}
    for spec in specs:
        alias, sep, _ = spec.partition("=")
        if sep and alias.strip():
            chosen.setdefault(alias.strip(), []).append(spec)
    for name, given in chosen.items():
        if len(given) > 1:
            return (f"the name {name!r} is chosen for {len(given)} bots ({', '.join(given)}): choose a name of its "
                    "own for each")
    names = bot_names(specs)
    for name in chosen:
        if names.count(name) > 1:
            return (f"the name {name!r} is chosen for {next(iter(chosen[name]))} and is also another bot's automatic "
                    f"name (a second {name.rsplit('-', 1)[0]} is {name}): choose another")
    return ""


def entrant_names(store: Store, tournament_id: int, specs: Sequence[str]) -> tuple[str, ...]:
    """The names the bots ``specs`` of the stored tournament ``tournament_id`` play under: its
    entrants', which its records carry, where they are these bots (an older arbiter named a
    ``module:Class`` bot by its module's stem: ``bot_names``); else ``bot_names``'s (an
    evaluation keeps no entrants)."""
    entrants = store.entrants(tournament_id)
    if [e.spec for e in entrants] == list(bot_sources(specs)):
        return tuple(e.name for e in entrants)
    return bot_names(specs)


def bot_sources(specs: Sequence[str]) -> tuple[str, ...]:
    """The launchable part of each bot spec (``NAME=SPEC`` -> ``SPEC``)."""
    out = []
    for spec in specs:
        alias, sep, rest = spec.partition("=")
        out.append(rest.strip() if sep and alias.strip() else spec)
    return tuple(out)


def from_folder(spec: str, folder: str | os.PathLike) -> str:
    """The bot ``spec`` as a settings file writes it, with a relative file or folder path
    (``./mybot.py``, ``bots/h.py:Heuristic``, ``mybot/``, ``.``) made absolute from ``folder``,
    the file's own: a spec file's paths mean the same files whatever the current directory (as
    Cargo.toml's and pyproject.toml's do), and the run stores them so, which its resume finds
    from anywhere. A bundled name, ``name@version`` and ``module:Class`` stay as written (a
    name is a path only with a ``/``, a ``.py`` or a file or folder of that name there)."""
    alias, sep, rest = spec.partition("=")
    named = bool(sep and alias.strip())
    source = rest.strip() if named else spec
    if source in BUNDLED or is_registered_ref(source):
        return spec
    part, colon, cls = source.partition(":")
    if not part or Path(part).is_absolute() or part.startswith("~"):
        return spec
    if not (part.endswith(".py") or "/" in part or os.sep in part or part in (".", "..") or (Path(folder) / part).exists()):
        return spec  # module:Class, or a bot name check_bot_spec says is unknown
    full = os.path.normpath(os.path.join(os.path.abspath(folder), part)) + colon + cls
    return f"{alias.strip()}={full}" if named else full


def path_from_folder(path: str, folder: str | os.PathLike) -> str:
    """A file a settings file names (a ladder's ``[server] db`` and ``credentials``): a relative
    ``path`` made absolute from ``folder``, the settings file's own, as its bots' paths are
    (``from_folder``); an absolute one, ``~/...`` or "" as written."""
    if not path or Path(path).is_absolute() or path.startswith("~"):
        return path
    return os.path.normpath(os.path.join(os.path.abspath(folder), path))


def as_stored_paths(specs: Sequence[str], stored: Sequence[str] | None) -> tuple[str, ...]:
    """``specs`` written as ``stored`` (the bots of a stored run of the same name) writes them
    where they are the same files: a spec file's relative path was stored as written (and read
    from the current directory) before ``from_folder``, and is the absolute path of that file
    now; the same command from the same directory resumes such a run rather than be refused as
    another spec."""
    if not isinstance(stored, (list, tuple)) or len(stored) != len(specs):
        return tuple(specs)
    out = []
    for new, old in zip(specs, stored):
        same = (isinstance(old, str) and old != new and bot_names([old]) == bot_names([new])
                and Path(bot_sources([new])[0]).is_absolute()
                and os.path.abspath(bot_sources([old])[0]) == bot_sources([new])[0])
        out.append(old if same else new)
    return tuple(out)


def resolve_bot(source: str, db_path: str | os.PathLike | None) -> str:
    """A launchable bot spec for ``source``: ``name@version`` is looked up in the registry.
    A registered bot's name without its version (``meldy``, what ``arbiter bots submit``
    just said it registered) names nothing else either: SpecError naming its versions."""
    if not is_registered_ref(source):
        if db_path is not None and source not in BUNDLED and ":" not in source and not Path(source).exists():
            if known := registered_versions(db_path, source):
                versions = f" (its versions: {', '.join(known)})" if len(known) > 1 else ""
                raise SpecError(f"bots: {source!r} is a registered bot: name it with its version, "
                                f"{source}@{known[-1]}{versions}")
        return source
    if db_path is None:
        raise SpecError(f"bots: {source!r} names a registered bot, but there is no store to look it up in: give "
                        "the store it was submitted to (--db)")
    try:
        return lookup(db_path, source)[0].spec
    except RegistryError as exc:
        raise SpecError(f"bots: {source!r}: {exc}") from None


def check_store_for_registered(sources: Sequence[str], db_path: str | os.PathLike) -> None:
    """SpecError for a ``name@version`` bot when there is no store at ``db_path`` yet: nothing
    is registered in a store not made. Asked before a run creates one, which a bot it cannot
    find would leave behind, with "no bot in the registry of" a store just made (a typo of
    --db reads so as if the bot had been removed)."""
    if Path(db_path).exists():
        return
    for source in bot_sources(sources):
        if is_registered_ref(source):
            raise SpecError(f"bots: {source!r} names a registered bot, and there is no store at {db_path} to look it "
                            "up in: give the store it was submitted to (--db), or register it there first (arbiter "
                            "bots submit)")


def check_registered(sources: Sequence[str], db_path: str | os.PathLike, field: str = "bots") -> None:
    """SpecError naming the first ``name@version`` of ``sources`` that the registry of the
    store at ``db_path`` does not hold (or no store there): for a run that resolves its bots
    only as each match starts, such as an arena's house, asked once at its start (each of its
    encounters failed instead, with a traceback, until the 20th stopped the arena)."""
    for source in bot_sources(sources):
        if is_registered_ref(source):
            try:
                lookup(db_path, source)
            except RegistryError as exc:
                raise SpecError(f"{field}: {source!r}: {exc}") from None


_MODULE_CLASS = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")

#: The key of a stored run's spec that keeps its file bots' contents (``keyed_spec``).
CONTENT_KEY = "bot_content"


def bot_contents(sources: Sequence[str]) -> dict[str, str]:
    """The content hash (``registry.Submission.content_hash``) of each bot given as a file or a
    folder (``FILE.py``, ``FILE.py:Class``, ``FOLDER``), by its source as given; bundled and
    installed bots are their names, registered ones their versions. A file that cannot be read
    as a bot is left out: its launch says what is wrong with it."""
    out: dict[str, str] = {}
    for source in bot_sources(sources):
        path = Path(source) if Path(source).exists() else Path(source.split(":")[0])
        if is_registered_ref(source) or not path.exists() or not (path.suffix == ".py" or path.is_dir()):
            continue
        try:
            out[source] = collect(path).content_hash
        except RegistryError:
            continue
    return out


def edited_bots(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """The file and folder bots of the stored run ``spec`` whose contents now differ from those
    it was played with (its ``CONTENT_KEY``, ``keyed_spec``): a run of them is not resumed as it
    is (a tournament's is refused, an evaluation's command begins a new one). Only those found
    here and read (a relative path is the current directory's): one not found is not said changed."""
    held = spec.get(CONTENT_KEY)
    if not isinstance(held, Mapping) or not held:
        return ()
    now = bot_contents(tuple(str(s) for s in held))
    return tuple(sorted(s for s, h in held.items() if s in now and now[s] != h))


#: What ``keyed_spec`` says a run whose bots were edited can do instead.
RUN_WAY_ON = "--fresh plays it again with the bots as they are now, --name NAME starts another run beside it"


def keyed_spec(spec: Mapping[str, Any], contents: Mapping[str, str], stored: Mapping[str, Any] | None,
               name: str, where: str, way_on: str = RUN_WAY_ON, earlier: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The spec a run is stored and resumed under: ``spec`` and, when any bot is a file or a
    folder, their ``contents`` (``bot_contents`` of its bots), so that a bot edited since its
    matches were played is never resumed as the same run. ``stored``: the spec already stored
    under ``name`` (None: a new run). A run stored before contents were kept resumes on its spec
    alone; one whose bots have changed since is a SpecError naming them and ``way_on``.

    ``earlier`` (a ladder, whose house bots may come and go): the bots may change, not their
    contents. It maps the source of each bot that played before to the one it was first given
    as (the same bot, its path perhaps spelt otherwise); a source not in it is a bot added, one
    no longer given a bot left, and the contents kept are every one ever played, so that a bot
    that comes back edited is still refused."""
    contents = dict(contents)
    before = stored.get(CONTENT_KEY) if stored is not None else None
    if earlier is not None and isinstance(before, dict):
        changed = sorted(s for s, h in contents.items() if s in earlier and before.get(earlier[s], h) != h)
        if changed:
            raise SpecError(f"{name!r} in {where} was played with other contents of {', '.join(changed)} (edited "
                            f"since): {way_on}")
        kept = {**before, **{s: h for s, h in contents.items() if s not in earlier}}
        return {**spec, CONTENT_KEY: kept}
    if not contents:
        return dict(spec)
    if stored is not None and CONTENT_KEY not in stored and dict(stored) == dict(spec):
        return dict(spec)
    keyed = {**spec, CONTENT_KEY: contents}
    if stored is not None and isinstance(before, dict) and before != contents:
        rest = {k: v for k, v in stored.items() if k != CONTENT_KEY}
        if rest == dict(spec):
            changed = sorted(s for s, h in contents.items() if before.get(s) != h)
            raise SpecError(f"{name!r} in {where} was played with other contents of {', '.join(changed)} (edited "
                            f"since): {way_on}")
    return keyed


def is_trusted(source: str) -> bool:
    """Whether ``source`` names code installed with the arbiter (a bundled bot, or an
    installed ``module:Class``), which may play in this process by default. A file, a
    folder or a registered bot is somebody's code: it plays in a hosted process unless
    in process is asked for explicitly (``arbiter.batch.venue.parse_where``)."""
    if source in BUNDLED:
        return True
    if is_registered_ref(source) or not _MODULE_CLASS.fullmatch(source):
        return False
    return not Path(source.split(":")[0]).exists() and not source.split(":")[0].endswith(".py")


def check_named(source: str) -> None:
    """BotLoadError (saying why) unless ``source`` (resolved) names a bot that a process
    can be started for: a bundled name, an existing file or folder (whose own modules do not
    take the names of the SDK's: ``shadowing``), or ``module:Class``; checked before a venue
    starts anything."""
    path = source.split(":")[0] if not Path(source).exists() else source
    if why := shadowing(Path(path)):
        raise BotLoadError(why)
    if source in BUNDLED or Path(path).exists() or (_MODULE_CLASS.fullmatch(source) and not path.endswith(".py")):
        return
    raise BotLoadError(unknown_bot_message(source))


def check_bot_spec(spec: str, source: str, game: str, field: str = "bots") -> None:
    """SpecError naming ``field`` unless the bot spec ``spec`` (resolved: ``source``) can be
    launched for ``game``, as far as can be told without running its code: a bundled bot that
    plays it, a registered ``name@version`` (resolved when the run starts), an existing file
    or folder, or ``module:Class``. A tournament's bots and a ladder's house bots."""

    if source in BUNDLED:
        bot = load_bot(source)
        if not bot.plays(game):
            raise SpecError(f"{field}: {does_not_play(spec, game, game_names(bot.games))}")
        return
    if is_registered_ref(source):
        return  # resolved against the bot registry when the run starts
    path = Path(source.split(":")[0]) if not Path(source).exists() else Path(source)
    if path.suffix == ".py" or path.exists():
        if not (path.is_file() or (path.is_dir() and ((path / "bot.py").is_file() or (path / MANIFEST).is_file()))):
            raise SpecError(f"{field}: {spec!r}: file not found: {path}" + did_you_mean(source, bots_beside(source)))
        if why := shadowing(path):
            raise SpecError(f"{field}: {why}")
        return
    if ":" in source:
        return  # module:Class, imported by the bot process
    hint = did_you_mean(source, sorted(BUNDLED)) or did_you_mean(source, bots_beside(source))
    if hint:
        raise SpecError(f"{field}: unknown bot {spec!r}{hint}")
    raise SpecError(f"{field}: unknown bot {spec!r}: not a bundled bot ({', '.join(BUNDLED)}), a .py file, module:Class or name@version")


def read_toml(path: str | os.PathLike) -> dict[str, Any]:
    """A settings file (a tournament spec, a ladder), parsed; SpecError naming the file
    and the reason if it cannot be read or is not TOML."""
    p = Path(path)
    try:
        return tomllib.loads(p.read_text())
    except OSError as exc:
        raise SpecError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError(f"{p}: not valid TOML: {exc}") from None


def check_kind(data: Mapping[str, Any], theirs: Sequence[str], source: str, kind: str, wanted: str, command: str) -> None:
    """SpecError for a settings file of another kind: a ladder file given to ``tournament run``,
    or a tournament spec to ``arena`` (``theirs``: top-level keys only that ``kind`` has;
    ``wanted``: the kind the command reads; ``command``: the one that runs a ``kind``). It said
    only "unknown field 'house'" (or 'bots'), the command that runs the file unsaid."""
    if found := [k for k in theirs if k in data]:
        raise SpecError(f"{source}: {kind} (its {', '.join(found)}), not {wanted}: {command} {source} runs it")


def check_table(table: Mapping[str, Any], schema: Mapping[str, type], prefix: str, source: str) -> None:
    """SpecError naming ``source`` and the field for an unknown key of a settings table or a
    value of the wrong type (a bool is not an int; an int is a float, as TOML's ``40`` for 40.0)."""
    for key, value in table.items():
        if key not in schema:
            raise SpecError(f"{source}: unknown field {prefix}{key!r} (known: {', '.join(schema)})")
        want = schema[key]
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            continue
        if not isinstance(value, want) or (want in (int, float) and isinstance(value, bool)):
            raise SpecError(f"{source}: field {prefix}{key}: expected {want.__name__}, got {type(value).__name__} {value!r}")
