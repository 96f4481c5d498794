"""tilec's environment variables (`TILEC_*`), each declared once here with what it does.

Every read of one goes through this module. A knob is read where it is used, not at import, so one
set between launches (a test's monkeypatch, a notebook's `os.environ[...] = ...`) takes effect on
the next launch. Knobs that change the code a target generates for a kernel (`changes_code`) are
part of every kernel's cache key (`code_key`); the ones that choose or shape a launch are part of
the launch fast path's key (`launch_key`).

Flags are off when unset, empty, or one of 0/off/false/no (any case), on otherwise.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

OFF = ("", "0", "off", "false", "no")

# os.environ.get encodes its key on every call (~0.7 us); the launch path reads the underlying dict.
_ENVIRON_DATA = getattr(os.environ, "_data", None) if os.name == "posix" else None


@dataclass(frozen=True)
class Knob:
    """One environment variable: `name` (TILEC_...), what setting it does, what it takes."""

    name: str
    doc: str
    example: str = "1"
    changes_code: bool = False

    def raw(self) -> str | None:
        return os.environ.get(self.name)

    def text(self) -> str | None:
        """The value without surrounding blanks; None when unset or empty."""
        value = (self.raw() or "").strip()
        return value or None


@dataclass(frozen=True)
class Flag(Knob):
    default: bool = False

    def on(self) -> bool:
        value = self.raw()
        if value is None:
            return self.default
        return value.strip().lower() not in OFF


@dataclass(frozen=True)
class Count(Knob):
    def value(self, default: int) -> int:
        text = self.text()
        if text is None:
            return default
        try:
            count = int(text)
        except ValueError:
            count = 0
        if count < 1:
            raise ValueError(f"{self.name} must be a positive whole number, got {text!r}")
        return count


INTERPRET = Flag("TILEC_INTERPRET", "run every launch on the NumPy interpreter")
TARGET = Knob(
    "TILEC_TARGET", "run every launch on that target (`cpu`, `sm_90a`, `gfx942`, `interpreter`, ...)", "cpu"
)
DEBUG = Flag(
    "TILEC_DEBUG",
    "debug builds (device assertions, overflow and bounds checks) and tilec's own tracebacks",
)
DUMP_IR = Knob(
    "TILEC_DUMP_IR",
    "print every stage of every compile (or only the stages listed: `tile,ptx`); skips cache hits",
)
TIMING = Flag("TILEC_TIMING", "print the time of every compile stage")
CACHE_DIR = Knob(
    "TILEC_CACHE_DIR", "the disk cache's folder (default `~/.cache/tilec`), or `off`: no disk cache", "path"
)
ALWAYS_COMPILE = Flag("TILEC_ALWAYS_COMPILE", "compile even when the cache has the kernel")
AUTOTUNE_JOBS = Count(
    "TILEC_AUTOTUNE_JOBS",
    "processes that compile autotuning configs in parallel (default: the CPU count)",
    "N",
)
PTXAS = Knob("TILEC_PTXAS", "the ptxas to use (default: `PATH`, then `/usr/local/cuda/bin`)", "path")
NO_PTXAS = Flag(
    "TILEC_NO_PTXAS", "skip ptxas: the driver compiles the PTX (no register counts)", changes_code=True
)
NO_TMA = Flag("TILEC_NO_TMA", "no tensor copies on sm_90a (cp.async instead)", changes_code=True)
DEFAULT_FP_FUSION = Flag(
    "TILEC_DEFAULT_FP_FUSION",
    "off: GPU kernels do not fuse `a * b + c` into FMAs unless a launch asks (on by default)",
    "0",
    default=True,
)

KNOBS = (
    INTERPRET,
    TARGET,
    DEBUG,
    DUMP_IR,
    TIMING,
    CACHE_DIR,
    ALWAYS_COMPILE,
    AUTOTUNE_JOBS,
    PTXAS,
    NO_PTXAS,
    NO_TMA,
    DEFAULT_FP_FUSION,
)


def code_key() -> tuple:
    """The knobs that change generated code, as set now (part of every kernel's cache key)."""
    return tuple((k.name, k.on() if isinstance(k, Flag) else k.text()) for k in KNOBS if k.changes_code)


_LAUNCH_KNOBS = (INTERPRET, TARGET, NO_TMA, DEBUG)
_INTERPRET_KEY, _TARGET_KEY, _NO_TMA_KEY, _DEBUG_KEY = (k.name.encode() for k in _LAUNCH_KNOBS)


def launch_key() -> tuple:
    """The raw values of the knobs that choose a launch's target or change what is compiled for it,
    cheaply: the jit's launch path takes them on every call (four dict reads, no generator)."""
    if _ENVIRON_DATA is not None:
        get = _ENVIRON_DATA.get
        return get(_INTERPRET_KEY), get(_TARGET_KEY), get(_NO_TMA_KEY), get(_DEBUG_KEY)
    return tuple(k.raw() for k in _LAUNCH_KNOBS)


def forced_target() -> str | None:
    """The target every launch goes to, from TILEC_INTERPRET or TILEC_TARGET; None: by the arrays."""
    if INTERPRET.on():
        return "interpreter"
    return TARGET.text()


def cache_folder() -> Path | None:
    """The disk cache's folder from TILEC_CACHE_DIR (default ~/.cache/tilec); None when it is off."""
    value = CACHE_DIR.raw()
    if value is None:
        return Path.home() / ".cache" / "tilec"
    if value.strip().lower() in (*OFF, "none"):
        return None
    return Path(value)


def dumped_stages() -> set[str] | None:
    """The stages TILEC_DUMP_IR asks to print: None for none, {"all"} for every one."""
    wanted = DUMP_IR.text()
    if wanted is None or wanted.lower() in OFF:
        return None
    if wanted.lower() in ("1", "all", "on", "true", "yes"):
        return {"all"}
    return {s.strip() for s in wanted.split(",") if s.strip()}


def table() -> str:
    """The knobs as a Markdown table (README's, checked by a test)."""
    rows = ["| variable | effect |", "| --- | --- |"]
    rows += [f"| `{k.name}={k.example}` | {k.doc} |" for k in KNOBS]
    return "\n".join(rows)
