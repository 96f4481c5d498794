"""Loading a shared library from bytes in memory, whatever the state of the disk.

dlopen needs a file: a private temporary copy, unlinked once loaded (the mapping stays valid). Where
no temporary file can be written (a full disk, a read-only or missing temporary folder), an anonymous
in-memory file (memfd_create) is loaded through /proc/self/fd. That descriptor stays open for the life
of the process: glibc finds an already loaded library by its path, and a closed descriptor's number,
reused for the next library, would make dlopen return the old one.
"""

from __future__ import annotations

import ctypes
import os
import tempfile

_IN_MEMORY_FILES: list[int] = []


def load(image: bytes, mode: int = ctypes.DEFAULT_MODE, prefix: str = "tilec-") -> ctypes.CDLL:
    try:
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=".so")
    except OSError:
        return _load_in_memory(image, mode, prefix)
    try:
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(image)
        except OSError:  # the disk filled up while writing
            return _load_in_memory(image, mode, prefix)
        return ctypes.CDLL(path, mode=mode)
    finally:
        os.unlink(path)


def _load_in_memory(image: bytes, mode: int, prefix: str) -> ctypes.CDLL:
    if not hasattr(os, "memfd_create"):
        raise OSError("no temporary file can be written and this system has no memfd_create")
    fd = os.memfd_create(prefix + "library")
    try:
        view = memoryview(image)
        while view:
            view = view[os.write(fd, view) :]
        library = ctypes.CDLL(f"/proc/self/fd/{fd}", mode=mode)
    except BaseException:
        os.close(fd)
        raise
    _IN_MEMORY_FILES.append(fd)
    return library
