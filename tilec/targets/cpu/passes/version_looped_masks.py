"""tile-cpu-version-looped-masks: in a kernel with loops, a masked load that feeds a dot and a masked
store of a dot's or a loop's result test their own mask and take an unmasked copy of themselves
when it is all true (CPU).

tile-cpu-version-masks copies a loop-free kernel's whole body; a kernel with loops (a matmul's K
loop) would double its code that way. Here each such access is versioned on its own, where it is:
a K loop's `offs_k < K - k * BLOCK_K` is all true in every iteration but the last, and the
epilogue's `(rows < M) & (cols < N)` everywhere but at the edges, so LLVM's plain vector moves
replace AVX's masked ones (vmaskmovps, slow on AMD's cores, stores above all) nearly always. Only
accesses whose tiles are buffers anyway are versioned: a load or store fused with elementwise code
(a layer norm's loops over column blocks) would lose that fusion to the branch. The test comes
from the mask's bounds where it can (a scalar compare for `offs_k < K - k * BLOCK_K`), else from a
reduction of the mask (versioning.all_true).

    %x = tile.load(%p, %m, %other)
      =>  %all = <every element of %m is true>
          %x = scf.if %all { tile.load(%p) } else { tile.load(%p, %m, %other) }
    tile.store(%q, %v, %m)
      =>  scf.if %all { tile.store(%q, %v) } else { tile.store(%q, %v, %m) }

Volatile accesses, descriptor blocks (their bounds are the descriptor's) and atomics are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import scf

from tilec.dialects import contract
from tilec.passes.base import TilePass, defining_op, ops_named
from tilec.passes.lowering_common import segments, without_mask
from tilec.passes.versioning import LOOPS, all_true


@dataclass(frozen=True)
class CpuVersionLoopedMasksPass(TilePass):
    """In kernels with loops, run a dot's masked loads and a result's masked store unmasked when
    their masks are all true."""

    name: ClassVar[str] = "tile-cpu-version-looped-masks"

    def run(self, module: ir.Module) -> None:
        for fn in contract.kernels(module):
            if any(ops_named(fn, name) for name in LOOPS):
                for op in [*ops_named(fn, "tile.load"), *ops_named(fn, "tile.store")]:
                    if _versionable(op):
                        _version(op)


def _versionable(op: ir.Operation) -> bool:
    seg = segments(op)
    if not seg["mask"] or "volatile" in op.attributes or seg.get("coords"):
        return False
    if op.name == "tile.load":
        # loads that feed dots only: a dot reads its operands from buffers anyway, while a load
        # that feeds elementwise code is fused into it, and a branch around it would make its tile
        # a buffer of its own (Triton's layer-norm loops ran 2-3 times slower that way)
        users = [getattr(use.owner, "operation", use.owner) for use in op.results[0].uses]
        return bool(users) and all(user.name == "tile.dot" for user in users)
    # stores of a value elementwise code does not compute here (a loop's or a dot's result: the
    # matmul's epilogue), for the same reason
    producer = defining_op(seg["value"][0])
    return producer is None or producer.name in ("tile.dot", "scf.for", "scf.while")


def _version(op: ir.Operation) -> None:
    with op.location, ir.InsertionPoint(op):
        branch = scf.IfOp(all_true(segments(op)["mask"][0]), [r.type for r in op.results], has_else=True)
    with op.location, ir.InsertionPoint(branch.then_block):
        plain = without_mask(op)
        scf.YieldOp(list(plain.results))
    for old, new in zip(op.results, branch.results):
        old.replace_all_uses_with(new)
    branch.else_block.append(op)
    with op.location, ir.InsertionPoint(branch.else_block):
        scf.YieldOp(list(op.results))
