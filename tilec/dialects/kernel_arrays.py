"""The `descriptor` text of a tile.load whose block belongs to a 2-D array made of the kernel's
arguments (a block pointer or tl.make_tensor_descriptor; language descriptors.kernel_array):

    array base=a_ptr rows=M cols=K row_stride=stride_am
    array base=k_ptr rows=mul.i32(heads,seq_len) cols=64 row_stride=64

A part is an argument's name, an integer, or `add.iN(x,y)` / `mul.iN(x,y)` / `div.iN(x,y)` of two
parts computed in N-bit integers (the launcher wraps as the kernel does; div rounds toward zero, as
arith.divsi). A descriptor argument's loads carry the
argument's name instead, which never starts with "array ".
"""

from __future__ import annotations

import re

PREFIX = "array "
FIELDS = ("base", "rows", "cols", "row_stride")
_OPS = ("add", "mul", "div")


def format_array(parts: dict) -> str:
    """`parts`: field -> a name, an int or {"op", "bits", "args"}."""
    return PREFIX + " ".join(f"{field}={_format(parts[field])}" for field in FIELDS)


def _format(part) -> str:
    if isinstance(part, dict):
        a, b = (_format(p) for p in part["args"])
        return f"{part['op']}.i{part['bits']}({a},{b})"
    return str(part)


def is_array(text: str) -> bool:
    return text.startswith(PREFIX)


def parse_array(text: str) -> dict:
    """The parts of format_array's text (ValueError for other text)."""
    if not is_array(text):
        raise ValueError(f"not a kernel array: {text!r}")
    parts = {}
    for item in text[len(PREFIX) :].split():
        field, _, value = item.partition("=")
        if field not in FIELDS or field in parts:
            raise ValueError(f"kernel array {text!r}: unexpected field {field!r}")
        try:
            part, rest = _parse(value)
        except ValueError as e:
            raise ValueError(f"kernel array {text!r}: {e}") from None
        if rest:
            raise ValueError(f"kernel array {text!r}: {rest!r} after {field}'s value")
        parts[field] = part
    if set(parts) != set(FIELDS):
        raise ValueError(f"kernel array {text!r}: needs {', '.join(FIELDS)}")
    return parts


def _parse(text: str):
    """(part, the text after it)."""
    call = re.match(r"(add|mul|div)\.i(\d+)\(", text)
    if call:
        a, rest = _parse(text[call.end() :])
        if not rest.startswith(","):
            raise ValueError(f"expected ',' in {text!r}")
        b, rest = _parse(rest[1:])
        if not rest.startswith(")"):
            raise ValueError(f"expected ')' in {text!r}")
        return {"op": call.group(1), "bits": int(call.group(2)), "args": [a, b]}, rest[1:]
    atom = re.match(r"-?\d+|[A-Za-z_][\w.\[\]]*", text)
    if not atom:
        raise ValueError(f"expected a name, an integer or add/mul/div in {text!r}")
    value = atom.group(0)
    return (int(value) if value.lstrip("-").isdigit() else value), text[atom.end() :]
