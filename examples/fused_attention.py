"""Fused attention forward (FlashAttention-style): softmax(Q K^T / sqrt(d)) V computed one block of
queries at a time with an online softmax, so the S x S score matrix is never stored.

    python examples/fused_attention.py
"""

import math

import numpy as np
from _device import Device, describe

import tilec
import tilec.language as tl


@tilec.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, out_ptr, seq_len, scale,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
):  # fmt: skip
    start_m = tl.program_id(0) * BLOCK_M
    head = tl.program_id(1)
    base = head * seq_len * HEAD_DIM  # q, k, v, out: [heads, seq_len, HEAD_DIM], contiguous
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(
        q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0
    )
    m_i = tl.full((BLOCK_M,), -float("inf"), tl.float32)  # running row maximum
    l_i = tl.zeros((BLOCK_M,), tl.float32)  # running row sum of exp
    acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)
    end = tl.minimum(seq_len, start_m + BLOCK_M) if CAUSAL else seq_len
    for start_n in range(0, end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kv_mask = offs_n[:, None] < seq_len
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        valid = offs_n[None, :] < seq_len
        if CAUSAL:
            valid = valid & (offs_n[None, :] <= offs_m[:, None])
        s = tl.where(valid, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)  # rescales what was accumulated under the old maximum
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(
        out_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
        out.to(out_ptr.dtype.element_ty),
        mask=offs_m[:, None] < seq_len,
    )


def reference(q, k, v, causal):
    s = q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float32)


def main() -> None:
    device = Device()
    on_gpu = device.torch is not None
    heads, seq_len, head_dim = (16, 1000, 64) if on_gpu else (2, 100, 32)
    dtype = np.float16 if on_gpu else np.float32
    rng = np.random.default_rng(0)
    q_host, k_host, v_host = (rng.standard_normal((heads, seq_len, head_dim)).astype(dtype) for _ in range(3))
    q, k, v = device.put(q_host), device.put(k_host), device.put(v_host)
    out = device.empty((heads, seq_len, head_dim), dtype)
    block_m, block_n = (64, 64) if on_gpu else (32, 32)
    grid = (tilec.cdiv(seq_len, block_m), heads)
    tolerance = 2e-2 if dtype == np.float16 else 1e-4
    for causal in (False, True):
        attention_kernel[grid](
            q, k, v, out, seq_len, 1 / math.sqrt(head_dim),
            HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
        )  # fmt: skip
        expected = reference(q_host, k_host, v_host, causal)
        np.testing.assert_allclose(
            device.get(out).astype(np.float32), expected, rtol=tolerance, atol=tolerance
        )
    compiled = attention_kernel.warmup(
        q, k, v, out, seq_len, 1.0, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=True
    )
    print(
        describe("fused_attention", compiled, device)
        + f": {heads} heads x {seq_len} x {head_dim}, causal and not, match NumPy"
    )


if __name__ == "__main__":
    main()
