"""Every field of every view dataclass (and of every Options declaration) says what it
holds, in its class docstring's ``Attributes:`` section: what ``pydoc`` shows a bot author
and what ``arbiter rules GAME`` prints for the options."""

from __future__ import annotations

import dataclasses
import pydoc
import typing

import pytest

from cardarena.games import GAMES, game_class
from cardarena.games.base import field_docs


def _dataclasses_in(tp, seen: dict[str, type]) -> None:
    """Every dataclass reachable from the type ``tp`` through field type hints."""
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if tp.__qualname__ in seen:
            return
        seen[tp.__qualname__] = tp
        for hint in typing.get_type_hints(tp).values():
            _dataclasses_in(hint, seen)
        return
    for arg in typing.get_args(tp):
        _dataclasses_in(arg, seen)


def view_parts(game: str) -> dict[str, type]:
    seen: dict[str, type] = {}
    _dataclasses_in(game_class(game).view_type, seen)
    return seen


def test_the_parts_are_found():
    assert {"SpadesView", "SpadesSeat", "SpadesTrick", "SpadesPlayedCard", "SpadesDealRecord", "SpadesHand",
            "SpadesSideResult"} <= set(view_parts("spades"))
    assert {"SpotView", "SpotTableMeld", "SpotPickup", "SpotHandSummary", "SpotRevealedHand"} <= set(view_parts("spot"))
    assert {"SpiteAndMaliceView", "SpiteAndMalicePlayer", "SpiteAndMalicePile", "SpiteAndMaliceCards",
            "SpiteAndMaliceMove", "SpiteAndMaliceReveal"} <= set(view_parts("spite-and-malice"))


@pytest.mark.parametrize("game", list(GAMES))
def test_every_view_field_has_a_description(game):
    missing, stray = [], []
    for name, cls in view_parts(game).items():
        docs = field_docs(cls)
        fields = [f.name for f in dataclasses.fields(cls)]
        missing += [f"{name}.{f}" for f in fields if not docs.get(f)]
        stray += [f"{name}.{d}" for d in docs if d not in fields]
    assert not missing, f"fields without a description in their class's Attributes: {missing}"
    assert not stray, f"descriptions of fields that do not exist: {stray}"


@pytest.mark.parametrize("game", list(GAMES))
def test_every_option_has_a_description(game):
    options = game_class(game).Options
    docs = field_docs(options)
    fields = [f.name for f in dataclasses.fields(options)]
    assert [f for f in fields if not docs.get(f)] == []
    assert [d for d in docs if d not in fields] == []


@pytest.mark.parametrize("module, cls", [("sdk.spades", "SpadesView"), ("sdk.spot", "SpotView"),
                                         ("sdk.spite_and_malice", "SpiteAndMaliceView")])
def test_pydoc_shows_the_descriptions(module, cls):
    text = pydoc.render_doc(f"{module}.{cls}", renderer=pydoc.plaintext)
    view = pydoc.locate(f"{module}.{cls}")
    for name, doc in field_docs(view).items():
        assert f"{name}: {doc.split()[0]}" in text, name
    # and the questions authors asked
    if cls == "SpadesView":
        assert "trick in progress" in field_docs(view)["trick"] and "completed" in field_docs(view)["tricks"]
    if cls == "SpotView":
        assert "laid down" in field_docs(view)["dropped"] and "meld" in field_docs(view)["new_meld_made"]


def test_field_docs_parses_continuations_and_stops_at_the_section_end():
    class Example:
        """Something.

        Attributes:
            a: the first
                line, continued.
            b: the second: with a colon.

        Notes: not a field.
        """

    assert field_docs(Example) == {"a": "the first line, continued.", "b": "the second: with a colon."}


def test_what_the_hooks_receive_describes_every_field():
    """``pydoc sdk.MatchInfo`` showed its fields' names only (their words were ``#``
    comments, which pydoc does not show): what ``decision_ms`` 0 means, what ``teams``
    holds, that ``seed`` is not the deal seed; ``MatchResult`` likewise. And ``Outcome``
    names every ``EndReason`` a bot may be told, with what a forfeit does to the scores."""
    from sdk import MatchInfo, MatchResult, Outcome
    from cardarena.games.base import EndReason

    for cls in (MatchInfo, MatchResult):
        docs = field_docs(cls)
        assert [f.name for f in dataclasses.fields(cls) if not docs.get(f.name)] == [], cls.__name__
        text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
        assert all(f"{name}: {doc.split()[0]}" in text for name, doc in docs.items()), cls.__name__
    assert all(f"``{r.name}``" in Outcome.__doc__ for r in EndReason), Outcome.__doc__
