"""Which pointer arguments of a kernel it may write through (tile.store, tile.atomic_*): launchers
refuse a read-only host array (a broadcast view, np.frombuffer on bytes) bound to one of them, rather
than let the kernel write into memory the array does not own and corrupt the process.

The pointer operand of each write is traced back through pointer arithmetic, shape ops, selects,
branches, loop-carried values and calls to the kernel's arguments. A pointer from anywhere else (one
loaded from memory, made from an integer) names no argument: the check is a safety net that only
refuses what certainly is written, never a launch that may be valid.
"""

from __future__ import annotations

from mlir import ir

WRITES = ("tile.store", "tile.atomic_rmw", "tile.atomic_cas")
# ops whose pointer result is derived from their pointer operands (the first, for tile.addptr)
_DERIVING = (
    "tile.addptr", "tile.splat", "tile.broadcast", "tile.expand_dims", "tile.reshape", "tile.trans",
    "tile.convert_layout", "arith.select", "tile.ptr_as", "tile.ptr_cast",
)  # fmt: skip


def written_arguments(module: ir.Module, kernel_name: str) -> list[int]:
    """Indices of `kernel_name`'s arguments that some write in it (or in a function it calls) may go
    through."""
    functions = {}
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func":
            functions[ir.StringAttr(op.attributes["sym_name"]).value] = op
    return sorted(_written(functions, kernel_name, {}))


def _written(functions: dict, name: str, memo: dict) -> set[int]:
    if name in memo:
        return memo[name]
    memo[name] = set()  # a recursive call adds nothing more
    fn = functions.get(name)
    if fn is None or not fn.regions[0].blocks:
        return set()
    entry = fn.regions[0].blocks[0]
    found: set[int] = set()

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name in WRITES:
            found.update(_sources(op.operands[0], entry, set()))
        elif op.name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            for index in _written(functions, callee, memo):
                if index < len(op.operands):
                    found.update(_sources(op.operands[index], entry, set()))
        return ir.WalkResult.ADVANCE

    fn.walk(visit)
    memo[name] = found
    return found


def _sources(value: ir.Value, entry: ir.Block, seen: set) -> set[int]:
    """The entry-block arguments `value` is derived from."""
    if value in seen:
        return set()
    seen.add(value)
    owner = value.owner
    if isinstance(owner, ir.Block):
        arg = ir.BlockArgument(value)
        if owner == entry:
            return {arg.arg_number}
        return _carried_sources(owner, arg.arg_number, entry, seen)
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name in _DERIVING:
        operands = [op.operands[0]] if op.name == "tile.addptr" else list(op.operands)
        if op.name == "arith.select":
            operands = operands[1:]
        return set().union(*(_sources(v, entry, seen) for v in operands))
    if op.name in ("scf.if", "scf.for", "scf.while"):
        index = ir.OpResult(value).result_number
        found = set()
        if op.name == "scf.for":
            found |= _sources(op.operands[3 + index], entry, seen)  # lb, ub, step, then the inits
        if op.name == "scf.while":
            found |= _sources(op.operands[index], entry, seen)
        for region in op.regions:
            for block in region.blocks:
                terminator = block.operations[len(block.operations) - 1]
                if terminator.name in ("scf.yield", "scf.condition"):
                    values = (
                        list(terminator.operands)[1:]
                        if terminator.name == "scf.condition"
                        else list(terminator.operands)
                    )
                    if index < len(values):
                        found |= _sources(values[index], entry, seen)
        return found
    return set()


def _carried_sources(block: ir.Block, number: int, entry: ir.Block, seen: set) -> set[int]:
    """A loop body's block argument: its initial value and what the body yields for it."""
    op = block.owner.operation if hasattr(block.owner, "operation") else block.owner
    found = set()
    if op.name == "scf.for" and number > 0:  # argument 0 is the induction variable
        found |= _sources(op.operands[3 + number - 1], entry, seen)
        terminator = block.operations[len(block.operations) - 1]
        found |= _sources(terminator.operands[number - 1], entry, seen)
    elif op.name == "scf.while":
        found |= _sources(op.operands[number], entry, seen)
        for region in op.regions:
            for b in region.blocks:
                terminator = b.operations[len(b.operations) - 1]
                values = list(terminator.operands)
                values = values[1:] if terminator.name == "scf.condition" else values
                if number < len(values):
                    found |= _sources(values[number], entry, seen)
    return found
