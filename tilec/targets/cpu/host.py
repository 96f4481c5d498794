"""The host CPU the CPU target generates code for."""

from __future__ import annotations

import functools
import hashlib
import platform


@functools.cache
def fingerprint() -> str:
    """The host CPU's model and features: CPU kernels are generated for this very CPU (-mcpu=native),
    so their cache entries (and the fault guard's library) are this CPU's."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = [ln for ln in f if ln.startswith(("model name", "flags", "Features", "CPU part"))]
    except OSError:
        lines = []
    return hashlib.sha256((platform.machine() + "".join(sorted(set(lines)))).encode()).hexdigest()[:16]
