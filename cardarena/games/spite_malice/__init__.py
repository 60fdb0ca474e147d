"""Spite and Malice (Cat and Mouse): a competitive patience for 2-6 players.

Rules: docs/rules/spite-and-malice.md (§1-§7 the standard two-player game, §8 every
variant as an option, presets ``standard``, ``massachusetts`` and ``book``; ``arbiter rules
spite-and-malice`` prints a summary and every option).

Design choices (each "engine choice" of the rules is implemented as written there):

* A card is a ``Card`` int; identical cards of the mixed pack are the same value and
  are told apart only by where they lie. No internal card ids exist.
* Every pile is a plain list, top = last. A centre pile is built upward from A, one
  rank per card, so its value is simply ``len(pile)``; it completes at ``top_rank``.
* A turn is a sequence of decisions: every centre play, discard, fill, load or ``end``
  is one action. Draws, recycling, turning up pay-off cards, dealing the next game of
  a series and deadlock reshuffles are forced events run inside ``apply``.
* Randomness: game ``k`` of a series is dealt (and its first player decided) from
  ``Random(f"{seed}:deal:{k}")`` only, so duplicate deals are identical whatever was
  played. Every shuffle during play (recycled pile, deferred restock, deadlock
  reshuffle) uses ``Random(f"{seed}:shuffle:{k}:{n}")`` for the n-th shuffle.
* Face-down pay-off cards are tracked by ``hidden[seat]``: the bottom ``hidden`` cards
  of a pay-off pile have never been seen (not even by the owner); everything above
  (the turned-up top, and with ``loading`` the loaded cards) is public.
* ``loading`` implies ``forced_aces`` and ``forced_aces`` implies ``center_limit =
  unlimited`` (§8.3, §8.4). Enforced by SETTING them when the user did not give the
  option, and by REJECTING (ConfigError) an explicit contradicting value
  (``loading=true, forced_aces=false`` or ``forced_aces=true, center_limit=4``).
* Further contradictions rejected: ``recycle=deferred`` without unlimited piles;
  ``partnerships`` without 4 or 6 players; the card-count check of §2.4;
  ``side_stack_order=descending`` without ``may_end_without_discard`` (a player could be
  left without any legal action); ``fill_empty_side_stacks`` with
  ``may_end_without_discard`` (the filling rule is defined before the ending discard);
  a ``deadlock_rule`` other than ``end_game`` without ``may_end_without_discard`` (no
  pass can ever happen); ``deck_split`` unless 2 players and 2 decks.
* ``deck_split``: deck A (52 cards) is dealt to the pay-off piles; any deck-A cards
  left over are shuffled into the stock with the rest of deck B (engine choice).
* Descending side stacks (§8.12.2) generalised to any wild card (jokers, and kings
  when ``kings_wild``): a wild on an empty slot gives ``[wmin, top_rank]``, on
  ``[lo, hi]`` gives ``[max(wmin, lo-1), hi]``, where ``wmin`` is 2 if A is in
  ``wild_excluded_ranks`` else 1; a wild is legal iff ``hi >= wmin``.
* Emptying the hand by a load (or by a Massachusetts fill) draws 5 like an emptied hand
  after a centre play (engine choice, as §8.11 says for fills).
* Termination: ``max_turns`` turns per game end it as a stalemate (reason TURN_LIMIT,
  scored like a stalemate). Pass-pass loops exist only with ``may_end_without_discard``:
  a full round of passes is a deadlock handled by ``deadlock_rule`` (``reshuffle`` at
  most ``max_deadlock_reshuffles`` times, then ``end_game``; ``hand_ace_two_then_end``:
  the first seat in turn order from the one due to move that holds a hand A or natural 2
  playable to the centre takes a turn in which it must play one, then play continues
  from it; only when nobody holds one does ``end_game`` apply). The hand A/2 compulsion
  (after a pass, or at a deadlock) is judged at the start of MAIN and lapses for the rest
  of the turn once no hand A or 2 can be played, so a view's moves tell whether it holds. A single turn is capped at
  ``MAX_TURN_ACTIONS`` decisions (unreachable in practice; ends as TURN_LIMIT), and a
  series at ``MAX_SERIES_GAMES`` games (then TURN_LIMIT, ranked by points).
* Results: without ``series_scoring`` a seat scores 1 (win), 0.5 (draw) or 0 (loss);
  partners share. Under ``fewer_payoff_wins`` with several players tied for fewest,
  the tied ones draw (0.5) and the rest lose (engine choice). With ``series_scoring``
  the scores are the series points (a team's points are shown for both partners).
  Partnership stalemates compare team totals of pay-off cards (engine choice).
"""

from __future__ import annotations

from .actions import (
    End, FIRST_PLAYER_TIE_GUARD, HAND_SIZE, JOKER_FIRST_PLAYER_RANK, Load, MAX_SERIES_GAMES,
    MAX_TURN_ACTIONS, NUM_SIDE_STACKS, Phase, Play, Source, SourceKind, TargetKind, UNLIMITED,
    WIN_BONUS,
)
from .options import DeadlockRule, Recycle, SideStackOrder, SpiteAndMaliceOptions, StalemateRule
from .scoring import game_points, game_result, series_over
from .views import (
    SpiteAndMaliceCards, SpiteAndMaliceMove, SpiteAndMalicePile, SpiteAndMalicePlayer,
    SpiteAndMaliceReveal, SpiteAndMaliceTurnUp, SpiteAndMaliceView,
)
from .state import SpiteAndMaliceState
from .game import SpiteAndMalice

__all__ = [
    "DeadlockRule", "End", "FIRST_PLAYER_TIE_GUARD", "HAND_SIZE", "JOKER_FIRST_PLAYER_RANK", "Load",
    "MAX_SERIES_GAMES", "MAX_TURN_ACTIONS", "NUM_SIDE_STACKS", "Phase", "Play", "Recycle",
    "SideStackOrder", "Source", "SourceKind", "SpiteAndMalice", "SpiteAndMaliceCards",
    "SpiteAndMaliceMove", "SpiteAndMaliceOptions", "SpiteAndMalicePile", "SpiteAndMalicePlayer",
    "SpiteAndMaliceReveal", "SpiteAndMaliceState", "SpiteAndMaliceTurnUp", "SpiteAndMaliceView", "StalemateRule",
    "TargetKind", "UNLIMITED", "WIN_BONUS", "game_points", "game_result", "series_over",
]
