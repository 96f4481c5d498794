"""What every tilec pass is: a frozen dataclass whose fields are its `{key=value}` options."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from mlir import ir

from tilec.dialects import expansions
from tilec.dialects.tile import defining_op  # noqa: F401 (the passes' import of it)


def ops_named(root: ir.Operation, name: str) -> list[ir.Operation]:
    """Every op called `name` nested in `root` (root included), in walk order, collected before any
    is changed."""
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def ops_in_order(root: ir.Operation) -> list[ir.Operation]:
    """Every op nested in `root` (root included), parents before their bodies, collected before any
    is changed."""
    found = []

    def visit(op):
        found.append(op.operation if hasattr(op, "operation") else op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


class PassError(Exception):
    """A pass could not do its job; `op` (when given) locates the problem in the IR."""

    def __init__(self, message: str, op: ir.Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op


@dataclasses.dataclass(frozen=True)
class TilePass:
    """Base class. Subclasses set `name` (kebab-case) and implement `run(module)`.

    The first line of the docstring is the summary `tilec-opt --list-passes` shows.
    """

    name: ClassVar[str] = ""
    # Whether the tile dialect's own checks run after the pass (upstream verification always does).
    # Passes that run after the tile ops are lowered turn them off: on a GPU module of ten thousand
    # ops their walk cost more than the pass (about 100 ms of a matmul's compile).
    checks_tile_ops: ClassVar[bool] = True
    # Integer options' allowed ranges, {field: (lowest, highest)}, besides the common rules below.
    option_ranges: ClassVar[dict] = {}

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            rule = _COMMON_RULES.get(f.name)
            if rule is not None and not rule[1](value):
                raise ValueError(self._bad_option(f.name, rule[0], value))
            bounds = self.option_ranges.get(f.name)
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ValueError(self._bad_option(f.name, f"from {bounds[0]} to {bounds[1]}", value))

    def _bad_option(self, field: str, what: str, value) -> str:
        return f"option '{field.replace('_', '-')}' of pass '{self.name}' must be {what}, got {value!r}"

    def run(self, module: ir.Module) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        """The docstring's first paragraph on one line (a summary may wrap in the source)."""
        paragraph = (cls.__doc__ or "").strip().split("\n\n", 1)[0]
        return " ".join(line.strip() for line in paragraph.splitlines())

    @classmethod
    def option_defaults(cls) -> list[tuple[str, str, object]]:
        """(command-line name, type name, default) of each option, in declaration order."""
        found = []
        for key, f in cls.options().items():
            type_name = f.type if isinstance(f.type, str) else f.type.__name__
            default = f.default if f.default is not dataclasses.MISSING else None
            found.append((key, type_name, default))
        return found

    @classmethod
    def options(cls) -> dict[str, dataclasses.Field]:
        """Options by their command-line spelling (`num_warps` is `num-warps`)."""
        return {f.name.replace("_", "-"): f for f in dataclasses.fields(cls)}

    @classmethod
    def from_options(cls, text: str) -> TilePass:
        """Builds the pass from `key=value key2=value2` (the inside of `{...}`)."""
        fields = cls.options()
        values = {}
        for item in text.split():
            key, eq, raw = item.partition("=")
            if not eq:
                raise ValueError(f"option '{item}' of pass '{cls.name}' needs a value (key=value)")
            field = fields.get(key)
            if field is None:
                import difflib

                known = ", ".join(fields) or "none"
                guess = difflib.get_close_matches(key, list(fields), n=1)
                hint = f"did you mean '{guess[0]}'? " if guess else ""
                raise ValueError(f"pass '{cls.name}' has no option '{key}' ({hint}options: {known})")
            values[field.name] = _convert(cls.name, key, raw, field.type)
        return cls(**values)


def _convert(pass_name: str, key: str, raw: str, type_name) -> object:
    type_name = type_name if isinstance(type_name, str) else type_name.__name__
    try:
        if type_name == "int":
            return int(raw, 0)
        if type_name == "bool":
            if raw.lower() in ("1", "true", "on"):
                return True
            if raw.lower() in ("0", "false", "off"):
                return False
            raise ValueError(raw)
        if type_name == "float":
            return float(raw)
    except ValueError:
        raise ValueError(f"option '{key}' of pass '{pass_name}' expects {type_name}, got '{raw}'") from None
    return raw


# Options several passes share: what every value of theirs must be.
_COMMON_RULES = {
    "num_warps": ("a power of two from 1 to 32", lambda v: 1 <= v <= 32 and v & (v - 1) == 0),
    "warp_size": ("32 or 64", lambda v: v in (32, 64)),
    "vendor": ("nvidia or amd", lambda v: v in ("nvidia", "amd")),
}


def expansions_for(tile_pass: TilePass, family: str) -> dict:
    """The op name -> expansion table `tile_pass` applies (tilec/dialects/expansions.py)."""
    table = expansions.family(family)
    if not table:
        raise PassError(
            f"{tile_pass.name}: no '{family}' expansions are registered; they are defined by tilec.language "
            "(import it before running this pass, as the compiler and tilec-opt do)"
        )
    return table


def expand(op: ir.Operation, build) -> None:
    """Replaces `op` (one result) with what `build(op)` builds in front of it."""
    with op.location, ir.InsertionPoint(op):
        result = build(op)
    op.results[0].replace_all_uses_with(result)
    op.erase()
