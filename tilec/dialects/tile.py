"""The tile dialect: defined once here, loaded through IRDL into every context tilec creates.

Values are builtin `tensor<...>` of scalars or of `!tile.ptr<T>`; scalars are plain MLIR scalars and
`arith`/`math` ops apply elementwise to tensors. Only what arith/math/scf cannot say is a tile op.

Each op is an `OpSpec`: its operands, results, attributes and regions become the IRDL definition,
its docstring and example become `docs/dialect.md`, and its `verify` function checks what IRDL cannot
express (shapes, element types). IRDL ops carry no traits, so there is no custom assembly: tile ops
print and parse in MLIR's generic form, `"tile.splat"(%x) : (f32) -> tensor<128xf32>`.
"""

from __future__ import annotations

import collections
import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import irdl

from tilec.dialects import contract

DIALECT = "tile"

# ----------------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------------

TYPES_IRDL = """
  irdl.type @ptr {
    %pointee = irdl.any
    irdl.parameters(pointee: %pointee)
  }
  irdl.type @ptr_as {
    %pointee = irdl.any
    %space = irdl.any
    irdl.parameters(pointee: %pointee, addrspace: %space)
  }
"""

TYPES_DOC = """\
### `!tile.ptr<T>` and `!tile.ptr_as<T, N : i32>`

A pointer to a value of type `T` in global memory (`!tile.ptr<T>`), or in address space `N`
(`!tile.ptr_as<f32, 3 : i32>` is a pointer into shared memory). A tensor of pointers,
`tensor<128x!tile.ptr<f32>>`, holds one address per element: this is how tile code addresses memory.
"""


def ptr_type(pointee: ir.Type, address_space: int | None = None) -> ir.Type:
    """`!tile.ptr<pointee>`, or `!tile.ptr_as<pointee, N : i32>` for address space N."""
    if address_space is None:
        return ir.Type.parse(f"!tile.ptr<{pointee}>")
    return ir.Type.parse(f"!tile.ptr_as<{pointee}, {address_space} : i32>")


def is_ptr(t: ir.Type) -> bool:
    s = str(t)
    return s.startswith("!tile.ptr<") or s.startswith("!tile.ptr_as<")


@functools.cache
def _split_ptr(text: str) -> tuple[str, int | None]:
    inner = text[text.index("<") + 1 : -1]
    if text.startswith("!tile.ptr_as<"):
        pointee, space = inner.rsplit(",", 1)
        return pointee.strip(), int(space.split(":")[0])
    return inner, None


def pointee_type(t: ir.Type) -> ir.Type:
    """The `T` of `!tile.ptr<T>`."""
    return ir.Type.parse(_split_ptr(str(t))[0], t.context)


def address_space(t: ir.Type) -> int | None:
    return _split_ptr(str(t))[1]


def is_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType)


def as_tensor(t: ir.Type) -> ir.RankedTensorType | None:
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType(t)
    return None


def shape_of(t: ir.Type) -> list[int]:
    """Shape of a tensor type, `[]` for a scalar."""
    tt = as_tensor(t)
    return list(tt.shape) if tt is not None else []


def element_of(t: ir.Type) -> ir.Type:
    """Element type of a tensor type; a scalar type is its own element."""
    tt = as_tensor(t)
    return tt.element_type if tt is not None else t


def with_shape(element: ir.Type, shape: Sequence[int], encoding: ir.Attribute | None = None):
    """`tensor<shape x element>`, or the scalar `element` when shape is empty."""
    if not shape:
        return element
    return ir.RankedTensorType.get(list(shape), element, encoding)


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op whose result `value` is; None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def splat_constant(value: ir.Value) -> ir.Attribute | None:
    """The scalar attribute every element of `value` holds when it is a constant, a splat constant or
    a tile.splat of a constant; else None."""
    op = defining_op(value)
    if op is None:
        return None
    if op.name == "tile.splat":
        return splat_constant(op.operands[0])
    if op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.DenseElementsAttr):
        dense = ir.DenseElementsAttr(attr)
        return dense.get_splat_value() if dense.is_splat else None
    return attr


def is_int(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, ir.FloatType)


_FP8 = ("f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ")
_FLOATS = {"f16", "bf16", "f32", "f64", *_FP8, "tf32"}


# ----------------------------------------------------------------------------------------------
# Op specifications
# ----------------------------------------------------------------------------------------------


class VerifyError(Exception):
    """A tile op broke a rule IRDL cannot express. Carries the op for its location."""

    def __init__(self, op: ir.Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


@dataclass(frozen=True)
class Operand:
    name: str
    kind: str = "single"  # single | optional | variadic
    constraint: str = "irdl.any"


@dataclass(frozen=True)
class OpSpec:
    name: str
    doc: str
    example: str
    operands: tuple[Operand, ...] = ()
    results: tuple[Operand, ...] = ()
    attributes: tuple[str, ...] = ()  # required attributes (IRDL checks presence)
    optional_attributes: tuple[str, ...] = ()
    regions: tuple[str, ...] = ()
    pure: bool = True  # no side effects: tile passes may CSE and erase it
    verify: Callable[[ir.Operation], None] | None = field(default=None, compare=False)

    @property
    def full_name(self) -> str:
        return f"{DIALECT}.{self.name}"

    def irdl(self) -> str:
        lines = [f"  irdl.operation @{self.name} {{"]
        counter = iter(range(1000))

        def section(keyword: str, values: Sequence[Operand]) -> None:
            if not values:
                return
            names = []
            for v in values:
                var = f"%c{next(counter)}"
                lines.append(f"    {var} = {v.constraint}")
                kind = "" if v.kind == "single" else f"{v.kind} "
                names.append(f"{v.name}: {kind}{var}")
            lines.append(f"    irdl.{keyword}({', '.join(names)})")

        section("operands", self.operands)
        section("results", self.results)
        if self.attributes:
            entries = []
            for a in self.attributes:
                var = f"%c{next(counter)}"
                lines.append(f"    {var} = irdl.any")
                entries.append(f'"{a}" = {var}')
            lines.append(f"    irdl.attributes {{{', '.join(entries)}}}")
        if self.regions:
            names = []
            for r in self.regions:
                var = f"%c{next(counter)}"
                lines.append(f"    {var} = irdl.region")
                names.append(f"{r}: {var}")
            lines.append(f"    irdl.regions({', '.join(names)})")
        lines.append("  }")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Verification helpers
# ----------------------------------------------------------------------------------------------


def _fail(op: ir.Operation, message: str):
    raise VerifyError(op, message)


def _int_attr(op: ir.Operation, name: str, default: int | None = None) -> int:
    if name not in op.attributes:
        if default is not None:
            return default
        _fail(op, f"requires attribute '{name}'")
    attr = op.attributes[name]
    if not isinstance(attr, ir.IntegerAttr):
        _fail(op, f"attribute '{name}' must be an integer, got {attr}")
    return ir.IntegerAttr(attr).value


def _str_attr(op: ir.Operation, name: str, default: str | None = None) -> str | None:
    if name not in op.attributes:
        return default
    attr = op.attributes[name]
    if not isinstance(attr, ir.StringAttr):
        _fail(op, f"attribute '{name}' must be a string, got {attr}")
    return ir.StringAttr(attr).value


def _i32_array_attr(op: ir.Operation, name: str) -> list[int]:
    if name not in op.attributes:
        _fail(op, f"requires attribute '{name}'")
    attr = op.attributes[name]
    if isinstance(attr, ir.DenseI32ArrayAttr):
        return list(ir.DenseI32ArrayAttr(attr))
    _fail(op, f"attribute '{name}' must be array<i32: ...>, got {attr}")


def _segments(op: ir.Operation, spec: OpSpec) -> dict[str, list[ir.Value]]:
    """Operands grouped by their spec names (honours operandSegmentSizes)."""
    operands = list(op.operands)
    kinds = [o.kind for o in spec.operands]
    if sum(k != "single" for k in kinds) <= 1:
        n_multi = len(operands) - sum(k == "single" for k in kinds)
        sizes = [1 if k == "single" else n_multi for k in kinds]
    else:
        sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    out, pos = {}, 0
    for o, n in zip(spec.operands, sizes):
        out[o.name] = operands[pos : pos + n]
        pos += n
    return out


def _one(seg: dict[str, list[ir.Value]], name: str) -> ir.Value | None:
    values = seg.get(name) or []
    return values[0] if values else None


def _check_axis(op: ir.Operation, axis: int, rank: int) -> None:
    if not 0 <= axis < rank:
        _fail(op, f"axis {axis} is out of range for a tensor of rank {rank}")


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def _type_of(v: ir.Value) -> ir.Type:
    return v.type


def _expect_shape(op, what: str, t: ir.Type, shape: list[int]) -> None:
    if shape_of(t) != shape:
        _fail(op, f"{what} must have shape {shape}, got {t}")


def _check_ptr_like(op, what: str, t: ir.Type) -> ir.Type:
    """Returns the pointee type of a pointer or tensor of pointers."""
    if not is_ptr(element_of(t)):
        _fail(op, f"{what} must be a !tile.ptr or a tensor of them, got {t}")
    return pointee_type(element_of(t))


def _check_mask(op, mask: ir.Value | None, shape: list[int]) -> None:
    if mask is None:
        return
    t = mask.type
    if str(element_of(t)) != "i1" or shape_of(t) != shape:
        _fail(op, f"mask must be i1 with shape {shape}, got {t}")


# ----------------------------------------------------------------------------------------------
# Per-op verifiers
# ----------------------------------------------------------------------------------------------


def _v_program_id(op):
    axis = _int_attr(op, "axis")
    if axis not in (0, 1, 2):
        _fail(op, f"axis must be 0, 1 or 2, got {axis}")


def _v_make_range(op):
    start, end = _int_attr(op, "start"), _int_attr(op, "end")
    if end <= start:
        _fail(op, f"end ({end}) must be greater than start ({start})")
    if not _pow2(end - start):
        _fail(op, f"range length {end - start} must be a power of two")
    t = op.results[0].type
    if str(t) != f"tensor<{end - start}xi32>":
        _fail(op, f"result must be tensor<{end - start}xi32>, got {t}")


def _v_splat(op):
    src, res = op.operands[0].type, op.results[0].type
    if as_tensor(src) is not None:
        _fail(op, f"operand must be a scalar, got {src}")
    if as_tensor(res) is None or element_of(res) != src:
        _fail(op, f"result must be a tensor of {src}, got {res}")


def _v_broadcast(op):
    src, res = op.operands[0].type, op.results[0].type
    if as_tensor(src) is None or as_tensor(res) is None:
        _fail(op, f"operand and result must be tensors, got {src} and {res}")
    if element_of(src) != element_of(res):
        _fail(op, f"element types differ: {src} vs {res}")
    s, r = shape_of(src), shape_of(res)
    if len(s) != len(r) or any(a != b and a != 1 for a, b in zip(s, r)):
        _fail(op, f"cannot broadcast shape {s} to {r}: ranks must match and only size-1 dims grow")


def _v_expand_dims(op):
    src, res = op.operands[0].type, op.results[0].type
    s = shape_of(src)
    axis = _int_attr(op, "axis")
    if not 0 <= axis <= len(s):
        _fail(op, f"axis {axis} is out of range for a tensor of rank {len(s)}")
    expected = s[:axis] + [1] + s[axis:]
    if shape_of(res) != expected or element_of(res) != element_of(src):
        _fail(op, f"result must be {with_shape(element_of(src), expected)}, got {res}")


def _v_reshape(op):
    src, res = op.operands[0].type, op.results[0].type
    if as_tensor(res) is None:
        _fail(op, f"result must be a tensor, got {res}")
    if element_of(src) != element_of(res):
        _fail(op, f"element types differ: {src} vs {res}")
    n_src = 1
    for d in shape_of(src):
        n_src *= d
    n_res = 1
    for d in shape_of(res):
        n_res *= d
    if n_src != n_res:
        _fail(op, f"reshape must keep the number of elements: {n_src} vs {n_res}")


def _v_trans(op):
    src, res = op.operands[0].type, op.results[0].type
    s = shape_of(src)
    order = _i32_array_attr(op, "order")
    if sorted(order) != list(range(len(s))):
        _fail(op, f"order {order} is not a permutation of the {len(s)} dimensions")
    expected = [s[i] for i in order]
    if shape_of(res) != expected or element_of(res) != element_of(src):
        _fail(op, f"result must be {with_shape(element_of(src), expected)}, got {res}")


def _v_gather(op):
    src, index, res = op.operands[0].type, op.operands[1].type, op.results[0].type
    s, i = shape_of(src), shape_of(index)
    if not s or len(i) != len(s):
        _fail(op, f"src and index must be tensors of one rank, got {src} and {index}")
    axis = _int_attr(op, "axis")
    _check_axis(op, axis, len(s))
    if any(a != b for d, (a, b) in enumerate(zip(s, i)) if d != axis):
        _fail(op, f"index shape {i} must equal src shape {s} except along axis {axis}")
    if not (is_int(element_of(src)) and element_of(src).width >= 8 or is_float(element_of(src))):
        _fail(op, f"src must be a tensor of integers (8 to 64 bits) or floats, got {src}")
    if not is_int(element_of(index)) or element_of(index).width not in (32, 64):
        _fail(op, f"index must be a tensor of i32 or i64, got {index}")
    if res != with_shape(element_of(src), i):
        _fail(op, f"result must be {with_shape(element_of(src), i)}, got {res}")


def _v_histogram(op):
    seg = _segments(op, SPECS["histogram"])
    src, res = _one(seg, "src").type, op.results[0].type
    if len(shape_of(src)) != 1 or not is_int(element_of(src)) or element_of(src).width < 8:
        _fail(op, f"src must be a 1-D tensor of integers (8 to 64 bits), got {src}")
    bins = _int_attr(op, "num_bins")
    if not _pow2(bins):
        _fail(op, f"num_bins must be a power of two, got {bins}")
    if res != with_shape(ir.IntegerType.get_signless(32), [bins]):
        _fail(op, f"result must be tensor<{bins}xi32>, got {res}")
    _check_mask(op, _one(seg, "mask"), shape_of(src))


def _v_sort(op):
    src, res = op.operands[0].type, op.results[0].type
    shape = shape_of(src)
    if not shape:
        _fail(op, f"src must be a tensor, got {src}")
    axis = _int_attr(op, "axis")
    _check_axis(op, axis, len(shape))
    if not _pow2(shape[axis]):
        _fail(op, f"the sorted dimension must be a power of two, got {shape[axis]}")
    elem = element_of(src)
    if not ((is_int(elem) and elem.width in (8, 16, 32, 64)) or str(elem) in ("f16", "bf16", "f32", "f64")):
        _fail(op, f"src must be a tensor of i8/i16/i32/i64 or f16/bf16/f32/f64, got {src}")
    if "unsigned" in op.attributes and not is_int(elem):
        _fail(op, f"'unsigned' applies to integers, not {elem}")
    if res != src:
        _fail(op, f"result must be {src}, got {res}")


def _v_addptr(op):
    ptr, off, res = (v.type for v in (op.operands[0], op.operands[1], op.results[0]))
    _check_ptr_like(op, "ptr", ptr)
    if not is_int(element_of(off)):
        _fail(op, f"offset must be an integer or a tensor of integers, got {off}")
    if shape_of(off) != shape_of(ptr):
        _fail(op, f"offset shape {shape_of(off)} must match pointer shape {shape_of(ptr)}")
    if res != ptr:
        _fail(op, f"result type {res} must equal the pointer type {ptr}")


_CACHE = {"", "ca", "cg", "cs", "cv", "wb", "wt"}
_EVICT = {"", "normal", "evict_first", "evict_last"}


def _check_hints(op):
    cache = _str_attr(op, "cache", "")
    if cache not in _CACHE:
        _fail(op, f"cache modifier '{cache}' is not one of {sorted(_CACHE - {''})}")
    evict = _str_attr(op, "eviction", "")
    if evict not in _EVICT:
        _fail(op, f"eviction policy '{evict}' is not one of {sorted(_EVICT - {''})}")


def _v_load(op):
    seg = _segments(op, SPECS["load"])
    ptr = _one(seg, "ptr").type
    res = op.results[0].type
    pointee = _check_ptr_like(op, "ptr", ptr)
    expected = with_shape(pointee, shape_of(ptr))
    if res != expected:
        _fail(op, f"result must be {expected} (the pointee with the pointer's shape), got {res}")
    _check_mask(op, _one(seg, "mask"), shape_of(ptr))
    other = _one(seg, "other")
    if other is not None:
        if _one(seg, "mask") is None:
            _fail(op, "'other' requires a mask")
        if other.type != res:
            _fail(op, f"'other' must have the result type {res}, got {other.type}")
    coords = seg.get("coords") or []
    if coords or "descriptor" in op.attributes:
        if "descriptor" not in op.attributes or len(coords) != len(shape_of(ptr)):
            _fail(op, f"a descriptor block needs the `descriptor` attribute and {len(shape_of(ptr))} coords")
        _check_kernel_array(op, ir.StringAttr(op.attributes["descriptor"]).value)
    _check_hints(op)


def _check_kernel_array(op, text: str) -> None:
    """An array made of the kernel's arguments (kernel_arrays' text) must parse and name arguments
    of the function around the load."""
    from . import kernel_arrays

    if not kernel_arrays.is_array(text):
        return
    try:
        parts = kernel_arrays.parse_array(text)
    except ValueError as e:
        _fail(op, f"descriptor: {e}")
    fn = op.parent
    while fn is not None and fn.name != "func.func":
        fn = fn.parent
    names = set()
    if fn is not None and "arg_attrs" in fn.attributes:
        for d in ir.ArrayAttr(fn.attributes["arg_attrs"]):
            d = ir.DictAttr(d)
            if contract.ARG_NAME in d:
                names.add(ir.StringAttr(d[contract.ARG_NAME]).value)

    def check(part):
        if isinstance(part, dict):
            for a in part["args"]:
                check(a)
        elif isinstance(part, str) and part not in names:
            _fail(op, f"descriptor {text!r}: no argument of the function is named {part!r} (tile.name)")

    for part in parts.values():
        check(part)


def _v_store(op):
    seg = _segments(op, SPECS["store"])
    ptr, value = _one(seg, "ptr").type, _one(seg, "value").type
    pointee = _check_ptr_like(op, "ptr", ptr)
    expected = with_shape(pointee, shape_of(ptr))
    if value != expected:
        _fail(op, f"value must be {expected} to store through {ptr}, got {value}")
    _check_mask(op, _one(seg, "mask"), shape_of(ptr))
    _check_hints(op)


def _combiner_block(op, n: int) -> ir.Block:
    region = op.regions[0]
    blocks = list(region.blocks)
    if len(blocks) != 1:
        _fail(op, "combiner region must have exactly one block")
    block = blocks[0]
    ops = list(block.operations)
    if not ops or ops[-1].name != "gpu.yield":
        _fail(op, "combiner region must end in gpu.yield")
    if len(ops[-1].operands) != n:
        _fail(op, f"combiner must yield {n} value(s), got {len(ops[-1].operands)}")
    return block


def _check_combiner(op, elements: list[ir.Type]) -> None:
    block = _combiner_block(op, len(elements))
    args = [a.type for a in block.arguments]
    if args != elements + elements:
        _fail(
            op,
            "combiner arguments must be ("
            + ", ".join(str(t) for t in elements + elements)
            + f"), got ({', '.join(str(t) for t in args)})",
        )
    yielded = [v.type for v in list(block.operations)[-1].operands]
    if yielded != elements:
        _fail(op, f"combiner must yield ({', '.join(map(str, elements))})")
    outside = _captured_value(op.regions[0])
    if outside is not None:
        _fail(
            op,
            f"the combiner uses {outside.get_name()}, a value defined outside its region: a combiner "
            "computes on its arguments alone (constants it needs are made inside it)",
        )


def _captured_value(region: ir.Region) -> ir.Value | None:
    """The first operand of an op in `region` (nested regions included) not defined inside it."""
    defined, uses = set(), []

    def walk(r: ir.Region) -> None:
        for block in r.blocks:
            defined.update(block.arguments)
            for op in block.operations:
                defined.update(op.results)
                uses.extend(op.operands)
                for inner in op.regions:
                    walk(inner)

    walk(region)
    return next((v for v in uses if v not in defined), None)


def _v_reduce(op):
    srcs = list(op.operands)
    if not srcs:
        _fail(op, "needs at least one operand")
    shape = shape_of(srcs[0].type)
    if not shape:
        _fail(op, f"operand must be a tensor, got {srcs[0].type}")
    if any(shape_of(s.type) != shape for s in srcs):
        _fail(op, "all operands must have the same shape")
    axis = _int_attr(op, "axis")
    _check_axis(op, axis, len(shape))
    out_shape = shape[:axis] + shape[axis + 1 :]
    elements = [element_of(s.type) for s in srcs]
    if len(op.results) != len(srcs):
        _fail(op, f"must have {len(srcs)} result(s), got {len(op.results)}")
    for r, e in zip(op.results, elements):
        if r.type != with_shape(e, out_shape):
            _fail(op, f"result must be {with_shape(e, out_shape)}, got {r.type}")
    _check_combiner(op, elements)


def _v_scan(op):
    srcs = list(op.operands)
    if not srcs:
        _fail(op, "needs at least one operand")
    shape = shape_of(srcs[0].type)
    if not shape:
        _fail(op, f"operand must be a tensor, got {srcs[0].type}")
    axis = _int_attr(op, "axis")
    _check_axis(op, axis, len(shape))
    if [r.type for r in op.results] != [s.type for s in srcs]:
        _fail(op, "results must have the operand types")
    _check_combiner(op, [element_of(s.type) for s in srcs])


_PRECISIONS = {"ieee", "tf32", "tf32x3"}


def _v_dot(op):
    a, b, acc = (v.type for v in op.operands)
    res = op.results[0].type
    sa, sb, sc = shape_of(a), shape_of(b), shape_of(acc)
    if len(sa) != 2 or len(sb) != 2:
        _fail(op, f"operands must be 2-D tensors, got {a} and {b}")
    if sa[1] != sb[0]:
        _fail(op, f"inner dimensions differ: {sa} x {sb}")
    if sc != [sa[0], sb[1]] or res != acc:
        _fail(op, f"accumulator and result must be {[sa[0], sb[1]]} of one type, got {acc} -> {res}")
    if element_of(a) != element_of(b) and not (str(element_of(a)) in _FP8 and str(element_of(b)) in _FP8):
        _fail(op, f"operand element types differ: {element_of(a)} vs {element_of(b)}")
    prec = _str_attr(op, "input_precision", "ieee")
    if prec not in _PRECISIONS:
        _fail(op, f"input_precision '{prec}' is not one of {sorted(_PRECISIONS)}")
    if "max_num_imprecise_acc" in op.attributes and _int_attr(op, "max_num_imprecise_acc") < 0:
        _fail(op, "max_num_imprecise_acc must be >= 0")


_RMW_KINDS = {"add", "fadd", "max", "min", "umax", "umin", "and", "or", "xor", "xchg"}
_SEMANTICS = {"relaxed", "acquire", "release", "acq_rel"}
_SCOPES = {"gpu", "cta", "sys"}


def _check_atomic_attrs(op):
    sem = _str_attr(op, "sem", "acq_rel")
    if sem not in _SEMANTICS:
        _fail(op, f"memory semantics '{sem}' is not one of {sorted(_SEMANTICS)}")
    scope = _str_attr(op, "scope", "gpu")
    if scope not in _SCOPES:
        _fail(op, f"scope '{scope}' is not one of {sorted(_SCOPES)}")


def _v_atomic_rmw(op):
    seg = _segments(op, SPECS["atomic_rmw"])
    ptr, val = _one(seg, "ptr").type, _one(seg, "value").type
    pointee = _check_ptr_like(op, "ptr", ptr)
    kind = _str_attr(op, "kind")
    if kind not in _RMW_KINDS:
        _fail(op, f"atomic kind '{kind}' is not one of {sorted(_RMW_KINDS)}")
    expected = with_shape(pointee, shape_of(ptr))
    if val != expected or op.results[0].type != expected:
        _fail(op, f"value and result must be {expected}, got {val} -> {op.results[0].type}")
    if kind == "fadd" and not is_float(pointee):
        _fail(op, f"'fadd' needs a float pointee, got {pointee}")
    if kind in ("and", "or", "xor", "umax", "umin", "add") and not is_int(pointee):
        _fail(op, f"'{kind}' needs an integer pointee, got {pointee}")
    _check_mask(op, _one(seg, "mask"), shape_of(ptr))
    _check_atomic_attrs(op)


def _v_atomic_cas(op):
    ptr, cmp, val = (v.type for v in op.operands)
    pointee = _check_ptr_like(op, "ptr", ptr)
    expected = with_shape(pointee, shape_of(ptr))
    if cmp != expected or val != expected or op.results[0].type != expected:
        _fail(op, f"cmp, value and result must be {expected}")
    _check_atomic_attrs(op)


def _v_ptr_cast(op):
    src, res = op.operands[0].type, op.results[0].type
    if shape_of(src) != shape_of(res):
        _fail(op, f"the shape may not change: {src} vs {res}")
    a, b = element_of(src), element_of(res)
    if not (is_ptr(a) or is_ptr(b)):
        _fail(op, f"casts a pointer: operand or result must be a !tile.ptr, got {src} and {res}")
    for t in (a, b):
        if not is_ptr(t) and str(t) != "i64":
            _fail(op, f"the integer side of a pointer cast must be i64, got {t}")


def _v_convert_layout(op):
    src, res = op.operands[0].type, op.results[0].type
    if shape_of(src) != shape_of(res) or element_of(src) != element_of(res) or not shape_of(src):
        _fail(op, f"only the layout may change: {src} vs {res}")


def _v_print(op):
    _str_attr(op, "prefix")
    if "hex" in op.attributes and not isinstance(op.attributes["hex"], ir.BoolAttr):
        _fail(op, "attribute 'hex' must be a bool")


def asm_registers(element: ir.Type, pack: int) -> tuple[int, int]:
    """How `pack` elements of `element` go to an inline asm statement: (elements per register, registers).
    Elements narrower than 32 bits share 32-bit registers (4 x i8, 2 x f16), as in Triton."""
    bits = (
        64 if is_ptr(element) else ir.IntegerType(element).width if is_int(element) else _float_bits(element)
    )
    per_register = min(max(32 // bits, 1), pack)
    return per_register, pack // per_register


def _float_bits(t: ir.Type) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(t), 0)


def _asm_element_ok(t: ir.Type) -> bool:
    if is_ptr(t):
        return True
    if is_int(t):
        return ir.IntegerType(t).width in (8, 16, 32, 64)
    return _float_bits(t) > 0


def asm_constraints(text: str) -> list[str]:
    """The operand constraints of an asm constraint string (clobbers such as ~{memory} left out)."""
    return [c.strip() for c in text.split(",") if c.strip() and not c.strip().startswith("~")]


def _v_inline_asm(op):
    _str_attr(op, "asm")
    constraints = _str_attr(op, "constraints")
    if constraints is None:
        _fail(op, "requires attribute 'constraints'")
    pack = _int_attr(op, "pack")
    if not _pow2(pack):
        _fail(op, f"pack must be a power of two, got {pack}")
    args, results = list(op.operands), list(op.results)
    if not results:
        _fail(op, "needs at least one result")
    shape = shape_of(results[0].type)
    for what, v in [("result", r) for r in results] + [("argument", a) for a in args]:
        if shape_of(v.type) != shape:
            _fail(op, f"every argument and result must have shape {shape}, got {what} {v.type}")
        if not _asm_element_ok(element_of(v.type)):
            _fail(op, f"{what} element type {element_of(v.type)} cannot go to an asm statement")
    if not shape and pack != 1:
        _fail(op, f"pack must be 1 for scalars, got {pack}")
    outs = sum(asm_registers(element_of(r.type), pack)[1] for r in results)
    ins = sum(asm_registers(element_of(a.type), pack)[1] for a in args)
    listed = asm_constraints(constraints)
    if len(listed) != outs + ins:
        _fail(
            op,
            f"constraints list {len(listed)} operands, the statement has {outs} output and {ins} "
            f"input registers (pack={pack}; elements narrower than 32 bits share registers)",
        )
    if any(c.startswith("=") for c in listed[outs:]) or not all(c.startswith("=") for c in listed[:outs]):
        _fail(op, f"constraints must list the {outs} outputs (=...) first, then the {ins} inputs")


def _v_map(op):
    args, results = list(op.operands), list(op.results)
    if not args or not results:
        _fail(op, "needs at least one argument and one result")
    shape = shape_of(args[0].type)
    for what, v in [("argument", a) for a in args] + [("result", r) for r in results]:
        if shape_of(v.type) != shape:
            _fail(op, f"every argument and result must have shape {shape}, got {what} {v.type}")
    block = op.regions[0].blocks[0] if len(op.regions[0].blocks) else None
    elements = [element_of(a.type) for a in args]
    if block is None or [a.type for a in block.arguments] != elements:
        _fail(op, f"body must take one scalar per argument: ({', '.join(map(str, elements))})")
    terminator = list(block.operations)[-1].operation if len(list(block.operations)) else None
    wanted = [element_of(r.type) for r in results]
    if (
        terminator is None
        or terminator.name != "gpu.yield"
        or [v.type for v in terminator.operands] != wanted
    ):
        _fail(op, f"body must end in gpu.yield of ({', '.join(map(str, wanted))})")


def _v_assert(op):
    cond = op.operands[0].type
    if not is_int(element_of(cond)):
        _fail(op, f"condition must be an integer (or i1) scalar or tensor, got {cond}")
    _str_attr(op, "message")


# ----------------------------------------------------------------------------------------------
# The ops
# ----------------------------------------------------------------------------------------------

_I32 = "irdl.is i32"

# IRDL unifies a constraint variable across every value it constrains, so a variadic operand would
# force all its values to one type. Ops that take several differently typed tensors (an argmax
# reduces values and indices together) use MAX_SLOTS optional operands instead.
MAX_SLOTS = 4


def _slots(name: str, count: int = MAX_SLOTS, first: str = "single") -> tuple[Operand, ...]:
    return (Operand(f"{name}0", first),) + tuple(Operand(f"{name}{i}", "optional") for i in range(1, count))


ELEMENTWISE_ARG_SLOTS = 8  # tile.map and tile.inline_asm: at most 8 arguments (and MAX_SLOTS results)


def _ops() -> list[OpSpec]:
    one = Operand
    return [
        OpSpec(
            "program_id",
            "The index of this program instance along grid axis `axis` (0, 1 or 2).",
            '%pid = "tile.program_id"() {axis = 0 : i32} : () -> i32',
            results=(one("result", constraint=_I32),),
            attributes=("axis",),
            verify=_v_program_id,
        ),
        OpSpec(
            "num_programs",
            "The number of program instances along grid axis `axis`.",
            '%n = "tile.num_programs"() {axis = 1 : i32} : () -> i32',
            results=(one("result", constraint=_I32),),
            attributes=("axis",),
            verify=_v_program_id,
        ),
        OpSpec(
            "make_range",
            "The i32 tensor `[start, start+1, ..., end-1]`; its length must be a power of two.",
            '%r = "tile.make_range"() {start = 0 : i32, end = 128 : i32} : () -> tensor<128xi32>',
            results=(one("result"),),
            attributes=("start", "end"),
            verify=_v_make_range,
        ),
        OpSpec(
            "splat",
            "A tensor whose every element is the scalar operand.",
            '%t = "tile.splat"(%x) : (f32) -> tensor<128xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=_v_splat,
        ),
        OpSpec(
            "broadcast",
            "Repeats size-1 dimensions of the operand to the result shape (same rank).",
            '%t = "tile.broadcast"(%x) : (tensor<1x64xf32>) -> tensor<32x64xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=_v_broadcast,
        ),
        OpSpec(
            "expand_dims",
            "Inserts a dimension of size 1 at `axis`.",
            '%t = "tile.expand_dims"(%x) {axis = 1 : i32} : (tensor<64xi32>) -> tensor<64x1xi32>',
            operands=(one("src"),),
            results=(one("result"),),
            attributes=("axis",),
            verify=_v_expand_dims,
        ),
        OpSpec(
            "reshape",
            "The same elements, in row-major order, with another shape.",
            '%t = "tile.reshape"(%x) : (tensor<4x8xf32>) -> tensor<32xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=_v_reshape,
        ),
        OpSpec(
            "trans",
            "Permutes the dimensions: result dim i is operand dim `order[i]`.",
            '%t = "tile.trans"(%x) {order = array<i32: 1, 0>} : (tensor<16x32xf16>) -> tensor<32x16xf16>',
            operands=(one("src"),),
            results=(one("result"),),
            attributes=("order",),
            verify=_v_trans,
        ),
        OpSpec(
            "gather",
            "Elements of `src` picked along `axis` by `index` (a tensor of src's rank, with src's shape "
            "except along `axis`): `result[..., j, ...] = src[..., index[..., j, ...], ...]`; an index "
            "outside `[0, src.shape[axis])` gives 0.",
            '%g = "tile.gather"(%x, %i) {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>',
            operands=(one("src"), one("index")),
            results=(one("result"),),
            attributes=("axis",),
            verify=_v_gather,
        ),
        OpSpec(
            "histogram",
            "i32 counts of the values `0 .. num_bins - 1` in the 1-D integer tensor `src` (signed; "
            "values outside that range, and elements where `mask` is false, are not counted).",
            '%h = "tile.histogram"(%x) {num_bins = 16 : i32, operandSegmentSizes = array<i32: 1, 0>} : '
            "(tensor<128xi32>) -> tensor<16xi32>",
            operands=(one("src"), one("mask", "optional")),
            results=(one("result"),),
            attributes=("num_bins",),
            verify=_v_histogram,
        ),
        OpSpec(
            "sort",
            "`src` sorted along `axis` (a power of two) by a bitonic sorting network, ascending unless "
            "`descending` (unit); integers compare signed unless `unsigned` (unit); NaNs order after "
            "every number (last ascending, first descending); equal elements never swap, so the network "
            "fixes where -0.0 and 0.0, or NaNs with different payloads, land on every target. With "
            "`merge` (unit) only the network's last stage runs (tl.bitonic_merge): it sorts a bitonic "
            "`src` and permutes any other.",
            '%s = "tile.sort"(%x) {axis = 1 : i32, descending} : (tensor<4x8xf32>) -> tensor<4x8xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            attributes=("axis",),
            optional_attributes=("descending", "unsigned", "merge"),
            verify=_v_sort,
        ),
        OpSpec(
            "addptr",
            "Pointer arithmetic in elements: `ptr + offset * sizeof(T)`, elementwise for tensors.",
            '%q = "tile.addptr"(%p, %off) : (tensor<128x!tile.ptr<f32>>, tensor<128xi32>)'
            " -> tensor<128x!tile.ptr<f32>>",
            operands=(one("ptr"), one("offset")),
            results=(one("result"),),
            verify=_v_addptr,
        ),
        OpSpec(
            "load",
            "Reads memory at every pointer. Where `mask` is false nothing is read and the element is "
            "`other` (undefined without `other`). Optional hints: `cache` (ca, cg, cs, cv), "
            "`eviction` (evict_first, evict_last), `volatile` (unit). A block read through a tensor "
            "descriptor argument also names it (`descriptor`, the argument's name; for a 2-D array "
            "made of the kernel's arguments, its parts: `array base=a_ptr rows=M cols=K "
            "row_stride=stride_am`, see dialects/kernel_arrays.py) and gives the block's coordinates in it "
            "(`coords`, one i32 per dimension): a target with tensor copy hardware may copy the "
            "block with them instead (pointers and mask say the same).",
            '%x = "tile.load"(%p, %m, %zero) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : '
            "(tensor<128x!tile.ptr<f32>>, tensor<128xi1>, tensor<128xf32>) -> tensor<128xf32>",
            operands=(
                one("ptr"),
                one("mask", "optional"),
                one("other", "optional"),
                one("coords", "variadic", _I32),
            ),
            results=(one("result"),),
            optional_attributes=("cache", "eviction", "volatile", "descriptor"),
            verify=_v_load,
        ),
        OpSpec(
            "store",
            "Writes `value` at every pointer where `mask` is true. Hints as for `tile.load`.",
            '"tile.store"(%p, %x, %m) {operandSegmentSizes = array<i32: 1, 1, 1>} : '
            "(tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>) -> ()",
            operands=(one("ptr"), one("value"), one("mask", "optional")),
            optional_attributes=("cache", "eviction"),
            pure=False,
        ),
        OpSpec(
            "reduce",
            "Reduces N tensors along `axis` with the combiner region, which takes 2N scalars "
            "(N accumulated, N new) and ends in `gpu.yield` of N scalars. The combiner must be "
            "associative and commutative, and compute on its arguments alone (it may not use a value "
            "defined outside its region); the reduction order is unspecified.",
            '%s = "tile.reduce"(%x) ({\n^bb0(%a: f32, %b: f32):\n  %c = arith.addf %a, %b : f32\n'
            "  gpu.yield %c : f32\n}) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>,"
            " resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xf32>) -> f32",
            operands=_slots("src"),
            results=_slots("result"),
            attributes=("axis",),
            regions=("combiner",),
            verify=_v_reduce,
        ),
        OpSpec(
            "scan",
            "Inclusive prefix scan of N tensors along `axis` with an associative combiner region "
            "(as for `tile.reduce`); `reverse` (unit) scans from the end.",
            '%s = "tile.scan"(%x) ({\n^bb0(%a: i32, %b: i32):\n  %c = arith.addi %a, %b : i32\n'
            "  gpu.yield %c : i32\n}) {axis = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>,"
            " resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32>) -> tensor<128xi32>",
            operands=_slots("src"),
            results=_slots("result"),
            attributes=("axis",),
            optional_attributes=("reverse",),
            regions=("combiner",),
            verify=_v_scan,
        ),
        OpSpec(
            "dot",
            "Matrix product `a @ b + acc` of 2-D tensors (any sizes: tensor cores take the shapes that fit them, FMAs the rest). "
            "`input_precision` is ieee, tf32 or tf32x3 for f32 inputs; `max_num_imprecise_acc` (fp8 "
            "inputs) is how many K values a tensor core may sum in its own reduced precision before "
            "the sum is added to the fp32 accumulator.",
            '%d = "tile.dot"(%a, %b, %c) {input_precision = "ieee"} : '
            "(tensor<32x16xf16>, tensor<16x64xf16>, tensor<32x64xf32>) -> tensor<32x64xf32>",
            operands=(one("a"), one("b"), one("acc")),
            results=(one("result"),),
            optional_attributes=("input_precision", "max_num_imprecise_acc"),
            verify=_v_dot,
        ),
        OpSpec(
            "atomic_rmw",
            "Atomically applies `kind` (add, fadd, max, min, umax, umin, and, or, xor, xchg) at every "
            "pointer where `mask` is true and returns the old values. `sem` (relaxed, acquire, "
            "release, acq_rel) and `scope` (gpu, cta, sys) as in Triton.",
            '%old = "tile.atomic_rmw"(%p, %v) {kind = "fadd", operandSegmentSizes = array<i32: 1, 1, 0>}'
            " : (tensor<64x!tile.ptr<f32>>, tensor<64xf32>) -> tensor<64xf32>",
            operands=(one("ptr"), one("value"), one("mask", "optional")),
            results=(one("result"),),
            attributes=("kind",),
            optional_attributes=("sem", "scope"),
            pure=False,
        ),
        OpSpec(
            "atomic_cas",
            "Atomically stores `value` where memory equals `cmp`; returns the old values.",
            '%old = "tile.atomic_cas"(%p, %c, %v) : (!tile.ptr<i32>, i32, i32) -> i32',
            operands=(one("ptr"), one("cmp"), one("value")),
            results=(one("result"),),
            optional_attributes=("sem", "scope"),
            pure=False,
        ),
        OpSpec(
            "ptr_cast",
            "Reinterprets pointers: as pointers to another type (the same address), or as i64 "
            "addresses and back.",
            '%q = "tile.ptr_cast"(%p) : (tensor<64x!tile.ptr<f32>>) -> tensor<64x!tile.ptr<i8>>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=_v_ptr_cast,
        ),
        OpSpec(
            "convert_layout",
            "Moves a tensor into another layout (the encoding of its type); the values are unchanged.",
            '%y = "tile.convert_layout"(%x) : (tensor<128xf32>) -> tensor<128xf32>',
            operands=(one("src"),),
            results=(one("result"),),
            verify=_v_convert_layout,
        ),
        OpSpec(
            "print",
            "Device-side print of `prefix` and the optional operand, one line per element with the "
            "program id and element index (`hex` prints integers in hexadecimal).",
            '"tile.print"(%x) {prefix = "x: "} : (tensor<4xi32>) -> ()',
            operands=(one("arg", "optional"),),
            attributes=("prefix",),
            optional_attributes=("hex",),
            pure=False,
            verify=_v_print,
        ),
        OpSpec(
            "assert",
            "Device-side assertion: stops the kernel with `message` where `condition` is false.",
            '"tile.assert"(%ok) {message = "index out of range"} : (tensor<128xi1>) -> ()',
            operands=(one("condition"),),
            attributes=("message",),
            pure=False,
            verify=_v_assert,
        ),
        OpSpec(
            "map",
            "Applies the body to every element: it takes one scalar per argument (all of one shape) "
            "and yields one scalar per result (`gpu.yield`). The body may branch and loop per "
            "element and may have side effects (it runs once per element, in no particular order).",
            '%y = "tile.map"(%x) ({\n^bb0(%a: f32):\n  %c = arith.mulf %a, %a : f32\n'
            "  gpu.yield %c : f32\n}) {operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>,"
            " resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<64xf32>) -> tensor<64xf32>",
            operands=_slots("arg", ELEMENTWISE_ARG_SLOTS, first="optional"),
            results=_slots("result"),
            regions=("body",),
            pure=False,
            verify=_v_map,
        ),
        OpSpec(
            "inline_asm",
            "Runs the assembly statement `asm` (the target's: PTX on NVIDIA, AMDGCN on AMD) once per "
            "`pack` elements of every operand; `constraints` lists its registers as in LLVM inline "
            "asm, outputs first: per result and per argument pack / k registers, where k elements "
            "narrower than 32 bits share one (4 x i8, 2 x f16). `pure` (unit) lets it be merged or "
            "erased; otherwise it may have side effects. All operands and results share one shape.",
            '%y = "tile.inline_asm"(%x) {asm = "shl.b32 $0, $1, 3;", constraints = "=r,r", '
            "pack = 1 : i32, pure, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, "
            "resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128xi32>) -> tensor<128xi32>",
            operands=_slots("arg", ELEMENTWISE_ARG_SLOTS, first="optional"),
            results=_slots("result"),
            attributes=("asm", "constraints", "pack"),
            optional_attributes=("pure",),
            pure=False,
            verify=_v_inline_asm,
        ),
    ]


_VERIFIERS_LATE = {
    "store": _v_store,
    "atomic_rmw": _v_atomic_rmw,
    "atomic_cas": _v_atomic_cas,
}

SPECS: dict[str, OpSpec] = {}
for _spec in _ops():
    if _spec.name in _VERIFIERS_LATE:
        _spec = OpSpec(**{**_spec.__dict__, "verify": _VERIFIERS_LATE[_spec.name]})
    SPECS[_spec.name] = _spec

PURE_OPS = frozenset(s.full_name for s in SPECS.values() if s.pure)


def is_pure(op: ir.Operation) -> bool:
    """No side effects: a tile op in PURE_OPS, or an inline asm statement marked `pure`."""
    return op.name in PURE_OPS or (op.name == "tile.inline_asm" and "pure" in op.attributes)


def irdl_source() -> str:
    """The whole dialect as IRDL text."""
    body = "\n".join(s.irdl() for s in SPECS.values())
    return f"irdl.dialect @{DIALECT} {{\n{TYPES_IRDL}\n{body}\n}}\n"


# ----------------------------------------------------------------------------------------------
# Contexts
# ----------------------------------------------------------------------------------------------


_OPVIEW_PREFIX = "tilec.dialects.opviews"


@functools.cache
def _register_opview_namespace() -> None:
    """Lets MLIR's bindings find a Python module for the tile namespace (opviews/tile.py) instead of
    retrying `mlir.dialects.tile` at every op view. The prefix list is the bindings' own registry."""
    try:
        from mlir._mlir_libs import _mlir
    except ImportError:  # another packaging of the bindings: only slower without it
        return
    if _OPVIEW_PREFIX not in _mlir.globals.dialect_search_modules:
        _mlir.globals.append_dialect_search_prefix(_OPVIEW_PREFIX)


def load_into(ctx: ir.Context) -> None:
    """Registers the tile dialect in `ctx` (idempotent)."""
    _register_opview_namespace()
    if ctx.is_registered_operation("tile.splat"):
        return
    with ctx, ir.Location.unknown(ctx):
        module = ir.Module.parse(irdl_source(), ctx)
        irdl.load_dialects(module)
    _KEEP_ALIVE.modules.append(module)


class _IrdlModules(threading.local):
    """The IRDL module must outlive the context's use of its definitions. A context is in use only
    while one kernel compiles (tilec-opt: one per run), and a list of every one kept every context
    alive (~2 MB per compile for good); the module cannot hang off its context either (the two
    would form a cycle the garbage collector cannot see). So each thread keeps the modules of its
    last contexts: compiles on other threads cannot push out one still in use."""

    def __init__(self):
        self.modules: collections.deque = collections.deque(maxlen=64)

    def keep_all(self) -> None:
        """From now on nothing is let go (a forked compile process: freeing what the parent made
        crashes it)."""
        self.modules = collections.deque(self.modules)


_KEEP_ALIVE = _IrdlModules()


def make_context() -> ir.Context:
    """A new MLIR context with all upstream dialects and the tile dialect loaded."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = False
    load_into(ctx)
    return ctx


# ----------------------------------------------------------------------------------------------
# Verification
# ----------------------------------------------------------------------------------------------


def verify_op(op: ir.Operation) -> None:
    """Raises VerifyError when a tile op breaks a rule IRDL cannot express."""
    name = op.name
    if not name.startswith("tile."):
        return
    spec = SPECS.get(name[5:])
    if spec is None or spec.verify is None:
        return
    spec.verify(op)


def verify_tile_ops(root: ir.Operation) -> list[VerifyError]:
    """All tile-op violations under `root`, in program order."""
    errors: list[VerifyError] = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        try:
            verify_op(op)
        except VerifyError as e:
            errors.append(e)
        return ir.WalkResult.ADVANCE

    # Types built while checking (expected result types) need a context and a location.
    with root.context, ir.Location.unknown(root.context):
        root.walk(visit)
    return errors


# ----------------------------------------------------------------------------------------------
# Typed builders (snake_case, one per op)
# ----------------------------------------------------------------------------------------------


def _i32(v: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), v)


def _create(name, results, operands, attributes=None, *, loc=None, ip=None, regions=0):
    return ir.Operation.create(
        f"tile.{name}",
        results=results,
        operands=operands,
        attributes=attributes or {},
        regions=regions,
        loc=loc,
        ip=ip,
    )


def _segment_attr(*groups) -> dict:
    return {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(g) for g in groups])}


def program_id(axis: int, *, loc=None, ip=None) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return _create("program_id", [i32], [], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def num_programs(axis: int, *, loc=None, ip=None) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return _create("num_programs", [i32], [], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def make_range(start: int, end: int, *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get([end - start], ir.IntegerType.get_signless(32))
    attrs = {"start": _i32(start), "end": _i32(end)}
    return _create("make_range", [t], [], attrs, loc=loc, ip=ip).result


def splat(src: ir.Value, shape: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape), src.type)
    return _create("splat", [t], [src], loc=loc, ip=ip).result


def broadcast(src: ir.Value, shape: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape), element_of(src.type))
    return _create("broadcast", [t], [src], loc=loc, ip=ip).result


def expand_dims(src: ir.Value, axis: int, *, loc=None, ip=None) -> ir.Value:
    s = shape_of(src.type)
    t = ir.RankedTensorType.get(s[:axis] + [1] + s[axis:], element_of(src.type))
    return _create("expand_dims", [t], [src], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def reshape(src: ir.Value, shape: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape), element_of(src.type))
    return _create("reshape", [t], [src], loc=loc, ip=ip).result


def trans(src: ir.Value, order: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    s = shape_of(src.type)
    t = ir.RankedTensorType.get([s[i] for i in order], element_of(src.type))
    attrs = {"order": ir.DenseI32ArrayAttr.get(list(order))}
    return _create("trans", [t], [src], attrs, loc=loc, ip=ip).result


def gather(src: ir.Value, index: ir.Value, axis: int, *, loc=None, ip=None) -> ir.Value:
    t = with_shape(element_of(src.type), shape_of(index.type))
    return _create("gather", [t], [src, index], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def histogram(src: ir.Value, num_bins: int, mask: ir.Value | None = None, *, loc=None, ip=None) -> ir.Value:
    m = [mask] if mask is not None else []
    t = with_shape(ir.IntegerType.get_signless(32), [num_bins])
    attrs = {"num_bins": _i32(num_bins), **_segment_attr([src], m)}
    return _create("histogram", [t], [src, *m], attrs, loc=loc, ip=ip).result


def sort(
    src: ir.Value, axis: int, *, descending=False, unsigned=False, merge=False, loc=None, ip=None
) -> ir.Value:
    attrs = {"axis": _i32(axis)}
    for name, on in (("descending", descending), ("unsigned", unsigned), ("merge", merge)):
        if on:
            attrs[name] = ir.UnitAttr.get()
    return _create("sort", [src.type], [src], attrs, loc=loc, ip=ip).result


def addptr(ptr: ir.Value, offset: ir.Value, *, loc=None, ip=None) -> ir.Value:
    return _create("addptr", [ptr.type], [ptr, offset], loc=loc, ip=ip).result


def _hint_attrs(cache: str = "", eviction: str = "") -> dict:
    attrs = {}
    if cache:
        attrs["cache"] = ir.StringAttr.get(cache)
    if eviction:
        attrs["eviction"] = ir.StringAttr.get(eviction)
    return attrs


def load(
    ptr, mask=None, other=None, *, cache="", eviction="", volatile=False, coords=(), descriptor=None,
    loc=None, ip=None,
):  # fmt: skip
    result = with_shape(pointee_type(element_of(ptr.type)), shape_of(ptr.type))
    m = [mask] if mask is not None else []
    o = [other] if other is not None else []
    attrs = {**_segment_attr([ptr], m, o, list(coords)), **_hint_attrs(cache, eviction)}
    if volatile:
        attrs["volatile"] = ir.UnitAttr.get()
    if descriptor is not None:
        attrs["descriptor"] = ir.StringAttr.get(descriptor)
    return _create("load", [result], [ptr, *m, *o, *coords], attrs, loc=loc, ip=ip).result


def store(ptr, value, mask=None, *, cache="", eviction="", loc=None, ip=None) -> ir.Operation:
    m = [mask] if mask is not None else []
    attrs = {**_segment_attr([ptr], [value], m), **_hint_attrs(cache, eviction)}
    return _create("store", [], [ptr, value, *m], attrs, loc=loc, ip=ip)


def _combiner_op(name, srcs, result_types, axis, build_combiner, attrs, loc, ip):
    """Creates a reduce/scan op; `build_combiner(block_args) -> list[Value]` fills the region."""
    if not 1 <= len(srcs) <= MAX_SLOTS:
        raise ValueError(f"tile.{name} takes 1 to {MAX_SLOTS} tensors, got {len(srcs)}")
    sizes = [1] * len(srcs) + [0] * (MAX_SLOTS - len(srcs))
    attrs = {
        "axis": _i32(axis),
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get(sizes),
        "resultSegmentSizes": ir.DenseI32ArrayAttr.get(sizes),
        **attrs,
    }
    op = _create(name, result_types, list(srcs), attrs, loc=loc, ip=ip, regions=1)
    elements = [element_of(s.type) for s in srcs]
    arg_locs = [loc or ir.Location.current] * (2 * len(elements))
    block = op.regions[0].blocks.append(*(elements + elements), arg_locs=arg_locs)
    with ir.InsertionPoint(block):
        values = build_combiner(list(block.arguments))
        ir.Operation.create("gpu.yield", operands=list(values), loc=loc)
    return op


def reduce(srcs, axis, build_combiner, *, loc=None, ip=None) -> list[ir.Value]:
    """`build_combiner(args)` gets 2N block arguments and returns the N combined values."""
    results = []
    for s in srcs:
        shape = shape_of(s.type)
        results.append(with_shape(element_of(s.type), shape[:axis] + shape[axis + 1 :]))
    op = _combiner_op("reduce", srcs, results, axis, build_combiner, {}, loc, ip)
    return list(op.results)


def scan(srcs, axis, build_combiner, *, reverse=False, loc=None, ip=None) -> list[ir.Value]:
    attrs = {"reverse": ir.UnitAttr.get()} if reverse else {}
    op = _combiner_op("scan", srcs, [s.type for s in srcs], axis, build_combiner, attrs, loc, ip)
    return list(op.results)


def dot(a, b, acc, *, input_precision="ieee", max_num_imprecise_acc=None, loc=None, ip=None) -> ir.Value:
    attrs = {"input_precision": ir.StringAttr.get(input_precision)}
    if max_num_imprecise_acc is not None:
        attrs["max_num_imprecise_acc"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), max_num_imprecise_acc
        )
    return _create("dot", [acc.type], [a, b, acc], attrs, loc=loc, ip=ip).result


def _atomic_attrs(sem: str, scope: str) -> dict:
    return {"sem": ir.StringAttr.get(sem), "scope": ir.StringAttr.get(scope)}


def atomic_rmw(kind, ptr, value, mask=None, *, sem="acq_rel", scope="gpu", loc=None, ip=None):
    m = [mask] if mask is not None else []
    attrs = {
        "kind": ir.StringAttr.get(kind),
        **_segment_attr([ptr], [value], m),
        **_atomic_attrs(sem, scope),
    }
    return _create("atomic_rmw", [value.type], [ptr, value, *m], attrs, loc=loc, ip=ip).result


def atomic_cas(ptr, cmp, value, *, sem="acq_rel", scope="gpu", loc=None, ip=None):
    attrs = _atomic_attrs(sem, scope)
    return _create("atomic_cas", [value.type], [ptr, cmp, value], attrs, loc=loc, ip=ip).result


def _elementwise_slots(args: int, results: int) -> dict:
    """The segment sizes of an op with ELEMENTWISE_ARG_SLOTS argument and MAX_SLOTS result slots."""
    return {
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1] * args + [0] * (ELEMENTWISE_ARG_SLOTS - args)),
        "resultSegmentSizes": ir.DenseI32ArrayAttr.get([1] * results + [0] * (MAX_SLOTS - results)),
    }


def map_(args, result_types, build_body, *, loc=None, ip=None) -> ir.Operation:
    """A tile.map over `args`; `build_body(block_args) -> list[Value]` fills its body (scalars)."""
    if not 1 <= len(args) <= ELEMENTWISE_ARG_SLOTS or len(result_types) > MAX_SLOTS:
        raise ValueError(
            f"tile.map takes 1 to {ELEMENTWISE_ARG_SLOTS} arguments and up to {MAX_SLOTS} results"
        )
    attrs = _elementwise_slots(len(args), len(result_types))
    op = _create("map", list(result_types), list(args), attrs, loc=loc, ip=ip, regions=1)
    elements = [element_of(a.type) for a in args]
    block = op.regions[0].blocks.append(*elements, arg_locs=[loc or ir.Location.current] * len(elements))
    with ir.InsertionPoint(block):
        values = build_body(list(block.arguments))
        ir.Operation.create("gpu.yield", operands=list(values), loc=loc)
    return op


def inline_asm(asm, constraints, args, result_types, *, pure, pack, loc=None, ip=None) -> list[ir.Value]:
    if len(args) > ELEMENTWISE_ARG_SLOTS or not 1 <= len(result_types) <= MAX_SLOTS:
        raise ValueError(
            f"tile.inline_asm takes up to {ELEMENTWISE_ARG_SLOTS} arguments and 1 to {MAX_SLOTS} results"
        )
    attrs = {
        "asm": ir.StringAttr.get(asm),
        "constraints": ir.StringAttr.get(constraints),
        "pack": _i32(pack),
        **_elementwise_slots(len(args), len(result_types)),
    }
    if pure:
        attrs["pure"] = ir.UnitAttr.get()
    return list(_create("inline_asm", list(result_types), list(args), attrs, loc=loc, ip=ip).results)


def ptr_cast(src, result_type, *, loc=None, ip=None) -> ir.Value:
    return _create("ptr_cast", [result_type], [src], loc=loc, ip=ip).result


def convert_layout(src, result_type, *, loc=None, ip=None) -> ir.Value:
    return _create("convert_layout", [result_type], [src], loc=loc, ip=ip).result


def print_(prefix: str, arg: ir.Value | None = None, *, hex=False, loc=None, ip=None):
    attrs = {"prefix": ir.StringAttr.get(prefix)}
    if hex:
        attrs["hex"] = ir.BoolAttr.get(True)
    return _create("print", [], [arg] if arg is not None else [], attrs, loc=loc, ip=ip)


def assert_(condition: ir.Value, message: str, *, loc=None, ip=None):
    attrs = {"message": ir.StringAttr.get(message)}
    return _create("assert", [], [condition], attrs, loc=loc, ip=ip)
