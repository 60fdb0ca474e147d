"""The one batch engine: a plan of matches (deals, seatings, seeds) in, played and saved
matches out (``engine.play_batch``), in process, over gRPC or on a Dask cluster
(``cluster``); the one seed derivation and seating rule (``plan``). Tournaments,
``evaluate``, the arena and the tools are plan builders over it."""
