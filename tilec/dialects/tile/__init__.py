"""The tile dialect: defined once here, loaded through IRDL into every context tilec creates.

Values are builtin `tensor<...>` of scalars or of `!tile.ptr<T>`; scalars are plain MLIR scalars and
`arith`/`math` ops apply elementwise to tensors. Only what arith/math/scf cannot say is a tile op.

Each op is an `OpSpec`: its operands, results, attributes and regions become the IRDL definition,
its docstring and example become `docs/dialect.md`, and its `verify` function checks what IRDL cannot
express (shapes, element types). IRDL ops carry no traits, so there is no custom assembly: tile ops
print and parse in MLIR's generic form, `"tile.splat"(%x) : (f32) -> tensor<128xf32>`.

The package: types.py, specs.py (OpSpec), verifiers.py, ops.py (every op), context.py, builders.py;
this module re-exports their public names, so users write `from tilec.dialects import tile; tile.load(...)`.
"""

from __future__ import annotations

from .builders import (
    addptr,
    assert_,
    atomic_cas,
    atomic_rmw,
    broadcast,
    convert_layout,
    dot,
    expand_dims,
    gather,
    histogram,
    inline_asm,
    load,
    make_range,
    map_,
    num_programs,
    print_,
    program_id,
    ptr_cast,
    reduce,
    reshape,
    scan,
    sort,
    splat,
    store,
    trans,
)
from .context import (
    KEEP_ALIVE,
    load_into,
    make_context,
    verify_op,
    verify_tile_ops,
)
from .ops import (
    ELEMENTWISE_ARG_SLOTS,
    MAX_SLOTS,
    PURE_OPS,
    SPECS,
    irdl_source,
    is_pure,
)
from .specs import (
    Operand,
    OpSpec,
    VerifyError,
)
from .types import (
    DIALECT,
    FP8,
    TYPES_DOC,
    TYPES_IRDL,
    address_space,
    as_tensor,
    defining_op,
    element_of,
    is_float,
    is_int,
    is_ptr,
    is_tensor,
    pointee_type,
    ptr_type,
    shape_of,
    splat_constant,
    with_shape,
)
from .verifiers import (
    asm_constraints,
    asm_registers,
    operand_segments,
    verify_trans,
)

__all__ = [
    "DIALECT",
    "FP8",
    "TYPES_DOC",
    "TYPES_IRDL",
    "address_space",
    "as_tensor",
    "defining_op",
    "element_of",
    "is_float",
    "is_int",
    "is_ptr",
    "is_tensor",
    "pointee_type",
    "ptr_type",
    "shape_of",
    "splat_constant",
    "with_shape",
    "OpSpec",
    "Operand",
    "VerifyError",
    "asm_constraints",
    "asm_registers",
    "operand_segments",
    "verify_trans",
    "ELEMENTWISE_ARG_SLOTS",
    "MAX_SLOTS",
    "PURE_OPS",
    "SPECS",
    "irdl_source",
    "is_pure",
    "KEEP_ALIVE",
    "load_into",
    "make_context",
    "verify_op",
    "verify_tile_ops",
    "addptr",
    "assert_",
    "atomic_cas",
    "atomic_rmw",
    "broadcast",
    "convert_layout",
    "dot",
    "expand_dims",
    "gather",
    "histogram",
    "inline_asm",
    "load",
    "make_range",
    "map_",
    "num_programs",
    "print_",
    "program_id",
    "ptr_cast",
    "reduce",
    "reshape",
    "scan",
    "sort",
    "splat",
    "store",
    "trans",
]
