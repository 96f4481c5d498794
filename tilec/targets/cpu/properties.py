"""The host's properties in the terms GPU launch code sizes its grids with (Triton's
get_device_properties keys), read from the operating system; no MLIR here.

A program of the CPU target runs on one core at a time, so the host's "multiprocessors" are its
cores and a warp is one thread; a core's register file is its vector registers, counted in 32-bit
lanes (16 lanes in each of 32 AVX-512 registers, 8 in each of 16 AVX registers); its "shared memory"
is the core's own L2 cache, where a program's tiles stay on chip.
"""

from __future__ import annotations

import functools
import os


def _cache_bytes(level: int) -> int | None:
    """Size of cpu0's cache of that level (data or unified), from sysfs; None where not reported."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(os.listdir(base))
    except OSError:
        return None
    for entry in entries:
        try:
            with open(f"{base}/{entry}/level") as f:
                if int(f.read()) != level:
                    continue
            with open(f"{base}/{entry}/type") as f:
                if f.read().strip() == "Instruction":
                    continue
            with open(f"{base}/{entry}/size") as f:
                text = f.read().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        try:
            return int(text.rstrip("KMG")) * scale
        except ValueError:
            continue
    return None


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo (empty where there is none)."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        pass
    return fields


def vector_register_lanes(flags: set[str]) -> int:
    """32-bit lanes in a core's vector register file."""
    if "avx512f" in flags:
        return 32 * 16
    if "avx" in flags:
        return 16 * 8
    return 16 * 4  # SSE2 (x86-64's baseline); AArch64's NEON has 32 x 4


@functools.cache
def host_properties() -> dict:
    info = _cpuinfo()
    flags = set(info.get("flags", info.get("Features", "")).split())
    try:
        clock_khz = int(float(info.get("cpu MHz", "0")) * 1000)
    except ValueError:
        clock_khz = 0
    return {
        "multiprocessor_count": os.cpu_count() or 1,  # the CPU runtime's pool has a thread per core
        "max_num_regs": vector_register_lanes(flags),
        "max_shared_mem": _cache_bytes(2) or _cache_bytes(1) or 1 << 20,
        "warpSize": 1,
        "max_threads_per_sm": 1,
        "sm_clock_rate": clock_khz,
        "mem_clock_rate": 0,  # not reported by the operating system
        "mem_bus_width": 0,
    }
