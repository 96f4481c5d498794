"""tile-axis-info: annotates tensor-valued ops with the axis analysis, for inspection and tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.analysis.axis_info import AxisAnalysis
from tilec.dialects import contract, tile

from .base import TilePass


@dataclass(frozen=True)
class AxisInfoPass(TilePass):
    """Attach contiguity / divisibility / constancy per dimension to every tensor-valued op.

    %r = "tile.make_range"() {end = 128, start = 0}
      =>  %r = "tile.make_range"() {..., tile.contiguity = array<i32: 128>,
                                    tile.divisibility = array<i32: 1073741824>, tile.constancy = array<i32: 1>}
    """

    name: ClassVar[str] = "tile-axis-info"

    def run(self, module: ir.Module) -> None:
        analysis = AxisAnalysis()
        ops = []

        def collect(op):
            ops.append(op.operation if hasattr(op, "operation") else op)
            return ir.WalkResult.ADVANCE

        module.operation.walk(collect)
        infos = []
        for op in ops:
            if len(op.results) == 1 and tile.shape_of(op.results[0].type):
                infos.append((op, analysis.get(op.results[0])))
        for op, info in infos:  # annotate after analysing: hints in attributes must not feed back
            op.attributes[contract.AXIS_CONTIGUITY] = ir.DenseI32ArrayAttr.get(list(info.contiguity))
            op.attributes[contract.AXIS_DIVISIBILITY] = ir.DenseI32ArrayAttr.get(list(info.divisibility))
            op.attributes[contract.AXIS_CONSTANCY] = ir.DenseI32ArrayAttr.get(list(info.constancy))
