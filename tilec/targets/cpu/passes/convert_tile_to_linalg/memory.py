"""Pointer arithmetic, loads, stores and atomics as LLVM memory ops on i64 addresses."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm, scf, tensor
from mlir.dialects import func as func_d

from tilec.dialects import contract, tile
from tilec.passes.lowering_common import segments, zero

from .common import as_pointer, extract, extract_bool, i64_type, loop_nest, replace_op
from .elementwise import elementwise


def lower_addptr(op, sizes):
    ptr, off = op.operands
    size = ir.IntegerAttr(op.attributes[contract.POINTEE_SIZE]).value
    shape = tile.shape_of(op.results[0].type)
    i64 = i64_type()

    def body(a):
        p, o = a
        o64 = o if o.type == i64 else arith.extsi(i64, o)
        scaled = arith.muli(o64, arith.ConstantOp(i64, size).result) if size != 1 else o64
        return arith.addi(p, scaled)

    replace_op(op, elementwise([ptr, off], shape, i64, body))


def _load_scalar(addr, elem, volatile):
    return llvm.LoadOp(elem, as_pointer(addr), volatile_=True if volatile else None).result


def lower_load(op, sizes):
    seg = segments(op)
    ptr = seg["ptr"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    other = seg["other"][0] if seg["other"] else None
    res_t = op.results[0].type
    elem, shape = tile.element_of(res_t), tile.shape_of(res_t)
    volatile = "volatile" in op.attributes
    inputs = [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])

    def body(a):
        if mask is None:
            return _load_scalar(a[0], elem, volatile)
        fallback = a[2] if other is not None else None
        branch = scf.IfOp(a[1], [elem], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([_load_scalar(a[0], elem, volatile)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([fallback if fallback is not None else zero(elem)])
        return branch.results[0]

    replace_op(op, elementwise(inputs, shape, elem, body))


def masked(mask_value, emit):
    if mask_value is None:
        emit()
        return
    branch = scf.IfOp(mask_value, [], has_else=False)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def lower_store(op, sizes):
    seg = segments(op)
    ptr, value = seg["ptr"][0], seg["value"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    shape = tile.shape_of(ptr.type)

    def body(idx, carried):
        p, v = extract(ptr, idx), extract(value, idx)
        m = extract_bool(mask, idx) if mask is not None else None
        masked(m, lambda: llvm.StoreOp(v, as_pointer(p)))
        return carried

    loop_nest(shape, [], body)
    op.erase()


def _atomic_helper(op, kind: str, elem: ir.Type, n_values: int) -> ir.FlatSymbolRefAttr:
    """Declares `@__tilec_atomic_<kind>_<sem>_<type>(i64, T...) -> T` (defined by tile-cpu-atomics).

    The atomic itself stays behind a call until after bufferization: the buffer deallocation pass
    refuses ops with unknown memory effects, which llvm.atomicrmw/cmpxchg are.
    """
    sem = ir.StringAttr(op.attributes["sem"]).value if "sem" in op.attributes else "acq_rel"
    name = f"__tilec_atomic_{kind}_{sem}_{elem}"
    module = op.parent
    while module.name != "builtin.module":
        module = module.parent
    body = module.regions[0].blocks[0]
    if not any(
        o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == name
        for o in body.operations
    ):
        with ir.InsertionPoint.at_block_begin(body), op.location:
            decl = func_d.FuncOp(name, ([i64_type()] + [elem] * n_values, [elem]), visibility="private")
            decl.attributes[contract.ATOMIC] = ir.DictAttr.get(
                {"kind": ir.StringAttr.get(kind), "sem": ir.StringAttr.get(sem)}
            )
    return ir.FlatSymbolRefAttr.get(name)


def _atomic_loop(op, shape, elem, emit_one):
    """Runs `emit_one(indices) -> old value` over the shape, collecting old values in a tensor."""
    if not shape:
        replace_op(op, emit_one([]))
        return
    init = tensor.EmptyOp(shape, elem).result

    def body(idx, carried):
        old = emit_one(idx)
        return [tensor.InsertOp(old, carried[0], idx).result]

    replace_op(op, loop_nest(shape, [init], body)[0])


def lower_atomic_rmw(op, sizes):
    seg = segments(op)
    ptr, value = seg["ptr"][0], seg["value"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    kind = ir.StringAttr(op.attributes["kind"]).value
    elem = tile.element_of(op.results[0].type)
    shape = tile.shape_of(op.results[0].type)
    callee = _atomic_helper(op, kind, elem, 1)

    def call(p, v):
        return func_d.CallOp([elem], callee, [p, v]).result

    def one(idx):
        p, v = extract(ptr, idx), extract(value, idx)
        if mask is None:
            return call(p, v)
        branch = scf.IfOp(extract_bool(mask, idx), [elem], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([call(p, v)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([zero(elem)])
        return branch.results[0]

    _atomic_loop(op, shape, elem, one)


def lower_atomic_cas(op, sizes):
    ptr, cmp, value = op.operands
    elem = tile.element_of(op.results[0].type)
    shape = tile.shape_of(op.results[0].type)
    # cmpxchg compares bits, as the GPUs' atom.cas does: a float CAS is the integer CAS of its bits
    bits = ir.IntegerType.get_signless(ir.FloatType(elem).width) if isinstance(elem, ir.FloatType) else elem
    callee = _atomic_helper(op, "cas", bits, 2)

    def one(idx):
        p, c, v = (extract(x, idx) for x in (ptr, cmp, value))
        if bits != elem:
            c, v = arith.bitcast(bits, c), arith.bitcast(bits, v)
        old = func_d.CallOp([bits], callee, [p, c, v]).result
        return old if bits == elem else arith.bitcast(elem, old)

    _atomic_loop(op, shape, elem, one)
