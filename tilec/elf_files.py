"""A structural check of the ELF files tilec loads (CPU shared libraries, cubins, HSACO code objects).

Loading a truncated or foreign ELF file is not an error the loader reports: `dlopen` maps the file and
the process dies of SIGBUS when it touches a page past its end, and a GPU driver may accept the code
object of another machine. So before a binary from the cache or an artifact is loaded, its header, its
program and section header tables and every segment and section it says it holds are checked to lie
inside the file, and its machine to be the one the target runs.
"""

from __future__ import annotations

import struct

# e_machine values (the ELF specification's registry)
MACHINES = {3: "x86", 62: "x86-64", 183: "AArch64", 243: "RISC-V", 190: "NVIDIA CUDA", 224: "AMD GPU"}
EM_CUDA, EM_AMDGPU = 190, 224
_SHT_NOBITS = 8  # a section that takes no room in the file (.bss)


class BadElf(ValueError):
    """A binary that is not a whole ELF file for the expected machine."""


def check(data: bytes, machines: set[int], what: str) -> None:
    """Raises BadElf naming `what` unless `data` is a whole 64-bit little-endian ELF file whose
    machine is one of `machines`."""
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise BadElf(f"{what} is not an ELF file" + (" (it is empty)" if not data else ""))
    if data[4] != 2 or data[5] != 1:
        raise BadElf(f"{what} is not a 64-bit little-endian ELF file")
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine not in machines:
        found = MACHINES.get(machine, f"machine {machine}")
        wanted = " or ".join(MACHINES.get(m, str(m)) for m in sorted(machines))
        raise BadElf(f"{what} is code for {found}, not {wanted}")
    phoff, shoff = struct.unpack_from("<QQ", data, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 54)
    size = len(data)

    def inside(offset: int, length: int, part: str) -> None:
        if offset + length > size:
            raise BadElf(
                f"{what} is truncated or corrupted: its {part} ends at byte {offset + length}, "
                f"past the file's end ({size} bytes)"
            )

    if phnum:
        if phentsize < 56:
            raise BadElf(f"{what} is corrupted: program headers of {phentsize} bytes")
        inside(phoff, phnum * phentsize, "program header table")
        for i in range(phnum):
            offset, _vaddr, _paddr, filesz = struct.unpack_from("<QQQQ", data, phoff + i * phentsize + 8)
            inside(offset, filesz, f"segment {i}")
    if shnum:
        if shentsize < 64:
            raise BadElf(f"{what} is corrupted: section headers of {shentsize} bytes")
        inside(shoff, shnum * shentsize, "section header table")
        for i in range(shnum):
            (kind,) = struct.unpack_from("<I", data, shoff + i * shentsize + 4)
            offset, length = struct.unpack_from("<QQ", data, shoff + i * shentsize + 24)
            if kind != _SHT_NOBITS:
                inside(offset, length, f"section {i}")
    if not phnum and not shnum:
        raise BadElf(f"{what} is corrupted: it has neither segments nor sections")


def host_machines() -> set[int]:
    """The e_machine values of code this host runs."""
    import platform

    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return {62}
    if machine in ("aarch64", "arm64"):
        return {183}
    if machine == "riscv64":
        return {243}
    return {62, 183, 243}  # a host this check does not know: any CPU's code
