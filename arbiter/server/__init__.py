"""The arbiter's gRPC services (``app``, ``botstream``, ``spectate``, ``bots``) and the
blocking clients the CLI reaches them with (``client``)."""

#: The initial metadata in which Matches.RunMatch tells its caller the match id as soon as
#: the match has started and can be watched on Spectate (arena.proto, RunMatch), long before
#: the summary: `arbiter play --server` follows it to say whose turn it waits on.
MATCH_ID_METADATA = "arena-match-id"


def host_port(host: str, port: int) -> str:
    """``host:port`` as gRPC, URLs and people read it: an IPv6 host in brackets ("::1:50051" is
    read as the host "::1:50051" on port 443). Here, not in ``app``, so that what only writes an
    address (the web server's URL) imports no gRPC for it."""
    host = host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_loopback(host: str) -> bool:
    """True for an interface only this machine reaches (127.0.0.0/8, ::1, localhost). Here,
    not in ``app``, for the same reason as ``host_port`` (`arbiter web` asks it of its host)."""
    import ipaddress

    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
