"""What some upstream passes need of their input, checked before they run.

The LLVM build has assertions on: an upstream pass given IR it does not expect may abort the process
instead of reporting an error. For the passes known to, the IR they would choke on is found here
first and reported as a diagnostic at its op. `MemRefType::get` asserts its element type: bufferizing
a tensor of tile pointers (a function argument, a loop value) ends the process.
"""

from __future__ import annotations

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


def bufferizable(module: ir.Module, pass_name: str) -> list:
    found = []

    def visit(op):
        op = op.operation
        for t in _types_of(op):
            element = _bad_tensor_element(t)
            if element is not None:
                found.append(
                    diagnostics.at_op(
                        op,
                        f"{pass_name} cannot bufferize a tensor of {element} ('{op.name}' op): only tensors of "
                        "integers, floats, index, complex or vectors become buffers (the CPU pipeline lowers "
                        "tensors of tile pointers to offsets first: tile-cpu-pointer-offsets)",
                    )
                )
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _needs_bufferizable(name: str) -> bool:
    return "bufferize" in name


def check(pass_text: str, module: ir.Module) -> list:
    """Diagnostics for IR the upstream pass (or nested pipeline) `pass_text` would abort on."""
    if _needs_bufferizable(pass_text):
        name = pass_text.split("{", 1)[0].split("(", 1)[0].strip()
        return bufferizable(module, name)
    return []
