"""Finding a bot by its name, for the arbiter: the one door to ``sdk.loading``.

The arbiter names bots (bundled names, files, ``module:Class``) the way the SDK does; the
bundled ones are entry points, so naming one imports nothing. ``load_bot`` does run the
bot's module in this process: only for trusted bots (``--transport inproc``, the
self-test inside its sandbox).
"""

from __future__ import annotations

import sys

from sdk.bot import Bot, game_names  # a loaded bot's games as names, for the plans' messages
from sdk.loading import BUNDLED, BotLoadError, bots_beside, did_you_mean, shadowing, unknown_bot_message
from sdk.loading import load_bot as _load_bot

__all__ = ["BUNDLED", "BotLoadError", "UNDECLARED_NAME", "bots_beside", "did_you_mean", "game_names", "load_bot",
           "shadowing", "unknown_bot_message"]

#: The name ``sdk.Bot`` gives a bot whose class declares none of its own.
UNDECLARED_NAME = Bot.name


def load_bot(spec: str):
    """``sdk.loading.load_bot`` in the arbiter's process. A bot from a file (a registered
    version's stored copy among them) is imported with bytecode writing off, for this process
    from then on (its own later imports too): Python would write ``__pycache__`` beside its
    files wherever it may (as root: even in a read-only copy), and the registry would then
    find the copy changed ("does not match its recorded hash") and take it for tampered. The
    bot processes' sandbox sets ``PYTHONDONTWRITEBYTECODE`` for the same reason. (With a
    ``PYTHONPYCACHEPREFIX`` bytecode goes into that folder, not beside the sources: left on.)"""
    if spec not in BUNDLED and sys.pycache_prefix is None:
        sys.dont_write_bytecode = True
    return _load_bot(spec)
