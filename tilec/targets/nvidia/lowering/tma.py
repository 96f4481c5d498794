"""Ring operands copied by the Tensor Memory Accelerator (sm_90a), for convert-tile-to-gpu.

A tile read through a tensor descriptor argument (`desc.load([i, j])`: a tile.load that names its
`descriptor` and gives its `coords`), or through a 2-D array the kernel makes of its own arguments
(`descriptor` is then the text of those parts: dialects/kernel_arrays.py), can reach a
cp.async ring (cp_async.py) by a bulk tensor copy
instead: one thread asks the copy engine for whole boxes of the tensor, which land in shared memory
in the hardware's swizzled layout, with out-of-bounds elements zero-filled by the hardware. The
warps then issue no address arithmetic, no masks and no copies of their own. The rings of dots that
wait for their MMA in the same iteration (attention's K and V) take them only when all the loop's
rings do and wait together at the first dot (cp_async._same_iteration_tma: a wait of V's own in the
middle of the body gave wrong results on an H200).

    ring of `stages` buffers + one mbarrier per buffer (after the buffers in the ring's region)
    before the loop      thread 0: mbarrier.init (count 1) for each buffer; fence; bar.sync
                         thread 0: the copies of the first `depth` iterations (those that exist)
    iteration i          every thread: mbarrier.try_wait.parity on buffer i mod stages, phase
                         (i / stages) & 1 (the barrier completes a phase per fill; a leader
                         ring's dot waits so for its followers' buffers too, cp_async.merge_waits)
                         bar.sync (as with cp.async: every warp is done with the buffer refilled next)
                         thread 0: if iteration i + depth exists, expect_tx(bytes of its tiles) and
                         its copies into buffer (i + depth) mod stages

Copies are issued only for iterations that exist, so none is in flight when the loop ends; a loop
entered again re-initializes its barriers (after the barrier that follows a nested ring loop).

Boxes: a box's rows are S bytes (the staging's swizzle width; the tensor map swizzles as Staging
does), so a tile is copied one S-byte column band at a time, each band one box of all the tile's
rows (A's rows sit in shared memory in their logical order: the accumulator layout follows the
instruction's rows, wgmma.py). An earlier accumulator layout permuted A's rows in 8-row groups and
copied A in 8-row boxes: 556 TFLOP/s on an H200 (fp16 4096^3, 128x256x64, 8 warps) against 671 for
one box per band (then through a 5-D map that walked the permutation): the copy engine's cost is per
request.

The tensor maps are kernel parameters of their own (128-byte grid constants, appended after the
kernel's arguments, see tensor_map_params.py) that the launcher encodes from the descriptor
argument at each launch (cuTensorMapEncodeTiled): the gpu.func lists them in
`tilec.tensor_maps`, JSON with where each map's base, shape and strides come from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, llvm, scf

from tilec.dialects import tile
from tilec.passes.lowering_common import segments

from . import wgmma

MAX_BOX = 256  # elements along one box dimension


@dataclass(frozen=True)
class Box:
    """One copy of a stream: the box at (row, col) of the tile, landing at byte `offset` of the
    stage buffer."""

    row: int
    col: int
    offset: int


@dataclass
class TmaStream:
    """How one operand's tiles are copied: `boxes` through the 2-D map `boxes_map`."""

    descriptor: str
    element: ir.Type
    band: int  # elements along a box row (S bytes)
    box_rows: int
    swizzle: int
    boxes: list
    bytes: int  # of one iteration's tile
    rows: int  # of the tile
    cols: int
    boxes_map: int = -1  # the kernel's tensor-map index (set when the ring is kept)

    def register(self, lowering) -> None:
        common = (self.descriptor, self.element, self.band, self.swizzle)
        self.boxes_map = lowering.tensor_map(*common, self.box_rows)


def descriptor_of(load: ir.Operation) -> str | None:
    if "descriptor" not in load.attributes or len(segments(load)["coords"]) != 2:
        return None
    return ir.StringAttr(load.attributes["descriptor"]).value


def plan_stream(lowering, loads: list, stream, staging) -> TmaStream | None:
    """The boxes that copy the tiles of `stream` (cp_async.Stream; `loads` are its loads, all through
    one descriptor), or None when they cannot go by tensor copies. An M-major A comes as X = A's
    transpose [K, M] (a box of rows of M): its boxes are X's S-byte column bands, K rows each, one
    per 64-row instruction block of A (wgmma.Staging's atoms)."""
    operand = stream.operand
    if not lowering.tma or not staging.swizzle:
        return None
    if operand == 0 and staging.a_m_major != stream.transposed:
        return None  # an M-major A read through pointers of A's own shape: no box gives it
    names = {descriptor_of(load) for load in loads}
    if len(names) != 1 or None in names:
        return None
    name = names.pop()
    rows, cols = tile.shape_of(loads[0].results[0].type)
    elem_bytes = staging.elem_bytes
    width = staging.a_width if operand == 0 else staging.b_width
    if width is None:  # (a transposed tf32 dot's B in padded rows: wgmma_swapped.SwappedStaging)
        return None
    band = width // elem_bytes  # elements of one box row
    box_rows = rows
    if cols % band or rows % box_rows or box_rows > MAX_BOX or band > MAX_BOX:
        return None
    boxes = [
        Box(r, c, stream.offset(staging, r, c, wgmma.PY_INTS))
        for c in range(0, cols, band)
        for r in range(0, rows, box_rows)
    ]
    element = tile.element_of(loads[0].results[0].type)
    return TmaStream(name, element, band, box_rows, width, boxes, rows * cols * elem_bytes, rows, cols)


def maps_attribute(maps: list) -> ir.Attribute:
    return ir.StringAttr.get(json.dumps(maps))


# -- in the kernel ---------------------------------------------------------------------------------


def barrier(ring, stage: ir.Value) -> ir.Value:
    """The shared-memory address (u32) of the mbarrier of buffer `stage`."""
    i32 = ir.IntegerType.get_signless(32)
    base = llvm.PtrToIntOp(i32, ring.region).result
    start = ring.stages * ring.staging.bytes
    return arith.addi(base, arith.addi(_c(start), arith.muli(stage, _c(8))))


def init_barriers(lowering, ring) -> None:
    """Before the loop: thread 0 sets up one barrier per buffer (a fresh phase 0 each time the loop
    is entered); the barrier makes them visible before anyone waits."""
    first = _thread_zero(lowering)
    with ir.InsertionPoint(first.then_block):
        for stage in range(ring.stages):
            _asm("mbarrier.init.shared::cta.b64 [$0], 1;", [barrier(ring, _c(stage))], "r")
        _asm("fence.mbarrier_init.release.cluster;")
        scf.YieldOp([])
    gpu.BarrierOp()


def issue(lowering, ring, loads: dict, iteration: ir.Value, exists: ir.Value) -> None:
    """Thread 0, if iteration `iteration` exists: the copies of its tiles (`loads`: operand -> the
    tile.load of that iteration) into its buffer, counted on the buffer's barrier."""
    guarded = scf.IfOp(arith.andi(arith.cmpi(arith.CmpIPredicate.eq, lowering.tid, _c(0)), exists))
    with ir.InsertionPoint(guarded.then_block):
        stage = arith.remui(iteration, _c(ring.stages))
        bar = barrier(ring, stage)
        total = sum(stream.tma.bytes for stream in ring.streams.values())
        _asm("mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", [bar, _c(total)], "r,r")
        i32 = ir.IntegerType.get_signless(32)
        buffer = arith.addi(
            llvm.PtrToIntOp(i32, ring.region).result, arith.muli(stage, _c(ring.staging.bytes))
        )
        for index in sorted(ring.streams):
            stream = ring.streams[index].tma
            row0, col0 = (lowering.scalar(v) for v in segments(loads[index])["coords"])
            _copy_boxes(lowering, stream, buffer, row0, col0, bar)
        scf.YieldOp([])


def _copy_boxes(lowering, stream: TmaStream, buffer, row0, col0, bar) -> None:
    tensor_map = _map_address(lowering, stream.boxes_map)
    for box in stream.boxes:
        x = arith.addi(col0, _c(box.col)) if box.col else col0
        y = arith.addi(row0, _c(box.row)) if box.row else row0
        _bulk_copy(arith.addi(buffer, _c(box.offset)), tensor_map, [x, y], bar)


def _map_address(lowering, index: int) -> ir.Value:
    return llvm.PtrToIntOp(ir.IntegerType.get_signless(64), lowering.tensor_map_params[index]).result


def _bulk_copy(dst, tensor_map, coords: list, bar) -> None:
    n = len(coords)
    places = ", ".join(f"${i + 2}" for i in range(n))
    _asm(
        f"cp.async.bulk.tensor.{n}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        f" [$0], [$1, {{{places}}}], [${n + 2}];",
        [dst, tensor_map, *coords, bar],
        "r,l," + "r," * n + "r",
    )


def wait(ring, iteration: ir.Value) -> None:
    """Every thread: iteration `iteration`'s tiles have landed in its buffer."""
    stage = arith.remui(iteration, _c(ring.stages))
    phase = arith.andi(arith.divui(iteration, _c(ring.stages)), _c(1))
    _asm(
        "{\n.reg .pred done;\nwait:\nmbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n"
        "@!done bra.uni wait;\n}",
        [barrier(ring, stage), phase],
        "r,r",
    )


def _thread_zero(lowering) -> scf.IfOp:
    return scf.IfOp(arith.cmpi(arith.CmpIPredicate.eq, lowering.tid, _c(0)))


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def _asm(text: str, operands=(), constraints: str = "") -> None:
    llvm.InlineAsmOp(ir.Type.parse("!llvm.void"), list(operands), text, constraints, has_side_effects=True)
