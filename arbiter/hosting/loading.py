"""Finding a bot by its name, for the arbiter: the one door to ``sdk.loading``.

The arbiter names bots (bundled names, files, ``module:Class``) the way the SDK does; the
bundled ones are entry points, so naming one imports nothing. ``load_bot`` does run the
bot's module in this process: only for trusted bots (``--transport inproc``, the
self-test inside its sandbox).
"""

from __future__ import annotations

from sdk.loading import BUNDLED, BotLoadError, did_you_mean, load_bot

__all__ = ["BUNDLED", "BotLoadError", "bundled_version", "did_you_mean", "load_bot"]


def bundled_version(name: str) -> str:
    """The version a bundled bot says it is ("" for a name that is not bundled, or whose
    class cannot be loaded): the platform's own trusted code, loaded by its entry point."""
    ep = BUNDLED.get(name)
    if ep is None:
        return ""
    try:
        return str(getattr(ep.load(), "version", "") or "")
    except Exception:  # noqa: BLE001 - a label, never a reason to fail a page
        return ""
