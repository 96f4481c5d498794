"""MLIR diagnostics as `file:line:col: error: message` lines, collected instead of printed."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from mlir import ir


@dataclass
class Diagnostic:
    severity: str  # error | warning | note | remark
    message: str
    file: str | None
    line: int | None
    col: int | None

    def format(self, default_file: str = "<stdin>") -> str:
        file = self.file if self.file not in (None, "-") else default_file
        if self.line is None:
            return f"{file}: {self.severity}: {self.message}"
        return f"{file}:{self.line}:{self.col}: {self.severity}: {self.message}"


_SEVERITY = {0: "error", 1: "warning", 2: "note", 3: "remark"}


def file_location(loc: ir.Location) -> tuple[str | None, int | None, int | None]:
    """The first file:line:col inside a (possibly fused, named or call-site) location."""
    try:
        if loc.is_a_file():
            return loc.filename, loc.start_line, loc.start_col
        if loc.is_a_name():
            return file_location(loc.child_loc)
        if loc.is_a_callsite():
            return file_location(loc.callee)
        if loc.is_a_fused():
            for inner in loc.locations:
                found = file_location(inner)
                if found[0] is not None:
                    return found
    except Exception:  # an exotic location kind: report it without a position
        pass
    return None, None, None


def _severity_name(sev) -> str:
    text = str(sev).lower()
    for name in ("error", "warning", "note", "remark"):
        if name in text:
            return name
    return _SEVERITY.get(int(sev), "error")


def from_mlir(diag) -> list[Diagnostic]:
    """Converts an `ir.Diagnostic` or `ir.DiagnosticInfo` (and its notes) to Diagnostics."""
    file, line, col = file_location(diag.location)
    out = [Diagnostic(_severity_name(diag.severity), diag.message, file, line, col)]
    for note in diag.notes:
        # MLIR's "see current operation" note dumps the whole op: noise for a one-line diagnostic.
        if not note.message.startswith("see current operation"):
            out.extend(from_mlir(note))
    return out


def at_op(op: ir.Operation | None, message: str, severity: str = "error") -> Diagnostic:
    if op is None:
        return Diagnostic(severity, message, None, None, None)
    file, line, col = file_location(op.location)
    return Diagnostic(severity, message, file, line, col)


@contextmanager
def collected(ctx: ir.Context):
    """Collects every diagnostic emitted in `ctx` into the yielded list instead of stderr."""
    found: list[Diagnostic] = []

    def handler(d):
        found.extend(from_mlir(d))
        return True

    handle = ctx.attach_diagnostic_handler(handler)
    try:
        yield found
    finally:
        handle.detach()
