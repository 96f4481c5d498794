"""Device-side assert and print: a status argument the launcher reads, and print callbacks."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm
from mlir.dialects import func as func_d

from tilec.dialects import contract, tile
from tilec.passes.base import PassError

from .common import BOOLS, as_pointer, extract, extract_bool, i64_type, index_constant, loop_nest
from .memory import masked


def _status_arg(op) -> ir.Value:
    fn = op.parent
    while fn is not None and fn.name != "func.func":
        fn = fn.parent
    if fn is None or contract.STATUS_ARG not in fn.attributes:
        raise PassError("device assertions on the CPU need tile-cpu-grid to run first", op)
    index = ir.IntegerAttr(fn.attributes[contract.STATUS_ARG]).value
    return fn.regions[0].blocks[0].arguments[index]


def lower_assert(op, sizes):
    cond = op.operands[0]
    status = _status_arg(op)
    module = op.parent
    while module.name != "builtin.module":
        module = module.parent
    from tilec import diagnostics

    file, line, col = diagnostics.file_location(op.location)
    where = f"{file}:{line}:{col}: " if file else ""
    entries = (
        list(ir.ArrayAttr(module.attributes[contract.ASSERTS]))
        if contract.ASSERTS in module.attributes
        else []
    )
    message = where + ir.StringAttr(op.attributes["message"]).value
    module.attributes[contract.ASSERTS] = ir.ArrayAttr.get(entries + [ir.StringAttr.get(message)])
    code = len(entries) + 1  # the status word holds the 1-based number of the failed assertion
    i32 = ir.IntegerType.get_signless(32)
    shape = tile.shape_of(cond.type)

    def body(idx, carried):
        c = extract_bool(cond, idx)
        failed = arith.xori(c, arith.ConstantOp(c.type, 1).result)

        def record():  # the first failure is reported: later ones leave the status word alone
            first = arith.cmpi(arith.CmpIPredicate.eq, llvm.LoadOp(i32, as_pointer(status)).result, _c32(0))
            masked(first, lambda: llvm.StoreOp(_c32(code), as_pointer(status)))

        masked(failed, record)
        return carried

    loop_nest(shape, [], body)
    op.erase()


def _c32(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), value).result


def lower_print(op, sizes):
    """Each element becomes a call of `__tilec_print_{f,i}(id, pid_x, pid_y, pid_z, index, value)`, which the
    CPU runtime binds to a Python callback; `id` selects the prefix and format (module attribute
    `tile.prints`, in order of appearance)."""
    fn = op.parent
    while fn.name != "func.func":
        fn = fn.parent
    module = fn.parent
    while module.name != "builtin.module":
        module = module.parent
    status_index = (
        ir.IntegerAttr(fn.attributes[contract.STATUS_ARG]).value
        if contract.STATUS_ARG in fn.attributes
        else None
    )
    if status_index is None:
        raise PassError("device printing on the CPU needs tile-cpu-grid to run first", op)
    args = fn.regions[0].blocks[0].arguments
    pids = [args[status_index - 6 + i] for i in range(3)]
    value = op.operands[0] if len(op.operands) else None
    prefix = ir.StringAttr(op.attributes["prefix"]).value
    hex_ = "hex" in op.attributes and ir.BoolAttr(op.attributes["hex"]).value
    shape = tile.shape_of(value.type) if value is not None else []
    elem = tile.element_of(value.type) if value is not None else ir.IntegerType.get_signless(64)
    is_float = isinstance(elem, ir.FloatType)
    entries = (
        list(ir.ArrayAttr(module.attributes[contract.PRINTS])) if contract.PRINTS in module.attributes else []
    )
    record = f"{prefix}\x00{int(hex_)}\x00{int(value is not None)}\x00{','.join(map(str, shape))}"
    print_id = len(entries)
    module.attributes[contract.PRINTS] = ir.ArrayAttr.get(entries + [ir.StringAttr.get(record)])
    i32, i64, f64 = ir.IntegerType.get_signless(32), i64_type(), ir.F64Type.get()
    name = "__tilec_print_f" if is_float else "__tilec_print_i"
    carrier = f64 if is_float else i64
    body = module.regions[0].blocks[0]
    if not any(
        o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == name
        for o in body.operations
    ):
        with ir.InsertionPoint.at_block_begin(body), op.location:
            decl = func_d.FuncOp(name, ([i32, i32, i32, i32, i64, carrier], []), visibility="private")
            decl.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()

    def body_fn(idx, carried):
        linear = arith.ConstantOp(ir.IndexType.get(), 0).result
        for d, i in enumerate(idx):
            linear = arith.addi(arith.muli(linear, index_constant(shape[d])), i)
        linear64 = arith.index_cast(i64, linear)
        v = extract(value, idx) if value is not None else arith.ConstantOp(i64, 0).result
        if value is not None and v in BOOLS or str(v.type) == "i1":
            v = arith.extui(i64, v)
        if is_float:
            v = v if v.type == f64 else arith.extf(f64, v)
        elif v.type != i64:
            v = arith.extsi(i64, v)
        ident = arith.ConstantOp(i32, print_id).result
        func_d.CallOp([], ir.FlatSymbolRefAttr.get(name), [ident, *pids, linear64, v])
        return carried

    loop_nest(shape, [], body_fn)
    op.erase()
