"""The arena: a continuous rated ladder (the loop in ``ladder``, its ratings and matchmaking in ``matchmaking``)."""
