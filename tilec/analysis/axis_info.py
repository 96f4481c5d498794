"""Axis analysis: per dimension, how many consecutive elements are contiguous, constant, and how far
the values are divisible by a power of two. It is what lets the GPU lowering prove that a thread's
4 x f32 are one aligned 16-byte access and that one mask bit covers them (as Triton's AxisInfo).

    offs = pid * 1024 + arange(0, 1024)  ->  contiguity [1024], divisibility [1024], constancy [1]
    mask = offs < n   (n divisible by 16) ->  constancy [16]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from tilec.dialects import contract, tile

MAX_DIVISIBILITY = 1 << 30


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]

    @staticmethod
    def unknown(rank: int) -> AxisInfo:
        return AxisInfo((1,) * rank, (1,) * rank, (1,) * rank)


def _pow2_factor(v: int) -> int:
    if v == 0:
        return MAX_DIVISIBILITY
    return min(v & -v, MAX_DIVISIBILITY)


class AxisAnalysis:
    """Computes AxisInfo for every value of a function on demand (memoized)."""

    def __init__(self):
        self.cache: dict = {}

    def get(self, value: ir.Value) -> AxisInfo:
        info = self.cache.get(value)
        if info is None:
            info = self._compute(value)
            self.cache[value] = info
        return info

    # A scalar is treated as rank 1 with one element: divisibility is what matters.
    def _rank(self, value) -> int:
        return max(1, len(tile.shape_of(value.type)))

    def _shape(self, value) -> list[int]:
        return tile.shape_of(value.type) or [1]

    def _compute(self, value: ir.Value) -> AxisInfo:
        rank, shape = self._rank(value), self._shape(value)
        owner = value.owner
        if isinstance(owner, ir.Block):
            return self._block_arg(value, owner, rank)
        op = owner.operation if hasattr(owner, "operation") else owner
        divisibility_hint = None
        if contract.DIVISIBILITY in op.attributes:
            divisibility_hint = list(ir.DenseI32ArrayAttr(op.attributes[contract.DIVISIBILITY]))
        info = self._op(op, value, rank, shape)
        if divisibility_hint:
            hint = (divisibility_hint * rank)[:rank]
            info = AxisInfo(
                info.contiguity, tuple(max(a, b) for a, b in zip(info.divisibility, hint)), info.constancy
            )
        if contract.CONTIGUITY in op.attributes:
            hint = (list(ir.DenseI32ArrayAttr(op.attributes[contract.CONTIGUITY])) * rank)[:rank]
            info = AxisInfo(
                tuple(max(a, b) for a, b in zip(info.contiguity, hint)), info.divisibility, info.constancy
            )
        return info

    def _block_arg(self, value, block, rank) -> AxisInfo:
        parent = block.owner
        parent = parent.operation if parent is not None and hasattr(parent, "operation") else parent
        if parent is not None and parent.name == "func.func" and block == parent.regions[0].blocks[0]:
            index = value.arg_number
            attrs = parent.attributes["arg_attrs"] if "arg_attrs" in parent.attributes else None
            if attrs is not None:
                d = ir.DictAttr(ir.ArrayAttr(attrs)[index])
                if contract.DIVISIBILITY in d:
                    return AxisInfo(
                        (1,) * rank, (ir.IntegerAttr(d[contract.DIVISIBILITY]).value,) * rank, (1,) * rank
                    )
        if parent is not None and parent.name == "scf.for":
            if value.arg_number == 0:  # the induction variable: lb + i * step
                lb, step = self.get(parent.operands[0]), self.get(parent.operands[2])
                return AxisInfo((1,), (math.gcd(lb.divisibility[0], step.divisibility[0]),), (1,))
            return self._loop_carried(value, parent, rank)
        return AxisInfo.unknown(rank)

    def _loop_carried(self, value, loop, rank) -> AxisInfo:
        """A loop-carried value: what holds for the initial value and for every value the body yields
        (`p += BLOCK` keeps p's contiguity and alignment). Found by iterating from the initial value's
        info, which only shrinks; entries computed under an assumption that turns out wrong are dropped."""
        index = value.arg_number - 1
        yielded = list(loop.regions[0].blocks[0].operations)[-1].operands[index]
        info = self.get(loop.operands[3 + index])
        for _ in range(8):
            before = set(self.cache)
            self.cache[value] = info
            joined = _join(info, self.get(yielded))
            if joined == info:
                return info
            for key in set(self.cache) - before:
                del self.cache[key]
            info = joined
        return AxisInfo.unknown(rank)

    def _op(self, op, value, rank, shape) -> AxisInfo:
        name = op.name
        if name == "arith.constant":
            attr = op.attributes["value"]
            if isinstance(attr, ir.DenseElementsAttr):
                if not attr.is_splat:
                    return AxisInfo.unknown(rank)
                attr = attr.get_splat_value()
            if isinstance(attr, ir.IntegerAttr):
                return AxisInfo((1,) * rank, (_pow2_factor(attr.value),) * rank, tuple(shape))
            return AxisInfo((1,) * rank, (1,) * rank, tuple(shape))
        if name == "tile.make_range":
            start = ir.IntegerAttr(op.attributes["start"]).value
            return AxisInfo((shape[0],), (_pow2_factor(start),), (1,))
        if name == "tile.splat":
            src = self.get(op.operands[0])
            return AxisInfo((1,) * rank, (src.divisibility[0],) * rank, tuple(shape))
        if name in ("tile.expand_dims",):
            src = self.get(op.operands[0])
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            ins = lambda t, v: t[:axis] + (v,) + t[axis:]  # noqa: E731
            return AxisInfo(
                ins(src.contiguity, 1), ins(src.divisibility, MAX_DIVISIBILITY), ins(src.constancy, 1)
            )
        if name == "tile.broadcast":
            src = self.get(op.operands[0])
            src_shape = tile.shape_of(op.operands[0].type)
            const = tuple(s if ss == 1 and s != 1 else c for c, s, ss in zip(src.constancy, shape, src_shape))
            return AxisInfo(src.contiguity, src.divisibility, const)
        if name == "tile.addptr":
            p, off = self.get(op.operands[0]), self.get(op.operands[1])
            size = _elem_bytes(tile.pointee_type(tile.element_of(op.operands[0].type)))
            off_bytes = AxisInfo(
                off.contiguity,
                tuple(min(d * size, MAX_DIVISIBILITY) for d in off.divisibility),
                off.constancy,
            )
            return _add(p, off_bytes)
        if name == "tile.ptr_cast":
            # addresses keep their byte alignment and constancy; contiguity counts steps of the
            # pointee's size (of 1 for an integer address), so it survives only between equal steps
            src = self.get(op.operands[0])
            if _step_bytes(op.operands[0].type) == _step_bytes(op.results[0].type):
                return src
            return AxisInfo((1,) * rank, src.divisibility, src.constancy)
        if name in ("arith.addi",):
            return _add(self.get(op.operands[0]), self.get(op.operands[1]))
        if name == "arith.subi":
            a, b = self.get(op.operands[0]), self.get(op.operands[1])
            return AxisInfo(
                tuple(ca if cb_const >= ca else 1 for ca, cb_const in zip(a.contiguity, b.constancy)),
                tuple(math.gcd(x, y) for x, y in zip(a.divisibility, b.divisibility)),
                tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
            )
        if name == "arith.muli":
            for x, y in ((0, 1), (1, 0)):  # x * 1 (a stride specialized to 1): x's info unchanged
                if _constant_int(op.operands[y]) == 1:
                    return self.get(op.operands[x])
            a, b = self.get(op.operands[0]), self.get(op.operands[1])
            return AxisInfo(
                (1,) * rank,
                tuple(min(x * y, MAX_DIVISIBILITY) for x, y in zip(a.divisibility, b.divisibility)),
                tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
            )
        if name in ("arith.remsi", "arith.remui"):
            # (x % m) with m constant along a dimension and divisible by d: x's runs stay contiguous
            # over aligned blocks of gcd(run, d, x's divisibility) elements (x % m wraps only at
            # multiples of m; a run that starts off such a multiple, as 1 + arange(16) % 16, wraps
            # inside it), as do its alignment and constancy.
            a, b = self.get(op.operands[0]), self.get(op.operands[1])
            contiguity = tuple(
                math.gcd(ca, db, da) if kb >= ca else 1
                for ca, da, db, kb in zip(a.contiguity, a.divisibility, b.divisibility, b.constancy)
            )
            return AxisInfo(
                contiguity,
                tuple(math.gcd(x, y) for x, y in zip(a.divisibility, b.divisibility)),
                tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
            )
        if name in ("arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast"):
            return self.get(op.operands[0])
        if name == "arith.cmpi":
            a, b = self.get(op.operands[0]), self.get(op.operands[1])
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
            const = []
            for i in range(rank):
                c = math.gcd(a.constancy[i], b.constancy[i])
                # Contiguous values x compared with a value k constant over their run, both
                # multiples of g: over each aligned group [g*j, g*j + g) of x, `x < k` and `x >= k`
                # are constant (k is a group's first value or outside it), `x <= k`, `x > k`,
                # `x == k` and `x != k` are not (they change after k's own element).
                g = math.gcd(a.divisibility[i], b.divisibility[i])
                if predicate in _BELOW_OR_NOT and a.contiguity[i] > 1 and b.constancy[i] >= a.contiguity[i]:
                    c = max(c, min(g, a.contiguity[i]))
                if predicate in _ABOVE_OR_NOT and b.contiguity[i] > 1 and a.constancy[i] >= b.contiguity[i]:
                    c = max(c, min(g, b.contiguity[i]))
                const.append(c)
            return AxisInfo((1,) * rank, (1,) * rank, tuple(const))
        if name in ("arith.andi", "arith.ori", "arith.xori", "arith.select"):
            infos = [self.get(v) for v in op.operands]
            return AxisInfo(
                (1,) * rank,
                (1,) * rank,
                tuple(math.gcd(*[i.constancy[k] for i in infos]) for k in range(rank)),
            )
        return AxisInfo.unknown(rank)


# arith.cmpi predicates that compare a contiguous left operand as `x < k` or `x >= k` (slt, ult,
# sge, uge), and those that compare a contiguous right operand so: `k > x`, `k <= x` (sgt, ugt,
# sle, ule)
_BELOW_OR_NOT = {2, 6, 5, 9}
_ABOVE_OR_NOT = {4, 8, 3, 7}


def _constant_int(value: ir.Value) -> int | None:
    """The integer a value always holds (a constant, a splat constant or a splat of one), else None."""
    attr = tile.splat_constant(value)
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def _join(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    """What holds for both a and b."""
    return AxisInfo(
        tuple(min(x, y) for x, y in zip(a.contiguity, b.contiguity)),
        tuple(math.gcd(x, y) for x, y in zip(a.divisibility, b.divisibility)),
        tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
    )


def _add(a: AxisInfo, b: AxisInfo) -> AxisInfo:
    contiguity = tuple(
        max(min(ca, kb), min(cb, ka))
        for ca, cb, ka, kb in zip(a.contiguity, b.contiguity, a.constancy, b.constancy)
    )
    return AxisInfo(
        contiguity,
        tuple(math.gcd(x, y) for x, y in zip(a.divisibility, b.divisibility)),
        tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
    )


def _step_bytes(t: ir.Type) -> int:
    """The bytes between consecutive values of a contiguous run: a pointer's pointee size, 1 for an
    integer (address)."""
    element = tile.element_of(t)
    return _elem_bytes(tile.pointee_type(element)) if tile.is_ptr(element) else 1


def _elem_bytes(t: ir.Type) -> int:
    if tile.is_ptr(t):
        return 8
    return max(1, t.width // 8)
