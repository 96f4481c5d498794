"""The per-kernel lowering: layouts on demand, program order, values in registers, thread
coordinates, shared memory and layout conversions, lazy (rebuilt-anywhere) ops.
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, gpu, llvm

from tilec.analysis.axis_info import AxisAnalysis
from tilec.dialects import contract, kernel_arrays, tile

from .. import lower_fp8, tensor_cores
from ..base import PassError, ops_named
from ..gpu_vendor import Vendor
from ..layouts import Blocked, Interleaved, Slice, constant_classes, default_blocked
from ..lowering_common import DYNAMIC_INDEX
from .common import REGION_ALIGN, SMEM, byte_width, const_i32, gptr, ptr_cast, scalar_type, sptr
from .debug import lower_combiner_asserts
from .math_intrinsics import MATH, narrows_in_pairs, truncate_in_pairs
from .memory import vector_groups
from .ops import EAGER

# Nested regs() calls past which a value's elementwise chain is materialized operands-first instead
# of by recursion (Python's recursion limit is 1000 frames; each level takes three).
_CHAIN_DEPTH = 64

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


class KernelLowering:
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
                    size = byte_width(tile.pointee_type(tile.element_of(ptr_t)))
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
                    vector = 16 // byte_width(scalar_type(op.results[0].type))
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
        """Elements one memory access of a thread may cover (see memory.vector_groups)."""
        return vector_groups(self, ptr, mask, layout, elem_bytes)

    def layout_for(self, shape, element=None) -> Blocked:
        shape = tuple(shape)
        vector = self.vector_for_shape.get(shape)
        if vector is None:
            vector = 16 // byte_width(element) if element is not None else 4
        return default_blocked(shape, self.num_warps, self.warp_size, vector)

    def run(self):
        fn = self.fn
        name = ir.StringAttr(fn.attributes["sym_name"]).value
        block = fn.regions[0].blocks[0]
        # (looked for in the tile IR: the lowered function is several times larger to walk)
        has_asserts = bool(ops_named(fn.operation, "tile.assert"))
        arg_types = [scalar_type(a.type) for a in block.arguments]
        arg_attrs = []
        if "arg_attrs" in fn.attributes:
            for d in ir.ArrayAttr(fn.attributes["arg_attrs"]):
                d = ir.DictAttr(d)
                attrs = {}
                if contract.DIVISIBILITY in d:
                    attrs["llvm.align"] = ir.IntegerAttr.get(
                        ir.IntegerType.get_signless(64), ir.IntegerAttr(d[contract.DIVISIBILITY]).value
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
            self.lane = arith.remui(self.tid, const_i32(self.warp_size))
            self.warp = arith.divui(self.tid, const_i32(self.warp_size))
            self.prologue_end = arith.ConstantOp(ir.IntegerType.get_signless(32), 0).operation
            if self.vendor.uses_tensor_cores(self):
                self.preferred = tensor_cores.plan_layouts(block, self.accumulator_layout)
            self._plan_load_layouts()
            self.vendor.plan(self)
            self.lower_block(block)
            gpu.ReturnOp([])
        if has_asserts:
            lower_combiner_asserts(self.vendor, gfn)
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
                if contract.ARG_NAME in d:
                    index[ir.StringAttr(d[contract.ARG_NAME]).value] = i
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
        gfn.attributes[contract.TENSOR_MAP_PARAMS] = ir.DenseI32ArrayAttr.get(list(range(first, len(types))))
        gfn.attributes[contract.TENSOR_MAPS] = self.vendor.tensor_maps_attribute(self.tensor_maps)

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
        gfn.attributes[contract.SHARED_BYTES] = ir.IntegerAttr.get(
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
            handler = EAGER.get(op.name)
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
            pointee = gptr() if tile.is_ptr(pointee) else pointee
            gep = llvm.GEPOp(gptr(), operands[0], [operands[1]], [DYNAMIC_INDEX], ir.TypeAttr.get(pointee), 0)
            self.scalars[op.results[0]] = gep.result
            return
        if op.name == "tile.ptr_cast":
            self.scalars[op.results[0]] = ptr_cast(operands[0], op.results[0].type)
            return
        if op.name.startswith("tile."):
            raise PassError(f"'{op.name}' on scalars is not supported by the GPU lowering yet", op)
        attrs = {n: op.attributes[n] for n in op.attributes}
        results = [scalar_type(r.type) for r in op.results]
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
            weights[layout] = weights.get(layout, 0) + byte_width(scalar_type(v.type))
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
                lane_d = arith.remui(lane, const_i32(t)) if t > 1 else const_i32(0)
                lane = arith.divui(lane, const_i32(t)) if t > 1 else lane
                out[d] = lane_d
            for d in layout.order:
                w = layout.warps_per_cta[d]
                warp_d = arith.remui(warp, const_i32(w)) if w > 1 else const_i32(0)
                warp = arith.divui(warp, const_i32(w)) if w > 1 else warp
                spt, tpw = layout.size_per_thread[d], layout.threads_per_warp[d]
                if group > 1 and d == layout.order[0]:  # see Interleaved
                    within = arith.muli(
                        arith.remui(out[d], const_i32(group)), const_i32(layout.tile(d) // group)
                    )
                    across = arith.muli(arith.divui(out[d], const_i32(group)), const_i32(spt))
                    warps = arith.muli(warp_d, const_i32(tpw * (spt // group)))
                    out[d] = arith.addi(arith.addi(within, across), warps)
                    continue
                per_warp = tpw * layout.repeats(d)  # lanes' tiles one warp holds along d
                out[d] = arith.muli(
                    arith.addi(arith.muli(warp_d, const_i32(per_warp)), out[d]), const_i32(spt)
                )
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
                c = arith.addi(bases[d], const_i32(static[d])) if static[d] else bases[d]
                if parent.wraps(d):
                    c = arith.andi(c, const_i32(parent.shape[d] - 1))
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
                    arith.divui(lane, const_i32(parent.lane_stride(d))), const_i32(parent.threads_per_warp[d])
                )
                conds.append(arith.cmpi(arith.CmpIPredicate.ult, lc, const_i32(lanes_d)))
            if warps_d < parent.warps_per_cta[d]:
                wc = arith.remui(
                    arith.divui(warp, const_i32(parent.warp_stride(d))), const_i32(parent.warps_per_cta[d])
                )
                conds.append(arith.cmpi(arith.CmpIPredicate.ult, wc, const_i32(warps_d)))
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
        return llvm.AddressOfOp(sptr(), SMEM).result

    def smem_region(self, nbytes: int) -> ir.Value:
        """Shared memory no other op touches (for buffers that outlive one op: pipelined MMA). It lies
        after the scratch space, whose size is known only at the end: the offset is patched then."""
        offset = arith.ConstantOp(ir.IntegerType.get_signless(32), 0)
        self.smem_regions.append((offset.operation, self.region_bytes))
        self.region_bytes += -(-nbytes // REGION_ALIGN) * REGION_ALIGN
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        base = llvm.AddressOfOp(sptr(), SMEM).result
        return llvm.GEPOp(sptr(), base, [offset.result], [DYNAMIC_INDEX], i8, 0).result

    def smem_at(self, base: ir.Value, index: ir.Value, elem: ir.Type) -> ir.Value:
        return llvm.GEPOp(sptr(), base, [index], [DYNAMIC_INDEX], ir.TypeAttr.get(elem), 0).result

    def _linear(self, coord: list[ir.Value], shape) -> ir.Value:
        idx = coord[0]
        for c, s in zip(coord[1:], shape[1:]):
            idx = arith.addi(arith.muli(idx, const_i32(s)), c)
        return idx

    def _store_elem_type(self, t: ir.Type) -> ir.Type:
        """How a value of type t sits in shared memory: i1 as i8, pointers as i64."""
        if str(t).startswith("!llvm.ptr"):
            return ir.IntegerType.get_signless(64)
        return ir.IntegerType.get_signless(8) if str(t) == "i1" else t

    def convert(self, regs, src_layout, dst_layout, tensor_type) -> list[ir.Value]:
        """Moves a tensor between layouts through shared memory."""
        elem = scalar_type(tensor_type)
        elem_store = self._store_elem_type(elem)
        shape = tile.shape_of(tensor_type)
        numel = math.prod(shape)
        base = self.smem(numel * byte_width(elem_store))
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
            return [arith.addi(c[0], const_i32(start)) if start else c[0] for c in self.coords(layout)]
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
            return [ptr_cast(v, result) for v in self.regs(op.operands[0], layout)]
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
            pointee = gptr() if tile.is_ptr(pointee) else pointee
            return [
                llvm.GEPOp(gptr(), p, [o], [DYNAMIC_INDEX], ir.TypeAttr.get(pointee), 0).result
                for p, o in zip(ptrs, offs)
            ]
        # elementwise arith / math
        operand_regs = [
            self.regs(v, layout) if tile.shape_of(v.type) else [self.scalar(v)] * n for v in op.operands
        ]
        attrs = {k: op.attributes[k] for k in op.attributes}
        result_t = [scalar_type(op.results[0].type)]
        if name == "arith.truncf" and narrows_in_pairs(op.operands[0], result_t[0]) and n % 2 == 0:
            return truncate_in_pairs(operand_regs[0], result_t[0])
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
        lowering = MATH.get(name)
        if lowering is not None:
            try:
                return [lowering(self.vendor, operands, result_types[0])]
            except PassError as e:  # name the function; the caller adds the op's location
                raise PassError(f"{name}: {e.message}", e.op) from None
        exact = attrs.pop(contract.NO_FP_FUSION, None) is not None
        if name in ("arith.addf", "arith.subf", "arith.mulf") and str(result_types[0]) == "f32":
            # GPUs fuse a * b + c into one FMA, as Triton does by default (enable_fp_fusion); without
            # `contract` NVPTX writes mul.rn / add.rn, which ptxas does not fuse either.
            # libdevice's add_rn / mul_rn (marked contract.NO_FP_FUSION) are never fused.
            if self.fp_fusion and not exact:
                attrs = {**attrs, "fastmath": ir.Attribute.parse("#arith.fastmath<contract>")}
        if name in ("arith.select",) and str(result_types[0]).startswith("!llvm.ptr"):
            return [llvm.SelectOp(operands[0], operands[1], operands[2]).result]
        return list(
            ir.Operation.create(name, results=result_types, operands=operands, attributes=attrs).results
        )
