"""The reference interpreter (the interpreter target's program): executes tile IR with NumPy, one program instance at a time.

The IR is translated once into nested Python closures (one per op) over a value table; then the
closures run for every program id of the grid. Pointers are real host addresses, so kernels read and
write the caller's arrays in place; every access is checked against the arrays passed to the kernel,
and an out-of-bounds access is an error naming the user's source line, never a crash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from mlir import ir

from . import arith_ops, scf_ops, tile_ops  # noqa: F401  (their handlers register themselves)
from .memory import np_dtype
from .translator import State, Translator

if TYPE_CHECKING:
    from .memory import Memory


class Program:
    """A translated kernel: `run(grid, args, arrays)` executes it over the whole grid."""

    def __init__(self, module: ir.Module):
        fn = next(op for op in module.body.operations if op.operation.name == "func.func")
        block = fn.regions[0].blocks[0]
        self.translator = Translator()
        self.arg_slots = [self.translator.slot(a) for a in block.arguments]
        self.arg_types = [a.type for a in block.arguments]
        self.body = self.translator.block(block)
        self.n_slots = len(self.translator.slots)

    def run(self, grid, args: list, memory: Memory) -> None:
        state = State(memory, grid)
        env = [None] * max(self.n_slots, len(self.translator.slots))
        for slot, t, value in zip(self.arg_slots, self.arg_types, args):
            dt = np_dtype(t)
            if dt.kind == "i" and isinstance(value, int) and not isinstance(value, bool):
                # signless slots hold the bits: a u64 above 2^63 reads as its two's complement
                half = 1 << (dt.itemsize * 8 - 1)
                value = (value + half) % (2 * half) - half
            env[slot] = np.asarray(value, dtype=dt)
        with np.errstate(all="ignore"):
            for z in range(grid[2]):
                for y in range(grid[1]):
                    for x in range(grid[0]):
                        state.pid = (x, y, z)
                        self.body(env, state)
