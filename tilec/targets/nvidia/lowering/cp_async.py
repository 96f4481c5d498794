"""Warpgroup-MMA operands streamed into shared memory with cp.async (sm_90a), for convert-tile-to-gpu.

tile-pipeline-loads has already made the loop a software pipeline: the tiles of the first `depth`
iterations are loaded before the loop, each iteration loads the tile `depth` iterations ahead, and
the tiles travel through loop-carried values (slot j holding the tile of iteration i + j):

    a0 = load(p(0)); a1 = load(p(1))
    for i (x0 = a0, x1 = a1): a2 = load(p(i + 2)); acc = dot(x0, b, acc); yield x1, a2

In registers that costs `depth` tiles per operand. Here the loads become asynchronous copies
(`cp.async`, 4 to 16 bytes per thread and access) straight into a ring of depth + 2 stage buffers
laid out as the warpgroup MMA reads them (wgmma.Staging; iteration j's tiles in buffer
j mod (depth + 2)), and the loop-carried values disappear. Each iteration then runs

    cp.async.wait_group             this thread's copies for iteration i have landed (those of
                                    the depth - 1 later iterations may still be in flight: one
                                    commit group per load)
    bar.sync                        everyone's copies, visible to the tensor cores (cp.async
                                    writes need no proxy fence, as in Triton); every warp has
                                    waited for its MMA of iteration i - 2
    copies for iteration i + depth into buffer (i + depth) mod (depth + 2), the one MMA i - 2 read
    wgmma (i), wgmma.wait_group 1   this warpgroup's MMA of iteration i - 1 is done

The copies land in the hardware's swizzled layouts: a warp's copies of a 128-byte row segment then
fill whole shared-memory rows. Into the padded layout that registers are stored in, the same copies
ran at 0.4x the register path's speed on an H200 (193 vs 480 TFLOP/s, fp16 4096^3); swizzled,
1.3x (622).

Why depth + 2 buffers for a dot that accumulates across the loop: when a thread issues the copies of
iteration i + depth, other warps may still run their MMA of iteration i - 1 (each waited for i - 2
before the barrier this thread has passed; even within one warpgroup a warp's wait says nothing of
the others' share of the MMA), MMA i reads buffer i next, and the copies of i + 1 .. i + depth - 1
are pending; the ring keeps all of them apart. A dot that waits for its MMA in the same iteration
(attention's two: `wgmma.wait_group 0`) needs depth + 1: past the barrier every warp is done with
MMA i - 1. The copies go before the MMA rather than after its wait: issued there they have one
iteration more to land (fp16 2048^3, 128x128x64 on 4 warps, H200: 383 -> 460 TFLOP/s with 3 buffers,
427 -> 482 with 4).
Copies for iterations past the end are masked off (zero fill) and waited for after the loop; a loop
inside another one then passes a barrier before its next prologue rewrites the buffers.

Every qualifying dot of a loop gets a ring, all at one depth (attention's K and V each stream while
the other dot computes). Each stream commits one group per iteration and the rings issue in body
order, so the waits count the groups of all the loop's rings (plan).

A column-major 16-bit A streams too, into an M-major ring (wgmma.Staging's `a_m_major`) that the
instruction reads transposed; so does A = trans(X) with X [K, M] row-major (`x_desc.load().T`, or
a column-major A that tile-pointer-tensor-copies raised), by tensor copies of X's boxes where X
comes through a descriptor (tma.plan_stream). A tf32 dot with a row-major B goes transposed
(wgmma_swapped.py): its A and B stream as they lie in memory, into wgmma_swapped.SwappedStaging.

Only B decides whether a dot gets a ring (the staging layout depends on how B arrives); A streams
along when it qualifies, else it is stored from registers into the same buffers or, when it goes to
the instruction as register fragments (wgmma.a_kept_in_registers), the buffers hold B alone. The choice here
must match tile-pipeline-loads' `_warpgroup_dot_loads`, which chose the depth.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects import tile
from tilec.passes.base import ops_named
from tilec.passes.layouts import Blocked
from tilec.passes.lowering_common import segments

from . import mma, tma, wgmma, wgmma_swapped


@dataclass
class Stream:
    """One operand's loads: `prologue[j]` (before the loop) loads iteration j's tile, `ahead` (in the
    loop) the tile `depth` iterations ahead; each is copied `width` elements at a time."""

    operand: int  # 0: A, 1: B
    prologue: list
    ahead: ir.Operation
    width: int
    tma: tma.TmaStream | None = None  # copied by the tensor copy engine instead (tma.py)
    transposed: bool = False  # the loads' tiles are the operand's transpose (B = trans(X), A = trans(X))

    def offset(self, staging, row, col, ops=None):
        """Byte offset in the stage buffer of element (row, col) of the loaded tile. An A loaded as X
        [K, M] is A's (col, row); a B loaded as X [N, K] sits in a "trans" staging that takes X's
        coordinates itself."""
        if self.operand == 0 and self.transposed:
            return staging.offset(0, col, row, ops)
        return staging.offset(self.operand, row, col, ops)


@dataclass
class Ring:
    dot: ir.Operation
    loop: ir.Operation
    depth: int
    staging: wgmma.Staging
    streams: dict  # operand index -> Stream
    carried: set = field(default_factory=set)  # values that hold no registers (tensor_cores.IN_SHARED_MEMORY)
    region: ir.Value | None = None  # start of the ring, allocated at the first copy
    newer_groups: int = 0  # commit groups issued after this dot's current ones when it waits
    # The rings of the loop's later dots whose waits, barrier and copies this one does (merge_waits);
    # `leader` is set on those rings.
    followers: list = field(default_factory=list)
    leader: Ring | None = None

    @property
    def stages(self) -> int:
        return wgmma.ring_stages(self.dot, self.depth)

    @property
    def operands(self) -> set:
        return set(self.streams)

    @property
    def tma(self) -> bool:
        """Filled by tensor copies (tma.py) rather than cp.async."""
        return all(stream.tma is not None for stream in self.streams.values())

    def exists(self, lowering, iteration: ir.Value) -> ir.Value:
        """i1: the loop has an iteration number `iteration` (lb + iteration * step < ub)."""
        lb, ub, step = (lowering.scalar(v) for v in list(self.loop.operands)[:3])
        index = iteration if lb.type == iteration.type else arith.index_cast(lb.type, iteration)
        return arith.cmpi(arith.CmpIPredicate.slt, arith.addi(lb, arith.muli(index, step)), ub)

    def iteration(self, lowering) -> ir.Value:
        """(iv - lb) / step as i32, in the loop body."""
        i32 = ir.IntegerType.get_signless(32)
        lb, step = lowering.scalar(self.loop.operands[0]), lowering.scalar(self.loop.operands[2])
        iv = lowering.scalar(self.loop.regions[0].blocks[0].arguments[0])
        index = arith.divsi(arith.subi(iv, lb), step)
        return index if index.type == i32 else arith.index_cast(i32, index)

    def wait_for_current(self, iteration: ir.Value) -> None:
        """This thread's copies of the current iteration have landed (those of later iterations,
        and of this iteration for the loop's later dots, may still be in flight; for a leader, its
        followers' too); with tensor copies, everyone's."""
        if self.leader is not None:
            return  # waited for at the leader's dot
        if self.tma:
            for ring in (self, *self.followers):
                tma.wait(ring, iteration)
            return
        _asm(f"cp.async.wait_group {self.newer_groups};")

    def issue_ahead(self, lowering, iteration: ir.Value) -> None:
        """Copies of the tiles `depth` iterations ahead, into their buffer (a leader's followers'
        too, right after its own)."""
        if self.leader is not None:
            return  # issued at the leader's dot
        self._issue(lowering, iteration)
        for follower in self.followers:
            follower._issue(lowering, iteration)

    def _issue(self, lowering, iteration: ir.Value) -> None:
        target = arith.addi(iteration, _c(self.depth))
        if self.tma:
            loads = {index: stream.ahead for index, stream in self.streams.items()}
            tma.issue(lowering, self, loads, target, self.exists(lowering, target))
            return
        for index in sorted(self.streams):
            stream = self.streams[index]
            copy(lowering, self, stream, stream.ahead, target)


def issue_prologues(lowering, rings: list) -> None:
    """Right before the loop: the copies of its first `depth` iterations, iteration by iteration and
    within one in the rings' order (the commit groups' order the waits count on; tile-hoist-loads
    may have reordered the loads themselves)."""
    for ring in rings:
        if ring.tma:
            if ring.region is None:
                ring.region = lowering.smem_region(ring.stages * ring.staging.bytes + 8 * ring.stages)
            tma.init_barriers(lowering, ring)
    for slot in range(rings[0].depth):
        for ring in rings:
            if ring.tma:
                loads = {index: stream.prologue[slot] for index, stream in ring.streams.items()}
                tma.issue(lowering, ring, loads, _c(slot), ring.exists(lowering, _c(slot)))
                continue
            for index in sorted(ring.streams):
                stream = ring.streams[index]
                copy(lowering, ring, stream, stream.prologue[slot], _c(slot))


def plan(lowering) -> None:
    """Fills lowering.rings (dot -> Ring) and lowering.streamed (the tile.loads they copy) for the
    warpgroup-MMA dots whose operands can stream."""
    by_loop: dict = {}
    for dot in ops_named(lowering.fn, "tile.dot"):
        ring = _plan_dot(lowering, dot)
        if ring is not None:
            by_loop.setdefault(ring.loop, []).append(ring)
    for rings in by_loop.values():
        # The dots of one loop in body order, all at the depth tile-pipeline-loads chose for rings
        # (the others' loads are prefetched in registers, one iteration ahead), as many as fit in
        # shared memory together.
        depth, kept, total = max(ring.depth for ring in rings), [], 0
        for ring in rings:
            size = ring.stages * ring.staging.bytes
            if ring.depth == depth and total + size <= mma.SMEM_LIMIT:
                kept.append(ring)
                total += size
        kept = _same_iteration_tma(kept)
        # Each stream commits one group per iteration, the rings in body order. When ring r waits
        # for iteration i, the groups after its own are those of iterations i + 1 .. i + depth - 1
        # of every ring, those of iteration i + depth of the rings before r (issued after their own
        # waits in this iteration) and those of iteration i of the rings after r: with N streams in
        # all, depth * N - (r's streams).
        # (Rings filled by tensor copies commit no groups and wait on their barriers instead.)
        streams = sum(len(ring.streams) for ring in kept if not ring.tma)
        for ring in kept:
            ring.newer_groups = ring.depth * streams - len(ring.streams)
        merge_waits(kept, streams)
        for ring in kept:
            for stream in ring.streams.values():
                if ring.tma:
                    stream.tma.register(lowering)
                else:
                    stream.tma = None
            lowering.rings[ring.dot] = ring
            for stream in ring.streams.values():
                lowering.streamed.update([*stream.prologue, stream.ahead])


def merge_waits(rings: list, streams: int) -> None:
    """One wait and one barrier per iteration for all the rings of a loop (attention's K and V), all
    filled by cp.async or all by tensor copies: the first dot waits for every ring's copies of the
    iteration (with tensor copies, on every ring's mbarrier), and past its barrier it
    issues every ring's copies `depth` iterations ahead; the later dots neither wait nor pass a
    barrier of their own. That is safe when, past the first dot's barrier, every warp is done with
    the buffers the later rings' copies overwrite: buffer (i + depth) mod stages was last read by
    the MMA of iteration i - 1 (depth + 1 buffers, waited for in that iteration) or i - 2 (depth + 2,
    waited for one iteration later), both before this barrier. The later dots must store nothing
    into shared memory themselves (A streams too, or goes as register fragments) and their copies'
    addresses must be known at the first dot (their loads come before it in the body).
    On an H200 Triton's attention loop has this shape (one cp.async wait and bar.sync per iteration);
    tilec's had one per dot."""
    if not _mergeable(rings):
        return
    leader, followers = rings[0], rings[1:]
    # waiting for iteration i of every ring: only iterations i + 1 .. i + depth - 1 may be pending
    leader.newer_groups = (leader.depth - 1) * streams
    leader.followers = followers
    for ring in followers:
        ring.leader = leader


def _mergeable(rings: list) -> bool:
    """merge_waits applies: two rings or more, all filled by cp.async or all by tensor copies, the
    later dots storing nothing into shared memory and their loads coming before the first dot."""
    if len(rings) < 2 or len({ring.tma for ring in rings}) != 1:
        return False
    leader = rings[0]
    order = {op.operation: i for i, op in enumerate(leader.loop.regions[0].blocks[0].operations)}
    for ring in rings[1:]:
        kind = wgmma.wgmma_kind(ring.dot, ring.staging.num_warps)
        stores = 0 not in ring.streams and not wgmma.a_kept_in_registers(ring.dot, kind)
        late = any(order[stream.ahead] > order[leader.dot] for stream in ring.streams.values())
        if stores or late:
            return False
    return True


def _same_iteration_tma(rings: list) -> list:
    """The rings of dots that wait for their MMA in the same iteration (attention's K and V) go by
    tensor copies only when every ring of the loop can and their waits merge at the first dot
    (merge_waits); otherwise by cp.async, and a ring that cp.async cannot fill is dropped.
    On an H200 a tensor-copy wait in the middle of the body (V's, after the softmax) gave wrong
    results whenever the two dots' A operands had one shape (BLOCK_N = HEAD_DIM): with q = 0.125 and
    p = 1 the scores of every iteration after the first came out 8 times too large, as if the first
    dot read the previous iteration's p for q, though the PTX keeps their registers apart (never
    with the waits merged at the top of the body)."""

    def same_iteration(ring):
        return ring.tma and wgmma.pipelined_loop(ring.dot) is None

    if not any(map(same_iteration, rings)) or (all(ring.tma for ring in rings) and _mergeable(rings)):
        return rings
    kept = []
    for ring in rings:
        if same_iteration(ring):
            if any(stream.width == 0 for stream in ring.streams.values()):
                continue
            for stream in ring.streams.values():
                stream.tma = None
        kept.append(ring)
    return kept


def _plan_dot(lowering, dot: ir.Operation) -> Ring | None:
    warps = lowering.num_warps
    kind = wgmma.wgmma_kind(dot, warps)
    loop = dot.parent
    if kind is None or wgmma.promoted_group(dot, kind) or loop is None or loop.name != "scf.for":
        return None
    elem_bytes = wgmma.element_bytes(kind)
    swapped = wgmma_swapped.applies(dot, warps, lowering.axis)
    streams, carried, modes, depths = {}, set(), {}, set()
    for index in (0, 1):
        found = _stream(lowering, loop, dot, index, elem_bytes, swapped)
        if found is not None:
            stream, mode, values = found
            streams[index], modes[index] = stream, mode
            carried |= values
            depths.add(len(stream.prologue))
    if 1 not in streams or len(depths) != 1:
        return None
    (m, k), (_, n) = tile.shape_of(dot.operands[0].type), tile.shape_of(dot.operands[1].type)
    if swapped:  # both operands as they lie in memory (wgmma_swapped.py)
        # by tensor copies when both can go so, into a swizzled B; else by 16-byte cp.async copies,
        # B in padded rows
        if lowering.tma and len(streams) == 2:
            staging = wgmma_swapped.SwappedStaging(m, n, k, warps, swizzle=True, swizzled_b=True)
            if staging.swizzled_b:
                for stream in streams.values():
                    stream.tma = tma.plan_stream(lowering, [*stream.prologue, stream.ahead], stream, staging)
                if all(stream.tma for stream in streams.values()):
                    return Ring(dot, loop, depths.pop(), staging, streams, carried)
                for stream in streams.values():
                    stream.tma = None
        staging = wgmma_swapped.SwappedStaging(m, n, k, warps, swizzle=True)
        return Ring(dot, loop, depths.pop(), staging, streams, carried)
    a_in_registers = 0 not in streams and wgmma.a_kept_in_registers(dot, kind)
    a_m_major = modes.get(0) == "m-major"
    staging = wgmma.Staging(
        m, n, k, kind, warps, modes[1], swizzle=True, a_in_registers=a_in_registers, a_m_major=a_m_major
    )
    if a_m_major and not staging.a_m_major:
        return None  # no swizzled layout for B: the padded one has no M-major A
    # Tensor copies fill the rings whose tiles all come through descriptors (a matmul's, whether A
    # streams or goes from registers; attention's K and V when their waits merge, see
    # _same_iteration_tma).
    for stream in streams.values():
        stream.tma = tma.plan_stream(lowering, [*stream.prologue, stream.ahead], stream, staging)
    if any(stream.width == 0 for stream in streams.values()) and not all(s.tma for s in streams.values()):
        return None  # a stream only tensor copies could take, and they cannot take the ring
    return Ring(dot, loop, depths.pop(), staging, streams, carried)


def _single_use(value: ir.Value) -> bool:
    return len(list(value.uses)) == 1


def peel(dot: ir.Operation, index: int):
    """(value, transposed): the tensor a dot operand is made of, through fp8's bitcast from bytes and
    one tl.trans, each used by the next alone; None when it is computed otherwise. (A = trans(X), X
    [K, M] with M contiguous, streams M-major: a column-major A raised by tile-pointer-tensor-copies,
    or `a_desc.load([k, m]).T`.)"""
    value, transposed = dot.operands[index], False
    while True:
        if not _single_use(value):
            return None
        if isinstance(value.owner, ir.Block):
            return value, transposed
        op = value.owner.operation
        if op.name == "arith.bitcast":
            value = op.operands[0]
        elif op.name == "tile.trans" and not transposed:
            if list(ir.DenseI32ArrayAttr(op.attributes["order"])) != [1, 0]:
                return value, transposed
            value, transposed = op.operands[0], True
        else:
            return value, transposed


def _stream(lowering, loop, dot, index: int, elem_bytes: int, swapped: bool = False):
    """(Stream, staging mode of the operand, the values it makes register-free) when operand
    `index` of `dot` comes from a chain of prefetched loads that cp.async can take, else None.
    `swapped`: the dot goes transposed (wgmma_swapped.py), its B copied as it lies in memory."""
    body = loop.regions[0].blocks[0]
    peeled = peel(dot, index)
    if peeled is None:
        return None
    value, transposed = peeled
    terminator = list(body.operations)[-1].operation
    yielded, inits = list(terminator.operands), list(loop.operands)[3:]
    slots, values = [], set()
    while isinstance(value.owner, ir.Block) and value.owner == body:
        number = ir.BlockArgument(value).arg_number
        if number == 0 or number - 1 in slots or not _single_use(value):
            return None
        slots.append(number - 1)
        values.add(value)
        value = yielded[number - 1]
    if not slots or isinstance(value.owner, ir.Block) or not _single_use(value):
        return None  # not prefetched (num_stages 1), or not by a load
    ahead = value.owner.operation
    if ahead.name != "tile.load" or ahead.parent != loop:
        return None
    values.add(value)
    prologue = []
    for slot in slots:
        init = inits[slot]
        if isinstance(init.owner, ir.Block) or not _single_use(init) or list(loop.results[slot].uses):
            return None
        load = init.owner.operation
        if load.name != "tile.load" or load.block != loop.block:
            return None
        prologue.append(load)
        values |= {init, loop.results[slot]}
    mode, width = None, 16 // elem_bytes
    for load in [*prologue, ahead]:
        found = _copyable(lowering, load, index, transposed, elem_bytes, swapped)
        if found is None or (mode is not None and found[0] != mode):
            return None
        mode, width = found[0], min(width, found[1])
    return Stream(index, prologue, ahead, width, transposed=transposed), mode, values


def _copyable(
    lowering, load: ir.Operation, index: int, transposed: bool, elem_bytes: int, swapped: bool = False
):
    """(staging mode, elements per copy) when cp.async can put this load's tile where the MMA reads
    it: vectors of 4 to 16 bytes contiguous in the staging layout, masked-off elements zero."""
    if "volatile" in load.attributes or not zero_filled(load):
        return None
    result = load.results[0]
    shape = tile.shape_of(result.type)
    if len(shape) != 2:
        return None
    layout = layout_of(lowering, load)
    if not isinstance(layout, Blocked):
        return None
    row_major = layout.order[0] == 1
    if swapped:  # row-major A and B, each in rows as in memory (wgmma_swapped.SwappedStaging)
        # (as tile-pipeline-loads' _swapped_streamable decides, which gave the loads their depth)
        info = lowering.axis.get(segments(load)["ptr"][0])
        in_rows = info.contiguity[1] > 1 and info.contiguity[0] == 1
        mode = "swapped" if row_major and in_rows else None
    elif index == 0 and transposed:  # A = trans(X), X [K, M] row-major: M-major when 16-bit
        mode = "m-major" if row_major and elem_bytes == 2 else None
    elif index == 0:  # K-major, or M-major when 16-bit (the instruction transposes it)
        mode = "a" if row_major else "m-major" if elem_bytes == 2 else None
    elif transposed:
        mode = "trans" if row_major else None
    elif not row_major:
        # K-contiguous in memory too (a row-major fp32 B loaded K-neighbours per thread for 16-byte
        # stores, wgmma.row_major_tf32_b_loads, would go one value per copy: it stays in registers;
        # most such dots go transposed instead, wgmma_swapped.py)
        info = lowering.axis.get(segments(load)["ptr"][0])
        mode = "k-major" if info.contiguity[0] > 1 else None
    else:
        mode = "n-major" if elem_bytes == 2 else None  # only 16-bit B may be N-major (else transposed)
    if mode is None:
        return None
    seg = segments(load)
    mask = seg["mask"][0] if seg["mask"] else None
    width = lowering.access_width(seg["ptr"][0], mask, layout, elem_bytes)
    if width * elem_bytes < 4:
        # too narrow for cp.async; a descriptor tile may still go by tensor copies (width 0)
        tensor_copy = lowering.tma and not swapped and tma.descriptor_of(load) is not None
        return (mode, 0) if tensor_copy else None
    return mode, width


def zero_filled(load: ir.Operation) -> bool:
    """cp.async fills masked-off elements with zeros: `other` must be absent or zero."""
    seg = segments(load)
    if not seg["other"]:
        return True
    other = seg["other"][0]
    if isinstance(other.owner, ir.Block) or other.owner.operation.name != "arith.constant":
        return False
    attr = ir.DenseElementsAttr(other.owner.operation.attributes["value"])
    if not attr.is_splat:
        return False
    splat = attr.get_splat_value()
    return (
        ir.FloatAttr(splat).value if isinstance(splat, ir.FloatAttr) else ir.IntegerAttr(splat).value
    ) == 0


def layout_of(lowering, load: ir.Operation):
    result = load.results[0]
    return lowering.load_layouts.get(result) or lowering.layout_for(
        tile.shape_of(result.type), tile.element_of(result.type)
    )


def copy(lowering, ring: Ring, stream: Stream, load: ir.Operation, iteration: ir.Value) -> None:
    """cp.async of `load`'s tile into the ring buffer of `iteration`, then one commit group."""
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    if ring.region is None:  # first copy: before the loop, where it dominates every use
        ring.region = lowering.smem_region(ring.stages * ring.staging.bytes)
    # Shared addresses in 32-bit arithmetic from the region's address on: as 64-bit GEPs (NVPTX's
    # shared pointers are 64 bits wide) each copy's address held two registers through the loop.
    region = llvm.PtrToIntOp(i32, ring.region).result
    base = arith.addi(region, arith.muli(arith.remui(iteration, _c(ring.stages)), _c(ring.staging.bytes)))
    layout = layout_of(lowering, load)
    seg = segments(load)
    ptrs = lowering.regs(seg["ptr"][0], layout)
    masks = lowering.regs(seg["mask"][0], layout) if seg["mask"] else None
    coords = lowering.coords(layout)
    nbytes = stream.width * ring.staging.elem_bytes
    # 16-byte copies bypass L1 (.cg), as the tiles are read once per CTA; smaller ones must use .ca
    bypass = nbytes == 16
    text = f"cp.async.{'cg' if bypass else 'ca'}.shared.global [$0], [$1], {nbytes}, $2;"
    for j in range(0, len(ptrs), stream.width):
        row, col = coords[j]
        dst = arith.addi(base, stream.offset(ring.staging, row, col))
        size = _c(nbytes) if masks is None else arith.select(masks[j], _c(nbytes), _c(0))
        operands = [dst, llvm.PtrToIntOp(i64, ptrs[j]).result, size]
        llvm.InlineAsmOp(ir.Type.parse("!llvm.void"), operands, text, "r,l,r", has_side_effects=True)
    _asm("cp.async.commit_group;")


def wait_all() -> None:
    """After a loop with a ring: the copies issued for iterations past its end have landed."""
    _asm("cp.async.wait_group 0;")


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def _asm(text: str) -> None:
    llvm.InlineAsmOp(ir.Type.parse("!llvm.void"), [], text, "", has_side_effects=True)
