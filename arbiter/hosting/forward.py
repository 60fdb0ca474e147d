"""The SDK's forward model for the arbiter: the one door to ``sdk.forward``.

Analysis (``arbiter.analysis``) samples full states consistent with one seat's view, as a
bot does, to value that seat's decisions. It is SDK code run in the arbiter's process, so
it comes through the hosting layer like every other piece of the SDK.
"""

from __future__ import annotations

from sdk.forward import ConsistencyError, sample_states

__all__ = ["ConsistencyError", "sample_states"]
