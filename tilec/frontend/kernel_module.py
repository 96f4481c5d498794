"""The code generator's entry point: a @tilec.jit function and its specialization to a tile-IR module."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

import tilec.language as tl
from tilec.dialects import contract, tile
from tilec.errors import CompilationError
from tilec.language import builtins as tlb
from tilec.language import semantic
from tilec.language.core import tensor

from .codegen import CodeGenerator
from .static_analysis import tail_returns
from .values import NamedStructure


def _descriptor_argument(name: str, layout: tuple, scope: dict):
    """The tl.tensor_descriptor of a descriptor argument, from its parts (already in scope, under
    descriptors.part_names; the last stride is 1)."""
    from tilec.language.descriptors import part_names, tensor_descriptor

    _, block, padding, wide = layout
    rank = len(block)
    parts = [scope[part] for part in part_names(name, rank)]
    return tensor_descriptor(
        parts[0], parts[1 : 1 + rank], [*parts[1 + rank :], 1], block, padding, name, wide_offsets=wide
    )


def _tuple_argument(structure, scope: dict) -> tuple:
    """A tuple argument, from its elements (already in scope under their names "t[0]", ...); a named
    tuple comes back as its class."""
    if isinstance(structure, NamedStructure):
        return structure.cls(*_tuple_argument(structure.parts, scope))
    return tuple(_tuple_argument(s, scope) if not isinstance(s, str) else scope[s] for s in structure)


def build_module(
    jit_fn,
    arg_specs: dict,
    *,
    debug: bool = False,
    num_warps: int = 4,
    sanitize_overflow: bool = False,
    target: tuple | None = None,
) -> ir.Module:
    """Tile IR for `jit_fn` specialized by `arg_specs`.

    `arg_specs` maps every parameter name to either ("arg", dtype, attrs) — a run-time argument with
    optional specialization attributes such as {"tile.divisibility": 16} —, ("const", value), for a
    tensor descriptor ("desc", (dtype, block_shape, padding, wide offsets)) after the specs of its
    parts, or for a tuple ("tuple", its elements' names, nested) after the specs of its elements.
    The module lives in a fresh context with the tile dialect loaded. `num_warps` is the launch's,
    which `tl.extra.cuda.num_warps()` returns as a constant; `sanitize_overflow` adds debug checks of
    integer +, -, * (tl.add); `target` is what tl.target_info reports: the GPUTarget(backend, arch, warp_size) of the target
    compiled for (None: no target).
    """
    ctx = tile.make_context()
    src = jit_fn.source_info()
    for name, spec in arg_specs.items():
        if spec[0] == "arg" and not spec[1].is_ptr() and spec[1].is_fp8():
            raise TypeError(
                f"{src.filename}:{src.fndef.lineno}: scalar argument '{name}' of type {spec[1]} is not "
                "supported: pass it as fp32 and convert it in the kernel with .to()"
            )
    with ctx:
        loc = ir.Location.file(src.filename, src.fndef.lineno, src.fndef.col_offset + src.col_offset + 1)
        with loc:
            module = ir.Module.create()
            names = [n for n, spec in arg_specs.items() if spec[0] == "arg"]
            types = [arg_specs[n][1].to_ir() for n in names]
            with ir.InsertionPoint(module.body):
                fn = func.FuncOp(jit_fn.__name__, (types, []))
                fn.attributes[contract.KERNEL] = ir.UnitAttr.get()
                arg_attrs = []
                for n in names:
                    attrs = {
                        k: ir.IntegerAttr.get(ir.IntegerType.get_signless(32), v)
                        for k, v in arg_specs[n][2].items()
                    }
                    attrs[contract.ARG_NAME] = ir.StringAttr.get(n)
                    arg_attrs.append(ir.DictAttr.get(attrs))
                fn.arg_attrs = ir.ArrayAttr.get(arg_attrs)
                entry = fn.add_entry_block()
            scope = {}
            args = iter(entry.arguments)
            annotated = getattr(jit_fn, "annotated_dtypes", {})
            const_pointers = getattr(jit_fn, "const_pointer_names", ())
            for n, spec in arg_specs.items():
                if spec[0] == "arg":
                    t = spec[1]
                    if n in const_pointers and t.is_ptr():
                        t = tl.pointer_type(t.element_ty, t.address_space, const=True)
                    scope[n] = tensor(next(args), t)
                    if n in annotated and annotated[n] != spec[1] and not spec[1].is_ptr():
                        with ir.InsertionPoint(entry):  # `x: tl.float16` arrives as fp32
                            scope[n] = semantic.cast(scope[n], annotated[n])
                elif spec[0] == "desc":
                    scope[n] = _descriptor_argument(n, spec[1], scope)
                elif spec[0] == "tuple":
                    scope[n] = _tuple_argument(spec[1], scope)
                else:
                    scope[n] = spec[1]
            gen = CodeGenerator(jit_fn, src, scope)
            settings = {
                "active": tlb.state.active + 1,
                "call_combine": gen.call_combine,
                "call_jit": gen.call_jit,
                "debug_enabled": debug,
                "launch_num_warps": num_warps,
                "sanitize_overflow": sanitize_overflow,
                "compile_target": target,
            }
            saved = {name: getattr(tlb.state, name) for name in settings}
            for name, value in settings.items():
                setattr(tlb.state, name, value)
            try:
                with ir.InsertionPoint(entry):
                    gen.visit_statements(tail_returns(src.fndef.body))
                    if gen.return_value is not None:
                        raise gen.error(src.fndef, "a kernel cannot return a value")
                    func.ReturnOp([])
            finally:
                for name, value in saved.items():
                    setattr(tlb.state, name, value)
        errors = tile.verify_tile_ops(module.operation)
        if errors:
            raise CompilationError(
                src.filename, src.fndef.lineno, 1, f"internal: invalid tile IR: {errors[0].message}"
            )
        if not module.operation.verify():
            raise CompilationError(
                src.filename, src.fndef.lineno, 1, "internal: the generated module does not verify"
            )
    return module
