"""Memory faults in CPU kernels become Python errors instead of ending the process.

A kernel that reads or writes outside memory it may touch (a pointer offset past its array, a
too-small array passed) raises SIGSEGV or SIGBUS. Unguarded, that kills the Python process; here
each kernel library gets a `<name>__guarded` entry (`wrapper_ir`) that marks a jump point with
sigsetjmp, tells the guard library (`GUARD_IR`, built once and loaded with RTLD_GLOBAL so kernel
libraries link to it) where it is, and calls the kernel. The guard's signal handler jumps back there
when the faulting thread is inside a guarded kernel, recording the signal and the faulting address
in the launch's status words; the launcher raises an error naming them. A fault anywhere else goes
to the handler that was installed before (Python's faulthandler, or the default action).

Linux on x86-64 and AArch64 with glibc: the layout of `struct sigaction` (handler at 0, flags at
136, 152 bytes) and the `__sigsetjmp` entry point are glibc's; elsewhere kernels run unguarded.
Memory the kernel wrote before the fault stays written, and buffers it allocated leak; the process
goes on. A debug build (TILEC_DEBUG=1) checks every access instead and names the line.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import re
import threading

from tilec import knobs
from tilec.targets.cpu import host

from . import shared_objects

SIGNALS = {11: "SIGSEGV", 7: "SIGBUS"}

# Thread-local jump point and faulting address; the actions found at install, for chaining.
GUARD_IR = """
@tilec_guard_jump = internal thread_local global ptr null
@tilec_guard_address = internal thread_local global i64 0
@tilec_guard_previous = internal global [2 x [152 x i8]] zeroinitializer, align 16

declare i32 @sigaction(i32, ptr, ptr)
declare void @siglongjmp(ptr, i32) noreturn
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define void @tilec_guard_arm(ptr %jump) {
  store ptr %jump, ptr @tilec_guard_jump
  ret void
}

define void @tilec_guard_disarm() {
  store ptr null, ptr @tilec_guard_jump
  ret void
}

define i64 @tilec_guard_fault_address() {
  %address = load i64, ptr @tilec_guard_address
  ret i64 %address
}

define internal void @tilec_guard_handler(i32 %sig, ptr %info, ptr %context) {
entry:
  %jump = load ptr, ptr @tilec_guard_jump
  %armed = icmp ne ptr %jump, null
  br i1 %armed, label %escape, label %chain
escape:
  store ptr null, ptr @tilec_guard_jump
  %address_at = getelementptr i8, ptr %info, i64 16
  %address = load i64, ptr %address_at
  store i64 %address, ptr @tilec_guard_address
  call void @siglongjmp(ptr %jump, i32 %sig)
  unreachable
chain:
  %is_bus = icmp eq i32 %sig, 7
  %slot = select i1 %is_bus, i64 1, i64 0
  %old = getelementptr [2 x [152 x i8]], ptr @tilec_guard_previous, i64 0, i64 %slot
  %flags_at = getelementptr i8, ptr %old, i64 136
  %flags = load i32, ptr %flags_at
  %handler = load ptr, ptr %old
  %with_info = and i32 %flags, 4
  %takes_info = icmp ne i32 %with_info, 0
  br i1 %takes_info, label %call_with_info, label %plain
call_with_info:
  call void %handler(i32 %sig, ptr %info, ptr %context)
  ret void
plain:
  %handler_value = ptrtoint ptr %handler to i64
  %default_or_ignore = icmp ule i64 %handler_value, 1
  br i1 %default_or_ignore, label %restore, label %call_plain
call_plain:
  call void %handler(i32 %sig)
  ret void
restore:
  ; the previous action back: returning re-runs the faulting instruction, which then does what it
  ; would have done without the guard
  %ignored = call i32 @sigaction(i32 %sig, ptr %old, ptr null)
  ret void
}

define i32 @tilec_guard_install() {
  %action = alloca [152 x i8], align 16
  call void @llvm.memset.p0.i64(ptr %action, i8 0, i64 152, i1 false)
  store ptr @tilec_guard_handler, ptr %action
  %flags_at = getelementptr i8, ptr %action, i64 136
  ; SA_SIGINFO | SA_ONSTACK | SA_NODEFER (the jump leaves the handler: the signal must stay unblocked)
  store i32 1207959556, ptr %flags_at
  %segv_old = getelementptr [2 x [152 x i8]], ptr @tilec_guard_previous, i64 0, i64 0
  %segv = call i32 @sigaction(i32 11, ptr %action, ptr %segv_old)
  %bus_old = getelementptr [2 x [152 x i8]], ptr @tilec_guard_previous, i64 0, i64 1
  %bus = call i32 @sigaction(i32 7, ptr %action, ptr %bus_old)
  %failed = or i32 %segv, %bus
  ret i32 %failed
}
"""

SUFFIX = "__guarded"


@functools.cache  # (platform.libc_ver reads the interpreter's binary: once per process)
def supported() -> bool:
    return (
        platform.system() == "Linux"
        and platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64")
        and platform.libc_ver()[0] == "glibc"
    )


def wrapper_ir(llir: str, name: str) -> str:
    """`<name>__guarded`, with the grid entry `name`'s parameters (the last one the status words'
    address): the jump point, then the call. After a fault, status[0] holds the signal in its high
    half and status[1] the faulting address. The guard's functions are weak references, so the
    library loads (and the launcher calls `name` itself) where the guard library could not be built."""
    if not supported():
        return ""
    m = re.search(rf"^define void @{re.escape(name)}\(([^)]*)\)", llir, re.MULTILINE)
    if m is None:
        return ""
    params = [p.strip() for p in m.group(1).split(",")]
    names = [p.split()[-1] for p in params]
    status = names[-1]
    return f"""
declare i32 @__sigsetjmp(ptr, i32) returns_twice
declare extern_weak void @tilec_guard_arm(ptr)
declare extern_weak void @tilec_guard_disarm()
declare extern_weak i64 @tilec_guard_fault_address()

define void @{name}{SUFFIX}({", ".join(params)}) {{
entry:
  %jump = alloca [512 x i8], align 16
  %from = call i32 @__sigsetjmp(ptr %jump, i32 0)
  %first = icmp eq i32 %from, 0
  br i1 %first, label %run, label %fault
run:
  call void @tilec_guard_arm(ptr %jump)
  call void @{name}({", ".join(params)})
  call void @tilec_guard_disarm()
  ret void
fault:
  %words = inttoptr i64 {status} to ptr
  %signal = zext i32 %from to i64
  %code = shl i64 %signal, 32
  store i64 %code, ptr %words
  %address = call i64 @tilec_guard_fault_address()
  %address_at = getelementptr i64, ptr %words, i64 1
  store i64 %address, ptr %address_at
  ret void
}}
"""


_LOADED: bool | None = None
_LOADING = threading.Lock()  # a thread that finds the guard being built waits for it


def ensure_loaded() -> bool:
    """Builds (once per guard version, cached with the kernels) and loads the guard library, and
    installs its handler; False where kernels run unguarded."""
    global _LOADED
    if _LOADED is not None:
        return _LOADED
    with _LOADING:
        if _LOADED is None:
            _LOADED = _load()
    return _LOADED


def _load() -> bool:
    if not supported():
        return False
    digest = hashlib.sha256(GUARD_IR.encode()).hexdigest()[:16]
    folder = knobs.cache_folder()
    path = folder / f"fault-guard-{digest}-{host.fingerprint()}.so" if folder is not None else None
    try:
        library = None
        if path is not None and path.exists():
            try:
                library = ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
            except OSError:  # a damaged copy: built again below
                library = None
        if library is None:
            from .compiler import codegen

            image = codegen(GUARD_IR)
            if path is not None:
                _store(path, image)
            # a private copy: the cache folder may be read-only, or its disk full
            library = shared_objects.load(image, ctypes.RTLD_GLOBAL, prefix="tilec-guard-")
        if library.tilec_guard_install() != 0:
            return False
    except Exception:  # noqa: BLE001 - no guard (no tools, an odd libc): kernels run unguarded
        return False
    return True


def _store(path, image: bytes) -> None:
    """Keeps the guard library in the cache for the next processes, where the folder can be written."""
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "wb") as f:
            f.write(image)
        os.replace(partial, path)
    except OSError:
        try:
            os.unlink(partial)
        except OSError:
            pass


def fault_message(kernel_name: str, signal: int, address: int) -> str:
    what = SIGNALS.get(signal, f"signal {signal}")
    return (
        f"kernel '{kernel_name}' accessed memory it may not ({what} at address {address:#x}): a pointer "
        "went past the array it points into, or an array passed is smaller than the kernel assumes. "
        "Memory the kernel wrote before the fault stays written. Launch it with TILEC_DEBUG=1 (or "
        "debug=True) to have every access checked and the line named."
    )
