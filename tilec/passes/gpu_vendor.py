"""What convert-tile-to-gpu asks of a GPU vendor: a `Vendor` object, carried by each kernel's
lowering (`lowering.vendor`), answers for the hardware (its approximate exp2, how a kernel declares
shared memory, what it can print) and plugs in the vendor's tensor-core lowerings and their
pipelining. Each vendor's lives in its target's folder (tilec/targets/nvidia/lowering/vendor.py,
tilec/targets/amd/lowering/vendor.py) and registers itself here when imported; the pass takes it by
name (its `vendor` option). The defaults below are a GPU without tensor cores or asynchronous copies.
"""

from __future__ import annotations

from .base import PassError

VENDORS: dict[str, Vendor] = {}


def register_vendor(vendor: Vendor) -> Vendor:
    VENDORS[vendor.name] = vendor
    return vendor


def vendor_named(name: str) -> Vendor:
    try:
        return VENDORS[name]
    except KeyError:
        known = ", ".join(sorted(VENDORS)) or "none"
        raise PassError(
            f"unknown vendor '{name}' (registered: {known}; a target's package registers its vendor "
            "when imported: tilec.targets.load_passes())"
        ) from None


class Vendor:
    name = ""
    # shared memory as an extern array sized at launch (kernels may then exceed a static array's limit)
    dynamic_shared_memory = False

    # -- hardware ---------------------------------------------------------------------------------
    def approx_exp2(self, x):
        """The hardware's approximate f32 exp2 of `x` (exp, exp2 and erf's tail use it)."""
        raise NotImplementedError

    def fast_divide(self, a, b):
        """f32 `a / b` to about 2 ulp (Triton's `/` under fast math)."""
        raise NotImplementedError

    def num_programs(self, lowering, axis: int):
        """i32 tl.num_programs(axis), or None for the gpu dialect's grid size."""
        return None

    def check_print(self, op) -> None:
        """Raises PassError when tl.device_print cannot be lowered for this vendor."""

    def check_assert(self, op) -> None:
        """Raises PassError when tl.device_assert cannot be lowered for this vendor."""

    def check_inline_asm(self, op, constraints: str) -> None:
        """Raises PassError for inline-asm constraints the vendor's back end cannot allocate."""

    # -- tensor cores and their pipelining ----------------------------------------------------------
    def configure(self, lowering, options) -> None:
        """Sets what the lowering may use from the pass's options (tensor cores, ...)."""

    def uses_tensor_cores(self, lowering) -> bool:
        return False

    def tensor_core_lowering(self, lowering, dot):
        """(lowering module, operand kind) for a tile.dot that fits a tensor-core instruction the
        options allow, else None. The module has `lower_dot(lowering, op, kind, smem_ptr_type,
        dynamic_index)` and `accumulator_layout(m, n, num_warps)`."""
        return None

    def transposed_loads(self, lowering) -> dict:
        """tile.load -> the layout it loads in, for loads a tensor-core lowering wants transposed."""
        return {}

    def plan(self, lowering) -> None:
        """Before the kernel's body is lowered, with the accumulator layouts planned: e.g. the
        operands streamed into shared memory ahead of their dots."""

    def before_loop(self, lowering, op):
        """Called before an scf.for is lowered; what it returns goes to `after_loop`."""
        return None

    def after_loop(self, lowering, op, state) -> None:
        """Called after an scf.for was lowered, at the point after the loop."""

    def branch_state(self, lowering):
        """Called before each branch of an scf.if is lowered; what it returns goes to `end_branch`."""
        return None

    def end_branch(self, lowering, state) -> None:
        """Called at the end of each branch of an scf.if, before its yield."""

    def fp8_dot_fits(self, m: int, n: int, k: int, num_warps: int) -> bool:
        """Whether an fp8 x fp8 -> f32 tl.dot of this shape fits the vendor's fp8 tensor cores, so that
        tile-lower-fp8 keeps its operands fp8."""
        return False

    def stores_transposed(self, lowering, dot) -> bool:
        """Whether `dot`'s tensor-core lowering reads B = trans(X) from X itself (no transpose needed)."""
        return False

    def finish(self, lowering, gfn) -> None:
        """After the kernel's body is lowered (device assertions included)."""

    def tensor_maps_attribute(self, maps: list):
        raise PassError(f"the {self.name} lowering makes no tensor maps")
