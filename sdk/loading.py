"""How bots are named, and loading one by its name.

A bot is named by a bundled name (``random``, ``greedy``, ``heuristic``, ``search``, ``dds``: the
``cardarena.bots`` entry points the project installs, so nothing here imports the bots'
code until one is asked for; ``random`` comes with the SDK itself, ``SDK_BOTS``), by a path to a Python file holding one ``sdk.Bot`` subclass
(``mybot.py``, ``mybot.py:MyBot`` or a folder with ``bot.py``), or by ``module:Class``.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.machinery
import importlib.util
import inspect
import sys
from pathlib import Path

from cardarena.names import did_you_mean
from cardarena.runtimes import MANIFEST
from sdk.bot import Bot

ENTRY_POINT_GROUP = "cardarena.bots"


#: The bots the author's package brings itself (name -> "module:Class"), named like the
#: platform's: with card-arena-sdk alone a bot still has an opponent (``--bot random``).
SDK_BOTS = {"random": "sdk.random_bot:RandomBot"}


def _bundled(installed: "list[importlib.metadata.EntryPoint] | None" = None) -> dict[str, importlib.metadata.EntryPoint]:
    """The bundled names: the installed entry points (``installed``: these instead), and the SDK's own bots."""
    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP) if installed is None else installed
    found = {ep.name: ep for ep in eps}
    for name, value in SDK_BOTS.items():
        found.setdefault(name, importlib.metadata.EntryPoint(name, value, ENTRY_POINT_GROUP))
    return found


#: bundled name -> its entry point ("module:Class"), as installed (pyproject.toml)
BUNDLED: dict[str, importlib.metadata.EntryPoint] = _bundled()

#: What the bundled names are, in words: none where only the author's package (card-arena-sdk)
#: is installed, since the bundled bots are the platform's (card-arena).
BUNDLED_NAMES = ", ".join(sorted(BUNDLED)) + ("" if set(BUNDLED) - set(SDK_BOTS) else
                                              " (the SDK's own; the other bundled bots come with card-arena)")


class BotLoadError(Exception):
    """A bot spec that names no loadable Bot; the message says why."""


def unknown_bot_message(spec: str) -> str:
    """Why ``spec`` names no bot: the closest bundled name if it looks like a misspelt one,
    the missing path if it looks like a path."""
    if "/" in spec or "\\" in spec or spec.endswith(".py"):
        return f"bot file or folder not found: {spec}" + did_you_mean(spec, bots_beside(spec))
    hint = did_you_mean(spec, sorted(BUNDLED)) or did_you_mean(spec, bots_beside(spec))
    if hint:
        return f"unknown bot {spec!r}{hint}"
    return f"unknown bot {spec!r}: not a bundled bot ({BUNDLED_NAMES}) nor a .py file or folder"


def bots_beside(spec: str) -> list[str]:
    """The bot files and folders in the folder ``spec`` names one in, written as ``spec`` would
    be (``myspade.py`` -> ``myspades.py``, ``spoty`` -> ``spotty``): a typo in a bot's path was
    told "not found" beside the file it meant."""
    name = spec.rstrip("/\\")
    prefix = name[:len(name) - len(Path(name).name)]
    try:
        folder = Path(prefix or ".")
        entries = [p for _, p in zip(range(1000), folder.iterdir())]
        return sorted(prefix + p.name + spec[len(name):] for p in entries
                      if (p.suffix == ".py" and p.is_file()) or (p / "bot.py").is_file() or (p / MANIFEST).is_file())
    except OSError:
        return []


def import_failure(path: Path, exc: BaseException) -> str:
    """Why importing the bot file ``path`` failed, as a compiler says it:
    ``FILE:LINE: SyntaxError: expected ':'`` and the offending line below it; for an
    exception raised while the file ran, the deepest line of the bot's own code (its
    file, or its folder's modules) that raised."""
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename or path}:{exc.lineno}" if exc.lineno else str(exc.filename or path)
        text = (exc.text or "").rstrip("\n")
        line = f"\n    {text.strip()}" if text.strip() else ""
        return f"{where}: {type(exc).__name__}: {exc.msg}{line}"
    import traceback

    folder = str(path.resolve().parent)
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename == str(path) or str(Path(f.filename).resolve()).startswith(folder)]
    message = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    hint = ""
    own = own_modules(Path(folder))
    if isinstance(exc, ModuleNotFoundError) and exc.name and exc.name.partition(".")[0] not in own:
        close = did_you_mean(exc.name, [n for n in own if n != "bot"])  # a module of its own, misspelt
        hint = (f"\n    (not a module beside bot.py{close})" if close else
                '\n    (a package the bot needs: a folder bot lists it in its bot.toml, requirements = '
                '"requirements.txt", a pinned lock file beside bot.py)')
    if not frames:
        return f"{path}: {message}{hint}"
    last = frames[-1]
    line = f"\n    {last.line.strip()}" if last.line and last.line.strip() else ""
    return f"{last.filename}:{last.lineno}: {message}{line}{hint}"


#: The top-level modules a bot's process imports besides Python's own: the SDK, the core and
#: their dependencies (grpc, protobuf's ``google``).
SDK_MODULES = ("sdk", "cardarena", "grpc", "google")
#: Modules of Python's library that nothing imports but their own tests and demos: a bot's
#: ``test.py`` beside its ``bot.py`` replaces nothing anyone needs.
_UNIMPORTED_STDLIB = frozenset({"test", "idlelib", "turtledemo", "this", "antigravity", "__phello__"})


def own_modules(folder: Path) -> list[str]:
    """The top-level modules of a folder bot's own: its ``X.py`` files and its packages
    ``X/__init__.py`` (a folder without ``__init__.py`` is a namespace package, which a
    module of the same name elsewhere on the path wins over)."""
    names = {p.stem for p in folder.glob("*.py")} | {p.parent.name for p in folder.glob("*/__init__.py")}
    return sorted(n for n in names if n.isidentifier())


def shadowing(folder: Path) -> str:
    """Why a folder bot's own modules cannot be imported beside Python's and the SDK's ("" if
    they can). A folder bot's modules come first on its process's import path (that is how
    ``bot.py`` imports them by plain name), so a ``random.py`` of its own would replace
    Python's ``random`` for the SDK as well, and the process would end in the SDK's traceback
    before the bot's first line ran. "" for anything but a folder bot (a folder with ``bot.py``)."""
    if not (folder.is_dir() and (folder / "bot.py").is_file()):
        return ""
    clash = [n for n in own_modules(folder)
             if n in SDK_MODULES or (n in sys.stdlib_module_names and n not in _UNIMPORTED_STDLIB)]
    if not clash:
        return ""
    files = ", ".join(f"{n}.py" if (folder / f"{n}.py").is_file() else f"{n}/" for n in clash)
    whose = ", ".join(f"{n!r} ({'the SDK' if n in SDK_MODULES else 'Python'}'s)" for n in clash)
    return (f"{folder}: {files} has the name of a module of {whose}: a folder bot's own modules come first "
            f"on its import path, so every import of that name (the SDK's too) would get yours; rename it "
            f"(e.g. my_{clash[0]}.py)")


def _exec_folder_bot(loader_spec: importlib.machinery.ModuleSpec, module: object, folder: Path) -> None:
    """Run a folder bot's ``bot.py`` as its process would: its folder first on the path, so
    it imports its own modules by plain name. In a process of several bots (the arbiter's
    ``--transport inproc``, the harness) each bot gets its own: a ``helpers`` already
    imported (another bot's) is set aside meanwhile, and the bot's own are taken out of
    ``sys.modules`` after (the bot keeps them; an import of its own module made later,
    inside ``choose``, finds none in this process). In the bot's own process, whose path has
    the folder already (a hosted bot's PYTHONPATH), it is imported as any module is."""
    here = folder.resolve()
    if any(p and Path(p).resolve() == here for p in sys.path):  # the bot's own process (PYTHONPATH): as it is
        loader_spec.loader.exec_module(module)  # type: ignore[union-attr]
        return
    own = set(own_modules(folder))
    held = {n: sys.modules.pop(n) for n in list(sys.modules) if n.partition(".")[0] in own}
    sys.path.insert(0, str(folder))
    importlib.invalidate_caches()
    try:
        loader_spec.loader.exec_module(module)  # type: ignore[union-attr]
    finally:
        sys.path.remove(str(folder))
        for n in [n for n in sys.modules if n.partition(".")[0] in own]:
            del sys.modules[n]
        sys.modules.update(held)


def load_bot(spec: str) -> Bot:
    """An instance of the bot named by ``spec`` (see the module docstring)."""
    if spec in BUNDLED:
        return BUNDLED[spec].load()()
    path_part, _, cls_name = spec.partition(":") if not Path(spec).exists() else (spec, "", "")
    path = Path(path_part)
    if path.suffix == ".py" or path.exists():
        if path.is_dir() and (path / MANIFEST).is_file() and not (path / "bot.py").is_file():
            raise BotLoadError(f"{path}: its {MANIFEST} names another runtime: it plays as a process of its own, "
                               "not inside this Python process (not with --transport inproc)")
        folder = None
        if path.is_dir():
            folder, path = path, path / "bot.py"
            if why := shadowing(folder):
                raise BotLoadError(why)
        if not path.is_file():
            raise BotLoadError(f"bot file not found: {path}" + ("" if folder else did_you_mean(path_part, bots_beside(path_part))))
        mod_name = f"_arena_bot_{abs(hash(str(path.resolve())))}"
        loader_spec = importlib.util.spec_from_file_location(mod_name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise BotLoadError(f"cannot import {path}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[mod_name] = module
        try:
            if folder is None:
                loader_spec.loader.exec_module(module)
            else:
                _exec_folder_bot(loader_spec, module, folder)
        except Exception as exc:  # noqa: BLE001 - report any import failure of user code
            raise BotLoadError(import_failure(path, exc)) from exc
    elif ":" in spec:
        try:
            module = importlib.import_module(path_part)
        except ImportError as exc:
            raise BotLoadError(f"cannot import module {path_part!r}: {exc}") from exc
    else:
        raise BotLoadError(unknown_bot_message(spec))
    source = path if path.suffix == ".py" else None  # the bot's file (None: a module's)
    if cls_name:
        cls = getattr(module, cls_name, None)
        if not (inspect.isclass(cls) and issubclass(cls, Bot)):
            raise BotLoadError(_no_such_class(spec, module, cls_name, cls, source))
        return _make(cls, source)
    found = [obj for obj in _bot_classes(module).values() if obj.__module__ == module.__name__]
    # a base class of the bot's, beside it, is not a second bot: the bot is the one no other derives from
    found = [c for c in found if not any(o is not c and issubclass(o, c) for o in found)]
    if len(found) != 1:
        names = ", ".join(c.__name__ for c in found) or "none"
        raise BotLoadError(f"{spec}: expected exactly one sdk.Bot subclass, found {names}; keep one in this file "
                           "(another can live in a module beside it), or name one as FILE:Class where a bot is "
                           "named (arbiter play, python -m sdk)")
    return _make(found[0], source)


def _bot_classes(module: object) -> dict[str, type[Bot]]:
    """The ``sdk.Bot`` subclasses a module holds, by the names it holds them under (those it
    imported too; ``Bot`` itself not)."""
    return {n: obj for n, obj in vars(module).items() if inspect.isclass(obj) and issubclass(obj, Bot) and obj is not Bot}


def _no_such_class(spec: str, module: object, cls_name: str, found: object, path: Path | None) -> str:
    """Why FILE:Class (or module:Class) names no bot: no such name in it ("'C' is not an sdk.Bot
    subclass" was said of a class the file does not have), or a name that is not a Bot class;
    with the sdk.Bot classes it does have, to name one of them."""
    where = str(path) if path is not None else f"module {getattr(module, '__name__', '?')!r}"
    bots = sorted(n for n in _bot_classes(module) if not n.startswith("_"))
    has = f"its sdk.Bot classes: {', '.join(bots)}" if bots else "it has no sdk.Bot class"
    if found is None:
        return f"{spec}: no class {cls_name!r} in {where} ({has})"
    kind = "class" if inspect.isclass(found) else type(found).__name__
    what = f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"
    return f"{spec}: {cls_name!r} in {where} is {what}, not an sdk.Bot subclass ({has})"


def _make(cls: type[Bot], path: Path | None) -> Bot:
    """``cls()``, the bot as every path makes it (with no arguments); BotLoadError in words if
    its ``__init__`` cannot be called so or raises (``path``: the bot's file, whose own line
    that raised is named)."""
    try:
        return cls()
    except Exception as exc:  # noqa: BLE001 - the bot's own code
        detail = import_failure(path, exc) if path is not None else f"{type(exc).__name__}: {exc}"
        raise BotLoadError(f"{cls.__name__}() could not be made{_why_not_made(cls, exc)}: {detail}") from exc


def _why_not_made(cls: type, exc: Exception) -> str:
    """What the author can do about ``cls()`` raising ``exc``, where it is known: "(a bot is
    made with no arguments)" was said of every failure, a missing file too, and sent the
    author of an ``__init__`` that opened "weights.json" to look at its arguments."""
    try:
        inspect.signature(cls).bind()
    except TypeError:
        return " (a bot is made with no arguments)"
    except ValueError:  # no signature to read
        pass
    name = getattr(exc, "filename", None)
    if isinstance(exc, FileNotFoundError) and isinstance(name, str) and not Path(name).is_absolute():
        return (f" (a file of the bot's own is read beside it, Path(__file__).parent / {name!r}: the current "
                "directory is not the bot's folder where the arbiter runs it)")
    return ""
