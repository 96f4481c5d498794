"""Compile-time breakdown per stage: `TILEC_TIMING=1` prints each stage as it ends, and every compiled
kernel keeps its breakdown in `compiled.metadata["compile_ms"]` (bench/compile_time.py reads it)."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

from tilec import knobs


class _Collecting(threading.local):
    current: dict | None = None  # the stages of the compile running on this thread


_collecting = _Collecting()


@contextmanager
def timed(stage: str, kernel_name: str = ""):
    start = time.perf_counter()
    try:
        yield
    finally:
        ms = (time.perf_counter() - start) * 1e3
        current = _collecting.current
        if current is not None:
            current[stage] = current.get(stage, 0.0) + ms
        if knobs.TIMING.on():
            who = f" {kernel_name}" if kernel_name else ""
            print(f"[tilec timing]{who} {stage}: {ms:.1f} ms", file=sys.stderr, flush=True)


@contextmanager
def collect():
    """Collects the stages timed inside the block into the dict it yields."""
    previous, _collecting.current = _collecting.current, {}
    try:
        yield _collecting.current
    finally:
        _collecting.current = previous
