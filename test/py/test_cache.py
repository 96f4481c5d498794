"""The disk cache, AOT artifacts and the autotuner, each across real processes on the CPU target."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as tl

REPO = Path(__file__).resolve().parents[2]

KERNELS = """
import tilec
import tilec.language as tl


@tilec.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + tl.exp(y), mask=mask)


@tilec.autotune(
    configs=[tilec.Config({"BLOCK": 64}), tilec.Config({"BLOCK": 256}), tilec.Config({"BLOCK": 1024})],
    key=["n"],
    reset_to_zero=["total_ptr"],
)
@tilec.jit
def tuned_sum(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
"""

RUN_SCALE_ADD = """
import sys
if "--forbid-mlir" in sys.argv:
    sys.modules["mlir"] = None  # any import of MLIR now fails
import numpy as np
import tilec
import kernels

n = 3000
x = np.arange(n, dtype=np.float32)
y = np.linspace(-1, 1, n, dtype=np.float32)
out = np.zeros(n, np.float32)
block = int(next((a.split("=")[1] for a in sys.argv if a.startswith("--block=")), 256))
kernels.scale_add[(tilec.cdiv(n, block),)](x, y, out, n, 2.5, BLOCK=block)
np.testing.assert_allclose(out, 2.5 * x + np.exp(y), rtol=1e-5)
print("mlir imported:", "mlir" in sys.modules and sys.modules["mlir"] is not None)
"""


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "run_scale_add.py").write_text(RUN_SCALE_ADD)
    return tmp_path


def run(workdir, script, *args, cache, env=None, check=True):
    environment = {
        **os.environ,
        "TILEC_CACHE_DIR": str(cache),
        "PYTHONPATH": os.pathsep.join([str(REPO), str(workdir)]),
        **(env or {}),
    }
    environment.pop("TILEC_TARGET", None)
    r = subprocess.run(
        [sys.executable, str(workdir / script), *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=workdir,
    )
    if check and r.returncode != 0:
        raise AssertionError(f"{script} failed:\n{r.stdout}\n{r.stderr}")
    return r


def entries(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "kernels").glob("*/*") if not p.name.startswith("."))


def test_a_cached_kernel_launches_without_mlir(workdir, tmp_path):
    cache = tmp_path / "cache"
    first = run(workdir, "run_scale_add.py", cache=cache)
    assert "mlir imported: True" in first.stdout
    assert len(entries(cache)) == 1
    manifest = json.loads((entries(cache)[0] / "manifest.json").read_text())["body"]
    assert manifest["binary"] == "so" and manifest["arg_types"] == ["*fp32", "*fp32", "*fp32", "i32", "fp32"]
    second = run(workdir, "run_scale_add.py", "--forbid-mlir", cache=cache)
    assert "mlir imported: False" in second.stdout


def test_many_processes_compile_the_same_kernel_at_once(workdir, tmp_path):
    cache = tmp_path / "cache"
    environment = {**os.environ, "TILEC_CACHE_DIR": str(cache), "PYTHONPATH": f"{REPO}{os.pathsep}{workdir}"}
    environment.pop("TILEC_TARGET", None)
    procs = [
        subprocess.Popen(
            [sys.executable, str(workdir / "run_scale_add.py")],
            env=environment,
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
    assert len(entries(cache)) == 1
    assert not [p for p in (cache / "kernels").glob("*/.tmp-*")], "temporary folders left behind"
    assert "mlir imported: False" in run(workdir, "run_scale_add.py", "--forbid-mlir", cache=cache).stdout


@pytest.mark.parametrize(
    "damage",
    [
        "truncate-binary",
        "flip-binary",
        "garbage-manifest",
        "edit-manifest",
        "delete-binary",
        "empty-manifest",
    ],
)
def test_a_corrupted_entry_is_recompiled(workdir, tmp_path, damage):
    cache = tmp_path / "cache"
    run(workdir, "run_scale_add.py", cache=cache)
    (entry,) = entries(cache)
    binary, manifest = entry / "so", entry / "manifest.json"
    if damage == "truncate-binary":
        binary.write_bytes(binary.read_bytes()[:100])
    elif damage == "flip-binary":
        data = bytearray(binary.read_bytes())
        data[len(data) // 2] ^= 0xFF
        binary.write_bytes(bytes(data))
    elif damage == "garbage-manifest":
        manifest.write_bytes(os.urandom(64))
    elif damage == "edit-manifest":
        text = manifest.read_text().replace('"num_warps": 4', '"num_warps": 8')
        manifest.write_text(text)
    elif damage == "delete-binary":
        binary.unlink()
    else:
        manifest.write_text("")
    again = run(workdir, "run_scale_add.py", cache=cache)  # recompiles: MLIR is needed again
    assert "mlir imported: True" in again.stdout
    assert "mlir imported: False" in run(workdir, "run_scale_add.py", "--forbid-mlir", cache=cache).stdout


def test_swapped_entries_are_recompiled(workdir, tmp_path):
    """Two entries whose folders changed places (by hand, a backup tool): each holds the other
    key's kernel, so neither is used, and both kernels are compiled again, right."""
    cache = tmp_path / "cache"
    run(workdir, "run_scale_add.py", "--block=256", cache=cache)
    run(workdir, "run_scale_add.py", "--block=128", cache=cache)
    first, second = entries(cache)
    parked = first.parent / "parked"
    first.rename(parked)
    second.rename(first)
    parked.rename(second)
    for block in (256, 128):
        again = run(workdir, "run_scale_add.py", f"--block={block}", cache=cache)  # results checked
        assert "mlir imported: True" in again.stdout
    for block in (256, 128):
        hit = run(workdir, "run_scale_add.py", f"--block={block}", "--forbid-mlir", cache=cache)
        assert "mlir imported: False" in hit.stdout


def _rewrite_manifest(folder: Path, edit) -> None:
    """Edits an artifact's manifest and updates its hashes, as a tool that knows the format would:
    only the binary's own structure can tell that something is wrong."""
    import hashlib

    path = folder / "manifest.json"
    body = json.loads(path.read_text())["body"]
    edit(body)
    for stage, info in body["files"].items():
        info["sha256"] = hashlib.sha256((folder / stage).read_bytes()).hexdigest()
    text = json.dumps(body, sort_keys=True)
    path.write_text(json.dumps({"sha256": hashlib.sha256(text.encode()).hexdigest(), "body": body}))


@pytest.mark.parametrize("damage", ["truncate", "truncate-header", "other-machine", "cubin-kind"])
def test_a_damaged_artifact_with_matching_hashes_is_refused(workdir, tmp_path, damage):
    out = tmp_path / "artifact"
    assert compile_artifact(workdir, out).returncode == 0
    binary = out / "so"
    data = bytearray(binary.read_bytes())
    if damage == "truncate":
        binary.write_bytes(data[: len(data) // 2])
    elif damage == "truncate-header":
        binary.write_bytes(data[:40])
    elif damage == "other-machine":
        data[18:20] = (183 if data[18] == 62 else 62).to_bytes(2, "little")
        binary.write_bytes(bytes(data))
    _rewrite_manifest(out, lambda body: body.update(binary="cubin") if damage == "cubin-kind" else None)
    (workdir / "load.py").write_text(LOAD_ARTIFACT)
    r = run(workdir, "load.py", str(out), cache="off", check=False)
    assert r.returncode == 1, (r.returncode, r.stderr)  # an error, not a signal
    expected = {
        "truncate": "is truncated or corrupted",
        "truncate-header": "is not an ELF file",
        "other-machine": "is code for",
        "cubin-kind": "a binary of kind 'cubin' for target cpu",
    }[damage]
    assert "ArtifactError" in r.stderr and expected in r.stderr, r.stderr


def test_cache_off_and_always_compile(workdir, tmp_path):
    r = run(workdir, "run_scale_add.py", cache="off")
    assert "mlir imported: True" in r.stdout
    cache = tmp_path / "cache"
    run(workdir, "run_scale_add.py", cache=cache)
    r = run(workdir, "run_scale_add.py", cache=cache, env={"TILEC_ALWAYS_COMPILE": "1"})
    assert "mlir imported: True" in r.stdout


def test_timing_prints_every_stage(workdir, tmp_path):
    r = run(workdir, "run_scale_add.py", cache=tmp_path / "cache", env={"TILEC_TIMING": "1"})
    for stage in ("tile", "linalg", "bufferized", "llvm", "llir", "so", "total"):
        assert f"scale_add {stage}:" in r.stderr, r.stderr


# -- AOT ---------------------------------------------------------------------------------------

LOAD_ARTIFACT = """
import sys
sys.modules["mlir"] = None
import numpy as np
import tilec

add = tilec.load(sys.argv[1])
n = 1000
x = np.ones(n, np.float32)
y = np.zeros(n, np.float32)
out = np.empty(n, np.float32)
add[(tilec.cdiv(n, 128),)](x, y, out, n, 3.0)
np.testing.assert_allclose(out, 4.0)
print("ok", add.target, sorted(add.asm))
"""


def tilec_compile(*argv):
    """`tilec-compile` (as python -m tilec.aot) in a subprocess."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "tilec.aot", *map(str, argv)], capture_output=True, text=True, env=env
    )


def compile_artifact(workdir, out, *extra, signature="*fp32:16,*fp32:16,*fp32:16,i32,fp32"):
    kernel = f"{workdir / 'kernels.py'}:scale_add"
    return tilec_compile(kernel, "--signature", signature, "--constexpr", "BLOCK=128",
                         "--target", "cpu", "-o", out, *extra)  # fmt: skip


def test_aot_artifact_runs_in_a_process_without_mlir(workdir, tmp_path):
    out = tmp_path / "artifact"
    r = compile_artifact(workdir, out)
    assert r.returncode == 0, r.stderr
    assert (out / "manifest.json").exists() and (out / "so").exists()
    (workdir / "load.py").write_text(LOAD_ARTIFACT)
    r = run(workdir, "load.py", str(out), cache="off")
    assert r.stdout.startswith("ok cpu"), r.stdout
    # Compiling again over an earlier artifact replaces it.
    assert compile_artifact(workdir, out).returncode == 0
    # An @autotune-wrapped kernel compiles too: the constexprs chosen on the command line.
    tuned = tilec_compile(
        f"{workdir / 'kernels.py'}:tuned_sum",
        "-s",
        "*fp32,*fp32,i32",
        "-c",
        "BLOCK=64",
        "-o",
        tmp_path / "tuned",
    )
    assert tuned.returncode == 0, tuned.stderr


def test_aot_errors_are_clear(workdir, tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("keep me")
    r = compile_artifact(workdir, tmp_path / "busy")
    assert r.returncode == 1 and "not empty" in r.stderr and "Traceback" not in r.stderr
    r = tilec_compile(f"{workdir / 'kernels.py'}:nothing", "-s", "i32", "-o", tmp_path / "o")
    assert r.returncode != 0 and "no @tilec.jit function 'nothing'" in r.stderr
    r = tilec_compile(
        f"{workdir / 'kernels.py'}:scale_add", "-s", "*fp32", "-c", "BLOCK=64", "-o", tmp_path / "o"
    )
    assert r.returncode == 1 and "kernels.py" in r.stderr and "1 types for 5 run-time parameters" in r.stderr


def test_loaded_kernel_checks_its_arguments(workdir, tmp_path):
    out = tmp_path / "artifact"
    assert compile_artifact(workdir, out).returncode == 0
    add = tilec.load(out)
    n = 256
    x, y, o = (np.zeros(n, np.float32) for _ in range(3))
    with pytest.raises(TypeError, match="takes 5 arguments"):
        add[(2,)](x, y, o, n)
    with pytest.raises(TypeError, match="'y_ptr' must hold fp32, got an array of fp64"):
        add[(2,)](x, np.zeros(n), o, n, 1.0)
    with pytest.raises(ValueError, match="'x_ptr' was compiled assuming divisibility by 16, got an address "
                       r"\d+, which is not a multiple of 16: pass an aligned array"):  # fmt: skip
        add[(2,)](np.zeros(n + 1, np.float32)[1:], y, o, n, 1.0)
    with pytest.raises(ValueError, match="'n' = 4294967296 does not fit in int32"):
        add[(2,)](x, y, o, 2**32, 1.0)
    add[(2,)](x + 1, y, o, n, 2.0)
    np.testing.assert_allclose(o, 3.0)
    (out / "so").write_bytes(b"not a library")
    with pytest.raises(tilec.ArtifactError, match="corrupted"):
        tilec.load(out)
    with pytest.raises(tilec.ArtifactError, match="manifest.json"):
        tilec.load(tmp_path)


def test_a_bare_pointer_type_assumes_no_alignment(workdir, tmp_path):
    """As in Triton's AOT compiler: '*fp32' assumes nothing of the address, '*fp32:16' 16 bytes."""
    out = tmp_path / "artifact"
    assert compile_artifact(workdir, out, signature="*fp32,*fp32,*fp32:16,i32,fp32").returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())["body"]
    assert manifest["divisibility"] == [1, 1, 16, 1, 1]
    add = tilec.load(out)
    n = 300
    x, y = np.zeros(n + 1, np.float32)[1:], np.zeros(n + 3, np.float32)[3:]  # 4 and 12 bytes off
    o = np.zeros(n, np.float32)
    add[(3,)](x + 2, y, o, n, 1.5)
    np.testing.assert_allclose(o, 4.0)
    with pytest.raises(ValueError, match="'out_ptr' was compiled assuming divisibility by 16"):
        add[(3,)](x, y, np.zeros(n + 1, np.float32)[1:], n, 1.5)
    bad = tilec_compile(f"{workdir / 'kernels.py'}:scale_add", "-s", "*fp32:3,*fp32,*fp32,i32,fp32", "-c",
                        "BLOCK=128", "-o", tmp_path / "bad")  # fmt: skip
    assert bad.returncode == 1 and "must be a power of two, got '3'" in bad.stderr


def test_all_parameters_after_a_cache_hit_and_from_an_artifact(workdir, tmp_path):
    """A compiled kernel takes every parameter, constexprs in their places, positionally or by
    keyword: in the process that compiled it, after a disk-cache hit, and loaded from an artifact."""
    script = """
import sys
import numpy as np
import tilec
import kernels

kernel = tilec.compile(kernels.scale_add, "*fp32,*fp32,*fp32,i32,fp32", {"BLOCK": 128}, target="cpu")
if len(sys.argv) > 1:
    kernel = tilec.load(sys.argv[1])
n = 1000
x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
for call in (
    lambda o: kernel[(8,)](x, y, o, n, 3.0),
    lambda o: kernel[(8,)](x, y, o, n, 3.0, 128),
    lambda o: kernel[(8,)](x, y, o, n, 3.0, BLOCK=128),
    lambda o: kernel[(8,)](x, y, o, n=n, alpha=3.0),
    lambda o: kernel[(8,)](x_ptr=x, y_ptr=y, out_ptr=o, n=n, alpha=3.0, BLOCK=128),
):
    o = np.zeros(n, np.float32)
    call(o)
    np.testing.assert_allclose(o, 4.0)
for bad, message in (
    (lambda: kernel[(8,)](x, y, o, n, 3.0, 64), "constexpr 'BLOCK' was compiled as 128, got 64"),
    (lambda: kernel[(8,)](x, y, o, n, beta=3.0), "no parameter 'beta'"),
    (lambda: kernel[(8,)](x, y, o, n), "takes 5 arguments (x_ptr, y_ptr, out_ptr, n, alpha), got 4"),
    (lambda: kernel[(8,)](x, y, o, alpha=1.0), "missing argument 'n'"),
):
    try:
        bad()
    except (TypeError, ValueError) as e:
        assert message in str(e) and "<locals>" not in str(e), e
    else:
        raise AssertionError(message)
print("ok", type(kernel.constants["BLOCK"]).__name__)
"""
    (workdir / "all_parameters.py").write_text(script)
    cache = tmp_path / "cache"
    assert run(workdir, "all_parameters.py", cache=cache).stdout.strip() == "ok int"  # compiled
    assert run(workdir, "all_parameters.py", cache=cache).stdout.strip() == "ok int"  # a cache hit
    out = tmp_path / "artifact"
    assert compile_artifact(workdir, out).returncode == 0
    assert run(workdir, "all_parameters.py", str(out), cache="off").stdout.strip() == "ok int"


def test_constexpr_values_keep_their_types_in_the_manifest():
    from tilec.cache import RecordedConstant, decode_constant, encode_constant
    from tilec.language import core

    for value in (
        1024,
        -3,
        2.5,
        True,
        None,
        "rows",
        (1, (2.0, "x")),
        core.float16,
        core.pointer_type(core.int8),
    ):
        back = decode_constant(json.loads(json.dumps(encode_constant(value))))
        assert back == value and type(back) is type(value), value
    opaque = decode_constant(encode_constant(len))  # kept as its repr: equal to what has that repr
    assert isinstance(opaque, RecordedConstant) and opaque == len and repr(opaque) == repr(len)
    assert decode_constant("'1024'") == "1024" and decode_constant("1024") == 1024  # format /1 entries


def test_python_m_tilec_cache_warns_of_nothing(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "TILEC_CACHE_DIR": str(tmp_path)}
    r = subprocess.run(
        [sys.executable, "-W", "error", "-m", "tilec.cache"], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert str(tmp_path) in r.stdout


# -- autotuning --------------------------------------------------------------------------------

RUN_TUNED = """
import sys
if "--forbid-mlir" in sys.argv:
    sys.modules["mlir"] = None
import numpy as np
import tilec
import kernels

n = 5000
x = np.random.default_rng(0).random(n, dtype=np.float32)
total = np.zeros(1, np.float32)
kernels.tuned_sum[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, total, n)
np.testing.assert_allclose(total[0], x.sum(), rtol=1e-4)
tuner = kernels.tuned_sum
print("best:", tuner.best_config)
print("tuned:", tuner.configs_timings is not None)
print("mlir imported:", "mlir" in sys.modules and sys.modules["mlir"] is not None)
"""


def test_autotune_tunes_once_across_processes(workdir, tmp_path):
    (workdir / "run_tuned.py").write_text(RUN_TUNED)
    cache = tmp_path / "cache"
    first = run(workdir, "run_tuned.py", cache=cache)
    assert "tuned: True" in first.stdout
    assert len(entries(cache)) == 3  # every config compiled (in parallel processes) into the cache
    records = list((cache / "autotune").glob("*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["config"]["BLOCK"] in (64, 256, 1024)
    best = first.stdout.split("best:")[1].splitlines()[0]
    second = run(workdir, "run_tuned.py", "--forbid-mlir", cache=cache)
    assert "tuned: False" in second.stdout and "mlir imported: False" in second.stdout
    assert second.stdout.split("best:")[1].splitlines()[0] == best


TUNE_AFTER_MANY_COMPILES = """
import faulthandler
import numpy as np
import tilec
import tilec.language as tl
import kernels

faulthandler.enable()  # a crashed precompile child reports here


@tilec.jit
def scaled(x_ptr, out_ptr, n, F: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * F, mask=offs < n)


x = np.ones(1000, np.float32)
out = np.zeros_like(x)
for f in range(80):  # more compiles than the IRDL keep-alive list holds
    scaled[(8,)](x, out, 1000, F=f, BLOCK=128)
total = np.zeros(1, np.float32)
kernels.tuned_sum[lambda meta: (tilec.cdiv(1000, meta["BLOCK"]),)](x, total, 1000)
print("crashes", kernels.tuned_sum.precompile_crashes, total[0])
"""


def test_autotune_precompile_after_many_compiles(workdir, tmp_path):
    # The forked children compiling the configs must survive earlier compiles' MLIR contexts being
    # freed in them (their worker threads do not survive fork), or the parent compiles again.
    (workdir / "tune_late.py").write_text(TUNE_AFTER_MANY_COMPILES)
    r = run(workdir, "tune_late.py", cache=tmp_path / "cache", env={"TILEC_AUTOTUNE_JOBS": "3"})
    assert "crashes 0 1000.0" in r.stdout, (r.stdout, r.stderr[-2000:])
    assert "Fatal Python error" not in r.stderr


def test_autotune_semantics_in_process():
    import tilec.language as tl

    calls = []
    times = iter([2.0, 1.0])  # BLOCK 32 is timed first, then 128, which "runs faster"

    def early_prune(configs, named):
        calls.append(named["n"])
        return [c for c in configs if c.kwargs["BLOCK"] <= named["n"]]

    @tilec.autotune(
        configs=[tilec.Config({"BLOCK": b}, maxnreg=64 if b == 128 else None) for b in (32, 128, 4096)],
        key=["n"],
        prune_configs_by={
            "early_config_prune": early_prune,
            "perf_model": lambda **kw: -kw["BLOCK"],
            "top_k": 2,
        },
        restore_value=["out_ptr"],
        do_bench=lambda fn: (fn(), fn(), next(times))[2],
        cache_results=False,
    )
    @tilec.jit
    def accumulate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(
            out_ptr + offs, tl.load(out_ptr + offs, mask=mask) + tl.load(x_ptr + offs, mask=mask), mask=mask
        )

    n = 1000
    x = np.ones(n, np.float32)
    out = np.full(n, 5.0, np.float32)
    accumulate[lambda m: (tilec.cdiv(n, m["BLOCK"]),)](x, out, n)
    assert calls == [n] and accumulate.best_config.kwargs == {"BLOCK": 128}  # 4096 pruned early
    assert accumulate.best_config.all_kwargs()["maxnreg"] == 64  # and launched with it
    assert list(accumulate.configs_timings.values()) == [2.0, 1.0]
    np.testing.assert_allclose(out, 6.0)  # tuning runs were undone by restore_value; one real run remains
    with pytest.raises(ValueError, match="BLOCK are chosen by @tilec.autotune"):
        accumulate[(1,)](x, out, n, BLOCK=64)
    with pytest.raises(ValueError, match="has no parameter 'm'"):
        tilec.autotune(configs=[], key=["m"])(accumulate.fn)


def test_autotune_reports_when_every_config_fails():
    import tilec.language as tl

    @tilec.autotune(
        configs=[tilec.Config({"BLOCK": 3}), tilec.Config({"BLOCK": 5})], key=[], cache_results=False
    )
    @tilec.jit
    def bad(x_ptr, BLOCK: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)

    with pytest.raises(tilec.CompilationError, match="must be a power of two"):
        bad[(1,)](np.zeros(8, np.float32))


def test_heuristics_compute_constexprs():
    import tilec.language as tl

    @tilec.heuristics({"EVEN": lambda args: args["n"] % 64 == 0})
    @tilec.jit
    def fill(out_ptr, n, EVEN: tl.constexpr):
        offs = tl.arange(0, 64)
        if EVEN:
            tl.store(out_ptr + offs, 1.0)
        else:
            tl.store(out_ptr + offs, 2.0, mask=offs < n)

    out = np.zeros(64, np.float32)
    fill[(1,)](out, 64)
    assert (out == 1.0).all()
    fill[(1,)](out, 10)
    assert (out[:10] == 2.0).all() and (out[10:] == 1.0).all()


GLOBAL_CONSTANT = """
import sys
import numpy as np
import tilec
import tilec.language as tl

SCALE = float(sys.argv[1])


@tilec.jit
def scaled(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * SCALE)


x = np.ones(16, np.float32)
out = np.zeros(16, np.float32)
scaled[(1,)](x, out, BLOCK=16)
print(out[0])
"""


def test_a_changed_global_constant_is_not_served_from_the_cache(workdir, tmp_path):
    (workdir / "scaled.py").write_text(GLOBAL_CONSTANT)
    cache = tmp_path / "cache"
    assert run(workdir, "scaled.py", "2.0", cache=cache).stdout.strip() == "2.0"
    assert run(workdir, "scaled.py", "3.0", cache=cache).stdout.strip() == "3.0"
    assert len(entries(cache)) == 2


def test_cache_info_and_clear(workdir, tmp_path):
    cache = tmp_path / "cache"
    run(workdir, "run_scale_add.py", cache=cache)
    env = {**os.environ, "TILEC_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "tilec.cache"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "1 kernels" in r.stdout, r.stdout + r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "tilec.cache", "clear"], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0 and "removed 1 entries" in r.stdout
    assert entries(cache) == []
    assert "mlir imported: True" in run(workdir, "run_scale_add.py", cache=cache).stdout  # compiles again


COPIED_KERNEL = """
import tilec
import tilec.language as tl


@tilec.jit
def checked(x_ptr, n):
    tl.device_assert(tl.load(x_ptr) < n, "x too large")
"""


def test_a_kernel_copied_to_another_file_keeps_its_own_locations(tmp_path):
    """The same source in two files (or moved in one) is two cache entries: compiled kernels carry
    file:line locations (device_assert's message, diagnostics)."""
    import importlib.util

    modules = []
    for name, padding in (("first", ""), ("second", ""), ("moved", "\n\n")):
        path = tmp_path / f"{name}.py"
        path.write_text(padding + COPIED_KERNEL)
        spec = importlib.util.spec_from_file_location(f"copied_{name}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(module)
    keys = {m.checked.cache_key for m in modules}
    assert len(keys) == 3
    for m, name in zip(modules, ("first", "second", "moved")):
        ir_text = tilec.compile(m.checked, signature="*i32,i32", target="cpu").asm["tile"]
        assert f"{name}.py" in ir_text


def test_do_bench_takes_tritons_arguments():
    """tilec.testing.do_bench as ported benchmarks call triton.testing.do_bench: quantiles (a list
    back, or one number for one quantile), return_mode, grad_to_none; bad modes are refused."""
    from tilec.testing import do_bench

    class Leaf:
        grad = 1

    leaf, calls = Leaf(), []

    def fn():
        calls.append(leaf.grad)
        leaf.grad = 1
        time.sleep(0.0002)

    low, median, high = do_bench(fn, warmup=1, rep=5, device="cpu", quantiles=[0.1, 0.5, 0.9])
    assert 0.0002 <= low <= median <= high
    assert isinstance(do_bench(fn, warmup=1, rep=5, device="cpu", quantiles=[0.5]), float)
    everything = do_bench(fn, warmup=1, rep=5, device="cpu", return_mode="all")
    assert isinstance(everything, list) and len(everything) >= 3
    assert do_bench(fn, warmup=1, rep=5, device="cpu", return_mode="min") >= 0.0002
    calls.clear()
    do_bench(fn, warmup=1, rep=5, device="cpu", grad_to_none=[leaf])
    assert calls and set(calls) == {None}  # reset before every call
    with pytest.raises(ValueError, match="return_mode must be"):
        do_bench(fn, device="cpu", return_mode="average")


@tilec.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@pytest.mark.parametrize("target, kind", [("sm_90a", "cubin"), ("gfx942", "hsaco"), ("cpu", "so")])
def test_every_targets_binary_passes_the_code_object_check(target, kind, tmp_path):
    """What the compiler writes is what the loader's check accepts; a byte short of it is refused."""
    from tilec import cache

    try:
        kernel = tilec.compile(_copy, signature="*fp32,*fp32,i32", constexprs={"BLOCK": 64}, target=target)
    except tilec.CompilationError as e:
        pytest.skip(f"{target} does not compile here: {e}")
    if kind not in kernel.asm:
        pytest.skip(f"no {kind} here (its assembler is missing)")
    data = kernel.asm[kind]
    cache.check_binary(tmp_path, kind, data, target)
    with pytest.raises(cache.ArtifactError, match="truncated or corrupted|not an ELF file"):
        cache.check_binary(tmp_path, kind, data[:-1], target)
