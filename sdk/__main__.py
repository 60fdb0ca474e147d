"""``python -m sdk --bot BOT [--address HOST:PORT] [--token T] [--name NAME] [--tls-ca CA.pem]``: run a bot."""

from __future__ import annotations

import argparse
import functools
import logging
import signal
import sys


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
    parser.add_argument("--address", default=None, help="arbiter address (env ARENA_ADDRESS; default 127.0.0.1:50051)")
    parser.add_argument("--token", default=None, help="session token (env ARENA_TOKEN)")
    parser.add_argument("--name", default=None, help="name to connect as (default: the bot's own); a bot token is the identity of one name")
    parser.add_argument("--tls-ca", default=None, help="connect with TLS, trusting this CA certificate file (env ARENA_TLS_CA)")
    parser.add_argument("--verbose", "-v", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s %(message)s")

    from sdk.loading import BotLoadError, load_bot
    from sdk.runner import ArbiterError, Stop, run

    try:
        bot = load_bot(args.bot)
    except BotLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    # Ctrl-C or a TERM ends the session cleanly: the stream is cancelled, run() returns.
    stop = Stop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        played = run(bot, address=args.address, token=args.token, name=args.name, tls_ca=args.tls_ca, report=say,
                     stop=stop)
    except ArbiterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if stop.is_set():
        say(f"stopped ({played} match{'' if played == 1 else 'es'} played); the arbiter treats this bot's open "
            "seats as disconnected")
        return 130
    logging.getLogger("sdk").info("played %d matches", played)
    return 0


if __name__ == "__main__":
    sys.exit(main())
