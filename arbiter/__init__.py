"""Card Arena arbiter: authoritative rules engines, match runner, gRPC server, tournaments."""
