"""tile-cpu-check-bounds: with `debug`, every memory access of a CPU kernel is checked against the
arrays passed to it; an access outside all of them is skipped and reported, never a crash.

On a GPU an access past the end of an array mostly lands in memory the allocator rounded up to and
goes unnoticed; on the host it can land in malloc's bookkeeping, and the process aborts later, far
from the kernel. In debug mode (`debug=True`, TILEC_DEBUG=1) the CPU target therefore checks each
address the way the interpreter does. The launcher passes the byte range each pointer argument spans
(strides included) in the status block that device assertions already report through (tile-cpu-grid's
`status` argument):

    word 0      status: the number of the first failed assertion (an i32 in the low half)
    word 1      scratch: where an out-of-bounds compare-and-swap goes instead
    words 2+2j  [lo, hi) of pointer argument j (in parameter order)

Each access is then checked and masked as bounds_checks.py describes (a compare-and-swap out of
bounds goes to the scratch word). Runs after tile-cpu-grid (it needs the status argument), only when
debug is on; without it the CPU target accesses memory as C does. tile-check-bounds is the same for
NVIDIA GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import contract, tile
from tilec.passes.base import PassError, TilePass
from tilec.passes.bounds_checks import guard_accesses, has_accesses, pointer_arguments

SCRATCH_WORD = 1
FIRST_RANGE_WORD = 2


@dataclass(frozen=True)
class CpuCheckBoundsPass(TilePass):
    """Check every load, store and atomic of a CPU kernel against the arrays passed to it (debug)."""

    name: ClassVar[str] = "tile-cpu-check-bounds"

    def run(self, module: ir.Module) -> None:
        for fn in module.body.operations:
            fn = fn.operation
            if fn.name != "func.func":
                continue
            if contract.KERNEL in fn.attributes and contract.GRID_ENTRY not in fn.attributes:
                raise PassError(
                    "tile-cpu-check-bounds needs tile-cpu-grid to run first (it reports through its status argument)",
                    fn,
                )
            if contract.STATUS_ARG in fn.attributes:
                _check_function(fn)


def _check_function(fn: ir.Operation) -> None:
    args = list(fn.regions[0].blocks[0].arguments)
    status = args[ir.IntegerAttr(fn.attributes[contract.STATUS_ARG]).value]
    pointer_args = pointer_arguments(fn)
    if not pointer_args or not has_accesses(fn):
        return
    i64 = ir.IntegerType.get_signless(64)
    entry = fn.regions[0].blocks[0]
    with fn.location, ir.InsertionPoint.at_block_begin(entry):
        words = tile.ptr_cast(status, tile.ptr_type(i64))
        ranges = []
        for j in range(len(pointer_args)):
            lo = tile.load(tile.addptr(words, _i32(FIRST_RANGE_WORD + 2 * j)))
            hi = tile.load(tile.addptr(words, _i32(FIRST_RANGE_WORD + 2 * j + 1)))
            ranges.append((lo, hi))
        scratch = tile.addptr(words, _i32(SCRATCH_WORD))
    guard_accesses(fn, ranges, scratch)


def _i32(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), value).result
