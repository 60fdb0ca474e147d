"""Finding a bot by its name, for the arbiter: the one door to ``sdk.loading``.

The arbiter names bots (bundled names, files, ``module:Class``) the way the SDK does; the
bundled ones are entry points, so naming one imports nothing. ``load_bot`` does run the
bot's module in this process: only for trusted bots (``--transport inproc``, the
self-test inside its sandbox).
"""

from __future__ import annotations

from sdk.loading import BUNDLED, BotLoadError, did_you_mean, load_bot

__all__ = ["BUNDLED", "BotLoadError", "did_you_mean", "load_bot"]
