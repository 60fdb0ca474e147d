"""``python -m sdk --bot BOT [--address HOST:PORT] [--token T] [--name NAME] [--tls-ca CA.pem]``: run a bot."""

from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys
import threading


@functools.lru_cache(maxsize=None)
def parser() -> argparse.ArgumentParser:
    """The command line's parser, built once: a fork server's parent builds it before it
    forks (zygote.py), so its children only parse (building it cost a forked child ~1.5 ms
    of CPU). Nothing in it is read from the environment: ``run`` reads ARENA_ADDRESS,
    ARENA_TOKEN and ARENA_TLS_CA for an option not given."""
    from sdk.loading import BUNDLED_NAMES  # the installed entry points: the list is never out of date

    parser = argparse.ArgumentParser(prog="python -m sdk", description="Connect a bot to a Card Arena arbiter.")
    parser.add_argument("--bot", required=True,
                        help=f"bundled name ({BUNDLED_NAMES}), FILE.py[:Class], a folder with bot.py, "
                             "or module:Class")
    add_session_flags(parser)
    parser.add_argument("--verbose", "-v", action="store_true")
    return parser


def add_session_flags(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The flags of a bot's session, with their help: ``python -m sdk``'s, and those of a bot's
    own script that calls ``sdk.run`` (``python mybot.py --help`` shows them too)."""
    parser.add_argument("--address", default=None, help="arbiter address (env ARENA_ADDRESS; default 127.0.0.1:50051)")
    parser.add_argument("--token", default=None, help="session token (env ARENA_TOKEN)")
    parser.add_argument("--name", default=None, help="name to connect as (default: the bot's own); a bot token is the identity of one name")
    parser.add_argument("--tls-ca", default=None, help="connect with TLS, trusting this CA certificate file (env ARENA_TLS_CA)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s %(message)s")

    from sdk.loading import BotLoadError, load_bot

    try:
        bot = load_bot(args.bot)
    except BotLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    played = play(bot, address=args.address, token=args.token, name=args.name, tls_ca=args.tls_ca)
    logging.getLogger("sdk").info("played %d matches", played)
    return 0


def play(bot, address=None, token=None, name=None, tls_ca=None, report=None) -> int:
    """``bot``'s session as a command plays it (``python -m sdk``, and ``sdk.run`` in a bot's
    own script): it says on stderr when it is connected and when the arbiter closes the
    session (``report``: a function told those lines instead), and returns the number of
    matches played. Ctrl-C or a TERM ends the session cleanly and exits 130; an arbiter that
    cannot be reached or refuses the session is one line on stderr (``error: ...``) and exit
    status 1, not a traceback (``sdk.runner.run`` raises ``ArbiterError`` instead)."""
    from sdk.runner import ArbiterError, Stop, run

    say = report or (lambda text: print(text, file=sys.stderr, flush=True))
    # Ctrl-C or a TERM ends the session cleanly: the stream is cancelled, run() returns.
    # (Only the main thread may set handlers: a session on another thread keeps the process's.)
    stop = Stop()
    before = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
              if threading.current_thread() is threading.main_thread()}
    try:
        played = run(bot, address=address, token=token, name=name, tls_ca=tls_ca, report=say, stop=stop)
    except ArbiterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    if stop.is_set():
        say(f"stopped ({played} match{'' if played == 1 else 'es'} played); the arbiter treats this bot's open "
            "seats as disconnected")
        raise SystemExit(130)
    return played


if __name__ == "__main__":
    sys.exit(main())
