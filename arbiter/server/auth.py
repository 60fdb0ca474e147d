"""Who may call what: token checks shared by the arbiter's services."""

from __future__ import annotations

import hmac

import grpc


async def require_token(expected: str | None, given: str, context, message: str) -> None:
    """Abort the call with PERMISSION_DENIED and ``message`` unless no token is configured
    (``expected`` None: the service is open) or ``given`` is it (compared in constant time)."""
    if expected is not None and not hmac.compare_digest(expected.encode(), given.encode()):
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, message)
