"""The SDK's observation encoding for the arbiter: the one door to ``sdk.encoding``.

The dataset export (``arbiter.present.decisions``) turns each seat's stored decisions into
the tensors and action indices a bot trains and plays with: the same functions a bot
imports, so a policy learned from the export reads its matches the way it will play them.
It is SDK code run in the arbiter's process, so it comes through the hosting layer.
"""

from __future__ import annotations

from sdk.encoding import Encoder, encoder

__all__ = ["Encoder", "encoder"]
