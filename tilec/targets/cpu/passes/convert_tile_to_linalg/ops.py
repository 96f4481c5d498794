"""Which function lowers each tile op on the CPU."""

from __future__ import annotations

from .debug import lower_assert, lower_print
from .memory import lower_addptr, lower_atomic_cas, lower_atomic_rmw, lower_load, lower_store
from .reductions import lower_dot, lower_reduce, lower_scan
from .shape import (
    lower_broadcast,
    lower_convert_layout,
    lower_expand_dims,
    lower_gather,
    lower_histogram,
    lower_make_range,
    lower_reshape,
    lower_sort,
    lower_splat,
    lower_trans,
)

LOWERINGS = {
    "tile.make_range": lower_make_range,
    "tile.splat": lower_splat,
    "tile.broadcast": lower_broadcast,
    "tile.expand_dims": lower_expand_dims,
    "tile.reshape": lower_reshape,
    "tile.trans": lower_trans,
    "tile.gather": lower_gather,
    "tile.sort": lower_sort,
    "tile.histogram": lower_histogram,
    "tile.convert_layout": lower_convert_layout,
    "tile.ptr_cast": lower_convert_layout,  # pointers are i64 addresses here: every cast is the value itself
    "tile.addptr": lower_addptr,
    "tile.load": lower_load,
    "tile.store": lower_store,
    "tile.atomic_rmw": lower_atomic_rmw,
    "tile.atomic_cas": lower_atomic_cas,
    "tile.reduce": lower_reduce,
    "tile.scan": lower_scan,
    "tile.dot": lower_dot,
    "tile.assert": lower_assert,
    "tile.print": lower_print,
}
