"""What IRDL cannot check about each tile op (shapes, element types, attributes, regions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir

from tilec.dialects import contract

from .specs import SPECS, VerifyError
from .types import FP8, as_tensor, element_of, is_float, is_int, is_ptr, pointee_type, shape_of, with_shape

if TYPE_CHECKING:
    from .specs import OpSpec


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


def operand_segments(op: ir.Operation, spec: OpSpec) -> dict[str, list[ir.Value]]:
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


def verify_program_id(op):
    axis = _int_attr(op, "axis")
    if axis not in (0, 1, 2):
        _fail(op, f"axis must be 0, 1 or 2, got {axis}")


def verify_make_range(op):
    start, end = _int_attr(op, "start"), _int_attr(op, "end")
    if end <= start:
        _fail(op, f"end ({end}) must be greater than start ({start})")
    if not _pow2(end - start):
        _fail(op, f"range length {end - start} must be a power of two")
    t = op.results[0].type
    if str(t) != f"tensor<{end - start}xi32>":
        _fail(op, f"result must be tensor<{end - start}xi32>, got {t}")


def verify_splat(op):
    src, res = op.operands[0].type, op.results[0].type
    if as_tensor(src) is not None:
        _fail(op, f"operand must be a scalar, got {src}")
    if as_tensor(res) is None or element_of(res) != src:
        _fail(op, f"result must be a tensor of {src}, got {res}")


def verify_broadcast(op):
    src, res = op.operands[0].type, op.results[0].type
    if as_tensor(src) is None or as_tensor(res) is None:
        _fail(op, f"operand and result must be tensors, got {src} and {res}")
    if element_of(src) != element_of(res):
        _fail(op, f"element types differ: {src} vs {res}")
    s, r = shape_of(src), shape_of(res)
    if len(s) != len(r) or any(a != b and a != 1 for a, b in zip(s, r)):
        _fail(op, f"cannot broadcast shape {s} to {r}: ranks must match and only size-1 dims grow")


def verify_expand_dims(op):
    src, res = op.operands[0].type, op.results[0].type
    s = shape_of(src)
    axis = _int_attr(op, "axis")
    if not 0 <= axis <= len(s):
        _fail(op, f"axis {axis} is out of range for a tensor of rank {len(s)}")
    expected = s[:axis] + [1] + s[axis:]
    if shape_of(res) != expected or element_of(res) != element_of(src):
        _fail(op, f"result must be {with_shape(element_of(src), expected)}, got {res}")


def verify_reshape(op):
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


def verify_trans(op):
    src, res = op.operands[0].type, op.results[0].type
    s = shape_of(src)
    order = _i32_array_attr(op, "order")
    if sorted(order) != list(range(len(s))):
        _fail(op, f"order {order} is not a permutation of the {len(s)} dimensions")
    expected = [s[i] for i in order]
    if shape_of(res) != expected or element_of(res) != element_of(src):
        _fail(op, f"result must be {with_shape(element_of(src), expected)}, got {res}")


def verify_gather(op):
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


def verify_histogram(op):
    seg = operand_segments(op, SPECS["histogram"])
    src, res = _one(seg, "src").type, op.results[0].type
    if len(shape_of(src)) != 1 or not is_int(element_of(src)) or element_of(src).width < 8:
        _fail(op, f"src must be a 1-D tensor of integers (8 to 64 bits), got {src}")
    bins = _int_attr(op, "num_bins")
    if not _pow2(bins):
        _fail(op, f"num_bins must be a power of two, got {bins}")
    if res != with_shape(ir.IntegerType.get_signless(32), [bins]):
        _fail(op, f"result must be tensor<{bins}xi32>, got {res}")
    _check_mask(op, _one(seg, "mask"), shape_of(src))


def verify_sort(op):
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


def verify_addptr(op):
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


def verify_load(op):
    seg = operand_segments(op, SPECS["load"])
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
    from .. import kernel_arrays

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


def verify_store(op):
    seg = operand_segments(op, SPECS["store"])
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


def verify_reduce(op):
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


def verify_scan(op):
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


def verify_dot(op):
    a, b, acc = (v.type for v in op.operands)
    res = op.results[0].type
    sa, sb, sc = shape_of(a), shape_of(b), shape_of(acc)
    if len(sa) != 2 or len(sb) != 2:
        _fail(op, f"operands must be 2-D tensors, got {a} and {b}")
    if sa[1] != sb[0]:
        _fail(op, f"inner dimensions differ: {sa} x {sb}")
    if sc != [sa[0], sb[1]] or res != acc:
        _fail(op, f"accumulator and result must be {[sa[0], sb[1]]} of one type, got {acc} -> {res}")
    if element_of(a) != element_of(b) and not (str(element_of(a)) in FP8 and str(element_of(b)) in FP8):
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


def verify_atomic_rmw(op):
    seg = operand_segments(op, SPECS["atomic_rmw"])
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


def verify_atomic_cas(op):
    ptr, cmp, val = (v.type for v in op.operands)
    pointee = _check_ptr_like(op, "ptr", ptr)
    expected = with_shape(pointee, shape_of(ptr))
    if cmp != expected or val != expected or op.results[0].type != expected:
        _fail(op, f"cmp, value and result must be {expected}")
    _check_atomic_attrs(op)


def verify_ptr_cast(op):
    src, res = op.operands[0].type, op.results[0].type
    if shape_of(src) != shape_of(res):
        _fail(op, f"the shape may not change: {src} vs {res}")
    a, b = element_of(src), element_of(res)
    if not (is_ptr(a) or is_ptr(b)):
        _fail(op, f"casts a pointer: operand or result must be a !tile.ptr, got {src} and {res}")
    for t in (a, b):
        if not is_ptr(t) and str(t) != "i64":
            _fail(op, f"the integer side of a pointer cast must be i64, got {t}")


def verify_convert_layout(op):
    src, res = op.operands[0].type, op.results[0].type
    if shape_of(src) != shape_of(res) or element_of(src) != element_of(res) or not shape_of(src):
        _fail(op, f"only the layout may change: {src} vs {res}")


def verify_print(op):
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


def verify_inline_asm(op):
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


def verify_map(op):
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


def verify_assert(op):
    cond = op.operands[0].type
    if not is_int(element_of(cond)):
        _fail(op, f"condition must be an integer (or i1) scalar or tensor, got {cond}")
    _str_attr(op, "message")
