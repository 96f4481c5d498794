"""The on-disk compile cache and the kernel artifact format it shares with `tilec-compile`.

Layout under $TILEC_CACHE_DIR (default ~/.cache/tilec; TILEC_CACHE_DIR=off disables the disk cache):

    kernels/<key[:2]>/<key>/manifest.json   the kernel: name, target, argument types, options, metadata,
                                            and the sha256 of every stage file next to it
    kernels/<key[:2]>/<key>/<stage>         the entries of `compiled.asm`: the binary the runtime loads
                                            (so, cubin or ptx, hsaco) and the IR text of each stage
    autotune/<key>.json                     the best config @tilec.autotune found for a key

An entry is written into a temporary folder and renamed into place, so a reader sees a whole entry or
none, and processes compiling the same kernel at once race harmlessly (the first rename wins). The
manifest carries its own hash and the key it was stored under; an entry whose manifest or binary does
not match, that holds another key's kernel (a folder moved or copied by hand), or whose binary is not a
whole code object for its target (elf_files.py) is removed and the kernel compiled again; an artifact
like that is refused with an ArtifactError. Loading an entry needs no MLIR: only the manifest, the
binary and the runtime.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import uuid
from collections.abc import MutableMapping
from pathlib import Path

from tilec import knobs
from tilec.targets import target_for

FORMAT = "tilec-kernel/3"
# /1 wrote constexpr values as repr strings; /2 did not record the cache key (its entries are compiled
# again, its artifacts still load)
READABLE_FORMATS = ("tilec-kernel/1", "tilec-kernel/2", FORMAT)
MANIFEST = "manifest.json"


class ArtifactError(RuntimeError):
    """A kernel artifact that cannot be used (missing, truncated, corrupted, or for another target)."""


def root() -> Path | None:
    """The cache folder, or None when the disk cache is off."""
    return knobs.cache_folder()


def reads_enabled() -> bool:
    """Dumping IR needs a real compile: TILEC_DUMP_IR and TILEC_ALWAYS_COMPILE skip cache hits."""
    return knobs.dumped_stages() is None and not knobs.ALWAYS_COMPILE.on()


_FINGERPRINT: str | None = None


def compiler_fingerprint() -> str:
    """Hash of tilec's own source: a changed compiler never reuses another compiler's output."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        package = Path(__file__).resolve().parent
        h = hashlib.sha256(FORMAT.encode())
        for path in sorted(package.rglob("*.py")):
            h.update(str(path.relative_to(package)).encode())
            h.update(path.read_bytes())
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


def kernel_key(source_key: str, specialization, target: str, options) -> str:
    parts = [
        compiler_fingerprint(),
        source_key,
        repr(specialization),
        target,
        repr(options),
        repr(knobs.code_key()),
    ]
    parts.extend(target_for(target).key_parts(target))
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


# -- artifacts -----------------------------------------------------------------------------------


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _manifest_of(kernel) -> dict:
    from tilec.language import core

    return {
        "format": FORMAT,
        "name": kernel.name,
        "target": kernel.target,
        "arg_names": kernel.arg_names,
        "arg_types": [core.signature_name(t) for t in kernel.arg_types],
        "divisibility": kernel.metadata.get("divisibility", [1] * len(kernel.arg_names)),
        "constants": {k: encode_constant(v) for k, v in kernel.constants.items()},
        "options": {
            "num_warps": kernel.options.num_warps,
            "num_stages": kernel.options.num_stages,
            "debug": kernel.options.debug,
            "maxnreg": kernel.options.maxnreg,
            "waves_per_eu": kernel.options.waves_per_eu,
            "enable_fp_fusion": kernel.options.enable_fp_fusion,
            "launch_pdl": kernel.options.launch_pdl,
            "sanitize_overflow": kernel.options.sanitize_overflow,
        },
        "metadata": kernel.metadata,
        "binary": _binary_name(kernel.target, kernel.asm),
        "files": {},
    }


class RecordedConstant:
    """A constexpr value the manifest could keep only as its repr (a function, an object): equal to
    any value with the same repr, so a launch that passes it again is accepted."""

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other) -> bool:
        return repr(other) == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        return self.text


def encode_constant(value):
    """A constexpr value as JSON that reads back as an equal value of the same type."""
    from tilec.language import core

    if value is None or isinstance(value, bool | int | float | str):
        return {"value": value}
    if isinstance(value, tuple):
        return {"tuple": [encode_constant(v) for v in value]}
    if isinstance(value, core.dtype):
        try:
            return {"dtype": core.signature_name(value)}
        except (KeyError, ValueError):
            pass
    return {"repr": repr(value)}


def decode_constant(entry):
    from tilec.language import core

    if isinstance(entry, str):  # format /1: the value's repr
        try:
            return ast.literal_eval(entry)
        except (ValueError, SyntaxError):
            return RecordedConstant(entry)
    if "value" in entry:
        return entry["value"]
    if "tuple" in entry:
        return tuple(decode_constant(v) for v in entry["tuple"])
    if "dtype" in entry:
        return core.dtype_from_signature(entry["dtype"])
    return RecordedConstant(entry["repr"])


def _binary_name(target: str, asm) -> str:
    return target_for(target).binary_of(asm)


def write_artifact(folder: Path, kernel, key: str | None = None) -> None:
    """Writes `kernel` (manifest + every stage of `compiled.asm`) into the new folder `folder`; `key`:
    the cache key it is stored under (None for an artifact)."""
    folder.mkdir(parents=True)
    manifest = _manifest_of(kernel)
    manifest["key"] = key
    for stage, content in kernel.asm.items():
        data = content if isinstance(content, bytes) else content.encode()
        (folder / stage).write_bytes(data)
        manifest["files"][stage] = {"sha256": _sha256(data), "text": not isinstance(content, bytes)}
    body = json.dumps(manifest, sort_keys=True)
    (folder / MANIFEST).write_text(json.dumps({"sha256": _sha256(body.encode()), "body": manifest}))


def read_manifest(folder: Path) -> dict:
    try:
        wrapper = json.loads((folder / MANIFEST).read_text())
        body = wrapper["body"]
        if _sha256(json.dumps(body, sort_keys=True).encode()) != wrapper["sha256"]:
            raise ValueError("its hash does not match")
        if body.get("format") not in READABLE_FORMATS:
            raise ValueError(f"format {body.get('format')!r}, expected {FORMAT!r}")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ArtifactError(f"{folder / MANIFEST}: not a usable tilec kernel manifest ({e})") from None
    return body


class StageFiles(MutableMapping):
    """`compiled.asm` of a loaded kernel: each stage read (and checked against its hash) on first use."""

    def __init__(self, folder: Path, files: dict):
        self.folder, self.files, self.loaded = folder, files, {}

    def __getitem__(self, stage):
        if stage not in self.loaded:
            if stage not in self.files:
                raise KeyError(stage)
            info = self.files[stage]
            try:
                data = (self.folder / stage).read_bytes()
            except OSError as e:
                raise ArtifactError(f"{self.folder / stage}: {e.strerror}") from None
            if _sha256(data) != info["sha256"]:
                raise ArtifactError(f"{self.folder / stage} is corrupted (its hash does not match)")
            self.loaded[stage] = data.decode() if info["text"] else data
        return self.loaded[stage]

    def __setitem__(self, stage, value):
        self.loaded[stage] = value
        self.files.setdefault(stage, {"sha256": "", "text": isinstance(value, str)})

    def __delitem__(self, stage):
        self.loaded.pop(stage, None)
        del self.files[stage]

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)


def check_binary(folder: Path, kind: str, data, target: str) -> None:
    """Refuses (ArtifactError) a binary that is not a whole code object the target can load:
    truncated, corrupted, or another machine's (loading a truncated ELF file ends the process)."""
    try:
        target_for(target).check_binary(kind, data, str(folder / kind))
    except ValueError as e:
        raise ArtifactError(str(e)) from None


def read_artifact(folder: Path, key: str | None = None):
    """A CompiledKernel from an artifact folder, with its launcher when this machine can run it.
    With `key` (a cache entry), the entry must have been stored under that key."""
    from tilec.compiler import CompiledKernel, Options, attach_launcher
    from tilec.language import core

    manifest = read_manifest(folder)
    if key is not None and manifest.get("key") != key:
        raise ArtifactError(f"{folder} holds the kernel of another cache key")
    asm = StageFiles(folder, manifest["files"])
    binary = manifest["binary"]
    try:
        target = target_for(manifest["target"])
    except ValueError as e:
        raise ArtifactError(f"{folder / MANIFEST}: {e}") from None
    if binary not in target.binaries:
        raise ArtifactError(
            f"{folder / MANIFEST}: a binary of kind {binary!r} for target {manifest['target']}"
        )
    # (reading the binary checks its hash, now, not at first launch)
    check_binary(folder, binary, asm[binary], manifest["target"])
    kernel = CompiledKernel(
        name=manifest["name"],
        target=manifest["target"],
        arg_names=manifest["arg_names"],
        arg_types=[core.dtype_from_signature(t) for t in manifest["arg_types"]],
        constants={k: decode_constant(v) for k, v in manifest["constants"].items()},
        options=Options(**manifest["options"]),
        asm=asm,
        metadata=manifest["metadata"],
    )
    kernel.metadata.setdefault("divisibility", manifest["divisibility"])
    attach_launcher(kernel, folder / binary)
    return kernel


# -- the cache -----------------------------------------------------------------------------------


def _entry(key: str) -> Path | None:
    base = root()
    return None if base is None else base / "kernels" / key[:2] / key


def _discard(folder: Path) -> None:
    """Moves a bad entry aside (atomically) and deletes it; a concurrent reader sees it gone or whole."""
    trash = folder.parent / f".trash-{uuid.uuid4().hex}"
    try:
        os.rename(folder, trash)
    except OSError:
        return
    shutil.rmtree(trash, ignore_errors=True)


def load(key: str):
    """The cached kernel for `key`, or None (missing, unreadable or corrupted: then it is removed)."""
    folder = _entry(key)
    if folder is None or not reads_enabled() or not (folder / MANIFEST).exists():
        return None
    try:
        return read_artifact(folder, key)
    except (ArtifactError, OSError, KeyError, TypeError, ValueError):
        _discard(folder)
        return None


def store(key: str, kernel) -> Path | None:
    """Writes `kernel` under `key`; returns the entry folder (None when the disk cache is off or the
    folder cannot be written: the cache is an optimization, never a reason to fail a launch)."""
    folder = _entry(key)
    if folder is None:
        return None
    tmp = folder.parent / f".tmp-{key[:16]}-{uuid.uuid4().hex}"
    try:
        write_artifact(tmp, kernel, key)
        try:
            os.rename(tmp, folder)
        except OSError:  # another process stored it first
            shutil.rmtree(tmp, ignore_errors=True)
            if not (folder / MANIFEST).exists():
                return None
        return folder
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return None


def read_json(name: str) -> dict | None:
    """A small JSON record (autotuning results), or None when missing or unreadable."""
    base = root()
    if base is None:
        return None
    try:
        return json.loads((base / name).read_text())
    except (OSError, ValueError):
        return None


def write_json(name: str, value: dict) -> None:
    base = root()
    if base is None:
        return
    path = base / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".tmp-{uuid.uuid4().hex}"
        tmp.write_text(json.dumps(value))
        os.replace(tmp, path)
    except OSError:
        pass


# -- command line --------------------------------------------------------------------------------


def info() -> dict:
    """Where the cache is, how many kernel entries and autotuning records it holds, and their size."""
    base = root()
    if base is None or not base.exists():
        return {"root": str(base) if base else None, "kernels": 0, "autotune": 0, "bytes": 0}
    kernels = [p for p in (base / "kernels").glob("*/*") if p.is_dir() and not p.name.startswith(".")]
    records = list((base / "autotune").glob("*.json"))
    size = sum(f.stat().st_size for f in base.rglob("*") if f.is_file())
    return {"root": str(base), "kernels": len(kernels), "autotune": len(records), "bytes": size}


def clear() -> int:
    """Removes every entry (safe while other processes run: entries are moved aside first)."""
    base = root()
    removed = 0
    if base is None or not base.exists():
        return 0
    for folder in (base / "kernels").glob("*/*"):
        if folder.is_dir() and not folder.name.startswith(".tmp-"):
            _discard(folder)
            removed += 1
    for record in (base / "autotune").glob("*.json"):
        record.unlink(missing_ok=True)
        removed += 1
    return removed


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tilec.cache", description="tilec's compile cache")
    parser.add_argument("command", choices=["info", "clear"], nargs="?", default="info")
    args = parser.parse_args(argv)
    if args.command == "clear":
        print(f"removed {clear()} entries from {root()}")
    else:
        i = info()
        print(
            f"{i['root']}: {i['kernels']} kernels, {i['autotune']} autotuning records, {i['bytes'] / 1e6:.1f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
