"""tile-check-bounds: with `debug`, every memory access of a GPU kernel is checked against the arrays
passed to it; an access outside all of them stops the kernel with a device assertion that names the
line, instead of reading or writing whatever lies there.

A GPU access past the end of a tensor mostly lands in memory the allocator rounded up to, or in the
next tensor: no fault, a wrong result far from its cause (or an illegal-address error that names no
line). In debug mode (`debug=True`, TILEC_DEBUG=1) the NVIDIA target therefore checks each address as
the CPU target does (tile-cpu-check-bounds): the kernel takes two more i64 parameters per pointer
argument, after its own,

    lo_j, hi_j      the [lo, hi) byte range pointer argument j spans (strides included; the launcher
                    fills them at each launch from the tensor passed)

and each access traceable to the pointer arguments is checked and masked as bounds_checks.py
describes. The failed assertion is a device-side assert (its message names the access and the
line); the CUDA context is then unusable, as after any device-side assert. `tile.bounds_ranges` on
the function says how many pointer arguments have ranges. AMD GPUs lower no device assertions yet,
so their pipelines do not run this pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import contract

from .base import TilePass
from .bounds_checks import guard_accesses, has_accesses, pointer_arguments


@dataclass(frozen=True)
class CheckBoundsPass(TilePass):
    """Check every load, store and atomic of a GPU kernel against the arrays passed to it (debug)."""

    name: ClassVar[str] = "tile-check-bounds"

    def run(self, module: ir.Module) -> None:
        for fn in contract.kernels(module):
            _check_kernel(fn)


def _check_kernel(fn: ir.Operation) -> None:
    pointers = pointer_arguments(fn)
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    fn.attributes[contract.BOUNDS_RANGES] = ir.IntegerAttr.get(i32, len(pointers))
    if not pointers:
        return
    entry = fn.regions[0].blocks[0]
    ranges = [(entry.add_argument(i64, fn.location), entry.add_argument(i64, fn.location)) for _ in pointers]
    types = [a.type for a in entry.arguments]
    ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, ftype.results))
    if "arg_attrs" in fn.attributes:
        attrs = list(ir.ArrayAttr(fn.attributes["arg_attrs"]))
        attrs += [ir.DictAttr.get({})] * (len(types) - len(attrs))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
    if has_accesses(fn):  # (the ranges stay parameters regardless: the launcher always passes them)
        guard_accesses(fn, ranges, None)
