"""The registry of tilec passes, by kebab-case name. Adding a pass: one file, one line here."""

from __future__ import annotations

from .base import PassError, TilePass
from .canonicalize import CanonicalizePass
from .verify import VerifyPass

REGISTRY: dict[str, type[TilePass]] = {
    p.name: p
    for p in (
        CanonicalizePass,
        VerifyPass,
    )
}

__all__ = ["REGISTRY", "PassError", "TilePass"]
