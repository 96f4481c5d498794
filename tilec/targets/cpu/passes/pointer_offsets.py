"""tile-cpu-pointer-offsets: an address `base + offset` becomes a GEP from the base pointer.

On the CPU target a pointer tensor is a tensor of i64 addresses, and a load or store goes through
`llvm.inttoptr` of one (convert-tile-to-linalg). After elementwise fusion the address of element i is
computed in the loop body as a sum such as `a_ptr + row * stride * 4 + sext(col) * 4 + k_offset * 4`,
and LLVM cannot see through inttoptr: its loop vectorizer found no consecutive access, so masked
loads (`x = tl.load(p + offs, mask)`) stayed a scalar loop with a branch per element and a matmul's
tile copies moved one float at a time. The sum's terms are split in two: those that do not change
along the loop's innermost index (the base, which LLVM hoists) and those that do (the offset).
Written as `getelementptr i8, inttoptr(base), offset`, the address is an affine function of that
index that LLVM recognizes: consecutive loads and stores become vector moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.passes.base import TilePass, ops_named
from tilec.passes.lowering_common import DYNAMIC_INDEX

_LOOPS = ("linalg.generic", "scf.for", "scf.parallel", "scf.forall")
_MAX_TERMS = 16  # an address is a handful of terms; a longer chain is left as it is


def _operation(value_owner):
    return value_owner.operation if hasattr(value_owner, "operation") else value_owner


def _loop_of(op: ir.Operation):
    """The innermost loop (a linalg.generic body or an scf loop) around `op`, else None."""
    parent = op.parent
    while parent is not None and parent.name not in _LOOPS:
        parent = parent.parent
    return parent


def _inside(op: ir.Operation, loop) -> bool:
    while op is not None:
        if op == loop:
            return True
        op = op.parent
    return False


class _Varying:
    """Which values change along `loop`'s innermost index: a generic's last `linalg.index` and its
    block arguments (the elements it reads), an scf loop's induction variables and carried values,
    and whatever is computed from them inside the loop."""

    def __init__(self, loop):
        self.loop = loop
        self.innermost = None
        if loop.name == "linalg.generic":
            self.innermost = len(ir.ArrayAttr(loop.attributes["iterator_types"])) - 1
        self.memo: dict = {}

    def __call__(self, value: ir.Value) -> bool:
        owner = value.owner
        if isinstance(owner, ir.Block):
            return _inside(owner.owner, self.loop)  # the loop's (or a nested region's) arguments
        op = _operation(owner)
        if not _inside(op, self.loop):
            return False
        key = op
        if key in self.memo:
            return self.memo[key]
        if op.name == "linalg.index":
            varying = ir.IntegerAttr(op.attributes["dim"]).value == self.innermost
        elif op.name == "arith.constant":
            varying = False
        elif op.regions or op.name.startswith("llvm.load") or op.name == "memref.load":
            varying = True  # a value read or computed in a region: assume it changes
        else:
            varying = any(self(v) for v in op.operands)
        self.memo[key] = varying
        return varying


def _terms(address: ir.Value, loop) -> list[ir.Value] | None:
    """The leaves of the i64 `arith.addi` tree computed inside `loop` that sums to `address`."""
    terms, pending = [], [address]
    while pending:
        v = pending.pop()
        owner = v.owner
        op = None if isinstance(owner, ir.Block) else _operation(owner)
        if op is not None and op.name == "arith.addi" and _inside(op, loop):
            pending.extend(op.operands)
        else:
            terms.append(v)
        if len(terms) + len(pending) > _MAX_TERMS:
            return None
    return terms


def _sum(values: list[ir.Value]) -> ir.Value:
    total = values[0]
    for v in values[1:]:
        total = arith.addi(total, v)
    return total


@dataclass(frozen=True)
class CpuPointerOffsetsPass(TilePass):
    """llvm.inttoptr of a sum inside a loop => llvm.getelementptr (llvm.inttoptr base)[offset] : i8,
    the base the sum's terms that do not change along the loop's innermost index, the offset those
    that do.

    %a = arith.addi %base, %off : i64        (in a linalg.generic body; %base a function argument)
    %p = llvm.inttoptr %a : i64 to !llvm.ptr
      =>  %b = llvm.inttoptr %base : i64 to !llvm.ptr
          %p = llvm.getelementptr %b[%off] : (!llvm.ptr, i64) -> !llvm.ptr, i8
    """

    name: ClassVar[str] = "tile-cpu-pointer-offsets"

    def run(self, module: ir.Module) -> None:
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        varying_in: dict = {}
        for op in ops_named(module.operation, "llvm.inttoptr"):
            loop = _loop_of(op)
            if loop is None:
                continue
            terms = _terms(op.operands[0], loop)
            if terms is None or len(terms) < 2:
                continue
            varying = varying_in.setdefault(loop, _Varying(loop))
            offset = [t for t in terms if varying(t)]
            base = [t for t in terms if not varying(t)]
            if not offset or not base:
                continue
            with op.location, ir.InsertionPoint(op):
                start = llvm.IntToPtrOp(op.results[0].type, _sum(base)).result
                pointer = llvm.GEPOp(op.results[0].type, start, [_sum(offset)], [DYNAMIC_INDEX], i8, 0).result
            op.results[0].replace_all_uses_with(pointer)
            op.erase()
