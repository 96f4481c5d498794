"""Integer operations whose results must be Triton's bit for bit, on the interpreter and the CPU
target, and compiled for sm_90a and gfx942 (the GPU lowering shares the front end's semantics):
`>>` by the left operand's signedness, `tl.umulhi` of 32- and 64-bit integers, wrap-around of
booleans, and loop bounds given by keyword."""

import numpy as np
import pytest
from gpu_launch import needs_gpu, torch_launcher

import tilec
import tilec.language as tl


@tilec.jit
def shift_right(x_ptr, y_ptr, out_ptr, X: tl.constexpr, Y: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs).to(X)
    y = tl.load(y_ptr + offs).to(Y)
    r = x >> y
    tl.store(out_ptr + offs, r.to(tl.int64, bitcast=r.dtype.primitive_bitwidth == 64))


def _reference_shift(x, y, x_dtype, y_dtype):
    """Triton: the operands promoted (same width, mixed signedness: unsigned), then a shift that is
    arithmetic when x's own type is signed; the result's bits read in the promoted type."""
    promoted = np.promote_types(x_dtype, y_dtype)
    if (
        np.dtype(x_dtype).itemsize == np.dtype(y_dtype).itemsize
        and promoted.kind == "i"
        and (np.dtype(x_dtype).kind == "u" or np.dtype(y_dtype).kind == "u")
    ):
        promoted = np.dtype(f"uint{np.dtype(x_dtype).itemsize * 8}")
    bits = promoted.itemsize * 8
    out = []
    for a, b in zip(x.astype(x_dtype).tolist(), y.astype(y_dtype).tolist()):
        value = a >> b if np.dtype(x_dtype).kind == "i" else (a & ((1 << bits) - 1)) >> b
        out.append(value & ((1 << bits) - 1) if promoted.kind == "u" else value)
    return np.array(out, np.int64)


@pytest.mark.parametrize(
    "x_dt, y_dt, np_x, np_y",
    [
        (tl.int32, tl.uint32, np.int32, np.uint32),
        (tl.int16, tl.uint16, np.int16, np.uint16),
        (tl.int8, tl.uint8, np.int8, np.uint8),
        (tl.uint32, tl.int32, np.uint32, np.int32),
        (tl.int32, tl.int32, np.int32, np.int32),
    ],
)
def test_shift_right_follows_the_left_operand(target, x_dt, y_dt, np_x, np_y):
    x = np.array([-100, -1, 7, -(2**7), 3, -5, 64, -64], np.int64)
    y = np.array([1, 3, 2, 4, 0, 1, 5, 2], np.int64)
    out = np.zeros(8, np.int64)
    shift_right[(1,)](x, y, out, x_dt, y_dt, 8)
    assert out.tolist() == _reference_shift(x, y, np_x, np_y).tolist()


@tilec.jit
def mul_high(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.umulhi(tl.load(x_ptr + offs), tl.load(y_ptr + offs)))


@pytest.mark.parametrize("np_dt", [np.int32, np.uint32, np.int64, np.uint64])
def test_umulhi_is_the_high_half_of_the_unsigned_product(target, np_dt):
    bits = np.dtype(np_dt).itemsize * 8
    rng = np.random.default_rng(bits)
    info = np.iinfo(np_dt)
    edges = [info.min, info.max, 0, 1, -1 if info.min < 0 else 2, info.max // 3]
    x = np.array(edges + list(rng.integers(info.min, info.max, 10, dtype=np_dt, endpoint=True)), np_dt)
    y = np.array(edges[::-1] + list(rng.integers(info.min, info.max, 10, dtype=np_dt, endpoint=True)), np_dt)
    out = np.zeros(16, np_dt)
    mul_high[(1,)](x, y, out, 16)
    mask = (1 << bits) - 1
    expected = [((int(a) & mask) * (int(b) & mask)) >> bits for a, b in zip(x, y)]
    assert (out.view(np.uint32 if bits == 32 else np.uint64)).tolist() == expected


@tilec.jit
def boolean_wrap(out_ptr):
    t = tl.full((4,), True, tl.int1)
    f = tl.full((4,), False, tl.int1)
    offs = tl.arange(0, 4)
    tl.store(out_ptr + offs, (t + t).to(tl.int32))
    tl.store(out_ptr + 4 + offs, (t + f).to(tl.int32))
    tl.store(out_ptr + 8 + offs, (f - t).to(tl.int32))
    tl.store(out_ptr + 12 + offs, (t * t).to(tl.int32))


def test_booleans_wrap_modulo_two(target):
    out = np.full(16, 7, np.int32)
    boolean_wrap[(1,)](out)
    assert out.reshape(4, 4)[:, 0].tolist() == [0, 1, 1, 1]


@tilec.jit
def stepped_loops(out_ptr, n):
    total = 0
    for i in tl.static_range(1, 10, step=3):  # 1, 4, 7
        total += i
    tl.store(out_ptr, total)
    count = 0
    for j in tl.range(0, n, step=4):  # n = 10: 0, 4, 8
        count += j
    tl.store(out_ptr + 1, count)
    evens = 0
    for k in tl.static_range(6, step=2):  # 0, 2, 4
        evens += k
    tl.store(out_ptr + 2, evens)


def test_range_steps_given_by_keyword(target):
    out = np.zeros(3, np.int32)
    stepped_loops[(1,)](out, 10)
    assert out.tolist() == [12, 12, 6]


@tilec.jit
def bad_static_range(out_ptr):
    for i in tl.static_range(0, 4, stride=2):
        tl.store(out_ptr + i, i)


def test_unknown_range_keywords_are_errors(target):
    with pytest.raises(tilec.CompilationError, match="tl.static_range has no argument 'stride'"):
        bad_static_range[(1,)](np.zeros(4, np.int32))


@pytest.mark.parametrize("arch", ["sm_90a", "gfx942"])
def test_integer_semantics_compile_for_gpus(arch, monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    shifted = tilec.compile(
        shift_right, "*i64,*i64,*i64", {"X": tl.int32, "Y": tl.uint32, "N": 8}, target=arch
    )
    assert "arith.shrsi" in shifted.asm["tile"] and "arith.shrui" not in shifted.asm["tile"]
    for sig in ("*i32,*i32,*i32", "*u64,*u64,*u64"):
        tilec.compile(mul_high, sig, {"N": 16}, target=arch)
    tilec.compile(stepped_loops, "*i32,i32", target=arch)


@pytest.mark.gpu
@needs_gpu
def test_integer_semantics_on_a_gpu():
    launch = torch_launcher()
    x = np.array([-100, -1, 7, -(2**7), 3, -5, 64, -64], np.int64)
    y = np.array([1, 3, 2, 4, 0, 1, 5, 2], np.int64)
    for x_dt, y_dt, np_x, np_y in [
        (tl.int32, tl.uint32, np.int32, np.uint32),
        (tl.int8, tl.uint8, np.int8, np.uint8),
    ]:
        out = np.zeros(8, np.int64)
        launch(shift_right, (1,), x, y, out, x_dt, y_dt, 8)
        assert out.tolist() == _reference_shift(x, y, np_x, np_y).tolist()
    for np_dt in (np.int32, np.uint64):
        bits = np.dtype(np_dt).itemsize * 8
        info = np.iinfo(np_dt)
        a = np.array([info.min, info.max, 0, 1, 2, info.max // 3] * 3 + [5, 7], np_dt)[:16]
        b = a[::-1].copy()
        out = np.zeros(16, np_dt)
        launch(mul_high, (1,), a, b, out, 16)
        mask = (1 << bits) - 1
        expected = [((int(p) & mask) * (int(q) & mask)) >> bits for p, q in zip(a, b)]
        assert out.view(np.uint32 if bits == 32 else np.uint64).tolist() == expected
    out = np.full(16, 7, np.int32)
    launch(boolean_wrap, (1,), out)
    assert out.reshape(4, 4)[:, 0].tolist() == [0, 1, 1, 1]
    out = np.zeros(3, np.int32)
    launch(stepped_loops, (1,), out, 10)
    assert out.tolist() == [12, 12, 6]
