"""Pipelines that mix tilec's Python passes and upstream MLIR passes, written as one string.

    tile-canonicalize,tile-verify,canonicalize,gpu.module(convert-gpu-to-nvvm)

Python passes cannot be named inside an upstream pipeline string, so the string is split here:
each tilec pass runs in Python, each upstream element runs through its own `PassManager` (that also
lets `--print-ir-after` name any pass).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir, passmanager

from tilec import knobs
from tilec.dialects import tile

from . import REGISTRY, upstream_preconditions
from .base import PassError, TilePass


class PipelineError(ValueError):
    """The pipeline text is malformed or names an unknown pass or option."""


@dataclass(frozen=True)
class Step:
    name: str  # the pass name, or the nesting op (`gpu.module`) for nested upstream pipelines
    text: str  # the element as written (what PassManager.parse gets for upstream passes)
    tile_pass: TilePass | None = None

    def __str__(self) -> str:
        return self.text


def split_top_level(text: str) -> list[str]:
    """Splits on commas that are not inside (), {} or []."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth < 0:
                raise PipelineError(f"unbalanced '{ch}' at position {i} of the pipeline")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise PipelineError("unbalanced brackets in the pipeline")
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_pipeline(text: str) -> list[Step]:
    text = text.strip()
    if text.startswith("builtin.module(") and text.endswith(")"):
        text = text[len("builtin.module(") : -1]
    steps = []
    for element in split_top_level(text):
        name = element.split("{", 1)[0].split("(", 1)[0].strip()
        if name in REGISTRY:
            options = ""
            if "{" in element:
                if not element.endswith("}"):
                    raise PipelineError(f"malformed options in '{element}'")
                options = element[element.index("{") + 1 : -1]
            try:
                steps.append(Step(name, element, REGISTRY[name].from_options(options)))
            except (ValueError, TypeError) as e:
                raise PipelineError(str(e)) from None
            continue
        if "(" in element and any(p in element for p in REGISTRY):
            raise PipelineError(f"tilec passes run on the whole module and cannot be nested: '{element}'")
        _check_upstream(element)
        steps.append(Step(name, element))
    return steps


class _ValidationContext(threading.local):
    """One plain context per thread, only for parsing pipeline text: checking a pipeline element
    needs the registered passes, not the module's context, and a context made for each element
    (about 20 per CPU compile) was kept alive, ~50 MB per compile."""

    def get(self) -> ir.Context:
        if not hasattr(self, "context"):
            self.context = ir.Context()
        return self.context


_VALIDATION_CONTEXT = _ValidationContext()


# Options of upstream passes that the LLVM build (with assertions) aborts on instead of reporting,
# checked before the pass runs: pass name -> option -> (what it must be, check).
def _o_level(v: str) -> bool:
    return v in ("0", "1", "2", "3")


def _nvidia_chip(v: str) -> bool:
    return re.fullmatch(r"sm_[1-9][0-9]{1,2}[af]?", v) is not None


def _amd_chip(v: str) -> bool:
    return re.fullmatch(r"gfx[0-9]{2,3}[0-9a-f]", v) is not None


_UPSTREAM_OPTION_CHECKS = {
    "nvvm-attach-target": {
        "O": ("0, 1, 2 or 3", _o_level),
        "chip": ("an NVIDIA arch such as sm_90a", _nvidia_chip),
    },
    "rocdl-attach-target": {
        "O": ("0, 1, 2 or 3", _o_level),
        "chip": ("an AMD arch such as gfx942", _amd_chip),
        "abi": ("an ABI version such as 500", lambda v: v.isdigit() and 400 <= int(v) <= 600),
    },
}


def _check_upstream_options(name: str, element: str) -> None:
    checks = _UPSTREAM_OPTION_CHECKS.get(name)
    if not checks or "{" not in element:
        return
    for item in element[element.index("{") + 1 : element.rindex("}")].split():
        key, _, value = item.partition("=")
        check = checks.get(key)
        if check is not None and not check[1](value.strip("'\"")):
            raise PipelineError(f"option '{key}' of pass '{name}' must be {check[0]}, got '{value}'")


def _check_upstream(element: str) -> None:
    _check_upstream_options(element.split("{", 1)[0].strip(), element)
    try:
        passmanager.PassManager.parse(f"builtin.module({element})", context=_VALIDATION_CONTEXT.get())
    except ValueError as e:
        detail = str(e).strip().splitlines()
        reason = next((line for line in detail if "error" in line.lower()), detail[-1] if detail else "")
        reason = reason.split("error:", 1)[-1].strip() if "error:" in reason else reason
        name = element.split("{", 1)[0].split("(", 1)[0]
        if "does not refer to a registered pass" in str(e) or "unknown" in str(e).lower():
            raise PipelineError(f"unknown pass or pass pipeline '{name}'{_did_you_mean(name)}") from None
        raise PipelineError(f"invalid pipeline element '{element}': {reason}") from None


# Upstream passes a tilec pipeline commonly names: the candidates of "did you mean" besides tilec's
# own (MLIR's Python bindings cannot list the registered passes). Each is checked before it is offered.
_COMMON_UPSTREAM = (
    "canonicalize", "cse", "symbol-dce", "inline", "sccp", "loop-invariant-code-motion",
    "convert-scf-to-cf", "convert-cf-to-llvm", "convert-arith-to-llvm", "convert-func-to-llvm",
    "convert-math-to-llvm", "convert-vector-to-llvm", "convert-vector-to-scf", "convert-index-to-llvm",
    "convert-gpu-to-nvvm", "convert-gpu-to-rocdl", "convert-nvgpu-to-nvvm", "convert-nvvm-to-llvm",
    "convert-linalg-to-loops", "convert-elementwise-to-linalg", "finalize-memref-to-llvm", "gpu-to-llvm",
    "gpu-module-to-binary", "nvvm-attach-target", "rocdl-attach-target", "reconcile-unrealized-casts",
    "one-shot-bufferize", "expand-strided-metadata", "lower-affine", "arith-expand", "math-expand-ops",
    "gpu-kernel-outlining", "strip-debuginfo", "remove-dead-values",
)  # fmt: skip


def _did_you_mean(name: str) -> str:
    import difflib

    candidates = [*REGISTRY, *_COMMON_UPSTREAM]
    for guess in difflib.get_close_matches(name, candidates, n=3, cutoff=0.6):
        if guess in REGISTRY:
            return f" (did you mean '{guess}'?)"
        try:
            passmanager.PassManager.parse(f"builtin.module({guess})", context=_VALIDATION_CONTEXT.get())
        except ValueError:
            continue
        return f" (did you mean '{guess}'?)"
    return ""


class StepFailed(Exception):
    """A pass failed; `diagnostics` say why and where."""

    def __init__(self, step: Step, diagnostics: list):
        super().__init__(f"pass '{step.name}' failed")
        self.step = step
        self.diagnostics = diagnostics


def verify_module(module: ir.Module, tile_checks: bool = True) -> list:
    """Upstream verification plus (unless `tile_checks` is off) the tile checks; returns Diagnostics
    (empty when valid)."""
    from tilec import diagnostics

    with diagnostics.collected(module.context) as found:
        try:
            ok = module.operation.verify()
        except ir.MLIRError as e:
            return [d for info in e.error_diagnostics for d in diagnostics.from_mlir(info)] or [
                diagnostics.Diagnostic("error", str(e), None, None, None)
            ]
    if not ok or found:
        return found or [diagnostics.Diagnostic("error", "module failed to verify", None, None, None)]
    if not tile_checks:
        return []
    return [
        diagnostics.at_op(e.op, f"'{e.op.name}' op {e.message}")
        for e in tile.verify_tile_ops(module.operation)
    ]


def run_pipeline(
    module: ir.Module,
    steps: list[Step],
    after_step: Callable[[Step, ir.Module], None] | None = None,
) -> None:
    """Runs the steps in order. Raises StepFailed with diagnostics; never feeds invalid IR to a pass."""
    from tilec import diagnostics

    for step in steps:
        if step.tile_pass is not None:
            try:
                with module.context, ir.Location.unknown(module.context):
                    step.tile_pass.run(module)
            except PassError as e:
                raise StepFailed(step, [diagnostics.at_op(e.op, e.message)]) from None
            except Exception as e:  # a bug of the pass on IR it did not expect: a diagnostic, not a traceback
                if knobs.DEBUG.on():
                    raise
                reason = f"internal error in {step.name}: {type(e).__name__}: {e} (please report it; TILEC_DEBUG=1 shows where)"
                raise StepFailed(step, [diagnostics.Diagnostic("error", reason, None, None, None)]) from None
            problems = verify_module(module, step.tile_pass.checks_tile_ops)
            if problems:
                raise StepFailed(step, problems)
        else:
            unsafe = upstream_preconditions.check(step.text, module)
            if unsafe:
                raise StepFailed(step, unsafe)
            pm = passmanager.PassManager.parse(f"builtin.module({step.text})", context=module.context)
            with diagnostics.collected(module.context) as found:
                try:
                    pm.run(module.operation)
                except ir.MLIRError as e:
                    found.extend(d for info in e.error_diagnostics for d in diagnostics.from_mlir(info))
                    raise StepFailed(step, found) from None
            if any(d.severity == "error" for d in found):
                raise StepFailed(step, found)
        if after_step is not None:
            after_step(step, module)
