"""Which function lowers each eager op (the rest are lazy or scalar; see lowering.py)."""

from __future__ import annotations

from .control_flow import lower_for, lower_if, lower_while
from .debug import lower_assert, lower_print
from .dot import lower_dot
from .elementwise import lower_inline_asm, lower_map
from .memory import lower_atomic, lower_load, lower_program_id, lower_store
from .reductions import lower_histogram, lower_reduce, lower_scan
from .shared_memory import lower_gather, lower_via_shared

EAGER = {
    "tile.program_id": lower_program_id,
    "tile.num_programs": lower_program_id,
    "tile.load": lower_load,
    "tile.store": lower_store,
    "tile.atomic_rmw": lower_atomic,
    "tile.atomic_cas": lower_atomic,
    "tile.reduce": lower_reduce,
    "tile.reshape": lower_via_shared,
    "tile.trans": lower_via_shared,
    "scf.for": lower_for,
    "scf.if": lower_if,
    "scf.while": lower_while,
    "tile.scan": lower_scan,
    "tile.gather": lower_gather,
    "tile.histogram": lower_histogram,
    "tile.dot": lower_dot,
    "tile.print": lower_print,
    "tile.assert": lower_assert,
    "tile.inline_asm": lower_inline_asm,
    "tile.map": lower_map,
}
