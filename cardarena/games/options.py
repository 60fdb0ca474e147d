"""Options declared once: the schema every configurable thing's settings are read from.

A game's Options, a tournament's spec and a ladder's settings are frozen dataclasses whose
fields are declared with their type, default and, where it has one, their range or their
choices (``option(default, min=, max=, choices=)``); the meaning of each is its entry in
the class docstring's ``Attributes:`` section (``field_docs``). From that one declaration
come:

* validation: ``parse_options`` (a game's options, values typed or from a command line)
  and ``check_settings`` (a tournament's or a ladder's typed settings), each refusing a bad
  value with a message naming the setting and the reason;
* the descriptions: ``option_specs`` (``arbiter rules GAME``, the web form's fields and
  their ranges) and ``flag_help`` (the command line's help for a setting);
* the layout of a settings file: ``toml_tables`` (which keys each TOML table takes, and
  their types), read by ``arbiter.batch.settings.check_table``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import ConfigError


# --------------------------------------------------------------------------------------
# Field descriptions: the ``Attributes:`` section of a dataclass's docstring.


def field_docs(cls: type) -> dict[str, str]:
    """``{field: meaning}`` from the ``Attributes:`` section of ``cls.__doc__``.

    The section is a line ``Attributes:`` followed by indented entries ``name: meaning``;
    a meaning may continue on further lines indented deeper than its name. The section
    ends at the first line indented no deeper than ``Attributes:`` (or the docstring's
    end). Fields without an entry are simply absent from the result.
    """
    lines = (cls.__dict__.get("__doc__") or "").expandtabs().splitlines()
    out: dict[str, str] = {}
    base = None
    entry_indent = None
    current = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if base is None:
            if stripped == "Attributes:":
                base = indent
            continue
        if not stripped:
            continue
        if indent <= base:
            break
        if entry_indent is None:
            entry_indent = indent
        name, sep, text = stripped.partition(":")
        if indent == entry_indent and sep and name.isidentifier():
            current = name
            out[current] = text.strip()
        elif current is not None:
            out[current] = f"{out[current]} {stripped}".strip()
    return out


def with_attributes(entries: Mapping[str, str], width: int = 92) -> Any:
    """A class decorator that adds ``entries`` (``{field: meaning}``) to the end of the class
    docstring's ``Attributes:`` section, in the section's own layout: for settings several
    classes share, whose meaning is written once (``cardarena.records.MATCH_SETTINGS``).
    ``field_docs`` and pydoc then read them as if written in the class."""

    def add(cls: type) -> type:
        lines = (cls.__dict__.get("__doc__") or "").expandtabs().splitlines()
        start = next((i for i, line in enumerate(lines) if line.strip() == "Attributes:"), None)
        if start is None:
            raise TypeError(f"{cls.__name__}: its docstring has no Attributes: section to add {sorted(entries)} to")
        base = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > base):
            end += 1
        while lines[end - 1].strip() == "":
            end -= 1
        pad = " " * (base + 4)
        new = []
        for name, meaning in entries.items():
            line = pad + name + ":"
            for word in meaning.split():
                if len(line) + 1 + len(word) > width:
                    new.append(line)
                    line = pad + "   "
                line += " " + word
            new.append(line)
        cls.__doc__ = "\n".join(lines[:end] + new + lines[end:])
        return cls

    return add


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game as declared: for ``arbiter rules GAME``, the web form and the docs."""

    name: str
    type: str  # e.g. "int", "bool", "draw | fewer_payoff_wins", "int or unlimited"
    default: str  # as it would be written on a command line ("none" for an unset one)
    meaning: str  # from the Options docstring (field_docs)
    min: float | None = None  # the declared range of a number (``option(min=, max=)``)
    max: float | None = None
    choices: tuple[str, ...] = ()  # the declared choices of a text (``option(choices=)``)

    @property
    def range_text(self) -> str:
        """The declared range in words ("2..6", "at least 1", ""), as errors say it."""
        return range_text(self.min, self.max)


def option(default: Any = dataclasses.MISSING, *, min: float | None = None, max: float | None = None,
           choices: Sequence[str] = (), table: str = "", key: str = "", also: Sequence[str] = (),
           in_files: bool = True, factory: Any = dataclasses.MISSING, words: Sequence[str] = ()) -> Any:
    """A field declared with its range or choices beside its type and default:
    ``players: int = option(4, min=2, max=6)``, ``policy: str = option("forfeit",
    choices=("forfeit", "default"), table="failure")``.

    ``parse_options`` (a game's options) refuses a number outside the range ("option
    'players': must be 2..6, got 7"); ``check_settings`` (a tournament's or a ladder's) a
    value of the wrong type, outside the range or not among the choices. A value that is not
    a number (None, ``"unlimited"``) is not range-checked. ``arbiter rules``, the web form
    and ``flag_help`` show the range and the choices.

    For settings read from a TOML file (``toml_tables``): ``table`` is the file's table the
    setting is written in ("" for the top level, ``"clock"`` for ``[clock]``), ``key`` its
    name there when it differs from the field's, ``also`` further tables that take it, and
    ``in_files=False`` keeps it out of files (a setting only code passes). ``factory`` is a
    default factory (``dataclasses.field``'s). ``words``: texts a setting of another type takes
    too (a ladder's ``sd_bound = "auto"`` beside its numbers)."""
    meta = {"min": min, "max": max, "choices": tuple(choices), "table": table, "key": key, "also": tuple(also),
            "in_files": in_files, "words": tuple(words)}
    if factory is not dataclasses.MISSING:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def _bound_text(x: float) -> str:
    """A bound as written: every digit of a whole one (86400000, not 8.64e+07)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def range_text(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"{_bound_text(lo)}..{_bound_text(hi)}"
    if lo is not None:
        return f"at least {_bound_text(lo)}"
    return f"at most {_bound_text(hi)}" if hi is not None else ""


def _check_ranges(obj: Any) -> None:
    """Each bounded number within its bounds. Written as "not within" so that a NaN (``-o
    unit_per_spot=nan``, or ``nan`` in a TOML table), which compares false both ways, is out
    of range too: it passed and failed later in the game's own checks with a traceback."""
    for f in dataclasses.fields(obj):
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        if lo is None and hi is None:
            continue
        v = getattr(obj, f.name)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (
                (lo is not None and not v >= lo) or (hi is not None and not v <= hi)):
            raise ConfigError(f"option {f.name!r}: must be {range_text(lo, hi)}, got {_bound_text(v)}")


def _type_text(tp: Any) -> str:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        arms = [_type_text(a) for a in args if a is not type(None)]
        text = " or ".join(arms)
        return f"{text} or none" if type(None) in args else text
    if origin is typing.Literal:
        return " | ".join(str(a) for a in args)
    if origin is frozenset:
        return "comma-separated list"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return " | ".join(str(m.value) for m in tp)
    return {bool: "bool", int: "int", float: "number", str: "text"}.get(tp, getattr(tp, "__name__", str(tp)))


#: An empty set option as shown and as read (``-o wild_excluded_ranks=(empty)``, or nothing after the =).
EMPTY = "(empty)"


def _value_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, frozenset):
        return ",".join(sorted(map(str, value))) or EMPTY
    return f"{value:g}" if isinstance(value, float) else str(value)


@functools.lru_cache(maxsize=256)
def type_hints(cls: type) -> Mapping[str, Any]:
    """``typing.get_type_hints(cls)``, worked out once per class (a settings class does not
    change): it evaluates every annotation's text, about 0.3 ms for a game's Options, and
    ``parse_options`` runs at every match's start (docs/performance.md, issue 42). Read
    only: the same mapping is handed to every caller."""
    return types.MappingProxyType(typing.get_type_hints(cls))


def option_specs(options_cls: type) -> list[OptionSpec]:
    """Every option of an Options dataclass, in declaration order, with its type, default
    and meaning (the defaults are the declared ones, before any derived value)."""
    hints = type_hints(options_cls)
    docs = field_docs(options_cls)
    out = []
    for f in dataclasses.fields(options_cls):
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)  # type: ignore[misc]
        out.append(OptionSpec(f.name, _type_text(hints[f.name]), _value_text(default), docs.get(f.name, ""),
                              f.metadata.get("min"), f.metadata.get("max"), tuple(f.metadata.get("choices", ()))))
    return out


def value_text(value: Any) -> str:
    """An option value as written on a command line (``true``, ``A,7``, ``unlimited``)."""
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or EMPTY
    return _value_text(value)


# --------------------------------------------------------------------------------------
# Options: one generic parser for every game's Options dataclass.


def options_to_dict(options: Any) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(options):
        v = getattr(options, f.name)
        if isinstance(v, enum.Enum):
            v = v.value
        elif isinstance(v, frozenset):
            v = sorted(v)
        out[f.name] = v
    return out


def parse_options(
    cls: type,
    given: Mapping[str, Any],
    presets: Mapping[str, Mapping[str, Any]] | None = None,
    preset: str | None = None,
) -> Any:
    """Build ``cls`` from defaults, then the preset, then ``given`` (later wins).

    Values may be typed or strings from a command line (``"true"``, ``"off"``, ``"A,7"``).
    Raises ConfigError naming the option and the reason.
    """
    values: dict[str, Any] = {}
    if preset is not None:
        if not presets or preset not in presets:
            known = ", ".join(sorted(presets or {})) or "none"
            raise ConfigError(f"unknown preset {preset!r} (known: {known})")
        values.update(presets[preset])
    values.update(given)
    hints = type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown option {', '.join(map(repr, unknown))} (known: {', '.join(sorted(fields))})"
        )
    kwargs = {}
    for name, raw in values.items():
        try:
            kwargs[name] = _coerced_text(cls, name, raw) if type(raw) is str else _coerce(hints[name], raw)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"option {name!r}: {exc}") from None
    try:
        obj = cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise ConfigError(str(exc)) from None
    _check_ranges(obj)
    return obj


@functools.lru_cache(maxsize=4096)
def _coerced_text(cls: type, name: str, raw: str) -> Any:
    """``_coerce`` of option ``name`` of ``cls`` given as text, worked out once per (class,
    option, text): a match's options come as text (the wire, a command line) and most of
    them are the same from one set to the next; every value ``_coerce`` returns is
    immutable, so one is handed to every caller. A refused text raises every time (an
    exception is not kept). A set not seen before then costs its new texts only: 70 µs to
    parse 17 Spades options, 49 of them coercions, in a warm process; in a forked bot's
    first MatchStart, cold, the options were 0.38 ms (docs/performance.md, "Eleventh
    session")."""
    return _coerce(type_hints(cls)[name], raw)


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _coerce(tp: Any, raw: Any) -> Any:
    """``raw`` (typed, or text from a command line) as a value of the option type ``tp``;
    ValueError saying what was expected."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _coerce_union(typing.get_args(tp), raw)
    if origin is typing.Literal:
        return _coerce_literal(typing.get_args(tp), raw)
    if origin is frozenset:
        (inner,) = typing.get_args(tp)
        if isinstance(raw, str):
            # "(empty)" is how the empty set is shown (``value_text``, `arbiter rules`): read back as written
            raw = [] if raw.strip() == EMPTY else [p for p in raw.replace("{", "").replace("}", "").split(",") if p.strip()]
        return frozenset(_coerce(inner, r) for r in raw)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _coerce_enum(tp, raw)
    scalar = _SCALARS.get(tp)
    if scalar is None:
        raise TypeError(f"unsupported option type {tp!r}")
    return scalar(raw)


def _coerce_union(args: tuple, raw: Any) -> Any:
    """The first arm of ``X | Y | None`` that takes ``raw``; None for "off", "none", ""."""
    if type(None) in args and (raw is None or (isinstance(raw, str) and raw.strip().lower() in ("off", "none", ""))):
        return None
    errors = []
    for arg in args:
        if arg is not type(None):
            try:
                return _coerce(arg, raw)
            except (ValueError, TypeError) as exc:
                errors.append(str(exc))
    raise ValueError("; ".join(errors) or f"bad value {raw!r}")


def _coerce_literal(args: tuple, raw: Any) -> Any:
    for arg in args:
        if raw == arg or (isinstance(raw, str) and str(arg) == raw.strip().lower()):
            return arg
    raise ValueError(f"expected one of {', '.join(map(str, args))}, got {raw!r}")


def _coerce_enum(tp: type[enum.Enum], raw: Any) -> Any:
    if isinstance(raw, tp):
        return raw
    for member in tp:
        if isinstance(raw, str) and raw.strip().lower() in (str(member.value).lower(), member.name.lower()):
            return member
    raise ValueError(f"expected one of {', '.join(str(m.value) for m in tp)}, got {raw!r}")


def _coerce_bool(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
        return raw.strip().lower() in _TRUE
    raise ValueError(f"expected true or false, got {raw!r}")


def _coerce_int(raw: Any) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        try:
            return int(raw.strip())
        except ValueError:
            pass
    raise ValueError(f"expected an integer, got {raw!r}")


def _coerce_float(raw: Any) -> float:
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, str):
        return float(raw.strip())
    raise ValueError(f"expected a number, got {raw!r}")


def _coerce_str(raw: Any) -> str:
    if isinstance(raw, str):
        return raw.strip()
    raise ValueError(f"expected text, got {raw!r}")


_SCALARS = {bool: _coerce_bool, int: _coerce_int, float: _coerce_float, str: _coerce_str}


# --------------------------------------------------------------------------------------
# Settings: a tournament's spec, a ladder's settings (typed values, checked as they are).


def setting_label(f: dataclasses.Field) -> str:
    """How a setting is named in messages: its place in a settings file (``deals``,
    ``clock.decision_ms``, ``failure.policy``)."""
    table, key = f.metadata.get("table", ""), f.metadata.get("key") or f.name
    return f"{table}.{key}" if table else key


def _choices_text(choices: Sequence[str]) -> str:
    if len(choices) == 2:
        return f"{choices[0]} or {choices[1]}"
    return "one of " + ", ".join(choices)


def _whole_number_text(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"a whole number from {_bound_text(lo)} to {_bound_text(hi)}"
    if lo == 0:
        return "a non-negative whole number"
    if lo is not None:
        return f"a whole number of at least {_bound_text(lo)}"
    return f"a whole number of at most {_bound_text(hi)}" if hi is not None else "a whole number"


def _plain_type(tp: Any) -> tuple[Any, bool]:
    """(the type a setting's value has, whether None is allowed too)."""
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        return inner, True
    return tp, False


def setting_problem(f: dataclasses.Field, tp: Any, value: Any) -> str | None:
    """Why ``value`` cannot be the setting ``f`` (declared type ``tp``), or None."""
    inner, optional = _plain_type(tp)
    if value is None:
        return None if optional else "must be given"
    words = f.metadata.get("words") or ()
    if isinstance(value, str) and value in words:
        return None
    absent = "".join(f" or {w!r}" for w in words) + (" (or absent)" if optional else "")
    choices = f.metadata.get("choices") or ()
    if choices:
        return None if value in choices else f"expected {_choices_text(choices)}{absent}, got {value!r}"
    check = _SETTING_CHECKS.get(inner)
    if check is None:
        return None  # lists, tables: their shape is the owner's to check
    lo, hi = f.metadata.get("min"), f.metadata.get("max")
    ok, wanted = check(value, lo, hi)
    return None if ok else f"{wanted}{absent}, got {value!r}"


def _in_range(value: Any, lo: float | None, hi: float | None) -> bool:
    return (lo is None or value >= lo) and (hi is None or value <= hi)


def _number(kinds: tuple[type, ...]) -> Any:
    def check(value: Any, lo: float | None, hi: float | None) -> tuple[bool, str]:
        ok = isinstance(value, kinds) and not isinstance(value, bool) and _in_range(value, lo, hi)
        if int in kinds and float not in kinds:
            return ok, f"must be {_whole_number_text(lo, hi)}"
        bounds = range_text(lo, hi)
        return ok, f"must be a number{' ' + bounds if bounds else ''}"
    return check


#: ``(value, min, max) -> (ok, what it must be)`` by a setting's type.
_SETTING_CHECKS = {
    int: _number((int,)),
    float: _number((int, float)),
    bool: lambda value, lo, hi: (isinstance(value, bool), "expected true or false"),
    str: lambda value, lo, hi: (isinstance(value, str), "expected text"),
}


def check_settings(obj: Any) -> None:
    """ConfigError (of the class ``error``, if the settings class names one in its
    ``SettingsError`` attribute) for the first declared setting of ``obj`` whose value has
    the wrong type, is outside its range or not one of its choices: "deals: must be a
    whole number of at least 1, got 0"."""
    error = getattr(type(obj), "SettingsError", ConfigError)
    hints = type_hints(type(obj))
    for f in dataclasses.fields(obj):
        why = setting_problem(f, hints[f.name], getattr(obj, f.name))
        if why:
            raise error(f"{setting_label(f)}: {why}")


def flag_help(cls: type, name: str, extra: str = "") -> str:
    """The command line's help for the setting ``name`` of ``cls``: its meaning (the class
    docstring), then what it may be and its default, as declared ("Deals per table, ...
    At least 1; default 2."). ``extra`` (a sentence only the command line needs) goes
    between the two."""
    f = cls.__dataclass_fields__[name]
    meaning = field_docs(cls).get(name, "").replace("``", "")
    if not meaning:
        raise ValueError(f"{cls.__name__}.{name} has no Attributes: entry to take its help from")
    parts = []
    choices = f.metadata.get("choices") or ()
    if choices:
        parts.append(_choices_text(choices))
    bounds = range_text(f.metadata.get("min"), f.metadata.get("max"))
    if bounds:
        parts.append(bounds)
    default = f.default if f.default is not dataclasses.MISSING else None
    if default not in (None, "") and not isinstance(default, (tuple, dict)):
        parts.append(f"default {_value_text(default)}")
    text = meaning.rstrip(".") + "." + (f" {extra.strip().rstrip('.')}." if extra else "")
    if parts:
        said = "; ".join(parts)
        text += f" {said[0].upper()}{said[1:]}."
    return text


def _file_type(tp: Any) -> type:
    inner, _ = _plain_type(tp)
    origin = typing.get_origin(inner) or inner
    if origin in (tuple, list):
        return list
    if origin in (dict, Mapping) or (isinstance(origin, type) and issubclass(origin, Mapping)):
        return dict
    return origin if origin in (int, float, bool, str) else object


def toml_tables(*classes: type) -> dict[str, dict[str, type]]:
    """``{table: {key: type}}`` of the settings of ``classes`` a settings file may hold
    (``""``: the top level; every other table is a key of the top level too), in
    declaration order, for ``check_table``."""
    out: dict[str, dict[str, type]] = {"": {}}
    for cls in classes:
        hints = type_hints(cls)
        for f in dataclasses.fields(cls):
            if not f.metadata.get("in_files", True):
                continue
            for table in (f.metadata.get("table", ""), *f.metadata.get("also", ())):
                if table and table not in out[""]:
                    out[""][table] = dict
                # a setting that takes words too is checked whole by check_settings
                kind = object if f.metadata.get("words") else _file_type(hints[f.name])
                out.setdefault(table, {})[f.metadata.get("key") or f.name] = kind
    return out


def from_toml_tables(data: Mapping[str, Any], *classes: type) -> dict[str, dict[str, Any]]:
    """The fields of each of ``classes`` given in ``data`` (a settings file, checked with
    ``toml_tables``): ``{class name: {field: value}}``, each key read from its table. A key
    that two tables take (``also``) given in both with two values is a ConfigError: neither
    is silently kept."""
    out: dict[str, dict[str, Any]] = {}
    for cls in classes:
        got = out.setdefault(cls.__name__, {})
        for f in dataclasses.fields(cls):
            if not f.metadata.get("in_files", True):
                continue
            key = f.metadata.get("key") or f.name
            seen: list[tuple[str, Any]] = []
            for table in (f.metadata.get("table", ""), *f.metadata.get("also", ())):
                where = data if not table else data.get(table, {})
                if key in where:
                    got[f.name] = where[key]
                    seen.append((f"in [{table}]" if table else "at the top level", where[key]))
            if len({repr(v) for _, v in seen}) > 1:
                places = " and ".join(f"{v!r} {place}" for place, v in seen)
                raise ConfigError(f"{key}: given twice, {places}: give it once")
    return out
