"""A fused LayerNorm + GELU as a differentiable PyTorch op, trained under torch.compile(fullgraph=True).

python examples/torch_op.py

Two tilec kernels (forward, and a backward that recomputes the row statistics) become two custom ops
with `tilec.torch.op`; `register_autograd` ties them together. A small model using the op trains for a
few steps compiled and eagerly, and the two runs must agree with each other and with the same model
built from torch's own layer_norm and gelu. Runs on an NVIDIA GPU when torch sees one, else on the CPU.
"""

import math

import torch

import tilec
import tilec.language as tl
import tilec.torch

SQRT_HALF = 0.7071067811865476
INV_SQRT_2PI = 0.3989422804014327


@tilec.jit
def layernorm_gelu_fwd(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr, ACC: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(ACC)
    mean = tl.sum(x, axis=0) / N
    centered = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(centered * centered, axis=0) / N + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(ACC)
    b = tl.load(b_ptr + cols, mask=mask).to(ACC)
    z = centered * rstd * w + b
    y = 0.5 * z * (1 + tl.erf(z * SQRT_HALF))
    tl.store(y_ptr + row * N + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@tilec.jit
def layernorm_gelu_bwd(
    dy_ptr, x_ptr, w_ptr, b_ptr, dx_ptr, dw_ptr, db_ptr, M, N, eps,
    ROWS: tl.constexpr, BLOCK: tl.constexpr, ACC: tl.constexpr,
):  # fmt: skip
    """dx for ROWS rows, and this program's partial sums of dw and db over them (one row of
    dw_ptr/db_ptr per program; the op adds the rows up)."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    in_row = cols < N
    w = tl.load(w_ptr + cols, mask=in_row).to(ACC)
    b = tl.load(b_ptr + cols, mask=in_row).to(ACC)
    dw = tl.zeros((BLOCK,), ACC)
    db = tl.zeros((BLOCK,), ACC)
    for i in range(ROWS):
        row = pid * ROWS + i
        mask = in_row & (row < M)
        x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(ACC)
        dy = tl.load(dy_ptr + row * N + cols, mask=mask, other=0.0).to(ACC)
        mean = tl.sum(x, axis=0) / N
        centered = tl.where(mask, x - mean, 0.0)
        rstd = 1 / tl.sqrt(tl.sum(centered * centered, axis=0) / N + eps)
        xhat = centered * rstd
        z = xhat * w + b
        gelu_grad = 0.5 * (1 + tl.erf(z * SQRT_HALF)) + z * INV_SQRT_2PI * tl.exp(-0.5 * z * z)
        dz = tl.where(mask, dy * gelu_grad, 0.0)
        dxhat = dz * w
        c1 = tl.sum(dxhat * xhat, axis=0) / N
        c2 = tl.sum(dxhat, axis=0) / N
        dx = (dxhat - (xhat * c1 + c2)) * rstd
        tl.store(dx_ptr + row * N + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        dw += dz * xhat
        db += dz
    tl.store(dw_ptr + pid * N + cols, dw, mask=in_row)
    tl.store(db_ptr + pid * N + cols, db, mask=in_row)


ROWS_PER_PROGRAM = 16


def accumulator(t: torch.Tensor):
    """What the kernels compute in: float32, or float64 for float64 tensors (gradcheck's)."""
    return tl.float64 if t.dtype == torch.float64 else tl.float32


@tilec.torch.op("tilec_examples::layernorm_gelu")
def layernorm_gelu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    n = x.shape[-1]
    x2 = x.reshape(-1, n).contiguous()
    y = torch.empty_like(x2)
    layernorm_gelu_fwd[(x2.shape[0],)](
        x2, w, b, y, n, eps, BLOCK=tilec.next_power_of_2(n), ACC=accumulator(x)
    )
    return y.view(x.shape)


@tilec.torch.op("tilec_examples::layernorm_gelu_backward")
def layernorm_gelu_backward(
    dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    n = x.shape[-1]
    x2 = x.reshape(-1, n).contiguous()
    dy2 = dy.reshape(-1, n).contiguous()
    m = x2.shape[0]
    programs = tilec.cdiv(m, ROWS_PER_PROGRAM)
    dx = torch.empty_like(x2)
    partial = torch.float64 if x.dtype == torch.float64 else torch.float32
    dw = torch.empty((programs, n), dtype=partial, device=x.device)
    db = torch.empty((programs, n), dtype=partial, device=x.device)
    layernorm_gelu_bwd[(programs,)](
        dy2, x2, w, b, dx, dw, db, m, n, eps,
        ROWS=ROWS_PER_PROGRAM, BLOCK=tilec.next_power_of_2(n), ACC=accumulator(x),
    )  # fmt: skip
    return dx.view(x.shape), dw.sum(0).to(w.dtype), db.sum(0).to(b.dtype)


def _save(ctx, inputs, output):
    x, w, b, eps = inputs
    ctx.save_for_backward(x, w, b)
    ctx.eps = eps


def _backward(ctx, dy):
    x, w, b = ctx.saved_tensors
    dx, dw, db = layernorm_gelu_backward(dy, x, w, b, ctx.eps)
    return dx, dw, db, None


layernorm_gelu.register_autograd(_backward, setup_context=_save)


class Block(torch.nn.Module):
    """Linear -> LayerNorm+GELU -> Linear, the norm either tilec's op or torch's two functions."""

    def __init__(self, width: int, fused: bool):
        super().__init__()
        self.up = torch.nn.Linear(width, width)
        self.norm = torch.nn.LayerNorm(width)
        self.down = torch.nn.Linear(width, 1)
        self.fused = fused

    def forward(self, x):
        h = self.up(x)
        if self.fused:
            h = layernorm_gelu(h, self.norm.weight, self.norm.bias, self.norm.eps)
        else:
            h = torch.nn.functional.gelu(self.norm(h))
        return self.down(h)


def train(model, batches, steps: int):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for step in range(steps):
        x, target = batches[step % len(batches)]
        loss = torch.nn.functional.mse_loss(model(x), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def main(width: int = 200, rows: int = 96, steps: int = 5) -> None:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    template = Block(width, fused=True).to(device)
    with torch.no_grad():  # a LayerNorm that is not the identity, so its gradients matter
        template.norm.weight.uniform_(0.5, 1.5)
        template.norm.bias.uniform_(-0.5, 0.5)
    batches = [
        (torch.randn(rows, width, device=device), torch.randn(rows, 1, device=device)) for _ in range(3)
    ]

    def copy(fused):
        model = Block(width, fused).to(device)
        model.load_state_dict(template.state_dict())
        return model

    eager, compiled, reference = copy(True), copy(True), copy(False)
    compiled_forward = torch.compile(compiled, fullgraph=True, dynamic=True)
    losses = {
        "eager": train(eager, batches, steps),
        "compiled": train(compiled_forward, batches, steps),
        "torch": train(reference, batches, steps),
    }
    for name in ("compiled", "torch"):
        other = compiled if name == "compiled" else reference
        for (pname, p), q in zip(eager.named_parameters(), other.parameters()):
            if not torch.allclose(p, q, rtol=1e-4, atol=1e-5):
                raise SystemExit(
                    f"{name} training differs from eager tilec in {pname}: {(p - q).abs().max()}"
                )
        if not all(
            math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6) for a, b in zip(losses["eager"], losses[name])
        ):
            raise SystemExit(f"{name} losses differ: {losses[name]} vs {losses['eager']}")
    # a batch of another size runs through the same compiled graph (dynamic shapes)
    x = torch.randn(rows + 37, width, device=device)
    with torch.no_grad():
        if not torch.allclose(compiled_forward(x), eager(x), rtol=1e-4, atol=1e-5):
            raise SystemExit("the compiled model differs from eager on a batch of another size")
    breaks = torch._dynamo.explain(compiled)(x).graph_break_count
    print(
        f"layernorm_gelu op ran on {device}: {steps} training steps under torch.compile(fullgraph=True) "
        f"match eager and torch's layer_norm+gelu (losses {losses['compiled'][0]:.4f} -> "
        f"{losses['compiled'][-1]:.4f}), {breaks} graph breaks"
    )


if __name__ == "__main__":
    main()
