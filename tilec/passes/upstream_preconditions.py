"""What some upstream passes need of their input, checked before they run.

The LLVM build has assertions on: an upstream pass given IR it does not expect may abort the process
instead of reporting an error. For the passes known to, the IR they would choke on is found here
first and reported as a diagnostic at its op: `MemRefType::get` asserts its element type (bufferizing
a tensor of tile pointers ends the process), MemRefToLLVM that its elements are whole bytes.
"""

from __future__ import annotations

import re

from mlir import ir

from tilec import diagnostics

_MEMREF_ELEMENTS = (ir.IntegerType, ir.FloatType, ir.IndexType, ir.ComplexType, ir.VectorType, ir.MemRefType)


def _bad_tensor_element(t: ir.Type) -> ir.Type | None:
    if isinstance(t, ir.RankedTensorType | ir.UnrankedTensorType):
        element = t.element_type
        if not isinstance(element, _MEMREF_ELEMENTS):
            return element
    return None


def _types_of(op: ir.Operation):
    yield from (v.type for v in op.operands)
    yield from (v.type for v in op.results)
    for region in op.regions:
        for block in region.blocks:
            yield from (a.type for a in block.arguments)
    if "function_type" in op.attributes:
        function = ir.TypeAttr(op.attributes["function_type"]).value
        if isinstance(function, ir.FunctionType):
            yield from function.inputs
            yield from function.results


def _first_op_with(module: ir.Module, bad, describe, op_names=None) -> list:
    """A diagnostic at the first op (of `op_names`, or any) one of whose types `bad` returns a
    reason for."""
    found = []

    def visit(op):
        op = op.operation
        if op_names is not None and op.name not in op_names:
            return ir.WalkResult.ADVANCE
        for t in _types_of(op):
            reason = bad(t)
            if reason is not None:
                found.append(diagnostics.at_op(op, describe(reason, op.name)))
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def bufferizable(module: ir.Module, pass_name: str) -> list:
    return _first_op_with(
        module,
        _bad_tensor_element,
        lambda element, op_name: (
            f"{pass_name} cannot bufferize a tensor of {element} ('{op_name}' op): only tensors of integers, "
            "floats, index, complex or vectors become buffers (the CPU pipeline lowers tensors of tile "
            "pointers to offsets first: tile-cpu-pointer-offsets)"
        ),
    )


def _sub_byte_memref(t: ir.Type) -> ir.Type | None:
    if isinstance(t, ir.MemRefType | ir.UnrankedMemRefType):
        element = t.element_type
        if isinstance(element, ir.IntegerType) and element.width < 8:
            return element
    return None


def memrefs_of_whole_bytes(module: ir.Module, pass_name: str) -> list:
    """MemRefToLLVM's loads, stores and atomics assert their element is at least a byte wide."""
    return _first_op_with(
        module,
        _sub_byte_memref,
        lambda element, op_name: (
            f"{pass_name} cannot lower a memref of {element} ('{op_name}' op): elements narrower than a "
            "byte have no address (tile-cpu-widen-bool-buffers widens i1 buffers to i8 first)"
        ),
        ("memref.load", "memref.store", "memref.atomic_rmw", "memref.generic_atomic_rmw"),
    )


# pass name -> the check of its input
_CHECKS = {
    "finalize-memref-to-llvm": memrefs_of_whole_bytes,
    "convert-to-llvm": memrefs_of_whole_bytes,
}


def check(pass_text: str, module: ir.Module) -> list:
    """Diagnostics for IR the upstream pass (or nested pipeline) `pass_text` would abort on."""
    name = pass_text.split("{", 1)[0].split("(", 1)[0].strip()
    if "bufferize" in name:
        return bufferizable(module, name)
    found = []
    for inner in re.findall(r"[\w.-]+", pass_text):  # the passes of a nested pipeline too
        if inner in _CHECKS:
            found = _CHECKS[inner](module, inner)
            if found:
                break
    return found
