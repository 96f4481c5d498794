"""Plots of benchmark rows (`python -m bench.plot result.json` redraws one): one panel per (kernel, dtype), GB/s (or TFLOP/s) against problem size, a
line per implementation (tilec, Triton, torch, torch.compile, NumPy, cuBLAS: whatever the rows hold)."""

from __future__ import annotations

import json
import pathlib
import sys

LABELS = {
    "tilec": "tilec",
    "tilec_rows": "tilec (4 rows/program)",
    "triton": "Triton",
    "triton_rows": "Triton (4 rows/program)",
    "torch": "torch eager",
    "torch_compile": "torch.compile",
    "numpy": "NumPy",
    "cublas": "cuBLAS (torch.matmul)",
    "torch_sdpa": "torch SDPA",
}


def plot(rows: list[dict], path: pathlib.Path, title: str) -> pathlib.Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[tuple, list[dict]] = {}
    for row in rows:
        if any(k.endswith(("_gbps", "_tflops")) for k in row) and row.get("kernel") != "copy":
            panels.setdefault((row["kernel"], row.get("dtype", "")), []).append(row)
    columns = min(3, max(1, len(panels)))
    lines = -(-len(panels) // columns)
    fig, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 3.6 * lines), squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, ((kernel, dtype), panel) in zip(axes.flat, panels.items()):
        unit = "_tflops" if any(k.endswith("_tflops") for k in panel[0]) else "_gbps"
        sizes = [r["size"] for r in panel]
        names = [k[: -len(unit)] for k in panel[0] if k.endswith(unit)]
        for name in names:
            values = [r.get(name + unit) for r in panel]
            if any(v is not None for v in values):
                ax.plot(sizes, values, marker="o", label=LABELS.get(name, name))
        ax.set_title(f"{kernel} {dtype}".strip())
        ax.set_xlabel("size")
        ax.set_ylabel("TFLOP/s" if unit == "_tflops" else "GB/s")
        ax.tick_params(axis="x", labelrotation=30)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_file(result: pathlib.Path) -> pathlib.Path:
    """The PNG beside a result JSON written by `python -m bench`."""
    data = json.loads(pathlib.Path(result).read_text())
    meta = data.get("meta", {})
    where = meta.get("device") or meta.get("machine") or ""
    title = f"tilec on {where} ({meta.get('date', '')}, {meta.get('commit', '')})"
    return plot(data["rows"], pathlib.Path(result).with_suffix(".png"), title)


if __name__ == "__main__":  # python -m bench.plot results.json [...]
    for name in sys.argv[1:]:
        print(plot_file(pathlib.Path(name)))
