"""Types and building blocks of the CPU lowering: pointers as i64 addresses, loop nests, index maps."""

from __future__ import annotations

import threading

from mlir import ir
from mlir.dialects import arith, llvm, scf, tensor

from tilec.dialects import contract, tile


class _BoolValues(threading.local):
    """Boolean tensors are kept as i8 on the CPU: MLIR cannot lower memrefs of i1 to LLVM (it
    asserts). This set holds the i8 tensor values that stand for i1 tensors during one run of the
    pass, one set per thread (kernels compile from several threads at once)."""

    def __init__(self):
        self.values: set = set()

    def add(self, value) -> None:
        self.values.add(value)

    def update(self, values) -> None:
        self.values.update(values)

    def clear(self) -> None:
        self.values.clear()

    def __contains__(self, value) -> bool:
        return value in self.values


BOOLS = _BoolValues()


def i64_type():
    return ir.IntegerType.get_signless(64)


def _lowered(t: ir.Type) -> ir.Type:
    if tile.is_ptr(t):
        return i64_type()
    tt = tile.as_tensor(t)
    if tt is not None and tile.is_ptr(tt.element_type):
        return ir.RankedTensorType.get(list(tt.shape), i64_type())
    if tt is not None and str(tt.element_type) == "i1":
        return ir.RankedTensorType.get(list(tt.shape), ir.IntegerType.get_signless(8))
    return t


def ops_to_lower(root: ir.Operation) -> list[ir.Operation]:
    """Ops in program order, not descending into reduce/scan combiners (those are cloned, not lowered)."""
    ops = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    ops.append(inner)
                    if inner.name not in ("tile.reduce", "tile.scan"):
                        visit(inner)

    visit(root)
    return ops


def record_pointee_sizes(root) -> dict:
    """Notes the pointee size on every addptr (types lose the pointee when pointers become i64)."""
    i64 = i64_type()
    for op in ops_to_lower(root):
        if op.name == "tile.addptr":
            pointee = tile.pointee_type(tile.element_of(op.operands[0].type))
            op.attributes[contract.POINTEE_SIZE] = ir.IntegerAttr.get(i64, _byte_size(pointee))
    return {}


def _byte_size(t: ir.Type) -> int:
    text = str(t)
    if text.startswith("!tile.ptr"):
        return 8
    if text == "i1":
        return 1
    return max(1, int(t.width) // 8)


def retype_pointers(module: ir.Module) -> None:
    for op in ops_to_lower(module.operation):
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    new = _lowered(arg.type)
                    if new != arg.type:
                        if _is_bool_tensor_type(arg.type):
                            BOOLS.add(arg)
                        arg.set_type(new)
        if op.name.startswith("tile.") or is_elementwise_on_tensors(op):
            continue  # replaced below, with the types they need
        for res in op.results:
            new = _lowered(res.type)
            if new != res.type:
                if _is_bool_tensor_type(res.type):
                    BOOLS.add(res)
                res.set_type(new)
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            inputs = [_lowered(t) for t in ftype.inputs]
            results = [_lowered(t) for t in ftype.results]
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))


def parallel_iterators():
    return ir.Attribute.parse("#linalg.iterator_type<parallel>")


def broadcast_map(in_shape, out_shape) -> ir.AffineMap:
    rank = len(out_shape)
    exprs = [
        ir.AffineConstantExpr.get(0) if in_shape[i] == 1 and out_shape[i] != 1 else ir.AffineDimExpr.get(i)
        for i in range(rank)
    ]
    return ir.AffineMap.get(rank, 0, exprs)


def _is_bool_tensor_type(t: ir.Type) -> bool:
    tt = tile.as_tensor(t)
    return tt is not None and str(tt.element_type) == "i1"


def i1_type():
    return ir.IntegerType.get_signless(1)


def is_elementwise_on_tensors(op: ir.Operation) -> bool:
    if not (op.name.startswith("arith.") or op.name.startswith("math.")) or op.name == "arith.constant":
        return any(_is_bool_tensor_type(r.type) for r in op.results) and op.name == "arith.constant"
    return any(tile.as_tensor(v.type) is not None for v in [*op.operands, *op.results])


def index_constant(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), v).result


def loop_nest(shape: list[int], carried: list[ir.Value], body) -> list[ir.Value]:
    """scf.for over every index of `shape`; `body(indices, carried) -> carried`."""
    if not shape:
        return body([], carried)
    loop = scf.ForOp(index_constant(0), index_constant(shape[0]), index_constant(1), carried)
    with ir.InsertionPoint(loop.body):
        inner = loop_nest(
            shape[1:], list(loop.inner_iter_args), lambda idx, c: body([loop.induction_variable, *idx], c)
        )
        scf.YieldOp(inner)
    return list(loop.results)


def extract(v: ir.Value, indices) -> ir.Value:
    if not tile.shape_of(v.type):
        return v
    return tensor.ExtractOp(v, list(indices)).result


def extract_bool(v: ir.Value, indices) -> ir.Value:
    x = extract(v, indices)
    if x.type == i1_type():
        return x
    return arith.trunci(i1_type(), x)


def _llvm_ptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr")


def as_pointer(addr: ir.Value) -> ir.Value:
    return llvm.IntToPtrOp(_llvm_ptr(), addr).result


def replace_op(op: ir.Operation, values) -> None:
    values = values if isinstance(values, list | tuple) else [values]
    for old, new in zip(op.results, values):
        old.replace_all_uses_with(new)
    op.erase()
