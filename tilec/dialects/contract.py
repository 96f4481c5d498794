"""The IR contract: the discardable attributes the front end, the passes and the targets hand each other,
and how a module's kernels are found. Every reader and writer of one of these names uses the constant
here, so a rename or a new reader is one grep away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (a cached kernel's launch loads no MLIR: this module is read before it is needed)
    from mlir import ir

# -- kernels and their arguments (the front end writes them) -------------------------------------
KERNEL = "tile.kernel"  # unit: this func.func is a kernel (the grid's entry on the CPU, after tile-cpu-grid)
ARG_NAME = "tile.name"  # argument: the parameter's name in the user's source
DIVISIBILITY = "tile.divisibility"  # on an argument (or tl.multiple_of's on a value): it divides by this
CONTIGUITY = "tile.contiguity"  # tl.max_contiguous's hint on a value

# -- analysis results (tile-axis-info writes them for tests and dumps) ---------------------------
AXIS_CONTIGUITY = "tile.axis_contiguity"
AXIS_DIVISIBILITY = "tile.axis_divisibility"
AXIS_CONSTANCY = "tile.axis_constancy"

# -- op markers ------------------------------------------------------------------------------------
NO_FP_FUSION = "tile.no_fp_fusion"  # unit on an fp32 add/sub/mul that must round on its own (add_rn, ...)
GRID_DEPENDENCY_CONTROL = "tile.grid_dependency_control"  # unit on inline asm of griddepcontrol (PDL)

# -- the CPU target's lowering ---------------------------------------------------------------------
GRID_ENTRY = "tile.grid_entry"  # unit: the wrapper tile-cpu-grid puts around a kernel
STATUS_ARG = "tile.status_arg"  # i32: index of the argument a failed assert or bounds check writes
POINTEE_SIZE = "tile.pointee_size"  # i64 on a tile.addptr: the pointee's byte size (pointers become i64)
ATOMIC = "tile.atomic"  # dict on a declared atomic helper: its kind, type and ordering
PRINTS = "tile.prints"  # module: the format of each device print, by index
ASSERTS = "tile.asserts"  # module: the message of each device assert, by index
DOT_BLOCK = "tilec.dot_block"  # string on a linalg.matmul: the register block its vectorization uses

# -- the GPU targets' lowering ---------------------------------------------------------------------
BOUNDS_RANGES = "tile.bounds_ranges"  # i32 on a kernel: how many byte ranges tile-check-bounds added
SHARED_BYTES = "tilec.shared_bytes"  # on a gpu.func: its shared memory in bytes
TENSOR_MAPS = "tilec.tensor_maps"  # JSON on a gpu.func: the tensor maps a launch must build
TENSOR_MAP_PARAMS = "tilec.tensor_map_params"  # i32 array on a gpu.func: its tensor-map parameters


def is_kernel(op: ir.Operation) -> bool:
    return op.name == "func.func" and KERNEL in op.attributes


def kernels(module: ir.Module) -> list[ir.Operation]:
    """The module's kernels, in order."""
    return [op.operation for op in module.body.operations if is_kernel(op.operation)]
