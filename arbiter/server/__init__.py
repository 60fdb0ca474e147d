"""The arbiter's gRPC services (``app``, ``botstream``, ``spectate``, ``bots``) and the
blocking clients the CLI reaches them with (``client``)."""

#: The initial metadata in which Matches.RunMatch tells its caller the match id as soon as
#: the match has started and can be watched on Spectate (arena.proto, RunMatch), long before
#: the summary: `arbiter play --server` follows it to say whose turn it waits on.
MATCH_ID_METADATA = "arena-match-id"
