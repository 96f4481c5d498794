"""tile-verify: the checks of the tile dialect that IRDL cannot express, as a pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import tile

from .base import PassError, TilePass


@dataclass(frozen=True)
class VerifyPass(TilePass):
    """Verify tile ops: shapes, element types and attributes that IRDL cannot check.

    "tile.broadcast"(%x) : (tensor<4x1xf32>) -> tensor<2x8xf32>
      => error: cannot broadcast shape [4, 1] to [2, 8]: ranks must match and only size-1 dims grow
    """

    name: ClassVar[str] = "tile-verify"

    def run(self, module: ir.Module) -> None:
        errors = tile.verify_tile_ops(module.operation)
        if errors:
            first = errors[0]
            raise PassError(f"'{first.op.name}' op {first.message}", first.op)
