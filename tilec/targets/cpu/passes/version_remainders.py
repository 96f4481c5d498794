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
ranges, splats and constants by additions and multiplications by constants (versioning's
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
from tilec.dialects import contract
from tilec.passes.base import TilePass, ops_named
from tilec.passes.versioning import (
    LOOPS,
    hoist_slice,
    pure_slice,
    remainder_is_identity,
    scalar_part,
    split_body,
    without_remainders,
)

_ADDRESS_USERS = ("tile.addptr",)  # an integer tile reaches an address as an offset
_SEARCH_DEPTH = 8  # ops between a remainder and the address it feeds (expand_dims, muli, addptr...)


@dataclass(frozen=True)
class CpuVersionRemaindersPass(TilePass):
    """Run a copy of a looped kernel's body without its offsets' `% M` when no offset wraps."""

    name: ClassVar[str] = "tile-cpu-version-remainders"

    def run(self, module: ir.Module) -> None:
        for fn in contract.kernels(module):
            if any(ops_named(fn, name) for name in LOOPS):
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
        found = pure_slice(wrap[0], positions, set(), outside)
        found_modulus = pure_slice(wrap[1], positions, set(), outside)
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
