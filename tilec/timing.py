"""Compile-time breakdown per stage: `TILEC_TIMING=1` prints each stage as it ends, and every compiled
kernel keeps its breakdown in `compiled.metadata["compile_ms"]` (bench/compile_time.py reads it)."""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager

_current: dict | None = None


@contextmanager
def timed(stage: str, kernel_name: str = ""):
    start = time.perf_counter()
    try:
        yield
    finally:
        ms = (time.perf_counter() - start) * 1e3
        if _current is not None:
            _current[stage] = _current.get(stage, 0.0) + ms
        if os.environ.get("TILEC_TIMING"):
            who = f" {kernel_name}" if kernel_name else ""
            print(f"[tilec timing]{who} {stage}: {ms:.1f} ms", file=sys.stderr, flush=True)


@contextmanager
def collect():
    """Collects the stages timed inside the block into the dict it yields."""
    global _current
    previous, _current = _current, {}
    try:
        yield _current
    finally:
        _current = previous
