"""The registry of tilec passes, by kebab-case name. Adding a target-neutral pass: one file in this
folder, one line here. A target's own passes live in its folder (tilec/targets/<name>/passes/) and
are added with `register` when that package is imported: its compiler imports it, and
`tilec.targets.load_passes()` imports every target's (tilec-opt does)."""

from __future__ import annotations

from .axis_info import AxisInfoPass
from .base import PassError, TilePass
from .canonicalize import CanonicalizePass
from .check_bounds import CheckBoundsPass
from .convert_tile_to_gpu import ConvertTileToGpuPass
from .exact_remainder import ExactFloatRemainderPass
from .expand_float64_math import ExpandFloat64MathPass
from .expand_sort import ExpandSortPass
from .hoist_loads import HoistLoadsPass
from .lower_fp8 import LowerFp8Pass
from .verify import VerifyPass

REGISTRY: dict[str, type[TilePass]] = {
    p.name: p
    for p in (
        CanonicalizePass,
        LowerFp8Pass,
        ExactFloatRemainderPass,
        ExpandFloat64MathPass,
        ExpandSortPass,
        AxisInfoPass,
        HoistLoadsPass,
        CheckBoundsPass,
        ConvertTileToGpuPass,
        VerifyPass,
    )
}


def register(*passes: type[TilePass]) -> None:
    """Adds a target's passes to the registry (by their `name`); a name taken by another pass is an
    error, registering the same class again is not."""
    for cls in passes:
        taken = REGISTRY.get(cls.name)
        if taken is not None and taken is not cls:
            raise ValueError(f"pass name '{cls.name}' is taken by {taken.__module__}.{taken.__qualname__}")
        REGISTRY[cls.name] = cls


__all__ = ["REGISTRY", "PassError", "TilePass", "register"]
