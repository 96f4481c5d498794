"""Launch overhead of a tilec kernel called directly, through a tilec.torch op, and inside a
torch.compile'd function, beside an empty torch.library custom op (torch's own dispatch cost).

python bench/torch_op_overhead.py    (CPU tensors; CUDA tensors when torch sees a GPU)
"""

import time

import torch

import tilec
import tilec.language as tl
import tilec.torch


@tilec.jit
def touch(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


@tilec.torch.op("tilec_bench::touch", mutates_args=("x",))
def touch_op(x: torch.Tensor) -> None:
    touch[(1,)](x, 16, BLOCK=16)


@torch.library.custom_op("tilec_bench::nothing", mutates_args=("x",))
def nothing(x: torch.Tensor) -> None:
    pass


nothing.register_fake(lambda x: None)


def per_call_us(fn, x, calls=5000, rounds=5) -> float:
    for _ in range(100):
        fn(x)
    best = float("inf")
    for _ in range(rounds):
        if x.is_cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn(x)
        if x.is_cuda:
            torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def main() -> None:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.zeros(16, device=device)
    rows = {
        "direct launch": lambda x: touch[(1,)](x, 16, BLOCK=16),
        "tilec.torch op, eager": touch_op,
        "tilec.torch op, compiled": torch.compile(lambda x: touch_op(x), fullgraph=True),
        "empty custom op, eager": nothing,
        "empty custom op, compiled": torch.compile(lambda x: nothing(x), fullgraph=True),
    }
    print(f"device {device}, torch {torch.__version__}")
    for name, fn in rows.items():
        print(f"{name:28s} {per_call_us(fn, x):7.2f} us")


if __name__ == "__main__":
    main()
