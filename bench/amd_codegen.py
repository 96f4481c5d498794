"""AMD code generation side by side (no AMD GPU needed): VGPRs, SGPRs, LDS and instruction counts of
gfx942 code for the benchmark kernels, from tilec (`--tilec`, here) or from Triton cross-compiling for
GPUTarget("hip", "gfx942", 64) (`--triton`, where Triton is installed).

    python bench/amd_codegen.py --tilec
    python bench/amd_codegen.py --triton
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pathlib
import re
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

CASES = [
    (
        "vector_add",
        "add_kernel",
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
        {"BLOCK": 1024},
        4,
    ),
    (
        "softmax",
        "softmax_kernel",
        {"out_ptr": "*fp32", "in_ptr": "*fp32", "stride": "i32", "n_cols": "i32"},
        {"BLOCK": 1024},
        4,
    ),
    (
        "layernorm",
        "layernorm_kernel",
        {
            "x_ptr": "*fp32",
            "w_ptr": "*fp32",
            "b_ptr": "*fp32",
            "out_ptr": "*fp32",
            "stride": "i32",
            "N": "i32",
            "eps": "fp32",
        },
        {"BLOCK": 1024, "GELU": False},
        4,
    ),
]


def stats(asm: str) -> dict:
    def field(pattern):
        m = re.search(pattern, asm)
        return int(m.group(1)) if m else None

    body = [
        line.strip()
        for line in asm.splitlines()
        if re.match(r"\s+(s_|v_|global_|ds_|buffer_|flat_|scratch_)", line)
    ]
    return {
        "vgpr": field(r"\.vgpr_count:\s+(\d+)") or field(r"\.amdhsa_next_free_vgpr (\d+)"),
        "sgpr": field(r"\.sgpr_count:\s+(\d+)") or field(r"\.amdhsa_next_free_sgpr (\d+)"),
        "lds": field(r"\.group_segment_fixed_size:\s+(\d+)")
        or field(r"\.amdhsa_group_segment_fixed_size (\d+)"),
        "instructions": len(body),
        "global_loads": sum(1 for i in body if i.startswith("global_load")),
    }


def load(kind: str):
    source = (HERE / "kernels.py").read_text()
    if kind == "triton":
        source = source.replace("import tilec as backend", "import triton as backend")
        source = source.replace("import tilec.language as tl", "import triton.language as tl")
    path = pathlib.Path(tempfile.mkdtemp()) / f"amd_kernels_{kind}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_tilec():
    import tilec

    mod = load("tilec")
    out = {}
    for name, kernel, signature, constexprs, warps in CASES:
        sig = {k: (v + ":16" if v == "i32" else v) for k, v in signature.items()}
        k = tilec.compile(
            getattr(mod, kernel), signature=sig, constexprs=constexprs, target="gfx942", num_warps=warps
        )
        out[name] = stats(k.asm["amdgcn"])
    return out


def run_triton():
    import triton
    from triton.backends.compiler import GPUTarget

    mod = load("triton")
    out = {}
    for name, kernel, signature, constexprs, warps in CASES:
        sig = dict(signature)
        sig.update({k: "constexpr" for k in constexprs})
        src = triton.compiler.ASTSource(getattr(mod, kernel), signature=sig, constexprs=constexprs)
        compiled = triton.compile(src, target=GPUTarget("hip", "gfx942", 64), options={"num_warps": warps})
        out[name] = stats(compiled.asm["amdgcn"])
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", action="store_true")
    parser.add_argument("--triton", action="store_true")
    args = parser.parse_args()
    result = {}
    if args.tilec:
        result["tilec"] = run_tilec()
    if args.triton:
        result["triton"] = run_triton()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
