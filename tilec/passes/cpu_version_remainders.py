"""tile-cpu-version-remainders: a kernel with loops whose offsets wrap with `% M` runs a copy of its
body without the remainders when none of the program's offsets wraps (CPU).

Triton's matmul computes its rows as `offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M`, so
that the edge programs read valid rows without masks. On the CPU target the remainder makes every
address of A's and B's tiles a value read back from a buffer of offsets: the copies that feed the
dot gather element by element, where affine addresses (a range plus a scalar) move whole vectors.
The remainder changes nothing unless an offset reaches M, which only the last program along that
axis sees, so the kernel tests once, from the offsets' bounds, that every such remainder is the
identity (`0 <= min(x)` and `max(x) < M`) and then runs a copy of its body with `x % M` replaced
by `x`:

    %s = arith.muli %pid, %c64;  %x = arith.addi (tile.splat %s), (tile.make_range 0..64)
    %w = arith.remsi %x, (tile.splat %M);  ...body using %w...
      =>  ...;  scf.if (0 <= s && s + 63 < M) { ...body using %x... } else { ...body using %w... }

Only remainders at the kernel's top level (or, where it has none, in the body of a loop there: a
persistent kernel's tile loop, each tile testing its own offsets) whose offsets are built from
ranges, splats and constants by additions and multiplications by constants (cpu_version_masks'
bounds) and computed by pure ops from the arguments, the program id and the values around the
block, and whose results flow into addresses, count. `tl.where(x < M, x, 0)` clamps count as
`x % M` does (affine_tiles.wrapped_value).
Loop-free kernels are left to tile-cpu-version-masks and their fused copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.affine_tiles import enclosing_blocks, wrapped_value
from tilec.dialects import tile

from .base import TilePass, defining_op, ops_in_order, ops_named
from .cpu_version_masks import LOOPS, _bounds, _pure_slice, hoist_slice, split_body

_ADDRESS_USERS = ("tile.addptr",)  # an integer tile reaches an address as an offset
_SEARCH_DEPTH = 8  # ops between a remainder and the address it feeds (expand_dims, muli, addptr...)


@dataclass(frozen=True)
class CpuVersionRemaindersPass(TilePass):
    """Run a copy of a looped kernel's body without its offsets' `% M` when no offset wraps."""

    name: ClassVar[str] = "tile-cpu-version-remainders"

    def run(self, module: ir.Module) -> None:
        for fn in ops_named(module.operation, "func.func"):
            if "tile.kernel" in fn.attributes and any(ops_named(fn, name) for name in LOOPS):
                _version(fn, fn.regions[0].blocks[0], frozenset())


def _feeds_addresses(value: ir.Value, depth: int = _SEARCH_DEPTH) -> bool:
    """`value` reaches a tile.addptr's offset through at most `depth` ops (outside loops)."""
    for use in value.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if user.name in _ADDRESS_USERS:
            return True
        if depth and not user.regions and any(_feeds_addresses(r, depth - 1) for r in user.results):
            return True
    return False


def _version(fn: ir.Operation, block: ir.Block, outside: frozenset) -> None:
    """Versions `block` (the kernel's body, or a loop's: a persistent kernel's tile loop, whose
    every tile then tests its own offsets) on its wraps; where it has none, the loops in it."""
    ops = [op.operation for op in block.operations]
    if not _version_block(fn, ops, outside):
        for loop in ops:
            if loop.name == "scf.for":
                _version(fn, loop.regions[0].blocks[0], enclosing_blocks(loop, fn))


def _version_block(fn: ir.Operation, ops: list, outside: frozenset) -> bool:
    positions = {op: i for i, op in enumerate(ops)}
    candidates, slice_ops = [], set()
    for op in ops:
        wrap = wrapped_value(op) if op.results and op.name in ("arith.remsi", "arith.select") else None
        if wrap is None or not _feeds_addresses(op.results[0]):
            continue
        found = _pure_slice(wrap[0], positions, set(), outside)
        found_modulus = _pure_slice(wrap[1], positions, set(), outside)
        if found is None or found_modulus is None:
            continue
        scalars = scalar_part(found | found_modulus)
        if scalars is None:
            continue
        candidates.append(op)
        slice_ops |= scalars
    if not candidates:
        return False
    # The scalars the bounds need first (pure, they depend on nothing else in the body), then the
    # test. The tiles (ranges, splats, sums) stay in the body and are copied with it: computed
    # outside the branch they would be buffers that both copies read instead of loop indices.
    first = hoist_slice(ops, slice_ops, positions)
    wrapped, identity = [], None
    with fn.location, ir.InsertionPoint(first):
        for op in candidates:
            holds = remainder_is_identity(op)
            if holds is None:
                continue
            identity = holds if identity is None else arith.andi(identity, holds)
            wrapped.append(op)
        if not wrapped:
            return False  # (the bounds' dead arithmetic goes with canonicalization)
        results = [v.type for v in ops[-1].operands]  # what a loop body yields
        branch = scf.IfOp(identity, results, has_else=True)
    split_body(branch, ops, slice_ops, without_remainders(wrapped))
    return True


def remainder_is_identity(op: ir.Operation) -> ir.Value | None:
    """At the insertion point: i1, the wrap `op` (`x % M`, or `where(x < M, x, c)`, of an i32 or i64
    tile: wrapped_value) is x for every element (`0 <= min(x)` and `max(x) < M`), from x's
    bounds; None when x has none."""
    i64 = ir.IntegerType.get_signless(64)
    x, bound = wrapped_value(op)
    bounds = _bounds(x)  # (exact i64 bounds of i32 tiles, and of i64 ones widened from i32 values)
    if bounds is None or tile.element_of(x.type) not in (ir.IntegerType.get_signless(32), i64):
        return None
    modulus = bound if bound.type == i64 else arith.extsi(i64, bound)
    zero = arith.ConstantOp(i64, 0).result
    holds = arith.andi(
        arith.cmpi(arith.CmpIPredicate.sge, bounds[0], zero),
        arith.cmpi(arith.CmpIPredicate.slt, bounds[1], modulus),
    )
    if bounds[3] is not None:  # i32 values it was widened from lie within i32
        holds = arith.andi(holds, bounds[3])
    return holds


def without_remainders(wrapped: list):
    """split_body's `clone` for the copy where the wraps `wrapped` are the identity."""

    def clone(op, mapping):
        if op in wrapped:  # `x % M` (or `where(x < M, x, c)`) is x here
            x = wrapped_value(op)[0]
            mapping[op.results[0]] = mapping.get(x, x)
        else:
            clone_mapped(op, mapping)

    return clone


def scalar_part(slice_ops: set) -> set | None:
    """The ops of a pure slice that compute scalars, when none of them reads a tile of the slice."""
    scalars = {op for op in slice_ops if not any(tile.shape_of(r.type) for r in op.results)}
    for op in scalars:
        for v in op.operands:
            producer = defining_op(v)
            if producer is not None and producer in slice_ops and producer not in scalars:
                return None
    return scalars


def clone_mapped(op: ir.Operation, mapping: dict) -> None:
    """Clones `op` (with its regions) at the insertion point, its operands and those of the ops
    nested in it read through `mapping`; records the clone's results in `mapping`."""
    new = op.clone()
    for nested in ops_in_order(new):
        for i, v in enumerate(list(nested.operands)):
            if v in mapping:
                nested.operands[i] = mapping[v]
    for old, r in zip(op.results, new.results):
        mapping[old] = r
