"""tile-cpu-vectorize-dots: a tl.dot on the CPU becomes vector contractions held in registers.

convert-tile-to-linalg lowers a dot to linalg.matmul, whose plain loops (i, j, k) sum one scalar at a
time. This pass tiles each linalg.matmul (on tensors, after linalg-fuse-elementwise-ops) into blocks
of `rows` x `cols` accumulator elements and K into steps of `depth`, vectorizes each block and step
into one vector.contract, and lowers that to outer products (vector.outerproduct, i.e. a broadcast
of A's column times B's row added into the accumulator block: vector FMAs on registers). Each
accumulator element still sums its products in k order. Dims that the block sizes do not divide get
the largest power of two that does. The K steps matter beyond 32: a contraction over K = 64 at once
held A's rows as 64-wide vectors and read them back element by element through the stack (a
64x64x64-tile fp32 matmul ran at 47 GFLOP/s on this 2-core Xeon, 221 in steps of 32). The upstream
transform dialect does the work (transform-interpreter on a script built here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir, passmanager

from tilec.dialects import contract
from tilec.passes.base import TilePass, ops_named


@dataclass(frozen=True)
class CpuVectorizeDotsPass(TilePass):
    """Tile linalg.matmul into rows x cols blocks and lower each to vector outer products.

    linalg.matmul ins(%a : tensor<64x32xf32>, %b : tensor<32x64xf32>) outs(%c)
      =>  scf.for (4 rows) { scf.for (16 cols) { vector.transfer_read (A, B, C block)
            vector.fma (A[r, k] broadcast, B[k, :], C[r, :]) for k in 0..31, r in 0..3
            vector.transfer_write } }
    """

    name: ClassVar[str] = "tile-cpu-vectorize-dots"
    option_ranges: ClassVar[dict] = {"rows": (1, 64), "cols": (1, 256), "depth": (1, 1024)}
    rows: int = 4  # the CPU target picks them for the host (cpu.compiler.dot_block)
    cols: int = 16
    depth: int = 32

    def run(self, module: ir.Module) -> None:
        # on tensors (as the CPU pipeline runs it, before bufferization); matmuls on memrefs stay
        matmuls = [op for op in ops_named(module.operation, "linalg.matmul") if len(op.results) == 1]
        if not matmuls:
            return
        for op in matmuls:  # tagged with their block shape, which the script matches on
            m, n = ir.RankedTensorType(op.results[0].type).shape
            k = ir.RankedTensorType(op.operands[0].type).shape[1]
            block = f"{_divisor(m, self.rows)}x{_divisor(n, self.cols)}x{_divisor(k, self.depth)}"
            op.attributes[contract.DOT_BLOCK] = ir.StringAttr.get(block)
        blocks = sorted({ir.StringAttr(op.attributes[contract.DOT_BLOCK]).value for op in matmuls})
        parsed = ir.Module.parse(_script(blocks))  # held: the clone below reads its body
        cloned = parsed.body.operations[0].operation.clone(ir.InsertionPoint(module.body))
        try:
            passmanager.PassManager.parse("builtin.module(transform-interpreter)").run(module.operation)
        finally:
            cloned.erase()


def _divisor(size: int, wanted: int) -> int:
    block = 1
    while block * 2 <= wanted and size % (block * 2) == 0:
        block *= 2
    return block


def _script(blocks: list[str]) -> str:
    steps = []
    for i, block in enumerate(blocks):
        r, c, k = block.split("x")
        steps.append(
            f'''
      %mm{i} = transform.structured.match ops{{["linalg.matmul"]}} attributes {{tilec.dot_block = "{block}"}} in %root
        : (!transform.any_op) -> !transform.any_op
      %tiled{i}, %rows{i}, %cols{i}, %steps{i} = transform.structured.tile_using_for %mm{i} tile_sizes [{r}, {c}, {k}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %tiled{i} : !transform.any_op'''
        )
    body = "".join(steps)
    return f"""
module attributes {{transform.with_named_sequence}} {{
  module attributes {{transform.with_named_sequence}} {{
    transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{{body}
      %funcs = transform.structured.match ops{{["func.func"]}} in %root : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %funcs {{
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.vector.reduction_to_contract
      }} : !transform.any_op
      transform.apply_patterns to %funcs {{
        transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
      }} : !transform.any_op
      transform.yield
    }}
  }}
}}
"""
