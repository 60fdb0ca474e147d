"""``python -m arbiter`` and the ``arbiter`` command (pyproject's ``[project.scripts]``).

The commands take a second or more to load on a busy machine (typer, rich, grpc, the
engines); a Ctrl-C then ends the command as a Ctrl-C at any other moment does: one line
and exit 130, not a traceback of whichever import it interrupted.

gRPC's C core logs on the command's stderr in its own words unless told otherwise: a CA
that did not sign an arbiter's certificate printed its "I... ssl_transport_security.cc:
Handshake failed" line before the command's one error line. Its log is at ERROR unless
GRPC_VERBOSITY says otherwise (set before grpc is imported: it reads it then).
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    try:
        from arbiter.cli import for_command_line

        app = for_command_line(sys.argv[1:])  # the command's modules, imported
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    app()


if __name__ == "__main__":
    main()
