"""Reference bots, written only against the SDK.

``random`` (any game), ``greedy`` (Spades), ``heuristic`` and ``search`` (every game whose
line in ``sdk.games`` names its heuristic and search part: ``bots.games``). They
are installed as the ``cardarena.bots`` entry points; ``sdk.loading.load_bot`` finds them
by name.
"""
