"""Integer and pointer tiles of a loop as affine functions of the element's index, with polynomial
coefficients over scalars (tile-pointer-tensor-copies reads loads' addresses and masks through it).

    value[i, j] = base + const + coefs[0] * i + coefs[1] * j

`base` is a kernel pointer argument (pointer tiles only), `const` and each coefficient a `Poly`:
integer coefficients of products of *atoms*, the scalars nothing here decomposes (kernel
arguments, values of the blocks around the loop such as a program's row block or an enclosing
loop's induction variable) and `ITER`, the loop's iteration number
(its induction variable is `lb + step * ITER`). Loop-carried pointers advanced by a loop-invariant
step are `init + ITER * step`. With `remainders`, a tile that wraps with `x % M`, or is clamped
with `tl.where(x < M, x, c)` (newer Triton tutorials), is read as `x` (the caller makes sure that
the wrap is the identity: `remainders` lists those read through), and its dimension carries the
range [0, M) its offsets then lie in.
Anything else (loads, divisions, values computed in other regions) is not affine: None.
Overflow is not modelled: the polynomials are the values the kernel computes when nothing wraps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from tilec.dialects import tile
from tilec.dialects.tile import defining_op

ITER = 0  # the atom id of the loop's iteration number


def poly_add(a: dict, b: dict, sign: int = 1) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if not out[m]:
            del out[m]
    return out


def poly_mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
            if not out[m]:
                del out[m]
    return out


def constant(value: int) -> dict:
    return {(): value} if value else {}


def as_constant(p: dict) -> int | None:
    if not p:
        return 0
    return p[()] if list(p) == [()] else None


@dataclass
class Form:
    """An integer or pointer tile (or scalar, shape ()) as base + const + sum of coefs[d] * index_d.
    `ranges`: dim -> (x0, bound): along that dimension the values came from `x0 + index` through a
    remainder by `bound` taken as the identity."""

    shape: tuple
    const: dict
    coefs: tuple
    base: ir.Value | None = None
    ranges: dict = field(default_factory=dict)

    def uniform(self) -> bool:
        return self.base is None and not any(self.coefs)

    def unit_dim(self) -> int | None:
        """The one dimension this integer tile varies along with coefficient 1 (else None)."""
        varying = [d for d, c in enumerate(self.coefs) if c]
        if self.base is None and len(varying) == 1 and self.coefs[varying[0]] == constant(1):
            return varying[0]
        return None


class AffineTiles:
    """The affine forms of the values a loop's loads read (see the module's docstring)."""

    def __init__(self, fn: ir.Operation, loop: ir.Operation, remainders: bool = False):
        self.fn = fn
        self.loop = loop
        self.outside = enclosing_blocks(loop, fn)  # the blocks whose values are the loop's atoms
        self.allow_remainders = remainders
        self.remainders: list = []  # the arith.remsi ops read through as the identity
        self.atoms: list = [None]  # id -> Value (ITER first)
        self._ids: dict = {}
        self._forms: dict = {}

    # -- scalars ----------------------------------------------------------------------------------

    def atom(self, value: ir.Value) -> dict:
        if value not in self._ids:
            self._ids[value] = len(self.atoms)
            self.atoms.append(value)
        return {(self._ids[value],): 1}

    def scalar(self, value: ir.Value) -> dict | None:
        """The integer scalar `value` as a polynomial, None when it varies in the loop in a way
        this does not follow or is computed inside other regions."""
        owner = value.owner
        if isinstance(owner, ir.Block):
            body = self.loop.regions[0].blocks[0]
            if owner == body and value == body.arguments[0]:
                lb, step = self.scalar(self.loop.operands[0]), self.scalar(self.loop.operands[2])
                if lb is None or step is None:
                    return None
                return poly_add(lb, poly_mul(step, {(ITER,): 1}))
            if owner in self.outside:
                return self.atom(value)
            return None
        op = defining_op(value)
        if op.name == "arith.constant":
            attr = op.attributes["value"]
            return constant(ir.IntegerAttr(attr).value) if isinstance(attr, ir.IntegerAttr) else None
        if op.name in ("arith.addi", "arith.subi", "arith.muli"):
            a, b = (self.scalar(v) for v in op.operands)
            if a is None or b is None:
                return None
            if op.name == "arith.muli":
                return poly_mul(a, b)
            return poly_add(a, b, -1 if op.name == "arith.subi" else 1)
        if op.name in ("arith.extsi", "arith.index_cast"):
            return self.scalar(op.operands[0])
        if op.block in self.outside:  # a value from around the loop, which the loop only reads
            return self.atom(value)
        return None

    def top_level(self, p: dict) -> bool:
        """Every atom of `p` is a kernel argument or a value from around the loop (no ITER)."""
        return all(ITER not in m for m in p)

    # -- tiles ------------------------------------------------------------------------------------

    def form(self, value: ir.Value) -> Form | None:
        if value in self._forms:
            return self._forms[value]
        found = self._form(value)
        self._forms[value] = found
        return found

    def _form(self, value: ir.Value) -> Form | None:
        shape = tuple(tile.shape_of(value.type))
        if not shape:
            if tile.is_ptr(value.type):
                return self._scalar_pointer(value)
            p = self.scalar(value)
            return None if p is None else Form((), p, ())
        splat = tile.splat_constant(value)
        if splat is not None:
            if not isinstance(splat, ir.IntegerAttr):
                return None
            return Form(shape, constant(ir.IntegerAttr(splat).value), tuple({} for _ in shape))
        owner = value.owner
        if isinstance(owner, ir.Block):
            return self._carried(value)
        op = defining_op(value)
        name = op.name
        if name == "tile.make_range":
            start = ir.IntegerAttr(op.attributes["start"]).value
            return Form(shape, constant(start), (constant(1),))
        if name == "tile.splat":
            inner = self.form(op.operands[0])
            if inner is None:
                return None
            return Form(shape, inner.const, tuple({} for _ in shape), inner.base)
        if name in ("arith.addi", "arith.subi", "tile.addptr"):
            a, b = (self.form(v) for v in op.operands)
            if a is None or b is None or b.base is not None or (name == "arith.subi" and a.base is not None):
                return None
            return _combine(a, b, -1 if name == "arith.subi" else 1)
        if name == "arith.muli":
            a, b = (self.form(v) for v in op.operands)
            if a is None or b is None:
                return None
            if not b.uniform():
                a, b = b, a
            if not b.uniform() or a.base is not None:
                return None
            return Form(shape, poly_mul(a.const, b.const), tuple(poly_mul(c, b.const) for c in a.coefs), None,
                        dict(a.ranges))  # fmt: skip
        if name == "arith.extsi":
            return self.form(op.operands[0])
        if name == "tile.expand_dims":
            inner = self.form(op.operands[0])
            if inner is None:
                return None
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            coefs = list(inner.coefs)
            coefs.insert(axis, {})
            ranges = {d + (d >= axis): r for d, r in inner.ranges.items()}
            return Form(shape, inner.const, tuple(coefs), inner.base, ranges)
        if name == "tile.broadcast":
            inner = self.form(op.operands[0])
            if inner is None or len(inner.coefs) != len(shape):
                return None
            source = tile.shape_of(op.operands[0].type)
            coefs = tuple(c if n > 1 else {} for c, n in zip(inner.coefs, source))
            ranges = {d: r for d, r in inner.ranges.items() if source[d] > 1}
            return Form(shape, inner.const, coefs, inner.base, ranges)
        if name in ("arith.remsi", "arith.select") and self.allow_remainders:
            wrap = wrapped_value(op)
            if wrap is None:
                return None
            found = self._ranged(*wrap)
            if found is not None:
                self.remainders.append(op)
            return found
        return None

    def _ranged(self, value: ir.Value, bound: ir.Value) -> Form | None:
        """`value` (x0 + index along one dimension), known to lie in [0, bound)."""
        inner = self.form(value)
        if inner is None:
            return None
        dim = inner.unit_dim()
        if dim is None or dim in inner.ranges:
            return None
        return Form(inner.shape, inner.const, inner.coefs, None, {**inner.ranges, dim: (inner.const, bound)})

    def _scalar_pointer(self, value: ir.Value) -> Form | None:
        owner = value.owner
        if isinstance(owner, ir.Block):
            parent = owner.owner
            if parent is not None and parent.operation == self.fn:
                return Form((), {}, (), value)
            return None
        op = defining_op(value)
        if op.name == "tile.addptr":
            base, offset = self._scalar_pointer(op.operands[0]), self.scalar(op.operands[1])
            if base is None or offset is None:
                return None
            return Form((), poly_add(base.const, offset), (), base.base)
        return None

    def _carried(self, value: ir.Value) -> Form | None:
        """A value the loop carries: its initial value plus ITER times a loop-invariant step
        (`p += step` at the end of every iteration)."""
        body = self.loop.regions[0].blocks[0]
        if value.owner != body or value.arg_number == 0:
            return None
        index = value.arg_number - 1
        init = self.form(self.loop.operands[3 + index])
        yielded = list(body.operations)[-1].operands[index]
        advance = defining_op(yielded)
        if init is None or advance is None or advance.name not in ("tile.addptr", "arith.addi"):
            return None
        if advance.operands[0] != value:
            return None
        step = self.form(advance.operands[1])
        if step is None or not step.uniform() or not self.top_level(step.const):
            return None
        return Form(init.shape, poly_add(init.const, poly_mul(step.const, {(ITER,): 1})), init.coefs,
                    init.base, dict(init.ranges))  # fmt: skip

    # -- masks ------------------------------------------------------------------------------------

    def limits(self, mask: ir.Value) -> dict | None:
        """The boolean tile `mask` as {dim: L}: true exactly where index_dim < L along every dim
        listed (a conjunction of `x0 + index < bound` comparisons), None for other masks."""
        splat = tile.splat_constant(mask)
        if splat is not None:
            return {} if isinstance(splat, ir.IntegerAttr) and ir.IntegerAttr(splat).value else None
        op = defining_op(mask)
        if op is None:
            return None
        if op.name == "arith.andi":
            a, b = (self.limits(v) for v in op.operands)
            if a is None or b is None:
                return None
            for d, limit in b.items():
                if d in a and a[d] != limit:
                    return None  # two bounds on one dimension: not one extent
                a[d] = limit
            return a
        if op.name == "tile.broadcast":
            inner = self.limits(op.operands[0])
            source = tile.shape_of(op.operands[0].type)
            if inner is None or any(source[d] == 1 for d in inner):
                return None  # a condition on the whole tile at once
            return inner
        if op.name == "tile.expand_dims":
            inner = self.limits(op.operands[0])
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            return None if inner is None else {d + (d >= axis): limit for d, limit in inner.items()}
        if op.name == "arith.cmpi":
            return self._comparison(op)
        return None

    def _comparison(self, op: ir.Operation) -> dict | None:
        predicate = ir.IntegerAttr(op.attributes["predicate"]).value
        lhs, rhs = (self.form(v) for v in op.operands)
        if lhs is None or rhs is None:
            return None
        # arith.CmpIPredicate: slt 2, sle 3, sgt 4, sge 5
        if predicate in (2, 3) and lhs.unit_dim() is not None and rhs.uniform():
            index, bound, inclusive = lhs, rhs, predicate == 3
        elif predicate in (4, 5) and rhs.unit_dim() is not None and lhs.uniform():
            index, bound, inclusive = rhs, lhs, predicate == 5
        else:
            return None
        limit = poly_add(bound.const, index.const, -1)  # index < bound - x0
        if inclusive:
            limit = poly_add(limit, constant(1))
        return {index.unit_dim(): limit}


def wrapped_value(op: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """(x, M) when the tile `op` computes is x wherever 0 <= x < M: `x % M` (arith.remsi by a splat
    of M) or `where(x < M, x, c)` (arith.select on that comparison, c anything); else None."""
    if not tile.shape_of(op.results[0].type):
        return None
    if op.name == "arith.remsi":
        x, bound = op.operands[0], defining_op(op.operands[1])
    elif op.name == "arith.select":
        test, x = defining_op(op.operands[0]), op.operands[1]
        if test is None or test.name != "arith.cmpi" or test.operands[0] != x:
            return None
        if ir.IntegerAttr(test.attributes["predicate"]).value != 2:  # slt
            return None
        bound = defining_op(test.operands[1])
    else:
        return None
    if bound is None or bound.name != "tile.splat":
        return None
    return x, bound.operands[0]


def enclosing_blocks(op: ir.Operation, fn: ir.Operation) -> frozenset:
    """The blocks around `op`, from the one holding it out to the function's body."""
    found = []
    block = op.block
    while True:
        found.append(block)
        owner = block.owner
        if owner is None or owner.operation == fn:
            return frozenset(found)
        block = owner.operation.block


def _combine(a: Form, b: Form, sign: int) -> Form | None:
    if len(a.coefs) != len(b.coefs):
        return None
    if set(a.ranges) & set(b.ranges):
        return None
    coefs = tuple(poly_add(x, y, sign) for x, y in zip(a.coefs, b.coefs))
    return Form(a.shape, poly_add(a.const, b.const, sign), coefs, a.base, {**a.ranges, **b.ranges})
