"""convert-tile-to-gpu: tile IR to per-thread code in a gpu.module (shared by NVIDIA and AMD).

One program instance is one workgroup of `num_warps * warp_size` threads. Every tensor value lives in
a layout (tilec/passes/layouts.py): each thread holds some of its elements as scalar SSA values.

Layouts are chosen on demand. Memory ops, reductions and loop-carried values are computed once, in a
coalesced blocked layout for their shape; cheap values (ranges, splats, constants, elementwise math,
pointer arithmetic, broadcasts) are rebuilt in whatever layout their user asks for, at their original
place in the program — which makes e.g. `x - tl.max(x, 1)[:, None]` free of data movement. Where an
expensive value is needed in another layout it moves through shared memory (a layout conversion).

Memory accesses are vectorized up to 16 bytes when the axis analysis proves contiguity, alignment and
one mask bit per vector; reductions go in-thread, then `gpu.shuffle xor` across lanes, then across
warps through shared memory; `exp` goes through `exp2` (ex2.approx on NVIDIA, v_exp_f32 on AMD).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, gpu, llvm, scf

from tilec.analysis.axis_info import AxisAnalysis
from tilec.dialects import kernel_arrays, tile

from . import lower_fp8, store_vectors, tensor_cores
from .base import PassError, TilePass, ops_named
from .gpu_vendor import Vendor, vendor_named
from .layouts import Blocked, Interleaved, Slice, constant_classes, default_blocked
from .lowering_common import DYNAMIC_INDEX, clone_combiner, rmw_op, segments, semantics_of, zero
from .lowering_common import ordering as lc_ordering

SMEM = "__tilec_smem"
# A unit attribute on a tile-level fp32 add/sub/mul that must round on its own (libdevice add_rn, ...)
NO_FP_FUSION = "tile.no_fp_fusion"
REGION_ALIGN = 1024  # shared-memory regions start on 1024 bytes: the span of a swizzle pattern
# Nested regs() calls past which a value's elementwise chain is materialized operands-first instead
# of by recursion (Python's recursion limit is 1000 frames; each level takes three).
_CHAIN_DEPTH = 64


@dataclass(frozen=True)
class ConvertTileToGpuPass(TilePass):
    """Lower tile kernels to per-thread gpu/llvm code with blocked layouts (one workgroup per program).

    func.func @k(%p: !tile.ptr<f32>) attributes {tile.kernel} { ... tensor<1024xf32> ... }
      =>  gpu.module @tilec { gpu.func @k(%p: !llvm.ptr<1>) kernel
            attributes {known_block_size = array<i32: 128, 1, 1>} { ... vector<4xf32> loads ... } }
    """

    name: ClassVar[str] = "convert-tile-to-gpu"
    checks_tile_ops: ClassVar[bool] = False  # (it leaves no tile op to check)
    num_warps: int = 4
    warp_size: int = 32
    vendor: str = "nvidia"  # which hardware math intrinsics to use: nvidia | amd
    mma: bool = False  # tl.dot on tensor cores (mma.sync, NVIDIA sm_80 and newer)
    wgmma: bool = False  # tl.dot on warpgroup tensor cores (wgmma.mma_async, NVIDIA sm_90a)
    mfma: bool = False  # tl.dot on matrix cores (v_mfma, AMD CDNA with wave64)
    mfma_i8_k: int = 32  # K of the int8 matrix instruction: 32 on CDNA3 (gfx94x, gfx950), 16 on gfx90a
    tma: bool = False  # descriptor tiles into warpgroup-MMA rings by tensor copies (tma.py; sm_90a)
    fp_fusion: bool = True  # fp32 a * b + c may fuse into one FMA (Triton's enable_fp_fusion)

    def run(self, module: ir.Module) -> None:
        vendor = vendor_named(self.vendor)
        if self.mfma_i8_k not in (16, 32):
            raise PassError(f"mfma-i8-k must be 16 or 32, got {self.mfma_i8_k}")
        kernels = [op.operation for op in module.body.operations if op.operation.name == "func.func"]
        kernels = [k for k in kernels if "tile.kernel" in k.attributes]
        if not kernels:
            raise PassError("no function marked tile.kernel in the module")
        module.operation.attributes["gpu.container_module"] = ir.UnitAttr.get()
        with ir.InsertionPoint(module.body), module.operation.location:
            gmod = gpu.GPUModuleOp("tilec_kernels")
            gmod.regions[0].blocks.append()
        for k in kernels:
            lowering = _KernelLowering(k, gmod, self.num_warps, self.warp_size, vendor)
            vendor.configure(lowering, self)
            lowering.fp_fusion = self.fp_fusion
            lowering.run()
            k.erase()


# ----------------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------------


def _gptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr<1>")


def _sptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr<3>")


def _scalar_type(t: ir.Type) -> ir.Type:
    """The per-thread type of one element: pointers become !llvm.ptr<1>."""
    e = tile.element_of(t)
    return _gptr() if tile.is_ptr(e) else e


def _bytes(t: ir.Type) -> int:
    if tile.is_ptr(t) or str(t).startswith("!llvm.ptr"):
        return 8
    if str(t) == "i1":
        return 1
    return max(1, t.width // 8)


def _i32(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def _is_float(t) -> bool:
    return isinstance(t, ir.FloatType)


_LAZY = {
    "tile.make_range",
    "tile.splat",
    "tile.broadcast",
    "tile.expand_dims",
    "tile.addptr",
    "tile.convert_layout",
    "tile.ptr_cast",
    "arith.constant",
}


def _is_lazy(op: ir.Operation) -> bool:
    """Cheap tensor-valued ops, rebuilt in whatever layout a user needs."""
    if not op.results or not all(tile.shape_of(r.type) for r in op.results):
        return False
    if op.name in _LAZY:
        return True
    return (op.name.startswith("arith.") or op.name.startswith("math.")) and len(op.results) == 1


class _KernelLowering:
    def __init__(self, fn: ir.Operation, gmod, num_warps: int, warp_size: int, vendor: Vendor):
        self.fn = fn
        self.vendor = vendor  # the hardware's answers and tensor-core lowerings (gpu_vendor.py)
        self.gmod = gmod
        self.num_warps = num_warps
        self.warp_size = warp_size
        self.threads = num_warps * warp_size
        # set by the vendor's `configure` from the pass's options:
        self.mma = False  # tl.dot may use tensor cores (mma.sync)
        self.wgmma = False  # tl.dot may use warpgroup tensor cores (sm_90a)
        self.mfma = False  # tl.dot may use AMD matrix cores
        self.mfma_i8_k = 32  # which int8 matrix instruction the chip has
        self.preferred: dict = {}  # value -> layout for loop-carried values (tensor-core accumulators)
        self.load_layouts: dict = {}  # load result -> column-major layout (contiguous along dim 0 only)
        self.axis = AxisAnalysis()
        self.scalars: dict = {}  # old scalar value -> new value
        self.natural: dict = {}  # old tensor value -> (layout, registers)
        self.cache: dict = {}  # (old tensor value, layout) -> registers
        self.depth = 0  # nested regs() calls
        self.anchors: dict = {}  # old value -> op before which its materializations go
        self.lazy_ops: dict = {}  # old tensor value -> defining op (lazy)
        self.bases: dict = {}  # layout params -> per-dim base values
        self.smem_bytes = 0  # scratch: shared by every user, each starting at offset 0
        self.smem_regions: list = []  # (offset constant to patch, start within the regions)
        self.region_bytes = 0  # dedicated regions, placed after the scratch space
        self.waits_after_loop: dict = {}  # scf.for -> indices of results an async MMA still writes
        self.drained_loops = 0  # loops whose warpgroup MMAs wgmma.drain waited for (named in the PTX)
        self.rings: dict = {}  # tile.dot -> cp_async.Ring (operands streamed into shared memory)
        self.streamed: set = set()  # the tile.loads those rings copy (they get no registers)
        self.war_barriers: list = []  # (barrier, visibility barrier) of looped warpgroup-MMA dots
        self.tma = False  # set by the vendor: rings may be filled by tensor copies (tma.py)
        self.fp_fusion = True  # set by the pass: fp32 multiplies and adds may contract into FMAs
        self.tensor_maps: list = []  # what the launcher encodes for each tensor-map parameter
        self.tensor_map_params: list = []  # their kernel parameters (!llvm.ptr block arguments)
        self.vector_for_shape = self._vector_widths()
        self.anchor_ops: list = []

    # -- setup --------------------------------------------------------------------------------
    def _vector_widths(self) -> dict:
        """Per shape: elements per thread along the fastest dim, from the narrowest memory access."""
        widths: dict = {}

        def visit(op):
            op = op.operation if hasattr(op, "operation") else op
            if op.name in ("tile.load", "tile.store", "tile.atomic_rmw"):
                ptr_t = op.operands[0].type
                shape = tuple(tile.shape_of(ptr_t))
                if shape:
                    size = _bytes(tile.pointee_type(tile.element_of(ptr_t)))
                    widths[shape] = max(widths.get(shape, 1), 16 // size)
            return ir.WalkResult.ADVANCE

        self.fn.walk(visit)
        return widths

    def _plan_load_layouts(self):
        """2-D loads whose addresses are contiguous along dim 0 only (a column-major operand, such as
        `b.T` given through strides) load in a column-major layout: vectors along dim 0 instead of
        one element per access. Loop-carried copies of them (prefetched loads) keep that layout."""

        transposed_b = self.vendor.transposed_loads(self)

        def visit(op):
            op = op.operation if hasattr(op, "operation") else op
            if op in transposed_b:
                self.load_layouts[op.results[0]] = transposed_b[op]
                self._carry_pointers_in(op.operands[0], transposed_b[op])
            elif op.name == "tile.load" and len(tile.shape_of(op.results[0].type)) == 2:
                info = self.axis.get(op.operands[0])
                if info.contiguity[0] > 1 and info.contiguity[1] == 1:
                    shape = tile.shape_of(op.results[0].type)
                    vector = 16 // _bytes(_scalar_type(op.results[0].type))
                    layout = default_blocked(shape, self.num_warps, self.warp_size, vector, order=(0, 1))
                    self.load_layouts[op.results[0]] = layout
                    self._carry_pointers_in(op.operands[0], layout)
            return ir.WalkResult.ADVANCE

        self.fn.walk(visit)

    def _carry_pointers_in(self, ptr: ir.Value, layout) -> None:
        """A loop-carried pointer tensor the load advances (`b_ptrs += BK`) is carried in the load's
        layout too: converting it every iteration would cost more than the load."""
        for _ in range(8):
            owner = ptr.owner
            if isinstance(owner, ir.Block):
                loop = owner.owner
                if loop is not None and loop.name == "scf.for" and ir.BlockArgument(ptr).arg_number > 0:
                    self.load_layouts[loop.operands[3 + ir.BlockArgument(ptr).arg_number - 1]] = layout
                return
            op = owner.operation if hasattr(owner, "operation") else owner
            if op.name != "tile.addptr":
                return
            ptr = op.operands[0]

    def access_width(self, ptr: ir.Value, mask: ir.Value | None, layout, elem_bytes: int) -> int:
        """Elements one memory access of a thread may cover (see _vector_groups)."""
        return _vector_groups(self, ptr, mask, layout, elem_bytes)

    def layout_for(self, shape, element=None) -> Blocked:
        shape = tuple(shape)
        vector = self.vector_for_shape.get(shape)
        if vector is None:
            vector = 16 // _bytes(element) if element is not None else 4
        return default_blocked(shape, self.num_warps, self.warp_size, vector)

    def run(self):
        fn = self.fn
        name = ir.StringAttr(fn.attributes["sym_name"]).value
        block = fn.regions[0].blocks[0]
        # (looked for in the tile IR: the lowered function is several times larger to walk)
        has_asserts = bool(ops_named(fn.operation, "tile.assert"))
        arg_types = [_scalar_type(a.type) for a in block.arguments]
        arg_attrs = []
        if "arg_attrs" in fn.attributes:
            for d in ir.ArrayAttr(fn.attributes["arg_attrs"]):
                d = ir.DictAttr(d)
                attrs = {}
                if "tile.divisibility" in d:
                    attrs["llvm.align"] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), ir.IntegerAttr(d["tile.divisibility"]).value
                    )
                arg_attrs.append(attrs)
        with fn.location, ir.InsertionPoint(self.gmod.regions[0].blocks[0]):
            gfn = gpu.GPUFuncOp(
                ir.TypeAttr.get(ir.FunctionType.get(arg_types, [])),
                sym_name=name,
                kernel=True,
                known_block_size=[self.threads, 1, 1],
            )
            entry = gfn.regions[0].blocks.append(*arg_types)
        for i, attrs in enumerate(arg_attrs):
            pointer = str(arg_types[i]).startswith("!llvm.ptr")
            if attrs and pointer:
                gfn.attributes["arg_attrs"] = ir.ArrayAttr.get(
                    [
                        ir.DictAttr.get(a if str(t).startswith("!llvm.ptr") else {})
                        for a, t in zip(arg_attrs, arg_types)
                    ]
                )
                break
        for old, new in zip(block.arguments, entry.arguments):
            self.scalars[old] = new
        with fn.location, ir.InsertionPoint(entry):
            self.entry_point = ir.InsertionPoint(entry)
            tid = gpu.ThreadIdOp(gpu.Dimension.x).result
            self.tid = arith.index_cast(ir.IntegerType.get_signless(32), tid)
            self.lane = arith.remui(self.tid, _i32(self.warp_size))
            self.warp = arith.divui(self.tid, _i32(self.warp_size))
            self.prologue_end = arith.ConstantOp(ir.IntegerType.get_signless(32), 0).operation
            if self.vendor.uses_tensor_cores(self):
                self.preferred = tensor_cores.plan_layouts(block, self.accumulator_layout)
            self._plan_load_layouts()
            self.vendor.plan(self)
            self.lower_block(block)
            gpu.ReturnOp([])
        if has_asserts:
            _lower_combiner_asserts(self.vendor, gfn)
        self.vendor.finish(self, gfn)
        if self.tensor_maps:
            self._declare_tensor_maps(gfn, entry)
        self.prologue_end.erase()
        for a in self.anchor_ops:
            a.erase()
        self._place_smem_regions()
        if self.smem_bytes:
            self._declare_smem(gfn)

    def _descriptor_parts(self, descriptor: str) -> dict:
        """Field ("base", "rows", "cols", "row_stride") -> ["arg", index of the kernel argument
        holding it] or ["const", value]. `descriptor` names a descriptor argument (whose parts are
        arguments "<name>.base", "<name>.shape[0]", ...; a part specialized to 1 is not one), or is
        the text of an array made in the kernel from its arguments (dialects.kernel_arrays), whose
        parts name arguments, are constants or {"op", "bits", "args"} sums and products of such
        parts (the launcher evaluates them: tensor_maps._value)."""
        index = {}
        if "arg_attrs" in self.fn.attributes:
            for i, d in enumerate(ir.ArrayAttr(self.fn.attributes["arg_attrs"])):
                d = ir.DictAttr(d)
                if "tile.name" in d:
                    index[ir.StringAttr(d["tile.name"]).value] = i
        if kernel_arrays.is_array(descriptor):

            def part(p):
                if isinstance(p, dict):
                    return {"op": p["op"], "bits": p["bits"], "args": [part(a) for a in p["args"]]}
                return ["arg", index[p]] if isinstance(p, str) else ["const", p]

            return {f: part(p) for f, p in kernel_arrays.parse_array(descriptor).items()}
        names = {"base": "base", "rows": "shape[0]", "cols": "shape[1]", "row_stride": "strides[0]"}
        return {
            f: ["arg", index[f"{descriptor}.{n}"]] if f"{descriptor}.{n}" in index else ["const", 1]
            for f, n in names.items()
        }

    def tensor_map(self, descriptor: str, element: ir.Type, band: int, swizzle: int, box_rows: int) -> int:
        """The index of the kernel parameter holding a tensor map of `descriptor` (_descriptor_parts):
        boxes of `band` elements along a row (`swizzle`-byte rows) by `box_rows` rows; a new
        parameter, after the kernel's arguments, the first time it is asked for."""
        parts = self._descriptor_parts(descriptor)
        spec = {
            "descriptor": descriptor,
            "base": parts["base"][1],
            "rows": parts["rows"],
            "cols": parts["cols"],
            "row_stride": parts["row_stride"],
            "element": str(element),
            "band": band,
            "box_rows": box_rows,
            "swizzle": swizzle,
        }
        if spec in self.tensor_maps:
            return self.tensor_maps.index(spec)
        self.tensor_maps.append(spec)
        entry = self.entry_point.block
        argument = entry.add_argument(ir.Type.parse("!llvm.ptr"), self.fn.location)
        self.tensor_map_params.append(argument)
        return len(self.tensor_maps) - 1

    def _declare_tensor_maps(self, gfn, entry):
        """The gpu.func takes the tensor-map parameters added by tensor_map (tensor_map_params.py
        makes them 128-byte grid constants); `tilec.tensor_maps` tells the launcher what to encode."""
        types = [a.type for a in entry.arguments]
        gfn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(types, []))
        if "arg_attrs" in gfn.attributes:
            attrs = list(ir.ArrayAttr(gfn.attributes["arg_attrs"]))
            attrs += [ir.DictAttr.get({})] * (len(types) - len(attrs))
            gfn.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs)
        first = len(types) - len(self.tensor_maps)
        gfn.attributes["tilec.tensor_map_params"] = ir.DenseI32ArrayAttr.get(list(range(first, len(types))))
        gfn.attributes["tilec.tensor_maps"] = self.vendor.tensor_maps_attribute(self.tensor_maps)

    def _place_smem_regions(self):
        scratch = -(-self.smem_bytes // REGION_ALIGN) * REGION_ALIGN
        for constant, start in self.smem_regions:
            constant.attributes["value"] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(32), scratch + start
            )
        if self.region_bytes:
            self.smem_bytes = scratch + self.region_bytes

    def _declare_smem(self, gfn):
        """The kernel's shared memory. On NVIDIA it is *dynamic* (an extern array sized at launch from
        the gpu.func's `tilec.shared_bytes`), so kernels may use more than the 48 KiB a static array
        allows; on AMD a static array of the size needed."""
        gfn.attributes["tilec.shared_bytes"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), self.smem_bytes
        )
        dynamic = self.vendor.dynamic_shared_memory
        size = 0 if dynamic else self.smem_bytes
        body = self.gmod.regions[0].blocks[0]
        for op in body.operations:
            if op.operation.name == "llvm.mlir.global":  # declared by an earlier kernel of the module
                if dynamic:
                    return
                declared = ir.Type.parse(str(ir.TypeAttr(op.operation.attributes["global_type"]).value))
                size = max(size, int(str(declared).split("<")[1].split(" x")[0]))
                op.operation.erase()
                break
        with gfn.location, ir.InsertionPoint.at_block_begin(body):
            array = ir.Type.parse(f"!llvm.array<{size} x i8>")
            linkage = "external" if dynamic else "internal"
            llvm.GlobalOp(
                array,
                SMEM,
                ir.Attribute.parse(f"#llvm.linkage<{linkage}>"),
                addr_space=3,
                alignment=REGION_ALIGN,
            )

    # -- program order ------------------------------------------------------------------------
    def lower_block(self, block: ir.Block):
        for op in block.operations:
            op = op.operation
            if op.name in ("func.return",):
                continue
            self.lower_op(op)

    def lower_block_ops(self, block: ir.Block):
        """The ops of a loop or branch body, without its terminator (the caller rebuilds that)."""
        for inner in block.operations:
            inner = inner.operation
            if inner.name in ("scf.yield", "scf.condition"):
                continue
            self.lower_op(inner)

    def _anchor(self, values):
        anchor = arith.ConstantOp(ir.IntegerType.get_signless(8), 0).operation
        self.anchor_ops.append(anchor)
        for v in values:
            self.anchors[v] = anchor

    def lower_op(self, op: ir.Operation):
        with op.location:
            if _is_lazy(op):
                for r in op.results:
                    self.lazy_ops[r] = op
                self._anchor(list(op.results))
                return
            handler = _EAGER.get(op.name)
            if handler is not None:
                handler(self, op)
            elif all(not tile.shape_of(v.type) for v in [*op.operands, *op.results]) and not op.regions:
                self._clone_scalar(op)
            else:
                raise PassError(f"'{op.name}' is not supported by the GPU lowering yet", op)
            self._anchor(list(op.results))

    def _clone_scalar(self, op: ir.Operation):
        operands = [self.scalar(v) for v in op.operands]
        if op.name == "tile.addptr":
            pointee = tile.pointee_type(op.operands[0].type)
            pointee = _gptr() if tile.is_ptr(pointee) else pointee
            gep = llvm.GEPOp(
                _gptr(), operands[0], [operands[1]], [DYNAMIC_INDEX], ir.TypeAttr.get(pointee), 0
            )
            self.scalars[op.results[0]] = gep.result
            return
        if op.name == "tile.ptr_cast":
            self.scalars[op.results[0]] = _ptr_cast(operands[0], op.results[0].type)
            return
        if op.name.startswith("tile."):
            raise PassError(f"'{op.name}' on scalars is not supported by the GPU lowering yet", op)
        attrs = {n: op.attributes[n] for n in op.attributes}
        results = [_scalar_type(r.type) for r in op.results]
        try:
            new = self._scalar_math(op.name, results, operands, attrs)
        except PassError as e:
            raise PassError(e.message, e.op or op) from None
        for old, v in zip(op.results, new):
            self.scalars[old] = v

    # -- tensor cores -------------------------------------------------------------------------
    def tensor_core_lowering(self, dot):
        """(lowering module, operand kind) for a tile.dot that fits a tensor-core instruction the
        options allow, else None (the vendor's choice)."""
        return self.vendor.tensor_core_lowering(self, dot)

    def accumulator_layout(self, dot):
        chosen = self.tensor_core_lowering(dot)
        if chosen is None:
            return None
        (m, _), (_, n) = tile.shape_of(dot.operands[0].type), tile.shape_of(dot.operands[1].type)
        return chosen[0].accumulator_layout(m, n, self.num_warps)

    def accumulator_layout_of(self, value: ir.Value):
        """The tensor-core accumulator layout `value` is computed in (directly or elementwise from an
        accumulator, e.g. `acc.to(tl.float16)`), else None. Stores write such values in that layout:
        the default layout would take a trip through shared memory as large as the whole tile."""
        if not self.preferred:
            return None
        accumulators = {v for v in self.preferred.values() if isinstance(v, Blocked)}
        for _, layout in self._natural_inputs(value, elementwise_only=True):
            if layout in accumulators:
                return layout
        return None

    def layout_of_inputs(self, value: ir.Value):
        """The layout in which most bytes of the tensors `value` is built from (through cheap ops of
        its shape) already are, else None. An op that may take any layout (an assertion) takes
        that one: tile-check-bounds asserts on addresses of pointers carried in a load's
        column-major layout, and the default layout would copy the pointers through shared memory
        (64 KiB and more per tile: more than a program may have, in debug builds of matmuls)."""
        weights: dict = {}
        for v, layout in self._natural_inputs(value):
            weights[layout] = weights.get(layout, 0) + _bytes(_scalar_type(v.type))
        return max(weights, key=weights.get) if weights else None

    def _natural_inputs(self, value: ir.Value, elementwise_only: bool = False):
        """(tensor, its layout) for each tensor with registers of its own that `value` is computed
        from through lazy ops of its shape (arith / math ones only, with `elementwise_only`)."""
        shape = tile.shape_of(value.type)
        pending, seen = [value], set()
        while pending:
            v = pending.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in self.natural:
                yield v, self.natural[v][0]
                continue
            op = self.lazy_ops.get(v)
            if op is not None and (not elementwise_only or op.name.startswith(("arith.", "math."))):
                pending.extend(x for x in op.operands if tile.shape_of(x.type) == shape)

    # -- values -------------------------------------------------------------------------------
    def scalar(self, v: ir.Value) -> ir.Value:
        if v not in self.scalars:
            raise PassError(f"internal: scalar value used before its definition: {v}")
        return self.scalars[v]

    def regs(self, v: ir.Value, layout) -> list[ir.Value]:
        """The registers of tensor `v` in `layout` (materialized or converted on demand)."""
        key = (v, layout)
        found = self.cache.get(key)
        if found is not None:
            return found
        self.depth += 1
        try:
            if self.depth > _CHAIN_DEPTH and v in self.lazy_ops:
                self._materialize_chain(v, layout)
                found = self.cache.get(key)
                if found is not None:
                    return found
            return self._regs(v, layout, key)
        finally:
            self.depth -= 1

    def _materialize_chain(self, v: ir.Value, layout) -> None:
        """Materializes the elementwise ops `v` depends on in `layout`, operands first, one at a time:
        a chain of thousands (an unrolled accumulation) would otherwise recurse once per op."""
        shape = tile.shape_of(v.type)
        order, stack, seen = [], [(v, False)], set()
        while stack:
            x, operands_done = stack.pop()
            if operands_done:
                order.append(x)
                continue
            if x in seen or (x, layout) in self.cache or x not in self.lazy_ops:
                continue
            seen.add(x)
            stack.append((x, True))
            op = self.lazy_ops[x]
            if op.name.startswith(("arith.", "math.")):
                stack.extend((o, False) for o in op.operands if tile.shape_of(o.type) == shape)
        for x in order[:-1]:  # `v` itself is left to the caller
            self.regs(x, layout)

    def _regs(self, v: ir.Value, layout, key) -> list[ir.Value]:
        anchor = self.anchors.get(v)
        point = ir.InsertionPoint(anchor) if anchor is not None else ir.InsertionPoint.current
        with point:
            if v in self.natural:
                nat_layout, nat_regs = self.natural[v]
                regs = (
                    nat_regs if nat_layout == layout else self.convert(nat_regs, nat_layout, layout, v.type)
                )
            elif v in self.lazy_ops:
                op = self.lazy_ops[v]
                with op.location:
                    regs = self.materialize(op, layout)
            else:
                raise PassError(f"internal: tensor value has no definition in the lowering: {v}")
        self.cache[key] = regs
        return regs

    def set_natural(self, v: ir.Value, layout, regs):
        self.natural[v] = (layout, regs)
        self.cache[(v, layout)] = regs

    # -- thread coordinates -------------------------------------------------------------------
    def bases_of(self, layout: Blocked) -> list[ir.Value]:
        """Per dimension: this thread's first element (lane and warp part); emitted at kernel entry."""
        group = layout.group if isinstance(layout, Interleaved) else 1
        key = (
            layout.size_per_thread, layout.threads_per_warp, layout.warps_per_cta, layout.order,
            layout.warp_repeats, group,
        )  # fmt: skip
        found = self.bases.get(key)
        if found is not None:
            return found
        with ir.InsertionPoint(self.prologue_end):
            lane, warp = self.lane, self.warp
            out = [None] * layout.rank
            for d in layout.order:
                t = layout.threads_per_warp[d]
                lane_d = arith.remui(lane, _i32(t)) if t > 1 else _i32(0)
                lane = arith.divui(lane, _i32(t)) if t > 1 else lane
                out[d] = lane_d
            for d in layout.order:
                w = layout.warps_per_cta[d]
                warp_d = arith.remui(warp, _i32(w)) if w > 1 else _i32(0)
                warp = arith.divui(warp, _i32(w)) if w > 1 else warp
                spt, tpw = layout.size_per_thread[d], layout.threads_per_warp[d]
                if group > 1 and d == layout.order[0]:  # see Interleaved
                    within = arith.muli(arith.remui(out[d], _i32(group)), _i32(layout.tile(d) // group))
                    across = arith.muli(arith.divui(out[d], _i32(group)), _i32(spt))
                    warps = arith.muli(warp_d, _i32(tpw * (spt // group)))
                    out[d] = arith.addi(arith.addi(within, across), warps)
                    continue
                per_warp = tpw * layout.repeats(d)  # lanes' tiles one warp holds along d
                out[d] = arith.muli(arith.addi(arith.muli(warp_d, _i32(per_warp)), out[d]), _i32(spt))
        self.bases[key] = out
        return out

    def coords(self, layout) -> list[list[ir.Value]]:
        """For every register: its coordinate along every dimension of the layout's shape."""
        parent = layout.parent if isinstance(layout, Slice) else layout
        dims = (
            [layout.parent_dim(d) for d in range(layout.rank)]
            if isinstance(layout, Slice)
            else list(range(layout.rank))
        )
        bases = self.bases_of(parent)
        out = []
        for static in parent.registers:
            row = []
            for d in dims:
                c = arith.addi(bases[d], _i32(static[d])) if static[d] else bases[d]
                if parent.wraps(d):
                    c = arith.andi(c, _i32(parent.shape[d] - 1))
                row.append(c)
            out.append(row)
        return out

    def replica_predicate(self, layout) -> ir.Value | None:
        """True on the one thread (of several holding the same elements) that should act for them."""
        parent = layout.parent if isinstance(layout, Slice) else layout
        conds = []
        lane, warp = self.lane, self.warp
        for d in range(parent.rank):
            sliced = isinstance(layout, Slice) and d == layout.dim
            lanes_d = 1 if sliced else parent.distinct_lanes(d)
            warps_d = 1 if sliced else parent.distinct_warps(d)
            if lanes_d < parent.threads_per_warp[d]:
                lc = arith.remui(
                    arith.divui(lane, _i32(parent.lane_stride(d))), _i32(parent.threads_per_warp[d])
                )
                conds.append(arith.cmpi(arith.CmpIPredicate.ult, lc, _i32(lanes_d)))
            if warps_d < parent.warps_per_cta[d]:
                wc = arith.remui(
                    arith.divui(warp, _i32(parent.warp_stride(d))), _i32(parent.warps_per_cta[d])
                )
                conds.append(arith.cmpi(arith.CmpIPredicate.ult, wc, _i32(warps_d)))
        if not conds:
            return None
        out = conds[0]
        for c in conds[1:]:
            out = arith.andi(out, c)
        return out

    # -- shared memory ------------------------------------------------------------------------
    # Eager users of shared memory (reductions, reshapes) skip the barrier before their writes when
    # nothing was read from shared memory since the last barrier (in program order; control flow and
    # layout conversions, which may be placed earlier than they are built, keep both barriers).
    smem_dirty = False

    def smem_write_fence(self):
        if self.smem_dirty:
            gpu.BarrierOp()
        self.smem_dirty = False

    def smem(self, nbytes: int) -> ir.Value:
        self.smem_bytes = max(self.smem_bytes, nbytes)
        return llvm.AddressOfOp(_sptr(), SMEM).result

    def smem_region(self, nbytes: int) -> ir.Value:
        """Shared memory no other op touches (for buffers that outlive one op: pipelined MMA). It lies
        after the scratch space, whose size is known only at the end: the offset is patched then."""
        offset = arith.ConstantOp(ir.IntegerType.get_signless(32), 0)
        self.smem_regions.append((offset.operation, self.region_bytes))
        self.region_bytes += -(-nbytes // REGION_ALIGN) * REGION_ALIGN
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        base = llvm.AddressOfOp(_sptr(), SMEM).result
        return llvm.GEPOp(_sptr(), base, [offset.result], [DYNAMIC_INDEX], i8, 0).result

    def smem_at(self, base: ir.Value, index: ir.Value, elem: ir.Type) -> ir.Value:
        return llvm.GEPOp(_sptr(), base, [index], [DYNAMIC_INDEX], ir.TypeAttr.get(elem), 0).result

    def _linear(self, coord: list[ir.Value], shape) -> ir.Value:
        idx = coord[0]
        for c, s in zip(coord[1:], shape[1:]):
            idx = arith.addi(arith.muli(idx, _i32(s)), c)
        return idx

    def _store_elem_type(self, t: ir.Type) -> ir.Type:
        """How a value of type t sits in shared memory: i1 as i8, pointers as i64."""
        if str(t).startswith("!llvm.ptr"):
            return ir.IntegerType.get_signless(64)
        return ir.IntegerType.get_signless(8) if str(t) == "i1" else t

    def convert(self, regs, src_layout, dst_layout, tensor_type) -> list[ir.Value]:
        """Moves a tensor between layouts through shared memory."""
        elem = _scalar_type(tensor_type)
        elem_store = self._store_elem_type(elem)
        shape = tile.shape_of(tensor_type)
        numel = math.prod(shape)
        base = self.smem(numel * _bytes(elem_store))
        gpu.BarrierOp()
        for r, coord in zip(regs, self.coords(src_layout)):
            llvm.StoreOp(
                self._to_storage(r, elem, elem_store),
                self.smem_at(base, self._linear(coord, shape), elem_store),
            )
        gpu.BarrierOp()
        out = []
        for coord in self.coords(dst_layout):
            v = llvm.LoadOp(elem_store, self.smem_at(base, self._linear(coord, shape), elem_store)).result
            out.append(self._from_storage(v, elem, elem_store))
        gpu.BarrierOp()
        return out

    def _to_storage(self, v, elem, storage):
        if elem == storage:
            return v
        if str(elem) == "i1":
            return arith.extui(storage, v)
        return llvm.PtrToIntOp(storage, v).result

    def _from_storage(self, v, elem, storage):
        if elem == storage:
            return v
        if str(elem) == "i1":
            return arith.trunci(elem, v)
        return llvm.IntToPtrOp(elem, v).result

    # -- lazy ops -----------------------------------------------------------------------------
    def materialize(self, op: ir.Operation, layout) -> list[ir.Value]:
        name = op.name
        n = len(layout.registers)
        if name == "tile.make_range":
            start = ir.IntegerAttr(op.attributes["start"]).value
            return [arith.addi(c[0], _i32(start)) if start else c[0] for c in self.coords(layout)]
        if name == "tile.splat":
            return [self.scalar(op.operands[0])] * n
        if name == "arith.constant":
            attr = ir.DenseElementsAttr(op.attributes["value"])
            if not attr.is_splat:
                raise PassError("non-splat tensor constants are not supported by the GPU lowering", op)
            elem = tile.element_of(op.results[0].type)
            value = arith.ConstantOp(elem, attr.get_splat_value()).result
            return [value] * n
        if name == "tile.convert_layout":
            return self.regs(op.operands[0], layout)
        if name == "tile.ptr_cast":
            result = tile.element_of(op.results[0].type)
            return [_ptr_cast(v, result) for v in self.regs(op.operands[0], layout)]
        if name == "arith.bitcast" and lower_fp8.fp8_format(op.results[0].type):
            # fp8 operands of a tensor-core dot (tile-lower-fp8): the registers stay bytes
            return self.regs(op.operands[0], layout)
        if name == "tile.broadcast":
            src = op.operands[0]
            src_layout = layout.with_shape(tile.shape_of(src.type))
            src_regs = self.regs(src, src_layout)
            index = {static: i for i, static in enumerate(src_layout.registers)}
            src_shape = tile.shape_of(src.type)
            out = []
            for static in layout.registers:
                key = tuple(0 if src_shape[d] == 1 else s for d, s in enumerate(static))
                out.append(src_regs[index[key]])
            return out
        if name == "tile.expand_dims":
            axis = ir.IntegerAttr(op.attributes["axis"]).value
            if not isinstance(layout, Blocked):
                return self._via_default(op, layout)
            src_layout = Slice.of(layout, axis)
            return self.regs(op.operands[0], src_layout)
        if name == "tile.addptr":
            ptrs = self.regs(op.operands[0], layout)
            offs = self.regs(op.operands[1], layout)
            pointee = tile.pointee_type(tile.element_of(op.operands[0].type))
            pointee = _gptr() if tile.is_ptr(pointee) else pointee
            return [
                llvm.GEPOp(_gptr(), p, [o], [DYNAMIC_INDEX], ir.TypeAttr.get(pointee), 0).result
                for p, o in zip(ptrs, offs)
            ]
        # elementwise arith / math
        operand_regs = [
            self.regs(v, layout) if tile.shape_of(v.type) else [self.scalar(v)] * n for v in op.operands
        ]
        attrs = {k: op.attributes[k] for k in op.attributes}
        result_t = [_scalar_type(op.results[0].type)]
        if name == "arith.truncf" and _narrows_in_pairs(op.operands[0], result_t[0]) and n % 2 == 0:
            return _truncate_in_pairs(operand_regs[0], result_t[0])
        # A value the axis analysis proves constant over aligned groups (`offs < n` with n divisible
        # by 16) is computed once per group a thread holds: attention's column mask takes 4
        # comparisons per thread instead of 16.
        shared = constant_classes(layout, self.axis.get(op.results[0]).constancy)
        out = []
        try:
            for i in range(n):
                if shared is not None and shared[i] != i:
                    out.append(out[shared[i]])
                    continue
                out.append(self._scalar_math(name, result_t, [r[i] for r in operand_regs], attrs)[0])
        except PassError as e:
            raise PassError(e.message, e.op or op) from None
        return out

    def _via_default(self, op, layout):
        """Builds the value in its default layout, then converts (for rare layout combinations)."""
        t = op.results[0].type
        default = self.layout_for(tile.shape_of(t), tile.element_of(t))
        regs = self.materialize(op, default)
        return self.convert(regs, default, layout, t)

    def _scalar_math(self, name, result_types, operands, attrs) -> list[ir.Value]:
        if name == "arith.divf" and str(result_types[0]) == "f32" and "afn" in str(attrs.get("fastmath", "")):
            return [self.vendor.fast_divide(operands[0], operands[1])]
        lowering = _MATH.get(name)
        if lowering is not None:
            try:
                return [lowering(self.vendor, operands, result_types[0])]
            except PassError as e:  # name the function; the caller adds the op's location
                raise PassError(f"{name}: {e.message}", e.op) from None
        exact = attrs.pop(NO_FP_FUSION, None) is not None
        if name in ("arith.addf", "arith.subf", "arith.mulf") and str(result_types[0]) == "f32":
            # GPUs fuse a * b + c into one FMA, as Triton does by default (enable_fp_fusion); without
            # `contract` NVPTX writes mul.rn / add.rn, which ptxas does not fuse either.
            # libdevice's add_rn / mul_rn (marked NO_FP_FUSION) are never fused.
            if self.fp_fusion and not exact:
                attrs = {**attrs, "fastmath": ir.Attribute.parse("#arith.fastmath<contract>")}
        if name in ("arith.select",) and str(result_types[0]).startswith("!llvm.ptr"):
            return [llvm.SelectOp(operands[0], operands[1], operands[2]).result]
        return list(
            ir.Operation.create(name, results=result_types, operands=operands, attributes=attrs).results
        )


# ----------------------------------------------------------------------------------------------
# Math through intrinsics that both NVPTX and AMDGPU lower without device libraries
# ----------------------------------------------------------------------------------------------


def _narrows_in_pairs(source: ir.Value, result: ir.Type) -> bool:
    """f32 -> f16/bf16 truncations go two registers at a time (see _truncate_in_pairs)."""
    return str(tile.element_of(source.type)) == "f32" and str(result) in ("f16", "bf16")


def _truncate_in_pairs(values: list, result: ir.Type) -> list:
    """Registers i and i + 1 (neighbours along the fastest dimension: an accumulator's 2 columns per
    thread) rounded as one vector<2xf32> -> vector<2x(b)f16>: NVPTX emits one packed
    `cvt.rn.(b)f16x2.f32` for it, where two scalar truncations were two `cvt.rn.(b)f16.f32`, and the
    halves stay packed in one 32-bit register for the store (an fp16 matmul epilogue: 64 conversions
    per thread at 128x256x8 warps instead of 128). Other targets split the vector again."""
    wide, narrow = (ir.VectorType.get([2], t) for t in (ir.F32Type.get(), result))
    out = []
    for lo, hi in zip(values[0::2], values[1::2]):
        pair = llvm.UndefOp(wide).result
        for i, v in enumerate((lo, hi)):
            pair = llvm.InsertElementOp(pair, v, _i32(i)).result
        rounded = arith.truncf(narrow, pair)
        out += [llvm.ExtractElementOp(rounded, _i32(i)).result for i in (0, 1)]
    return out


def _ptr_cast(v: ir.Value, result: ir.Type) -> ir.Value:
    """Pointers are opaque !llvm.ptr<1> here: a cast between pointer types is the value itself."""
    if tile.is_ptr(result):
        return v if str(v.type).startswith("!llvm.ptr") else llvm.IntToPtrOp(_gptr(), v).result
    return llvm.PtrToIntOp(result, v).result


def _fastmath():
    return ir.Attribute.parse("#llvm.fastmath<afn>")


def _intrinsic(name: str, t: ir.Type, args, approx: bool = True) -> ir.Value:
    """`llvm.<name>.<type>` as a call_intrinsic: the GPU conversions would turn math ops into
    vendor-library calls (__nv_*, __ocml_*), which need device libraries we avoid."""
    suffix = {"f32": "f32", "f64": "f64", "f16": "f16"}[str(t)]
    fastmath = _fastmath() if approx else None
    op = llvm.CallIntrinsicOp(
        t, ir.StringAttr.get(f"llvm.{name}.{suffix}"), list(args), [], [], fastmathFlags=fastmath
    )
    return op.results[0]


def _exact(name):
    """An exactly rounded intrinsic, computed in f32 for f16/bf16 (exact there too)."""

    def lower(vendor, a, t):
        if str(t) in ("f32", "f64"):
            return _intrinsic(name, t, a, approx=False)
        f32 = ir.F32Type.get()
        return arith.truncf(t, _intrinsic(name, f32, [arith.extf(f32, x) for x in a], approx=False))

    return lower


def _absi(vendor, a, t):
    zero = arith.ConstantOp(t, 0).result
    return arith.select(arith.cmpi(arith.CmpIPredicate.slt, a[0], zero), arith.subi(zero, a[0]), a[0])


def _in_f32(fn):
    """Computes in f32 for f16/bf16 (and rejects f64, which would need a device library)."""

    def wrapped(vendor, operands, t):
        if str(t) == "f32":
            return fn(vendor, operands, t)
        if str(t) in ("f16", "bf16"):
            f32 = ir.F32Type.get()
            r = fn(vendor, [arith.extf(f32, o) for o in operands], f32)
            return arith.truncf(t, r)
        raise PassError(
            f"not supported for {t} on GPUs yet (it would need the vendor's device library); "
            "compute in float32, or run on the CPU target"
        )

    return wrapped


def _c(t, v):
    return arith.ConstantOp(t, v).result


@_in_f32
def _exp(vendor, a, t):
    return vendor.approx_exp2(arith.mulf(a[0], _c(t, 1.4426950408889634)))


@_in_f32
def _exp2(vendor, a, t):
    return vendor.approx_exp2(a[0])


# log, log2, sin and cos as Triton's device library gives them (within an ulp or so), not as the
# hardware's approximate units, whose errors are absolute: lg2.approx left log(1 + 1e-5) 1e7 ulp off
# and sin.approx near pi 2e6 ulp off (measured on an H200 against Triton). Computed in f64, where
# the range reductions below are exact enough with few extra-precision tricks, and rounded to f32.
_LN2 = math.log(2.0)
# atanh(s) / s = 1 + s^2/3 + s^4/5 + ...: log(m) = 2 atanh((m - 1) / (m + 1)), |s| <= 0.172 for m in
# [sqrt(1/2), sqrt(2)), where seven terms leave 1e-12 relative
_ATANH_SERIES = tuple(1.0 / (2 * n + 1) for n in range(7))
# pi/2 as three f64 values (hi + mid + lo, ~160 bits): |x| - k pi/2 by three fmas is exact far below
# an f32 ulp for every |x| < 2^50 (checked with exact rational arithmetic); larger arguments go
# through 2/pi's bits (_reduce_huge)
_PIO2_PARTS = (1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33)
_HUGE_ARGUMENT = 2.0**50
# 2/pi's first 216 bits in 24-bit chunks, 2/pi = sum d_i 2^(-24 (i + 1)) (test_gpu_math derives them)
_TWO_OVER_PI_CHUNKS = (
    0xA2F983,
    0x6E4E44,
    0x1529FC,
    0x2757D1,
    0xF534DD,
    0xC0DB62,
    0x95993C,
    0x439041,
    0xFE5163,
)
# Maclaurin series of sin (odd terms, divided by r) and cos on |r| <= pi/4: 1e-9 relative or better
_SIN_SERIES = tuple((-1) ** n / math.factorial(2 * n + 1) for n in range(7))
_COS_SERIES = tuple((-1) ** n / math.factorial(2 * n) for n in range(8))


def _fma_horner(t: ir.Type):
    """fma(u, v, w) and horner(coefficients from c0, z) = c0 + c1 z + ... by fmas, in type t."""

    def fma(u, v, w):
        return _intrinsic("fma", t, [u, v, w], approx=False)

    def horner(coefs, z):
        p = _c(t, coefs[-1])
        for coef in reversed(coefs[:-1]):
            p = fma(p, z, _c(t, coef))
        return p

    return fma, horner


def _f64_helpers():
    f64 = ir.F64Type.get()
    return (f64, *_fma_horner(f64))


def _log_f64(x: ir.Value) -> ir.Value:
    """log(x) in f64 for a finite f32 x > 0 (f32 subnormals are normal in f64): x = m 2^e with m in
    [sqrt(1/2), sqrt(2)), log m by the atanh series."""
    f64, fma, horner = _f64_helpers()
    i64 = ir.IntegerType.get_signless(64)
    bits = arith.bitcast(i64, arith.extf(f64, x))
    exponent = arith.subi(arith.andi(arith.shrui(bits, _c(i64, 52)), _c(i64, 0x7FF)), _c(i64, 1023))
    mantissa = arith.bitcast(f64, arith.ori(arith.andi(bits, _c(i64, (1 << 52) - 1)), _c(i64, 1023 << 52)))
    high = arith.cmpf(arith.CmpFPredicate.OGT, mantissa, _c(f64, math.sqrt(2.0)))
    m = arith.select(high, arith.mulf(mantissa, _c(f64, 0.5)), mantissa)
    e = arith.sitofp(f64, arith.select(high, arith.addi(exponent, _c(i64, 1)), exponent))
    f = arith.subf(m, _c(f64, 1.0))
    s = arith.divf(f, arith.addf(f, _c(f64, 2.0)))
    log_m = arith.mulf(arith.mulf(_c(f64, 2.0), s), horner(_ATANH_SERIES, arith.mulf(s, s)))
    return fma(e, _c(f64, _LN2), log_m)


def _logarithm(x: ir.Value, t: ir.Type, scale: float) -> ir.Value:
    """scale * log(x) rounded to f32, with log's special values: log 0 = -inf, log inf = inf, NaN
    for negative x and NaN."""
    f64 = ir.F64Type.get()
    value = arith.truncf(t, arith.mulf(_log_f64(x), _c(f64, scale)))
    inf = _c(t, math.inf)
    special = arith.select(
        arith.cmpf(arith.CmpFPredicate.OEQ, x, _c(t, 0.0)),
        _c(t, -math.inf),
        arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, inf), inf, _c(t, math.nan)),
    )
    ordinary = arith.andi(
        arith.cmpf(arith.CmpFPredicate.OGT, x, _c(t, 0.0)), arith.cmpf(arith.CmpFPredicate.OLT, x, inf)
    )
    return arith.select(ordinary, value, special)


@_in_f32
def _log(vendor, a, t):
    return _logarithm(a[0], t, 1.0)


@_in_f32
def _log2(vendor, a, t):
    return _logarithm(a[0], t, 1.0 / _LN2)


def _reduce_huge(a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(r, k) in f64 with a = k pi/2 + r, |r| <= pi/4, for an f32 a in [2^50, inf): a = m 2^e (m an
    integer below 2^24, e >= 27), so a 2/pi = sum m d_i 2^(e - 24 (i + 1)) over 2/pi's chunks; each
    term is exact in f64 and only its value mod 4 matters (the largest are multiples of 4 and vanish).
    Their sum is kept as two f64 (two-sum) for its fraction's low bits; k is its nearest integer."""
    f64, fma, _ = _f64_helpers()
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    bits = arith.bitcast(i32, a)
    m = arith.sitofp(f64, arith.ori(arith.andi(bits, _c(i32, 0x7FFFFF)), _c(i32, 0x800000)))
    e = arith.subi(arith.shrui(bits, _c(i32, 23)), _c(i32, 127 + 23))
    hi = lo = _c(f64, 0.0)
    for i, chunk in enumerate(_TWO_OVER_PI_CHUNKS):
        biased = arith.extsi(i64, arith.addi(e, _c(i32, 1023 - 24 * (i + 1))))
        scale = arith.bitcast(f64, arith.shli(biased, _c(i64, 52)))  # 2^(e - 24 (i + 1))
        term = arith.mulf(arith.mulf(m, _c(f64, float(chunk))), scale)
        quarter = _intrinsic("floor", f64, [arith.mulf(term, _c(f64, 0.25))], approx=False)
        term = fma(quarter, _c(f64, -4.0), term)  # term mod 4, exactly
        total = arith.addf(hi, term)  # two-sum: total + error == hi + term exactly
        back = arith.subf(total, hi)
        error = arith.addf(arith.subf(hi, arith.subf(total, back)), arith.subf(term, back))
        hi, lo = total, arith.addf(lo, error)
    k = _intrinsic("roundeven", f64, [hi], approx=False)
    fraction = arith.addf(arith.subf(hi, k), lo)
    r = fma(fraction, _c(f64, _PIO2_PARTS[0]), arith.mulf(fraction, _c(f64, _PIO2_PARTS[1])))
    return r, k


def _sine(x: ir.Value, t: ir.Type, cosine: bool) -> ir.Value:
    """sin x (cos x = sin(x + pi/2): one quadrant on) from |x| = k pi/2 + r: by k mod 4 sin r, cos r,
    -sin r or -cos r; sin takes x's sign back (-0 included)."""
    f64, fma, horner = _f64_helpers()
    i32 = ir.IntegerType.get_signless(32)
    a = _intrinsic("fabs", t, [x], approx=False)
    huge = arith.andi(
        arith.cmpf(arith.CmpFPredicate.OGE, a, _c(t, _HUGE_ARGUMENT)),
        arith.cmpf(arith.CmpFPredicate.OLT, a, _c(t, math.inf)),
    )
    reduction = scf.IfOp(huge, [f64, f64], has_else=True)
    with ir.InsertionPoint(reduction.then_block):
        scf.YieldOp(list(_reduce_huge(a)))
    with ir.InsertionPoint(reduction.else_block):
        ad = arith.extf(f64, a)
        k = _intrinsic("roundeven", f64, [arith.mulf(ad, _c(f64, 2.0 / math.pi))], approx=False)
        r = ad
        for part in _PIO2_PARTS:
            r = fma(arith.negf(k), _c(f64, part), r)
        scf.YieldOp([r, k])
    r, k = reduction.results
    z = arith.mulf(r, r)
    sin_r = arith.mulf(r, horner(_SIN_SERIES, z))
    cos_r = horner(_COS_SERIES, z)
    # k mod 4, exact in f64 (k - 4 floor(k / 4)); NaN (x infinite or NaN) as 0: r is NaN then
    quarter = _intrinsic("floor", f64, [arith.mulf(k, _c(f64, 0.25))], approx=False)
    turns = arith.subf(k, arith.mulf(quarter, _c(f64, 4.0)))
    turns = arith.select(arith.cmpf(arith.CmpFPredicate.ORD, turns, turns), turns, _c(f64, 0.0))
    quadrant = arith.fptosi(i32, turns)
    if cosine:
        quadrant = arith.addi(quadrant, _c(i32, 1))
    odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(quadrant, _c(i32, 1)), _c(i32, 0))
    negative = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(quadrant, _c(i32, 2)), _c(i32, 0))
    value = arith.select(odd, cos_r, sin_r)
    value = arith.truncf(t, arith.select(negative, arith.negf(value), value))
    if cosine:
        return value
    value = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, x, _c(t, 0.0)), arith.negf(value), value)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, x, _c(t, 0.0)), x, value)


@_in_f32
def _sin(vendor, a, t):
    return _sine(a[0], t, cosine=False)


@_in_f32
def _cos(vendor, a, t):
    return _sine(a[0], t, cosine=True)


@_in_f32
def _rsqrt(vendor, a, t):
    return arith.divf(_c(t, 1.0), _intrinsic("sqrt", t, [a[0]], approx=False))


@_in_f32
def _tanh(vendor, a, t):
    # tanh(x) = 1 - 2 / (exp(2x) + 1), exact at both infinities; below |x| = 0.625 that cancels (1e-3
    # came out 1e-4 off, relatively), so there an odd polynomial (Cephes' tanhf, ~1e-7 relative)
    x = a[0]
    e = _exp(vendor, [arith.mulf(x, _c(t, 2.0))], t)
    by_exp = arith.subf(_c(t, 1.0), arith.divf(_c(t, 2.0), arith.addf(e, _c(t, 1.0))))
    z = arith.mulf(x, x)
    poly = _c(t, -5.70498872745e-3)
    for coef in (2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1):
        poly = arith.addf(arith.mulf(poly, z), _c(t, coef))
    small = arith.addf(arith.mulf(arith.mulf(poly, z), x), x)
    ax = _intrinsic("fabs", t, [x], approx=False)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OLT, ax, _c(t, 0.625)), small, by_exp)


# erf in two polynomials fitted by tools/fit_erf.py (least squares against float64 erf/erfc; within
# 2.2 ulp of erf itself everywhere, fma-evaluated in f32): below |x| = 1, x Q(x^2); from 1 on,
# 1 - 2^P(|x|) with P fitted to log2(erfc) up to 3.92, past which erf rounds to 1 in f32.
_ERF_SPLIT, _ERF_CLAMP = 1.0, 3.92
_ERF_NEAR = (
    1.1283791065216064, -0.37612318992614746, 0.11280130594968796, -0.02670994959771633,
    0.004916023463010788, -0.0005625396152026951,
)  # fmt: skip
_ERF_FAR = (
    0.0004583241534419358, -1.6305724382400513, -0.9115407466888428, -0.15881215035915375,
    0.038122523576021194, -0.0068700965493917465, 0.0008621221059001982, -6.662506348220631e-05,
    2.3731840883556288e-06,
)  # fmt: skip


@_in_f32
def _erf(vendor, a, t):
    # No device library. A single formula of the form 1 - P(t) exp(-x^2) (A&S 7.1.26, used before)
    # cancels near 0: erf(1e-30) came out 0 or ~1e-7. This one also takes fewer instructions.
    x = a[0]
    _, horner = _fma_horner(t)
    ax = _intrinsic("fabs", t, [x], approx=False)
    near = arith.mulf(horner(_ERF_NEAR, arith.mulf(x, x)), x)
    clamped = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, ax, _c(t, _ERF_CLAMP)), ax, _c(t, _ERF_CLAMP))
    tail = vendor.approx_exp2(horner(_ERF_FAR, clamped))
    far = _intrinsic("copysign", t, [arith.subf(_c(t, 1.0), tail), x], approx=False)
    value = arith.select(arith.cmpf(arith.CmpFPredicate.OLT, ax, _c(t, _ERF_SPLIT)), near, far)
    # NaN in, NaN out (the clamp above turned it into 3.92)
    return arith.select(arith.cmpf(arith.CmpFPredicate.ORD, x, x), value, x)


_MATH = {
    "math.exp": _exp,
    "math.exp2": _exp2,
    "math.log": _log,
    "math.log2": _log2,
    "math.sin": _sin,
    "math.cos": _cos,
    "math.rsqrt": _rsqrt,
    "math.tanh": _tanh,
    "math.erf": _erf,
    "math.sqrt": _exact("sqrt"),
    "math.absf": _exact("fabs"),
    "math.floor": _exact("floor"),
    "math.ceil": _exact("ceil"),
    "math.fma": _exact("fma"),
    "math.copysign": _exact("copysign"),
    "math.trunc": _exact("trunc"),
    "math.round": _exact("round"),
    "math.roundeven": _exact("roundeven"),
    "math.absi": _absi,
}


# ----------------------------------------------------------------------------------------------
# Eager ops
# ----------------------------------------------------------------------------------------------


def _program_id(self: _KernelLowering, op):
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    dim = [gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z][axis]
    if op.name == "tile.num_programs":
        size = self.vendor.num_programs(self, axis)
        if size is not None:
            self.scalars[op.results[0]] = size
            return
    cls = gpu.BlockIdOp if op.name == "tile.program_id" else gpu.GridDimOp
    self.scalars[op.results[0]] = arith.index_cast(ir.IntegerType.get_signless(32), cls(dim).result)


def _vector_groups(self, ptr: ir.Value, mask: ir.Value | None, layout: Blocked, elem_bytes: int) -> int:
    """How many consecutive registers one access may cover (1 = scalar accesses)."""
    if not isinstance(layout, Blocked):
        return 1
    fast = layout.order[0]
    run = min(layout.size_per_thread[fast], layout.shape[fast])
    info = self.axis.get(ptr)
    width = min(
        run, info.contiguity[fast], max(1, info.divisibility[fast] // elem_bytes), max(1, 16 // elem_bytes)
    )
    if mask is not None:
        width = min(width, self.axis.get(mask).constancy[fast])
    width = 1 << (max(1, width).bit_length() - 1)
    return max(1, width)


def _vector_type(elem, n):
    return ir.VectorType.get([n], elem)


def _load(self: _KernelLowering, op):
    if op in self.streamed:  # a warpgroup-MMA operand copied into shared memory (cp_async.py):
        # before the loop (issue_prologues) or after the dot's barrier in the body (Ring.issue_ahead)
        self.set_natural(op.results[0], tensor_cores.IN_SHARED_MEMORY, [])
        return
    seg = segments(op)
    ptr = seg["ptr"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    other = seg["other"][0] if seg["other"] else None
    res_t = op.results[0].type
    elem = _scalar_type(res_t)
    volatile = "volatile" in op.attributes
    if not tile.shape_of(res_t):
        p = self.scalar(ptr)
        m = self.scalar(mask) if mask is not None else None
        o = [self.scalar(other)] if other is not None else None
        self.scalars[op.results[0]] = _vector_load(p, m, o, elem, 1, volatile)[0]
        return
    layout = self.load_layouts.get(op.results[0]) or self.layout_for(tile.shape_of(res_t), elem)
    ptrs = self.regs(ptr, layout)
    masks = self.regs(mask, layout) if mask is not None else None
    others = self.regs(other, layout) if other is not None else None
    width = _vector_groups(self, ptr, mask, layout, _bytes(elem))
    out = []
    for start in range(0, len(ptrs), width):
        group_others = others[start : start + width] if others is not None else None
        m = masks[start] if masks is not None else None
        out.extend(_vector_load(ptrs[start], m, group_others, elem, width, volatile))
    self.set_natural(op.results[0], layout, out)


def _vector_load(ptr, mask, others, elem, width, volatile) -> list[ir.Value]:
    alignment = width * _bytes(elem)
    vec_t = _vector_type(elem, width) if width > 1 else elem

    def do_load():
        return llvm.LoadOp(vec_t, ptr, alignment=alignment, volatile_=True if volatile else None).result

    if mask is None:
        value = do_load()
    else:
        branch = scf.IfOp(mask, [vec_t], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([do_load()])
        with ir.InsertionPoint(branch.else_block):
            if width == 1:
                fallback = others[0] if others is not None else zero(elem)
            else:
                fallback = llvm.UndefOp(vec_t).result if others is None else _pack(others, vec_t)
                if others is None:
                    fallback = _pack([zero(elem)] * width, vec_t)
            scf.YieldOp([fallback])
        value = branch.results[0]
    if width == 1:
        return [value]
    return [llvm.ExtractElementOp(value, _i32(i)).result for i in range(width)]


def _pack(values, vec_t):
    v = llvm.UndefOp(vec_t).result
    for i, x in enumerate(values):
        v = llvm.InsertElementOp(v, x, _i32(i)).result
    return v


def _store(self: _KernelLowering, op):
    seg = segments(op)
    ptr, value = seg["ptr"][0], seg["value"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    shape = tile.shape_of(ptr.type)
    elem = _scalar_type(value.type)
    if not shape:
        _guarded(
            self.scalar(mask) if mask is not None else None,
            lambda: llvm.StoreOp(self.scalar(value), self.scalar(ptr)),
        )
        return
    layout = self.accumulator_layout_of(value) or self.layout_for(shape, elem)
    values = self.regs(value, layout)
    wide = store_vectors.interleaved_for_store(self, layout, ptr, mask, elem, _bytes(elem))
    if wide is not None:  # lanes swap fragments for wider stores
        values = store_vectors.exchange(values, layout, wide, elem, self.lane, self.warp_size)
        layout = wide
    ptrs = self.regs(ptr, layout)
    masks = self.regs(mask, layout) if mask is not None else None
    width = _vector_groups(self, ptr, mask, layout, _bytes(elem))
    alignment = width * _bytes(elem)
    for start in range(0, len(ptrs), width):
        group = values[start : start + width]
        m = masks[start] if masks is not None else None

        def do_store(group=group, start=start):
            v = group[0] if width == 1 else _pack(group, _vector_type(elem, width))
            llvm.StoreOp(v, ptrs[start], alignment=alignment)

        _guarded(m, do_store)


def _guarded(cond, emit):
    if cond is None:
        emit()
        return
    branch = scf.IfOp(cond, [], has_else=False)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def _syncscope(op):
    scope = ir.StringAttr(op.attributes["scope"]).value if "scope" in op.attributes else "gpu"
    return {"gpu": "device", "cta": "block", "sys": None}.get(scope)


def _atomic(self: _KernelLowering, op):
    is_cas = op.name == "tile.atomic_cas"
    if is_cas:
        ptr, cmp, value = op.operands
        mask = None
    else:
        seg = segments(op)
        ptr, value = seg["ptr"][0], seg["value"][0]
        mask = seg["mask"][0] if seg["mask"] else None
        cmp = None
    elem = _scalar_type(value.type)
    shape = tile.shape_of(ptr.type)
    ordering = lc_ordering(semantics_of(op))
    kind = None if is_cas else ir.StringAttr(op.attributes["kind"]).value

    def one(p, v, c):
        if is_cas:
            # cmpxchg takes integers: a float CAS is the CAS of its bits (atom.cas compares bits)
            bits = ir.IntegerType.get_signless(ir.FloatType(elem).width) if _is_float(elem) else elem
            if bits != elem:
                c, v = arith.bitcast(bits, c), arith.bitcast(bits, v)
            pair = llvm.AtomicCmpXchgOp(p, c, v, ordering, llvm.AtomicOrdering.monotonic).result
            old = llvm.ExtractValueOp(bits, pair, [0]).result
            return old if bits == elem else arith.bitcast(elem, old)
        return llvm.AtomicRMWOp(rmw_op(kind, elem), p, v, ordering).result

    def guarded_one(cond, p, v, c):
        if cond is None:
            return one(p, v, c)
        branch = scf.IfOp(cond, [elem], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([one(p, v, c)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([zero(elem)])
        return branch.results[0]

    if not shape:
        # One thread performs a scalar atomic; the old value reaches the others through shared memory.
        first = arith.cmpi(arith.CmpIPredicate.eq, self.tid, _i32(0))
        cond = first if mask is None else arith.andi(first, self.scalar(mask))
        old = guarded_one(
            cond, self.scalar(ptr), self.scalar(value), self.scalar(cmp) if cmp is not None else None
        )
        base = self.smem(_bytes(elem))
        storage = self._store_elem_type(elem)
        self.smem_write_fence()
        _guarded(first, lambda: llvm.StoreOp(old, self.smem_at(base, _i32(0), storage)))
        gpu.BarrierOp()
        result = llvm.LoadOp(storage, self.smem_at(base, _i32(0), storage)).result
        self.smem_dirty = True
        self.scalars[op.results[0]] = result
        return
    layout = self.layout_for(shape, elem)
    ptrs, values = self.regs(ptr, layout), self.regs(value, layout)
    cmps = self.regs(cmp, layout) if cmp is not None else [None] * len(ptrs)
    masks = self.regs(mask, layout) if mask is not None else [None] * len(ptrs)
    primary = self.replica_predicate(layout)  # replicated threads must not repeat the atomic
    out = []
    for p, v, c, m in zip(ptrs, values, cmps, masks):
        cond = m if primary is None else (primary if m is None else arith.andi(primary, m))
        out.append(guarded_one(cond, p, v, c))
    self.set_natural(op.results[0], layout, out)


# -- reductions -------------------------------------------------------------------------------


def _shuffle_xor(v: ir.Value, offset: int, width: int) -> ir.Value:
    """gpu.shuffle xor for any scalar type (it takes 32-bit values only)."""
    t = v.type
    i32 = ir.IntegerType.get_signless(32)
    f32 = ir.F32Type.get()

    def shfl(x):
        return gpu.ShuffleOp(x, _i32(offset), _i32(width), gpu.ShuffleMode.XOR).results[0]

    s = str(t)
    if s in ("f32", "i32"):
        return shfl(v)
    if s in ("f16", "bf16"):
        return arith.truncf(t, shfl(arith.extf(f32, v)))
    if s in ("i1", "i8", "i16"):
        return arith.trunci(t, shfl(arith.extui(i32, v)))
    if s in ("i64", "f64"):
        i64 = ir.IntegerType.get_signless(64)
        bits = v if s == "i64" else arith.bitcast(i64, v)
        lo = shfl(arith.trunci(i32, bits))
        hi = shfl(arith.trunci(i32, arith.shrui(bits, arith.ConstantOp(i64, 32).result)))
        joined = arith.ori(
            arith.extui(i64, lo), arith.shli(arith.extui(i64, hi), arith.ConstantOp(i64, 32).result)
        )
        return joined if s == "i64" else arith.bitcast(t, joined)
    if s.startswith("!llvm.ptr"):
        i64 = ir.IntegerType.get_signless(64)
        return llvm.IntToPtrOp(t, _shuffle_xor(llvm.PtrToIntOp(i64, v).result, offset, width)).result
    raise PassError(f"cannot shuffle values of type {t}")


def _reduce(self: _KernelLowering, op):
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    shape = tile.shape_of(srcs[0].type)
    block = op.regions[0].blocks[0]
    # A reduction of a tensor-core accumulator (attention's row max and sum) reduces in its layout.
    layout = self.accumulator_layout_of(srcs[0]) or self.layout_for(shape, tile.element_of(srcs[0].type))
    inputs = [self.regs(s, layout) for s in srcs]
    out_layout = Slice.of(layout, axis)
    # 1. in-thread: combine registers that differ only along the axis
    groups: dict = {}
    for i, static in enumerate(layout.registers):
        key = static[:axis] + static[axis + 1 :]
        vals = [regs[i] for regs in inputs]
        groups[key] = vals if key not in groups else clone_combiner(block, groups[key], vals)
    keys = out_layout.registers
    partial = [groups[k] for k in keys]
    # 2. across lanes: butterfly over the lane bits that hold distinct elements along the axis
    lanes = layout.distinct_lanes(axis)
    stride = layout.lane_stride(axis)
    step = 1
    while step < lanes:
        partial = [
            clone_combiner(block, vals, [_shuffle_xor(v, step * stride, self.warp_size) for v in vals])
            for vals in partial
        ]
        step *= 2
    # 3. across warps: through shared memory
    warps = layout.distinct_warps(axis)
    if warps > 1:
        partial = _reduce_across_warps(self, partial, out_layout, layout, axis, warps, block, srcs)
    if not out_layout.shape:
        for r, v in zip(op.results, partial[0]):
            self.scalars[r] = v
        return
    for k, r in enumerate(op.results):
        self.set_natural(r, out_layout, [vals[k] for vals in partial])


def _reduce_across_warps(self, partial, out_layout, layout, axis, warps, block, srcs):
    out_shape = out_layout.shape or (1,)
    numel = math.prod(out_shape)
    elems = [_scalar_type(s.type) for s in srcs]
    storages = [self._store_elem_type(e) for e in elems]
    offsets, total = [], 0
    for st in storages:
        offsets.append(total)
        total += numel * warps * _bytes(st)
    base = self.smem(total)
    warp_axis = arith.remui(
        arith.divui(self.warp, _i32(layout.warp_stride(axis))), _i32(layout.warps_per_cta[axis])
    )
    warp_axis = arith.remui(warp_axis, _i32(warps))
    coords = self.coords(out_layout) if out_layout.shape else [[] for _ in partial]
    self.smem_write_fence()
    for vals, coord in zip(partial, coords):
        lin = self._linear(coord, out_shape) if coord else _i32(0)
        slot = arith.addi(arith.muli(lin, _i32(warps)), warp_axis)
        for v, e, st, off in zip(vals, elems, storages, offsets):
            region = llvm.GEPOp(
                _sptr(), base, [], [off], ir.TypeAttr.get(ir.IntegerType.get_signless(8)), 0
            ).result
            llvm.StoreOp(self._to_storage(v, e, st), self.smem_at(region, slot, st))
    gpu.BarrierOp()
    result = []
    for coord in coords:
        lin = self._linear(coord, out_shape) if coord else _i32(0)
        acc = None
        for w in range(warps):
            slot = arith.addi(arith.muli(lin, _i32(warps)), _i32(w))
            vals = []
            for e, st, off in zip(elems, storages, offsets):
                region = llvm.GEPOp(
                    _sptr(), base, [], [off], ir.TypeAttr.get(ir.IntegerType.get_signless(8)), 0
                ).result
                vals.append(self._from_storage(llvm.LoadOp(st, self.smem_at(region, slot, st)).result, e, st))
            acc = vals if acc is None else clone_combiner(block, acc, vals)
        result.append(acc)
    self.smem_dirty = True
    return result


# -- structured control flow ------------------------------------------------------------------


def _flatten(self, values, layouts):
    out = []
    for v, layout in zip(values, layouts):
        out.extend(self.regs(v, layout) if layout is not None else [self.scalar(v)])
    return out


def _carried_layouts(self, values):
    in_smem = set().union(*(ring.carried for ring in self.rings.values())) if self.rings else set()
    return [
        tensor_cores.IN_SHARED_MEMORY
        if v in in_smem
        else (
            self.preferred.get(v)
            or self.load_layouts.get(v)
            or self.layout_for(tile.shape_of(v.type), tile.element_of(v.type))
        )
        if tile.shape_of(v.type)
        else None
        for v in values
    ]


def _bind(self, olds, layouts, news):
    it = iter(news)
    for old, layout in zip(olds, layouts):
        if layout is None:
            self.scalars[old] = next(it)
        else:
            self.set_natural(old, layout, [next(it) for _ in layout.registers])


def _types(self, olds, layouts):
    out = []
    for old, layout in zip(olds, layouts):
        t = _scalar_type(old.type)
        out.extend([t] * (len(layout.registers) if layout is not None else 1))
    return out


def _for(self: _KernelLowering, op):
    self.smem_dirty = True
    state = self.vendor.before_loop(self, op)
    lb, ub, step = (self.scalar(v) for v in list(op.operands)[:3])
    inits = list(op.operands)[3:]
    layouts = _carried_layouts(self, inits)
    flat = _flatten(self, inits, layouts)
    loop = scf.ForOp(lb, ub, step, flat)
    body = op.regions[0].blocks[0]
    with ir.InsertionPoint(loop.body):
        self.smem_dirty = True
        self.scalars[body.arguments[0]] = loop.induction_variable
        _bind(self, list(body.arguments)[1:], layouts, list(loop.inner_iter_args))
        self._anchor(list(body.arguments))
        self.lower_block_ops(body)
        yielded = list(list(body.operations)[-1].operands)
        scf.YieldOp(_flatten(self, yielded, layouts))
    self.smem_dirty = True
    _bind(self, list(op.results), layouts, list(loop.results))
    self.vendor.after_loop(self, op, state)


def _if(self: _KernelLowering, op):
    self.smem_dirty = True
    cond = self.scalar(op.operands[0])
    layouts = _carried_layouts(self, list(op.results))
    types = _types(self, list(op.results), layouts)
    has_else = len(op.regions[1].blocks) > 0
    branch = scf.IfOp(cond, types, has_else=has_else or bool(types))
    # The branches never run together: the shared-memory regions each one takes (rings, a looped
    # dot's buffers, all used only inside it) may overlap the other's (tile-pointer-tensor-copies'
    # two copies of a kernel body take one set of rings' memory, not two).
    regions_start, regions_end = self.region_bytes, self.region_bytes
    for region, new_block in (
        (op.regions[0], branch.then_block),
        (op.regions[1], branch.else_block if has_else else None),
    ):
        if new_block is None:
            continue
        self.region_bytes = regions_start
        old_block = region.blocks[0]
        with ir.InsertionPoint(new_block):
            self.smem_dirty = True
            state = self.vendor.branch_state(self)
            self.lower_block_ops(old_block)
            self.vendor.end_branch(self, state)
            yielded = list(list(old_block.operations)[-1].operands)
            scf.YieldOp(_flatten(self, yielded, layouts))
        regions_end = max(regions_end, self.region_bytes)
    self.region_bytes = regions_end
    self.smem_dirty = True
    _bind(self, list(op.results), layouts, list(branch.results))


def _while(self: _KernelLowering, op):
    self.smem_dirty = True
    inits = list(op.operands)
    layouts = _carried_layouts(self, inits)
    types = _types(self, inits, layouts)
    result_layouts = _carried_layouts(self, list(op.results))
    loop = scf.WhileOp(_types(self, list(op.results), result_layouts), _flatten(self, inits, layouts))
    before_old, after_old = op.regions[0].blocks[0], op.regions[1].blocks[0]
    before = loop.before.blocks.append(*types)
    after = loop.after.blocks.append(*_types(self, list(after_old.arguments), result_layouts))
    with ir.InsertionPoint(before):
        self.smem_dirty = True
        _bind(self, list(before_old.arguments), layouts, list(before.arguments))
        self._anchor(list(before_old.arguments))
        self.lower_block_ops(before_old)
        cond_op = list(before_old.operations)[-1]
        scf.ConditionOp(
            self.scalar(cond_op.operands[0]), _flatten(self, list(cond_op.operands)[1:], result_layouts)
        )
    with ir.InsertionPoint(after):
        self.smem_dirty = True
        _bind(self, list(after_old.arguments), result_layouts, list(after.arguments))
        self._anchor(list(after_old.arguments))
        self.lower_block_ops(after_old)
        yielded = list(list(after_old.operations)[-1].operands)
        scf.YieldOp(_flatten(self, yielded, layouts))
    self.smem_dirty = True
    _bind(self, list(op.results), result_layouts, list(loop.results))


def _via_shared(self: _KernelLowering, op):
    """reshape / trans: write in the source layout, read back by the mapped coordinates."""
    src = op.operands[0]
    if self.natural.get(src, (None,))[0] is tensor_cores.IN_SHARED_MEMORY:
        # the transpose of a streamed tile (a warpgroup MMA's A = trans(X)): the ring holds it as
        # the instruction reads it
        self.set_natural(op.results[0], tensor_cores.IN_SHARED_MEMORY, [])
        return
    uses = []
    for use in op.results[0].uses:  # through fp8 bytes seen as fp8 (tile-lower-fp8)
        owner = use.owner
        if owner.name == "arith.bitcast" and lower_fp8.fp8_format(owner.results[0].type):
            uses.extend(owner.results[0].uses)
        else:
            uses.append(use)
    if uses and all(
        use.owner.name == "tile.dot"
        and use.operand_number == 1
        and self.vendor.stores_transposed(self, use.owner)
        for use in uses
    ):
        return  # only warpgroup MMAs read it, and they store the source transposed themselves
    src_shape, dst_shape = tile.shape_of(src.type), tile.shape_of(op.results[0].type)
    elem = _scalar_type(src.type)
    storage = (
        self._store_elem_type(elem)
        if not str(elem).startswith("!llvm.ptr")
        else ir.IntegerType.get_signless(64)
    )
    src_layout = self.layout_for(src_shape, tile.element_of(src.type))
    dst_layout = self.layout_for(dst_shape, tile.element_of(src.type))
    regs = self.regs(src, src_layout)
    base = self.smem(math.prod(src_shape) * _bytes(storage))
    self.smem_write_fence()
    for r, coord in zip(regs, self.coords(src_layout)):
        llvm.StoreOp(
            self._to_storage(r, elem, storage), self.smem_at(base, self._linear(coord, src_shape), storage)
        )
    gpu.BarrierOp()
    out = []
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"])) if op.name == "tile.trans" else None
    for coord in self.coords(dst_layout):
        if order is not None:  # result dim i is source dim order[i]
            src_coord = [None] * len(coord)
            for i, o in enumerate(order):
                src_coord[o] = coord[i]
            index = self._linear(src_coord, src_shape)
        else:  # reshape keeps the row-major linear index
            index = self._linear(coord, dst_shape)
        v = llvm.LoadOp(storage, self.smem_at(base, index, storage)).result
        out.append(self._from_storage(v, elem, storage))
    self.smem_dirty = True
    self.set_natural(op.results[0], dst_layout, out)


def _smem_regions(self, shapes, storages) -> list:
    """One region of the scratch space per tensor (16-byte aligned): their base addresses."""
    offsets, total = [], 0
    for st, shape in zip(storages, shapes):
        offsets.append(total)
        total += -(-math.prod(shape) * _bytes(st) // 16) * 16
    base = self.smem(total)
    i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
    return [llvm.GEPOp(_sptr(), base, [], [off], i8, 0).result for off in offsets]


def _write_to_smem(self, regions, values_by_src, layouts, shapes, elems, storages) -> None:
    """Each tensor's registers into its region, at their row-major positions."""
    for regs, layout, shape, e, st, region in zip(values_by_src, layouts, shapes, elems, storages, regions):
        for r, coord in zip(regs, self.coords(layout)):
            llvm.StoreOp(self._to_storage(r, e, st), self.smem_at(region, self._linear(coord, shape), st))


def _stage_in_smem(self, values_by_src, layouts, shapes, elems):
    """Writes whole tensors to shared memory (one region each); returns (region bases, storage types)."""
    storages = [self._store_elem_type(e) for e in elems]
    regions = _smem_regions(self, shapes, storages)
    self.smem_write_fence()
    _write_to_smem(self, regions, values_by_src, layouts, shapes, elems, storages)
    gpu.BarrierOp()
    return regions, storages


def _gather(self: _KernelLowering, op):
    """tl.gather: src written to shared memory once (in its layout), each result element read back
    at its coordinates with the gathered axis' one taken from the index (0 outside src). Linear in
    the elements, where a selection among src.shape[axis] candidates per element spilled from 64x64
    on (sm_90a, 4 warps: 880 bytes of spills; 128x64 took a minute to compile)."""
    src, index = op.operands
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    src_shape, shape = tile.shape_of(src.type), tile.shape_of(op.results[0].type)
    elem = _scalar_type(src.type)
    src_layout = self.layout_for(src_shape, tile.element_of(src.type))
    layout = self.layout_of_inputs(index) or self.layout_for(shape, tile.element_of(src.type))
    (region,), (storage,) = _stage_in_smem(
        self, [self.regs(src, src_layout)], [src_layout], [src_shape], [elem]
    )
    index_t = tile.element_of(index.type)
    size = arith.ConstantOp(index_t, src_shape[axis]).result
    zero_index, zero_elem = zero(index_t), zero(elem)
    out = []
    for i, coord in zip(self.regs(index, layout), self.coords(layout)):
        inside = arith.cmpi(arith.CmpIPredicate.ult, i, size)  # negative indices too
        safe = arith.select(inside, i, zero_index)
        c = list(coord)
        c[axis] = safe if index_t.width == 32 else arith.trunci(ir.IntegerType.get_signless(32), safe)
        v = llvm.LoadOp(storage, self.smem_at(region, self._linear(c, src_shape), storage)).result
        out.append(arith.select(inside, self._from_storage(v, elem, storage), zero_elem))
    self.smem_dirty = True
    self.set_natural(op.results[0], layout, out)


def _histogram(self: _KernelLowering, op):
    """tl.histogram: num_bins i32 counters in shared memory, zeroed, one shared-memory atomic add per
    counted element (by the thread that owns it), then read back in the result's layout. Linear in
    the elements, where comparing each with every bin took 67 s to compile at 4096 x 512."""
    seg = segments(op)
    src = seg["src"][0]
    mask = seg["mask"][0] if seg.get("mask") else None
    bins = ir.IntegerAttr(op.attributes["num_bins"]).value
    (n,) = tile.shape_of(src.type)
    value_t = _scalar_type(src.type)
    layout = self.layout_of_inputs(src) or self.layout_for([n], value_t)
    values = self.regs(src, layout)
    keeps = self.regs(mask, layout) if mask is not None else [None] * len(values)
    i32 = ir.IntegerType.get_signless(32)
    base = self.smem(bins * 4)
    self.smem_write_fence()
    zeroing = scf.ForOp(self.tid, _i32(bins), _i32(self.threads))
    with ir.InsertionPoint(zeroing.body):
        llvm.StoreOp(_i32(0), self.smem_at(base, zeroing.induction_variable, i32))
        scf.YieldOp([])
    gpu.BarrierOp()
    owner = self.replica_predicate(layout)  # a replicated element is counted once
    wide_t = value_t if value_t.width >= 32 else i32  # where the bin numbers fit (512 is no i8)
    limit = arith.ConstantOp(wide_t, bins).result
    for value, keep in zip(values, keeps):
        value = value if value_t == wide_t else arith.extsi(wide_t, value)
        counted = arith.cmpi(arith.CmpIPredicate.ult, value, limit)  # negative values are not
        for extra in (keep, owner):
            if extra is not None:
                counted = arith.andi(counted, extra)
        bin_index = value if wide_t.width == 32 else arith.trunci(i32, value)

        def count(bin_index=bin_index):
            llvm.AtomicRMWOp(
                llvm.AtomicBinOp.add,
                self.smem_at(base, bin_index, i32),
                _i32(1),
                llvm.AtomicOrdering.monotonic,
            )

        _guarded(counted, count)
    gpu.BarrierOp()
    out_layout = self.layout_for([bins], i32)
    out = [llvm.LoadOp(i32, self.smem_at(base, coord[0], i32)).result for coord in self.coords(out_layout)]
    self.smem_dirty = True
    self.set_natural(op.results[0], out_layout, out)


def _scan(self: _KernelLowering, op):
    """Inclusive scan in log2(n) rounds through shared memory (Hillis and Steele): in the round of
    distance d every element combines the partial result d places before it (after it for a reverse
    scan) with its own, the earlier elements' value on the left, as the sequential scan has them.
    One buffer (the tile's size, as before) and two barriers a round. (Combining each element's
    whole prefix, as this did before, read n^2 / 2 elements per row: a 1024-element cumsum read
    ~500 thousand where it now reads 10 thousand.)"""
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    shape = tile.shape_of(srcs[0].type)
    n = shape[axis]
    block = op.regions[0].blocks[0]
    layout = self.layout_for(shape, tile.element_of(srcs[0].type))
    elems = [_scalar_type(x.type) for x in srcs]
    storages = [self._store_elem_type(e) for e in elems]
    current = [self.regs(x, layout) for x in srcs]  # per operand, per register
    coords = self.coords(layout)
    if n > 1:
        shapes, layouts = [shape] * len(srcs), [layout] * len(srcs)
        regions = _smem_regions(self, shapes, storages)
        distance = 1
        while distance < n:
            self.smem_write_fence()  # the previous round's reads are done
            _write_to_smem(self, regions, current, layouts, shapes, elems, storages)
            gpu.BarrierOp()
            updated = [[] for _ in srcs]
            for k, coord in enumerate(coords):
                j = coord[axis]
                own = [regs[k] for regs in current]
                if reverse:  # a partner after j: j + d < n
                    has_partner = arith.cmpi(arith.CmpIPredicate.ult, j, _i32(n - distance))
                    partner_j = arith.addi(j, _i32(distance))
                else:  # a partner before j: j >= d
                    has_partner = arith.cmpi(arith.CmpIPredicate.uge, j, _i32(distance))
                    partner_j = arith.subi(j, _i32(distance))
                branch = scf.IfOp(has_partner, [v.type for v in own], has_else=True)
                with ir.InsertionPoint(branch.then_block):
                    c = list(coord)
                    c[axis] = partner_j
                    index = self._linear(c, shape)
                    partner = [
                        self._from_storage(llvm.LoadOp(st, self.smem_at(rg, index, st)).result, e, st)
                        for rg, st, e in zip(regions, storages, elems)
                    ]
                    scf.YieldOp(clone_combiner(block, partner, own))
                with ir.InsertionPoint(branch.else_block):
                    scf.YieldOp(own)
                for out, v in zip(updated, branch.results):
                    out.append(v)
            current = updated
            distance *= 2
            self.smem_dirty = True
    for r, regs in zip(op.results, current):
        self.set_natural(r, layout, regs)


def _dot(self: _KernelLowering, op):
    """a @ b + acc: on tensor cores where the option allows and the shapes and types fit (mma.py),
    else through shared memory with FMAs (correct for every type and shape)."""
    chosen = self.tensor_core_lowering(op)
    if chosen is not None:
        lowering, kind = chosen
        lowering.lower_dot(self, op, kind, _sptr(), DYNAMIC_INDEX)
        return
    a, b, acc = op.operands
    if lower_fp8.fp8_format(a.type) or lower_fp8.fp8_format(b.type):
        raise PassError(
            "this tl.dot on fp8 fits no fp8 tensor-core instruction: run tile-lower-fp8 first", op
        )
    (m, k), (_, n) = tile.shape_of(a.type), tile.shape_of(b.type)
    a_layout = self.layout_for([m, k], tile.element_of(a.type))
    b_layout = self.layout_for([k, n], tile.element_of(b.type))
    out_layout = self.layout_for([m, n], tile.element_of(acc.type))
    acc_regs = self.regs(acc, out_layout)
    elems = [_scalar_type(a.type), _scalar_type(b.type)]
    (ra, rb), (sa, sb) = _stage_in_smem(
        self, [self.regs(a, a_layout), self.regs(b, b_layout)], [a_layout, b_layout], [[m, k], [k, n]], elems
    )
    out_t = _scalar_type(acc.type)
    result = []
    for coord, init in zip(self.coords(out_layout), acc_regs):
        row, col = coord
        loop = scf.ForOp(_i32(0), _i32(k), _i32(1), [init])
        with ir.InsertionPoint(loop.body):
            kk = loop.induction_variable
            x = llvm.LoadOp(sa, self.smem_at(ra, arith.addi(arith.muli(row, _i32(k)), kk), sa)).result
            y = llvm.LoadOp(sb, self.smem_at(rb, arith.addi(arith.muli(kk, _i32(n)), col), sb)).result
            x, y = _widen(x, out_t), _widen(y, out_t)
            total = loop.inner_iter_args[0]
            if _is_float(out_t):
                new = _intrinsic("fma", out_t, [x, y, total], approx=False)
            else:
                new = arith.addi(total, arith.muli(x, y))
            scf.YieldOp([new])
        result.append(loop.results[0])
    self.smem_dirty = True
    self.set_natural(op.results[0], out_layout, result)


def _print(self: _KernelLowering, op):
    """tl.device_print on NVIDIA: one `gpu.printf` (vprintf) line per element, by the one thread that
    owns it: `pid (x, y, z) idx (i, j) <prefix><value>`, as the CPU target and the interpreter print."""
    self.vendor.check_print(op)
    prefix = ir.StringAttr(op.attributes["prefix"]).value.replace("%", "%%")
    as_hex = "hex" in op.attributes and ir.BoolAttr(op.attributes["hex"]).value
    pids = [
        arith.index_cast(_i32t(), gpu.BlockIdOp(d).result)
        for d in (gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z)
    ]
    head = "pid (%d, %d, %d)"
    if not op.operands:
        _once(self, None, lambda: gpu.PrintfOp(f"{head} {prefix}\n", pids))
        return
    value = op.operands[0]
    shape = tile.shape_of(value.type)
    elem = _scalar_type(value.type)
    if not shape:
        _once(
            self,
            None,
            lambda: gpu.PrintfOp(
                f"{head} idx () {prefix}{_conversion(elem, as_hex)}\n",
                [*pids, _printable(self.scalar(value), elem)],
            ),
        )
        return
    layout = self.layout_for(shape, tile.element_of(value.type))
    idx = "(" + ", ".join(["%d"] * len(shape)) + ("," if len(shape) == 1 else "") + ")"
    fmt = f"{head} idx {idx} {prefix}{_conversion(elem, as_hex)}\n"
    for r, coord in zip(self.regs(value, layout), self.coords(layout)):
        _once(self, layout, lambda r=r, coord=coord: gpu.PrintfOp(fmt, [*pids, *coord, _printable(r, elem)]))


def _assert(self: _KernelLowering, op):
    """tl.device_assert on NVIDIA: `cf.assert` per element, which becomes __assertfail (the kernel stops
    with a device-side assertion, as in Triton); the message carries the kernel's source location."""
    self.vendor.check_assert(op)
    from mlir.dialects import cf

    message = _assert_message(op)
    cond = op.operands[0]
    shape = tile.shape_of(cond.type)
    if not shape:
        cf.AssertOp(_truthy(self.scalar(cond)), message)
        return
    layout = self.layout_of_inputs(cond) or self.layout_for(shape, tile.element_of(cond.type))
    regs = self.regs(cond, layout)
    ok = _truthy(regs[0])
    for r in regs[1:]:
        ok = arith.andi(ok, _truthy(r))
    cf.AssertOp(ok, message)


def _assert_message(op) -> str:
    from tilec import diagnostics

    file, line, col = diagnostics.file_location(op.location)
    return (f"{file}:{line}:{col}: " if file else "") + ir.StringAttr(op.attributes["message"]).value


def _lower_combiner_asserts(vendor: Vendor, gfn) -> None:
    """Device assertions inside reduce/scan combiners (a checked combine function) were cloned with
    the combiner wherever it runs, on values already lowered to scalars: each becomes a cf.assert."""
    from mlir.dialects import cf

    for op in ops_named(gfn.operation, "tile.assert"):
        vendor.check_assert(op)
        with op.location, ir.InsertionPoint(op):
            cf.AssertOp(_truthy(op.operands[0]), _assert_message(op))
        op.erase()


def _truthy(v: ir.Value) -> ir.Value:
    if str(v.type) == "i1":
        return v
    if _is_float(v.type):
        return arith.cmpf(arith.CmpFPredicate.UNE, v, arith.ConstantOp(v.type, 0.0).result)
    return arith.cmpi(arith.CmpIPredicate.ne, v, arith.ConstantOp(v.type, 0).result)


def _once(self: _KernelLowering, layout, emit) -> None:
    """Runs `emit` on one thread per element: the owner among replicas, thread 0 for scalars."""
    cond = (
        arith.cmpi(arith.CmpIPredicate.eq, self.tid, _i32(0))
        if layout is None
        else self.replica_predicate(layout)
    )
    if cond is None:
        emit()
        return
    branch = scf.IfOp(cond)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def _i32t() -> ir.Type:
    return ir.IntegerType.get_signless(32)


def _conversion(elem: ir.Type, as_hex: bool) -> str:
    if _is_float(elem):
        return "%f"
    bits = ir.IntegerType(elem).width
    if as_hex:
        return "0x%llx" if bits > 32 else "0x%x"
    return "%lld" if bits > 32 else "%d"


def _printable(v: ir.Value, elem: ir.Type) -> ir.Value:
    """vprintf's arguments: floats as f64 (C's promotion), integers as i32 or i64."""
    if _is_float(elem):
        return arith.extf(ir.F64Type.get(), v) if str(elem) != "f64" else v
    bits = ir.IntegerType(elem).width
    if bits < 32:
        return arith.extsi(_i32t(), v) if bits > 1 else arith.extui(_i32t(), v)
    return v


def _widen(v: ir.Value, t: ir.Type) -> ir.Value:
    if v.type == t:
        return v
    if _is_float(t) and _is_float(v.type):
        return arith.extf(t, v)
    if _is_float(t):
        return arith.sitofp(t, v)
    return arith.extsi(t, v)


# -- tl.map_elementwise -------------------------------------------------------------------------


def _map(self: _KernelLowering, op):
    """The body once per register of each thread (in the results' blocked layout), its block
    arguments bound to that register of every argument."""
    results = list(op.results)
    block = op.regions[0].blocks[0]
    layout, arg_regs, count = _per_element(self, list(op.operands), results)
    outs = [[] for _ in results]
    for i in range(count):
        for arg, regs in zip(block.arguments, arg_regs):
            self.scalars[arg] = regs[i]
        for inner in block.operations:
            inner = inner.operation
            if inner.name == "gpu.yield":
                for out, v in zip(outs, inner.operands):
                    out.append(self.scalar(v))
            else:
                self.lower_op(inner)
    _set_per_element(self, results, layout, outs)


def _per_element(self: _KernelLowering, args: list, results: list):
    """For ops computed element by element: (the results' default layout, or None for scalars; each
    argument's registers in it; how many registers a thread holds)."""
    shape = tile.shape_of(results[0].type)
    if not shape:
        return None, [[self.scalar(a)] for a in args], 1
    layout = self.layout_for(shape, tile.element_of(results[0].type))
    return layout, [self.regs(a, layout) for a in args], len(layout.registers)


def _set_per_element(self: _KernelLowering, results: list, layout, outs: list) -> None:
    for r, values in zip(results, outs):
        if layout is None:
            self.scalars[r] = values[0]
        else:
            self.set_natural(r, layout, values)


# -- inline assembly ---------------------------------------------------------------------------


def _inline_asm(self: _KernelLowering, op):
    """One asm statement per `pack` registers of each thread (in the results' blocked layout); values
    narrower than 32 bits are packed k to a register (an integer of k x their width)."""
    args = list(op.operands)  # every argument slot holds one value or none
    results = list(op.results)
    pack = ir.IntegerAttr(op.attributes["pack"]).value
    text = ir.StringAttr(op.attributes["asm"]).value
    constraints = ir.StringAttr(op.attributes["constraints"]).value
    self.vendor.check_inline_asm(op, constraints)
    layout, arg_regs, count = _per_element(self, args, results)
    elems = [_scalar_type(tile.element_of(r.type)) for r in results]
    groups = -(-count // pack)
    outs = [[] for _ in results]
    for g in range(groups):
        operands = []
        for a, regs in zip(args, arg_regs):
            elem = _scalar_type(tile.element_of(a.type))
            chunk = regs[g * pack : (g + 1) * pack]
            chunk += [zero(elem)] * (pack - len(chunk))  # a partial last group: padding lanes
            operands += _asm_words(elem, chunk, tile.element_of(a.type), pack)
        word_types = []
        for r, elem in zip(results, elems):
            per_word, words = tile.asm_registers(tile.element_of(r.type), pack)
            word_types += [_asm_word_type(elem, per_word)] * words
        if len(word_types) == 1:
            result_type = word_types[0]
        else:
            result_type = ir.Type.parse("!llvm.struct<(" + ", ".join(map(str, word_types)) + ")>")
        call = llvm.InlineAsmOp(
            result_type, operands, text, constraints, has_side_effects="pure" not in op.attributes
        ).result
        words = (
            [call]
            if len(word_types) == 1
            else [llvm.ExtractValueOp(t, call, [i]).result for i, t in enumerate(word_types)]
        )
        for i, (r, elem) in enumerate(zip(results, elems)):
            per_word, n_words = tile.asm_registers(tile.element_of(r.type), pack)
            mine, words = words[:n_words], words[n_words:]
            values = [v for w in mine for v in _asm_unpack(w, elem, per_word)]
            outs[i] += values[: min(pack, count - g * pack)]
    _set_per_element(self, results, layout, outs)


def _asm_word_type(elem: ir.Type, per_word: int) -> ir.Type:
    """The register type of `per_word` elements: the element itself, or an integer holding them."""
    if per_word == 1:
        return ir.IntegerType.get_signless(16) if str(elem) in ("f16", "bf16") else elem
    return ir.IntegerType.get_signless(per_word * _bytes(elem) * 8)


def _asm_words(elem: ir.Type, values: list, tile_elem: ir.Type, pack: int) -> list[ir.Value]:
    per_word, _ = tile.asm_registers(tile_elem, pack)
    word = _asm_word_type(elem, per_word)
    if per_word == 1:
        return [v if word == elem else llvm.BitcastOp(word, v).result for v in values]
    vec_t = ir.VectorType.get([per_word], elem)
    out = []
    for start in range(0, len(values), per_word):
        vec = llvm.UndefOp(vec_t).result
        for lane, v in enumerate(values[start : start + per_word]):
            vec = llvm.InsertElementOp(vec, v, _i32(lane)).result
        out.append(llvm.BitcastOp(word, vec).result)
    return out


def _asm_unpack(word: ir.Value, elem: ir.Type, per_word: int) -> list[ir.Value]:
    if per_word == 1:
        return [word if word.type == elem else llvm.BitcastOp(elem, word).result]
    vec = llvm.BitcastOp(ir.VectorType.get([per_word], elem), word).result
    return [llvm.ExtractElementOp(vec, _i32(lane)).result for lane in range(per_word)]


_EAGER = {
    "tile.program_id": _program_id,
    "tile.num_programs": _program_id,
    "tile.load": _load,
    "tile.store": _store,
    "tile.atomic_rmw": _atomic,
    "tile.atomic_cas": _atomic,
    "tile.reduce": _reduce,
    "tile.reshape": _via_shared,
    "tile.trans": _via_shared,
    "scf.for": _for,
    "scf.if": _if,
    "scf.while": _while,
    "tile.scan": _scan,
    "tile.gather": _gather,
    "tile.histogram": _histogram,
    "tile.dot": _dot,
    "tile.print": _print,
    "tile.assert": _assert,
    "tile.inline_asm": _inline_asm,
    "tile.map": _map,
}
