"""Blocked and slice layouts: which thread holds which tensor element, and in which register.

A blocked layout (Triton's) splits each dimension d into `size_per_thread[d]` consecutive elements
per thread, `threads_per_warp[d]` lanes and `warps_per_cta[d]` warps, repeating when the tensor is
larger than that tile. With `warp_repeats[d]` = R > 1 a warp first repeats its lanes' elements R
times along d (R x size_per_thread x threads_per_warp consecutive elements) before the next warp's
begin: the row order of Hopper's warpgroup MMA, whose warp w holds rows 16w + g and 16w + 8 + g.
`order` lists dimensions fastest first. A thread's element along d is
`(base_d + static_d(r)) mod shape_d`: `base_d` depends only on the thread id (computed once per
kernel), `static_d(r)` only on the register r — so addresses are a base plus constants.

A slice layout is a blocked parent with one dimension removed (what a reduction leaves behind):
threads that differed only along that dimension hold the same values.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import cache, cached_property


@dataclass(frozen=True)
class Blocked:
    shape: tuple[int, ...]
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]  # fastest dimension first
    warp_repeats: tuple[int, ...] = ()  # per dimension (empty: 1 everywhere), see the module doc

    def __post_init__(self):
        # a warp's repeats are whole: the tensor is one element (a reduced dimension) or whole tiles
        for d in range(len(self.shape)):
            if self.repeats(d) > 1 and self.shape[d] != 1 and self.shape[d] % self.tile(d):
                raise ValueError(f"internal: {self} does not tile dimension {d}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    def repeats(self, d: int) -> int:
        """Times a warp repeats its lanes' elements along d before the next warp's."""
        return self.warp_repeats[d] if self.warp_repeats else 1

    def lanes_tile(self, d: int) -> int:
        """Consecutive elements one warp's lanes hold along d (once)."""
        return self.size_per_thread[d] * self.threads_per_warp[d]

    def tile(self, d: int) -> int:
        return self.lanes_tile(d) * self.repeats(d) * self.warps_per_cta[d]

    def elems(self, d: int) -> int:
        """Elements one thread holds along d."""
        spt = min(self.size_per_thread[d], self.shape[d])
        if self.shape[d] < self.tile(d):
            return spt  # a reduced dimension of a repeating layout, or fewer than one tile
        return spt * self.repeats(d) * (self.shape[d] // self.tile(d))

    def wraps(self, d: int) -> bool:
        """True when the thread tile exceeds the shape along d (threads then hold replicas)."""
        return self.tile(d) > self.shape[d]

    @cached_property
    def registers(self) -> list[tuple[int, ...]]:
        """Per register, its static offset along every dimension (fastest dimension varies fastest)."""
        ranges = [None] * self.rank
        for d in range(self.rank):
            spt, repeats = min(self.size_per_thread[d], self.shape[d]), self.repeats(d)
            ranges[d] = [
                (k // spt % repeats) * self.lanes_tile(d) + (k // spt // repeats) * self.tile(d) + k % spt
                for k in range(self.elems(d))
            ]
        slow_to_fast = list(reversed(self.order))
        out = []
        for combo in itertools.product(*[ranges[d] for d in slow_to_fast]):
            static = [0] * self.rank
            for d, v in zip(slow_to_fast, combo):
                static[d] = v
            out.append(tuple(static))
        return out

    def with_shape(self, shape) -> Blocked:
        return replace(self, shape=tuple(shape))

    def distinct_lanes(self, d: int) -> int:
        spt = self.size_per_thread[d]
        return max(1, min(self.threads_per_warp[d], -(-self.shape[d] // spt)))

    def distinct_warps(self, d: int) -> int:
        per_warp = self.lanes_tile(d) * self.repeats(d)
        return max(1, min(self.warps_per_cta[d], -(-self.shape[d] // per_warp)))

    def lane_stride(self, d: int) -> int:
        """How much the lane id grows per step of the lane coordinate along d."""
        stride = 1
        for o in self.order:
            if o == d:
                return stride
            stride *= self.threads_per_warp[o]
        raise ValueError(d)

    def warp_stride(self, d: int) -> int:
        stride = 1
        for o in self.order:
            if o == d:
                return stride
            stride *= self.warps_per_cta[o]
        raise ValueError(d)

    def __str__(self):
        repeats = f", warp_repeats={list(self.warp_repeats)}" if self.warp_repeats else ""
        return (
            f"#blocked<shape={list(self.shape)}, spt={list(self.size_per_thread)}, "
            f"tpw={list(self.threads_per_warp)}, wpc={list(self.warps_per_cta)}, order={list(self.order)}"
            f"{repeats}>"
        )


@dataclass(frozen=True)
class Interleaved(Blocked):
    """A blocked layout whose lanes along the fastest dimension f are interleaved in groups of
    `group` G: of G neighbouring lanes, lane j takes the j-th of G consecutive register repeats, and
    each holds `size_per_thread[f]` consecutive elements gathered from all G lanes' fragments.

    With s0 = size_per_thread[f] / G (what one lane held before) and tile0 = tile(f) / G, lane
    l = G*h + j of warp w starts along f at j*tile0 + h*size_per_thread[f] + w*threads_per_warp[f]*s0;
    registers are placed as in a blocked layout. It is what a tensor-core accumulator (2 elements
    per lane and 8-element group) becomes after its lanes exchange fragments for 16-byte stores
    (store_vectors.py); G = 1 is the blocked layout itself."""

    group: int = 1

    def __post_init__(self):
        super().__post_init__()
        if self.repeats(self.order[0]) != 1:
            raise ValueError(f"internal: {self} repeats along its interleaved dimension")

    def __str__(self):
        return super().__str__()[:-1] + f", interleave={self.group}>"


@dataclass(frozen=True)
class Slice:
    """`parent` with dimension `dim` removed; parent.shape[dim] is always 1 (canonical form)."""

    parent: Blocked
    dim: int

    @staticmethod
    def of(parent: Blocked, dim: int) -> Slice:
        shape = list(parent.shape)
        shape[dim] = 1
        return Slice(parent.with_shape(shape), dim)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(s for d, s in enumerate(self.parent.shape) if d != self.dim)

    @property
    def rank(self) -> int:
        return self.parent.rank - 1

    @cached_property
    def registers(self) -> list[tuple[int, ...]]:
        return [tuple(s for d, s in enumerate(r) if d != self.dim) for r in self.parent.registers]

    def with_shape(self, shape) -> Slice:
        full = list(shape)
        full.insert(self.dim, 1)
        return Slice(self.parent.with_shape(full), self.dim)

    def parent_dim(self, d: int) -> int:
        return d if d < self.dim else d + 1

    def __str__(self):
        return f"#slice<dim={self.dim}, parent={self.parent}>"


def thread_bases(layout: Blocked, d: int) -> list[int]:
    """Every thread's first element along d (the static twin of the lowering's `bases_of`)."""
    spt, tpw = layout.size_per_thread[d], layout.threads_per_warp[d]
    out = []
    for warp in range(layout.warps_per_cta[d]):
        for lane in range(tpw):
            if isinstance(layout, Interleaved) and layout.group > 1 and d == layout.order[0]:
                g = layout.group
                out.append((lane % g) * (layout.tile(d) // g) + (lane // g) * spt + warp * tpw * (spt // g))
            else:
                out.append((warp * tpw * layout.repeats(d) + lane) * spt)
    return out


@cache
def constant_classes(layout, constancy: tuple[int, ...]) -> tuple[int, ...] | None:
    """For a tensor constant over aligned groups of `constancy[d]` elements along each dimension d
    (the axis analysis' constancy): per register of `layout`, the first register that holds an
    element of the same group in every thread, so holds the same value. None when no two share."""
    parent = layout.parent if isinstance(layout, Slice) else layout
    dims = (
        [layout.parent_dim(d) for d in range(layout.rank)]
        if isinstance(layout, Slice)
        else list(range(layout.rank))
    )
    if all(c <= 1 for c in constancy):
        return None
    group_of = []  # per tensor dimension: static offset -> the groups of its element in every thread
    for k, d in zip(constancy, dims):
        bases, size, wraps = thread_bases(parent, d), parent.shape[d], parent.wraps(d)
        groups = {}
        for static in {r[d] for r in parent.registers}:
            coords = ((b + static) & (size - 1) if wraps else b + static for b in bases)
            groups[static] = tuple(c // max(k, 1) for c in coords)
        group_of.append(groups)
    first, out = {}, []
    for i, static in enumerate(parent.registers):
        key = tuple(g[static[d]] for g, d in zip(group_of, dims))
        out.append(first.setdefault(key, i))
    return tuple(out) if any(j != i for i, j in enumerate(out)) else None


def default_blocked(shape, num_warps: int, warp_size: int, vector: int, order=None) -> Blocked:
    """A coalesced layout for `shape`: `vector` consecutive elements per thread along the fastest dim
    (`order[0]`; the last dim unless `order` says otherwise), lanes spread from the fastest dimension
    and warps from the slowest."""
    rank = len(shape)
    order = tuple(order) if order is not None else tuple(range(rank - 1, -1, -1))
    threads = num_warps * warp_size
    numel = 1
    for s in shape:
        numel *= s
    fastest = order[0]
    spt = [1] * rank
    spt[fastest] = max(1, min(vector, shape[fastest], max(1, numel // threads)))
    tpw = [1] * rank
    lanes = warp_size
    for d in order:  # fastest dimension first
        take = min(lanes, max(1, shape[d] // spt[d]))
        tpw[d] = take
        lanes //= take
    tpw[fastest] *= lanes  # leftover lanes replicate along the fastest dimension
    wpc = [1] * rank
    warps = num_warps
    for d in reversed(order):  # slowest dimension first
        take = min(warps, max(1, shape[d] // (spt[d] * tpw[d])))
        wpc[d] = take
        warps //= take
    wpc[order[-1]] *= warps
    return Blocked(tuple(shape), tuple(spt), tuple(tpw), tuple(wpc), order)
