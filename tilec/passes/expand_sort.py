"""tile-expand-sort: tile.sort as its bitonic sorting network of elementwise ops (GPUs).

The GPU lowering has no sort of its own: the network's compare-and-swap steps are selections between
the two halves of an axis of size 2, which convert-tile-to-gpu keeps in registers where a thread
holds both elements and moves through shared memory where it does not. The CPU target does not run
this pass (convert-tile-to-linalg loops over the same steps instead: the network's log2(n)-dimensional
views took minutes to compile there), so every target makes the same comparisons and swaps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import expansions

from .base import TilePass, expand, expansions_for, ops_named


@dataclass(frozen=True)
class ExpandSortPass(TilePass):
    """tile.sort => the bitonic network (reshapes to log2(n) axes of size 2, selections, compares).

    %s = "tile.sort"(%x) {axis = 0 : i32} : (tensor<4xf32>) -> tensor<4xf32>
      =>  3 compare-and-swap steps on tensor<2x2xf32>, each: pick both halves of one axis, compare
          (NaN after numbers), select the smaller into the first half
    """

    name: ClassVar[str] = "tile-expand-sort"

    def run(self, module: ir.Module) -> None:
        table = expansions_for(self, expansions.SORT)
        for op in ops_named(module.operation, "tile.sort"):
            expand(op, table[op.name])
