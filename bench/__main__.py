"""One entry point for the benchmarks: measurements to JSON, and a PNG plot of them.

    python -m bench --device cpu [--quick]          tilec's CPU target against NumPy
    python -m bench --device cuda [--quick]         tilec against Triton, torch eager, torch.compile

Results go to ./bench-results/<device>-bench-<date>.json and .png (or --out DIR), outside the source
tree; each JSON records the date and the git commit it was measured at. bench/results keeps the one
current file per benchmark and device that the docs quote, copied there by hand.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def device_name(device: str) -> str:
    """'h200', 'h100', 'a100', ... for a CUDA GPU (from torch's device name), 'cpu' for the host."""
    if device == "cpu":
        return "cpu"
    import torch

    words = torch.cuda.get_device_name().lower().replace("nvidia", "").split()
    return next((w for w in words if any(c.isdigit() for c in w)), words[0] if words else "cuda")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    parser.add_argument("--quick", action="store_true", help="fewer, smaller sizes")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (cuda)")
    parser.add_argument(
        "--out", default="bench-results", help="folder of the results (default ./bench-results)"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE.parent))

    try:
        from tqdm import tqdm
    except ImportError:  # a progress bar is a nicety: count on stderr instead
        tqdm = _Counter

    if args.device == "cpu":
        from bench import cpu

        total = len(cpu.cases(args.quick))
        with tqdm(total=total, desc="bench cpu", file=sys.stderr) as bar:
            rows, meta = cpu.run(args.quick, on_row=lambda row: bar.update(1))
    else:
        try:
            import torch

            if not torch.cuda.is_available():
                raise ImportError
        except ImportError:
            print("python -m bench --device cuda needs torch with a CUDA GPU", file=sys.stderr)
            return 1
        from bench import nvidia

        with tqdm(desc="bench cuda", unit="case", file=sys.stderr) as bar:
            rows, meta = nvidia.run(args.quick, args.no_compile, on_row=lambda row: bar.update(1))
            from bench import matmul

            rows += matmul.run(args.quick, on_row=lambda row: bar.update(1))
    meta.update({"date": time.strftime("%Y-%m-%d"), "commit": commit(), "quick": args.quick})
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{device_name(args.device)}-bench-{meta['date']}{'-quick' if args.quick else ''}"
    (out / f"{stem}.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    print(f"wrote {out / (stem + '.json')}")
    from bench.plot import plot_file

    try:
        print(f"wrote {plot_file(out / f'{stem}.json')}")
    except ImportError:
        print(
            "matplotlib is not installed: plot later with python -m bench.plot " + str(out / f"{stem}.json")
        )
    return 0


class _Counter:
    def __init__(self, total=None, desc="", **_):
        self.total, self.desc, self.done = total, desc, 0

    def update(self, n):
        self.done += n
        print(f"\r{self.desc}: {self.done}/{self.total or '?'}", end="", file=sys.stderr, flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        print(file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
