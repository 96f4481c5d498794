"""NVIDIA as convert-tile-to-gpu's vendor (tilec.passes.gpu_vendor): PTX's approximate units,
dynamic shared memory, tensor cores (mma.sync on sm_80+, warpgroup MMA on sm_90a) with operands
streamed by cp.async or tensor copies, and the pipelining around loops and branches they need."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu, llvm

from tilec.dialects import tile
from tilec.passes.base import PassError, ops_named
from tilec.passes.gpu_vendor import Vendor

from . import cp_async, mma, tma, wgmma, wgmma_swapped


class NvidiaVendor(Vendor):
    name = "nvidia"
    dynamic_shared_memory = True  # sized at launch, so kernels may use more than a static 48 KiB

    def approx_exp2(self, x):
        return llvm.CallIntrinsicOp(
            x.type, ir.StringAttr.get("llvm.nvvm.ex2.approx.f32"), [x], [], []
        ).results[0]

    def fast_divide(self, a, b):
        # div.full.f32, as Triton's `/` (about 2 ulp)
        return llvm.CallIntrinsicOp(a.type, ir.StringAttr.get("llvm.nvvm.div.full"), [a, b], [], []).results[
            0
        ]

    def check_inline_asm(self, op, constraints: str) -> None:
        _check_ptx_constraints(op, constraints)

    def configure(self, lowering, options) -> None:
        lowering.mma = options.mma and options.warp_size == 32
        lowering.wgmma = options.wgmma and options.warp_size == 32
        lowering.tma = options.tma and lowering.wgmma

    def uses_tensor_cores(self, lowering) -> bool:
        return lowering.mma or lowering.wgmma

    def tensor_core_lowering(self, lowering, dot):
        """Warpgroup MMA first (its swapped form for narrow M), then mma.sync."""
        if lowering.wgmma:
            kind = wgmma.wgmma_kind(dot, lowering.num_warps)
            if kind is not None:
                swapped = wgmma_swapped.applies(dot, lowering.num_warps, lowering.axis)
                return (wgmma_swapped if swapped else wgmma), kind
        if lowering.mma:
            kind = mma.mma_kind(dot, lowering.num_warps)
            if kind is not None:
                return mma, kind
        return None

    def transposed_loads(self, lowering) -> dict:
        if not lowering.wgmma:
            return {}
        return wgmma.row_major_tf32_b_loads(lowering.fn, lowering.num_warps, lowering.axis)

    def plan(self, lowering) -> None:
        if lowering.wgmma:
            cp_async.plan(lowering)

    def before_loop(self, lowering, op):
        rings = [ring for ring in lowering.rings.values() if ring.loop == op.operation]
        if rings:
            cp_async.issue_prologues(lowering, rings)
        return rings

    def after_loop(self, lowering, op, rings) -> None:
        if rings:
            cp_async.wait_all()  # copies issued for iterations past the end
            if wgmma.enclosing_loop(op) is not None and any(
                wgmma.pipelined_loop(r.dot) is None for r in rings
            ):
                # Each warp has waited for its own last MMAs: before the loop runs again and its
                # prologue rewrites the buffers, every warp's (drain's barrier does it for the
                # pipelined ones).
                gpu.BarrierOp()
        pending = lowering.waits_after_loop.pop(op.operation, None)
        if pending:  # warpgroup MMAs the loop left in flight
            wgmma.drain(lowering, [op.results[i] for i in sorted(pending)])

    def branch_state(self, lowering):
        return lowering.drained_loops

    def end_branch(self, lowering, drained) -> None:
        if lowering.drained_loops != drained:
            wgmma.mark_branch_end(lowering)

    def stores_transposed(self, lowering, dot) -> bool:
        chosen = lowering.tensor_core_lowering(dot)
        return chosen is not None and chosen[0] is wgmma and wgmma.transposed_b_source(dot) is not None

    def fp8_dot_fits(self, m: int, n: int, k: int, num_warps: int) -> bool:
        return wgmma.fits(m, n, k, num_warps, elem_bytes=1)

    def finish(self, lowering, gfn) -> None:
        if lowering.wgmma:
            _assert_at_block_ends(gfn)
        wgmma.elide_war_barriers(lowering.war_barriers)

    def tensor_maps_attribute(self, maps: list):
        return tma.maps_attribute(maps)


_PTX_REGISTERS = "hrlfdc"  # NVPTX register classes: 16, 32, 64 bits, f32, f64, 8-bit values in 16


def _check_ptx_constraints(op, constraints: str) -> None:
    """LLVM's NVPTX back end aborts the process on a constraint it cannot allocate (such as 'x' or
    'q'), so only register classes (with '=' / '=&' for outputs) and tied input digits pass."""
    listed = tile.asm_constraints(constraints)
    outs = sum(1 for c in listed if c.startswith("="))
    for i, c in enumerate(listed):
        body = c.removeprefix("=&") if c.startswith("=&") else c.removeprefix("=")
        ok = len(body) == 1 and body in _PTX_REGISTERS
        if not ok and i >= outs and body.isdigit():
            ok = int(body) < outs
        if not ok:
            raise PassError(
                f"inline asm constraint '{c}' is not one tilec can pass to PTX: use =h/=r/=l/=f/=d/=c "
                "for outputs (=& for early clobber), h/r/l/f/d/c or the number of an output for inputs",
                op,
            )


def _assert_at_block_ends(gfn) -> None:
    """Kernels with warpgroup MMAs check their device assertions where each block ends (after the
    block's MMAs), not where the assertion stands. Flash attention in a debug build on Hopper (H100,
    sm_90a) came out wrong in every row (max error 0.39) with the bounds assertion of the V load
    between the two dots' MMAs, and right with it at the loop body's end; the GPU IR was otherwise
    the same op for op. In that debug build any check there broke it (a predicated `trap` with no
    call and no branch too; a warp-uniform vote before the branch did not help), while a release
    build with a side-effecting inline statement in the same place was right: the fault lies past
    our IR (LLVM's NVPTX back end or ptxas). Moving an assertion later is safe here: assertions
    exist in debug builds only, where tile-check-bounds also masks every access it asserts on, so
    nothing faults before the check and a failing check still stops the kernel with its message."""
    for check in ops_named(gfn.operation, "cf.assert"):  # walk order: their order is kept
        block = check.block
        check.move_before(block.operations[len(block.operations) - 1])
