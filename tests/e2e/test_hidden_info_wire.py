"""Hidden information, from the bot's side of the socket.

Four (or two) raw clients play seeded random legal moves against `arbiter serve` in
another process and record every message they receive. Afterwards the match is replayed
from its seed and actions, and for every message we ask the engine's *state* (not its
view function) which cards that seat could not know at that moment: other hands, the
stock, face-down pay-off cards, a hand not yet looked at. No such card may appear
anywhere in the message: view, legal actions, event texts and cards, error messages.
Cards are found by scanning the text form of each message, so a leak in any field or
free-text string is caught. Every card is unique in the games played here, so a card
token names one physical card.
"""

from __future__ import annotations

import re

import grpc
import pytest
from google.protobuf import text_format

from cardarena.games import Card, get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.e2e.rawbot import RawBot, act

#: One `arbiter serve` for the module (``module_serve``, one xdist group: it starts once a
#: run, not once a test); each test's clients have names of their own.
pytestmark = pytest.mark.xdist_group("hidden-info-wire")

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])([SHDC])(?![A-Za-z0-9])")


def delta_as_views(game_name: str, delta: pb.ViewDelta) -> list:
    """Each field a view delta carries, parsed as the game's view message holding that field
    alone (its bytes, or the items appended to it), so its cards are scanned like a view's."""
    from cardarena.wire import codec

    field = pb.View.DESCRIPTOR.fields_by_name[codec.game_field(game_name)]
    return [pb.View(**{field.name: type(getattr(pb.View(), field.name)).FromString(data)}) for data in delta.data]


def cards_in(msg, game_name: str = "") -> set[Card]:
    if msg.WhichOneof("msg") == "turn" and msg.turn.HasField("view_delta"):
        # view deltas: every field it carries, as a view (then scanned as one, below)
        found = set()
        for view in delta_as_views(game_name, msg.turn.view_delta):
            whole = pb.ArbiterMessage()
            whole.CopyFrom(msg)
            whole.turn.ClearField("view_delta")
            whole.turn.view.CopyFrom(view)
            found |= cards_in(whole)
        bare = type(msg).FromString(msg.SerializeToString())
        bare.turn.ClearField("view_delta")
        return found | cards_in(bare)
    if msg.WhichOneof("msg") == "match_start" and msg.match_start.seat_token:
        # a random secret of urlsafe base64: "..._QC_..." would read as a card
        msg = type(msg).FromString(msg.SerializeToString())
        msg.match_start.ClearField("seat_token")
    if msg.WhichOneof("msg") == "turn" and msg.turn.view.HasField("spot"):
        # Spot's `last_hand` shows the hands revealed when the PREVIOUS hand ended; those
        # cards are dealt again in this hand, so a token there names another secret.
        msg = type(msg).FromString(msg.SerializeToString())
        msg.turn.view.spot.ClearField("last_hand")
    return {Card.parse(m.group(0)) for m in CARD_TOKEN.finditer(text_format.MessageToString(msg))}


# ground truth from engine state: the cards `seat` cannot know -------------------------


def spades_hidden(state, seat: int) -> set[Card]:
    hidden: set[Card] = set()
    for other in range(4):
        if other != seat:
            hidden |= set(state.hands[other])
    # cards this seat itself gave its partner in this deal's exchange are known to it
    for ex in state.view(seat).exchanges:
        if ex.giver == seat:
            hidden -= set(ex.cards)
    if not state.sees[seat]:
        hidden |= set(state.hands[seat])  # blind: not even its own cards
    return hidden


def spot_hidden(state, seat: int) -> set[Card]:
    picked_up = {p.card for p in state._pickups}
    hidden = set(state._stock)
    for other, hand in enumerate(state._hands):
        if other != seat:
            hidden |= set(hand) - picked_up  # a discard taken up was public
    return hidden


def spite_hidden(state, seat: int) -> set[Card]:
    hidden = set(state.stock)
    for other in range(state.game.num_seats):
        hidden |= set(state.payoff[other][: state.hidden[other]])  # face down, even to the owner
        if other != seat:
            hidden |= set(state.hands[other])
    # pay-off tops turned up in a first-player tie were seen by all before the reshuffle
    # (rules §6): their identity is public, only their new position is not
    for e in state.log:
        if e.kind == "turn_up" and e.visible_to is None:
            hidden -= {Card.parse(t.group(0)) for t in CARD_TOKEN.finditer(e.text)}
    return hidden


def per_deal(hidden_of, deal_of):
    """Tag each hidden card with the deal it belongs to: a card hidden in deal 1 and dealt
    again in deal 2 is two different secrets."""
    def hidden(state, seat):
        if state.is_terminal:
            return set()  # the game is over: the rules let the engine publish everything
        return {(deal_of(state), c) for c in hidden_of(state, seat)}

    return hidden


CASES = {
    "spades": (per_deal(spades_hidden, lambda st: st.deal_no), {"deals": "2"}, 4),
    "spot": (per_deal(spot_hidden, lambda st: st._hand_index), {"hands": "2", "players": "4"}, 4),
    "spite-and-malice": (per_deal(spite_hidden, lambda st: st.game_index), {"decks": "1", "payoff_size": "8", "max_turns": "60"}, 2),
}


def probe_illegal(turn: pb.Turn, rng) -> pb.BotMessage | None:
    """An action that is legal in form but names a card the bot may not hold (spades only)."""
    legal = {a.notation for a in turn.legal_actions}
    if not any(n.startswith("play ") for n in legal):
        return None
    for _ in range(20):
        card = str(Card(rng.randrange(52)))
        if f"play {card}" not in legal:
            a = pb.Action()
            a.spades.play.card = card
            return act(turn, a)
    return None


@pytest.mark.parametrize("deltas", [False, True], ids=["whole-views", "view-deltas"])
@pytest.mark.parametrize("game_name", list(CASES))
def test_no_message_to_a_seat_holds_a_card_hidden_from_it(module_serve, game_name, deltas):
    """With ``deltas`` the clients ask for view deltas (arena.proto ViewDelta): every field
    a delta carries is scanned as a view, and each client rebuilds its views from them
    (every delta applies: the arbiter never leaves a seat without a view it can build)."""
    from cardarena.wire import codec

    serve = module_serve
    hidden_of, options, n = CASES[game_name]
    names = [f"{game_name}-spy{i}" + ("d" if deltas else "") for i in range(n)]
    bots = []
    for i, name in enumerate(names):
        def respond(turn, i=i):
            bot = bots[i]
            if game_name == "spades" and i == 1 and bot.rng.random() < 0.5:
                probe = probe_illegal(turn, bot.rng)
                if probe is not None:
                    return [probe]  # rejected; the arbiter plays a default action for us
            return [act(turn, bot.rng.choice(turn.legal_actions))]

        hello = pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version="raw", token=serve.bot_token(name),
                                             protocol_version=1, view_deltas=1 if deltas else 0))
        bots.append(RawBot(serve, name, respond=respond, seed=100 + i, hello=hello))
    for b in bots:
        b.start()
    serve.wait_sessions(names)
    assert [b.wait_for("welcome")[0].view_deltas for b in bots] == [1 if deltas else 0] * n
    game = get_game(game_name, options)
    checked = 0
    for seed in range(2 if deltas else 4):
        with grpc.insecure_channel(serve.address) as ch:
            summary = pb_grpc.MatchesStub(ch).RunMatch(
                pb.RunMatchRequest(game=game_name, seats=names, seed=seed, options=options, policy="default",
                                   max_strikes=10_000, admin_token=serve.admin_token),
                timeout=120,
            )
        # replay, keeping for each decision index the hidden set of every seat
        state = game.new_initial_state(seed)
        hidden_at = [[hidden_of(state, s) for s in range(n)]]
        movers = []
        for text in summary.actions:
            movers.append(state.current_seat)
            state.apply(game.parse_action(text))
            hidden_at.append([hidden_of(state, s) for s in range(n)])
        for seat, bot in enumerate(bots):
            bot.wait_for("match_end", seed + 1)
            msgs = [m for m in bot.received if m.WhichOneof("msg") != "welcome" and getattr(m, m.WhichOneof("msg")).match_id == summary.match_id]
            # a message between two of this seat's turns is checked against every card that
            # stayed hidden from the seat over that whole window (no false alarms possible)
            turn_idx = [i for i, m in enumerate(msgs) if m.WhichOneof("msg") == "turn"]
            # request ids are the session's own: the k-th Turn of this seat is its k-th decision
            decision_of = dict(zip(turn_idx, [i for i, mover in enumerate(movers) if mover == seat]))
            lo = 0
            readers: dict = {}
            for m in msgs:
                if m.WhichOneof("msg") == "turn":
                    assert m.turn.HasField("view_delta") is deltas and m.turn.HasField("view") is not deltas
                    if deltas:
                        reader = readers.setdefault(m.turn.seat, codec.ViewDeltaReader(game_name))
                        assert reader.apply(m.turn.view_delta) is not None
            for k, m in enumerate(msgs):
                kind = m.WhichOneof("msg")
                if kind in ("turn", "match_end"):
                    # Turn.events / MatchEnd.events: what happened since the seat's previous
                    # message, so checked over that window like any message between turns
                    hi = decision_of[k] if kind == "turn" else len(summary.actions)
                    events = getattr(m, kind).events
                    still_hidden = set.intersection(*(hidden_at[j][seat] for j in range(lo, hi + 1)))
                    for e in events:
                        leaked = cards_in(pb.ArbiterMessage(update=pb.Update(events=[e]))) & {c for _, c in still_hidden}
                        assert not leaked, f"{game_name} seed {seed}: seat {seat} received hidden {sorted(map(str, leaked))} in {kind}.events: {e}"
                        checked += 1
                    m = type(m).FromString(m.SerializeToString())
                    getattr(m, kind).ClearField("events")
                if kind == "match_end":
                    continue  # the game is over: the rules let everything be published
                if kind == "turn":
                    i = decision_of[k]
                    window = [i]
                    lo = i
                else:
                    nxt = next((t for t in turn_idx if t > k), None)
                    hi = decision_of[nxt] if nxt is not None else len(summary.actions)
                    window = range(lo, hi + 1)
                    if kind == "error":
                        window = [lo]
                still_hidden = set.intersection(*(hidden_at[j][seat] for j in window))
                if kind == "error":
                    # the bot's own probe is echoed back ("play 9S is not..."): not news to it
                    echo = pb.ArbiterMessage()
                    echo.CopyFrom(m)
                    echo.error.message = re.sub(r"^play \S+ ", "", m.error.message)
                    m = echo
                leaked = cards_in(m, game_name) & {c for _, c in still_hidden}
                assert not leaked, f"{game_name} seed {seed}: seat {seat} received hidden {sorted(map(str, leaked))} in {kind} (window {list(window)[:3]}..{list(window)[-1:]}): {m}"
                checked += 1
        if game_name == "spades":
            errors = [e for e in bots[1].of_kind("error") if e.match_id == summary.match_id]
            # a probe for a card in another hand and one for a card already played get the same words
            # (the strike's number counts the seat's own failures: public to it, the same for both)
            shapes = {re.sub(r"(10|[2-9AJQK])[SHDC]", "C", re.sub(r"strike \d+ of", "strike N of", e.message))
                      for e in errors}
            assert len(shapes) <= 1, shapes
    assert checked > 200
    for b in bots:
        b.close()
