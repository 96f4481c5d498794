"""tile ops: program ids, shapes, pointers, memory, atomics, reductions, scans, dots, print, assert."""

from __future__ import annotations

import sys

import numpy as np
from mlir import ir

from tilec.dialects import tile
from tilec.errors import InterpreterError

from .memory import as_array, as_unsigned, np_dtype
from .translator import HANDLERS, handles


@handles("tile.program_id", "tile.num_programs")
def _program_id(tr, op):
    out = tr.slot(op.results[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    source = "pid" if op.name == "tile.program_id" else "grid"

    def step(env, state):
        env[out] = np.asarray(getattr(state, source)[axis], dtype=np.int32)

    return step


@handles("tile.make_range")
def _make_range(tr, op):
    out = tr.slot(op.results[0])
    value = np.arange(
        ir.IntegerAttr(op.attributes["start"]).value,
        ir.IntegerAttr(op.attributes["end"]).value,
        dtype=np.int32,
    )

    def step(env, state):
        env[out] = value

    return step


def _shape_handler(make):
    def handler(tr, op):
        src = tr.slot(op.operands[0])
        out = tr.slot(op.results[0])
        shape = tuple(tile.shape_of(op.results[0].type))
        fn = make(op, shape)

        def step(env, state):
            env[out] = fn(as_array(env[src]))

        return step

    return handler


HANDLERS["tile.splat"] = _shape_handler(lambda op, shape: lambda x: np.full(shape, x, dtype=x.dtype))


HANDLERS["tile.broadcast"] = _shape_handler(lambda op, shape: lambda x: np.broadcast_to(x, shape))


HANDLERS["tile.expand_dims"] = _shape_handler(lambda op, shape: lambda x: x.reshape(shape))


HANDLERS["tile.reshape"] = _shape_handler(lambda op, shape: lambda x: x.reshape(shape))


HANDLERS["tile.convert_layout"] = _shape_handler(lambda op, shape: lambda x: x)


@handles("tile.gather")
def _gather(tr, op):
    src, index, out = tr.slot(op.operands[0]), tr.slot(op.operands[1]), tr.slot(op.results[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    size = tile.shape_of(op.operands[0].type)[axis]

    def step(env, state):
        x, i = as_array(env[src]), as_array(env[index]).astype(np.int64)
        inside = (i >= 0) & (i < size)
        picked = np.take_along_axis(x, np.where(inside, i, 0), axis)
        env[out] = np.where(inside, picked, np.zeros((), x.dtype))

    return step


@handles("tile.histogram")
def _histogram(tr, op):
    seg = _segments(op)
    src, out = tr.slot(seg["src"][0]), tr.slot(op.results[0])
    mask = tr.slot(seg["mask"][0]) if seg.get("mask") else None
    bins = ir.IntegerAttr(op.attributes["num_bins"]).value

    def step(env, state):
        x = as_array(env[src]).astype(np.int64)
        keep = (x >= 0) & (x < bins)
        if mask is not None:
            keep &= as_array(env[mask]).astype(bool)
        env[out] = np.bincount(x[keep], minlength=bins).astype(np.int32)

    return step


@handles("tile.sort")
def _sort(tr, op):
    """The bitonic network's compare-and-swap steps on whole arrays (the CPU target's loop, the GPUs'
    unrolled network): the same swaps, so the same placement of -0.0 / 0.0 and of NaN payloads."""
    src, out = tr.slot(op.operands[0]), tr.slot(op.results[0])
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    descending = "descending" in op.attributes
    unsigned = "unsigned" in op.attributes
    n = tile.shape_of(op.operands[0].type)[axis]
    bits = n.bit_length() - 1
    first_stage = bits if "merge" in op.attributes else 1
    i = np.arange(n)

    def greater(a, b):  # NaN after every number
        if a.dtype.kind in "iub":
            return a > b
        with np.errstate(invalid="ignore"):
            return (a > b) | (np.isnan(a) & ~np.isnan(b))

    def step(env, state):
        x = np.moveaxis(as_array(env[src]), axis, -1)
        keys = as_unsigned(x) if unsigned else x
        for stage in range(first_stage, bits + 1):
            falling = (((i >> stage) & 1) == 1) & (stage < bits)
            falling ^= descending
            for bit in range(stage - 1, -1, -1):
                partner = i ^ (1 << bit)
                first = (i & (1 << bit)) == 0
                theirs = keys[..., partner]
                low, high = np.where(first, keys, theirs), np.where(first, theirs, keys)
                out_of_order = np.where(falling, greater(high, low), greater(low, high))
                keys = np.where(out_of_order, theirs, keys)
        result = keys.view(x.dtype) if unsigned else keys
        env[out] = np.ascontiguousarray(np.moveaxis(result, -1, axis))

    return step


@handles("tile.ptr_cast")
def _ptr_cast(tr, op):
    """Pointers are int64 addresses: a cast between pointer types or to or from int64 keeps the
    value. Pointers made from integers make their memory known to the launch (Memory.adopt)."""
    src, out = tr.slot(op.operands[0]), tr.slot(op.results[0])
    from_integers = not tile.is_ptr(tile.element_of(op.operands[0].type))

    def step(env, state):
        addresses = as_array(env[src]).astype(np.int64)
        if from_integers:
            state.memory.adopt(addresses)
        env[out] = addresses

    return step


HANDLERS["tile.trans"] = _shape_handler(
    lambda op, shape: (lambda order: lambda x: np.transpose(x, order))(
        list(ir.DenseI32ArrayAttr(op.attributes["order"]))
    )
)


@handles("tile.addptr")
def _addptr(tr, op):
    p_i, o_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    size = np.dtype(np_dtype(tile.pointee_type(tile.element_of(op.operands[0].type)))).itemsize

    def step(env, state):
        env[out] = as_array(env[p_i]).astype(np.int64) + as_array(env[o_i]).astype(np.int64) * size

    return step


def _segments(op):
    return {k: [v for v in vals] for k, vals in tile.operand_segments(op, tile.SPECS[op.name[5:]]).items()}


@handles("tile.load")
def _load(tr, op):
    seg = _segments(op)
    p_i = tr.slot(seg["ptr"][0])
    m_i = tr.slot(seg["mask"][0]) if seg["mask"] else None
    o_i = tr.slot(seg["other"][0]) if seg["other"] else None
    out = tr.slot(op.results[0])
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        ptrs = as_array(env[p_i])
        if m_i is None:
            env[out] = state.memory.read(ptrs, dtype)
            return
        mask = np.broadcast_to(as_array(env[m_i]), ptrs.shape)
        result = np.zeros(ptrs.shape, dtype=dtype)
        if o_i is not None:
            result[...] = env[o_i]
        if mask.any():
            result[mask] = state.memory.read(ptrs[mask], dtype)
        env[out] = result

    return step


@handles("tile.store")
def _store(tr, op):
    seg = _segments(op)
    p_i, v_i = tr.slot(seg["ptr"][0]), tr.slot(seg["value"][0])
    m_i = tr.slot(seg["mask"][0]) if seg["mask"] else None

    def step(env, state):
        ptrs, values = as_array(env[p_i]), as_array(env[v_i])
        if m_i is not None:
            mask = np.broadcast_to(as_array(env[m_i]), ptrs.shape)
            ptrs, values = ptrs[mask], np.broadcast_to(values, mask.shape)[mask]
        state.memory.write(ptrs, np.broadcast_to(values, ptrs.shape))

    return step


def _combiner(tr, op):
    block = op.regions[0].blocks[0]
    args = [tr.slot(a) for a in block.arguments]
    run = tr.block(block)
    n = len(args) // 2

    def combine(env, state, lhs, rhs):
        for a, v in zip(args, [*lhs, *rhs]):
            env[a] = v
        return [as_array(v) for v in run(env, state)]

    return combine, n


@handles("tile.map")
def _map(tr, op):
    """The body on whole arrays when it is straight-line code (elementwise NumPy), else element by
    element (its branches and loops decide per element)."""
    block = op.regions[0].blocks[0]
    args = [tr.slot(a) for a in block.arguments]
    ins = [tr.slot(v) for v in op.operands]
    outs = [tr.slot(r) for r in op.results]
    dtypes = [np_dtype(tile.element_of(r.type)) for r in op.results]
    run = tr.block(block)
    straight = not any(len(inner.operation.regions) for inner in block.operations)

    def step(env, state):
        values = [as_array(env[i]) for i in ins]
        shape = values[0].shape
        if straight:
            for a, v in zip(args, values):
                env[a] = v
            results = [np.broadcast_to(as_array(r), shape).astype(d) for r, d in zip(run(env, state), dtypes)]
        else:
            results = [np.empty(shape, d) for d in dtypes]
            for index in np.ndindex(*shape):
                for a, v in zip(args, values):
                    env[a] = v[index]
                for r, value in zip(results, run(env, state)):
                    r[index] = as_array(value)
        for o, r in zip(outs, results):
            env[o] = r

    return step


@handles("tile.reduce")
def _reduce(tr, op):
    ins = [tr.slot(v) for v in op.operands]
    outs = [tr.slot(r) for r in op.results]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    combine, _ = _combiner(tr, op)
    dtypes = [np_dtype(r.type) for r in op.results]

    def step(env, state):
        xs = [np.moveaxis(as_array(env[i]), axis, -1) for i in ins]
        while xs[0].shape[-1] > 1:
            n = xs[0].shape[-1]
            half = n // 2
            lhs = [x[..., :half] for x in xs]
            rhs = [x[..., half : 2 * half] for x in xs]
            merged = combine(env, state, lhs, rhs)
            merged = [np.broadcast_to(m, lhs[0].shape) for m in merged]
            if n % 2:
                merged = [np.concatenate([m, x[..., -1:]], axis=-1) for m, x in zip(merged, xs)]
            xs = merged
        for o, x, d in zip(outs, xs, dtypes):
            env[o] = np.array(x[..., 0], dtype=d)

    return step


@handles("tile.scan")
def _scan(tr, op):
    ins = [tr.slot(v) for v in op.operands]
    outs = [tr.slot(r) for r in op.results]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    combine, _ = _combiner(tr, op)

    def step(env, state):
        xs = [np.moveaxis(as_array(env[i]), axis, -1) for i in ins]
        n = xs[0].shape[-1]
        results = [np.empty_like(x) for x in xs]
        order = range(n - 1, -1, -1) if reverse else range(n)
        acc = None
        for k in order:
            cur = [x[..., k] for x in xs]
            acc = cur if acc is None else combine(env, state, acc, cur)
            acc = [np.broadcast_to(a, cur[0].shape) for a in acc]
            for r, a in zip(results, acc):
                r[..., k] = a
        for o, r in zip(outs, results):
            env[o] = np.moveaxis(r, -1, axis)

    return step


@handles("tile.dot")
def _dot(tr, op):
    a_i, b_i, c_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        a, b, c = as_array(env[a_i]), as_array(env[b_i]), as_array(env[c_i])
        if np.issubdtype(dtype, np.integer):
            prod = a.astype(np.int64) @ b.astype(np.int64)
        else:
            work = np.float64 if dtype == np.float64 else np.float32
            prod = a.astype(work) @ b.astype(work)
        env[out] = (prod + c.astype(prod.dtype)).astype(dtype)

    return step


_RMW = {
    "add": lambda old, v: old + v,
    "fadd": lambda old, v: old + v,
    "max": lambda old, v: np.maximum(old, v),
    "min": lambda old, v: np.minimum(old, v),
    "umax": lambda old, v: np.maximum(as_unsigned(old), as_unsigned(v)).view(old.dtype),
    "umin": lambda old, v: np.minimum(as_unsigned(old), as_unsigned(v)).view(old.dtype),
    "and": lambda old, v: old & v,
    "or": lambda old, v: old | v,
    "xor": lambda old, v: old ^ v,
    "xchg": lambda old, v: v,
}


@handles("tile.atomic_rmw")
def _atomic_rmw(tr, op):
    seg = _segments(op)
    p_i, v_i = tr.slot(seg["ptr"][0]), tr.slot(seg["value"][0])
    m_i = tr.slot(seg["mask"][0]) if seg["mask"] else None
    out = tr.slot(op.results[0])
    fn = _RMW[ir.StringAttr(op.attributes["kind"]).value]
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        ptrs = as_array(env[p_i])
        values = np.broadcast_to(as_array(env[v_i]), ptrs.shape)
        mask = (
            np.broadcast_to(as_array(env[m_i]), ptrs.shape) if m_i is not None else np.ones(ptrs.shape, bool)
        )
        old = np.zeros(ptrs.shape, dtype=dtype)
        flat_p, flat_v, flat_m, flat_o = (
            ptrs.reshape(-1),
            values.reshape(-1),
            mask.reshape(-1),
            old.reshape(-1),
        )
        for k in np.nonzero(flat_m)[0]:  # one element at a time: duplicates see each other's updates
            addr = flat_p[k : k + 1]
            current = state.memory.read(addr, dtype)
            flat_o[k] = current[0]
            state.memory.write(addr, as_array(fn(current, flat_v[k : k + 1])).astype(dtype))
        env[out] = old

    return step


@handles("tile.atomic_cas")
def _atomic_cas(tr, op):
    p_i, c_i, v_i = (tr.slot(v) for v in op.operands)
    out = tr.slot(op.results[0])
    dtype = np_dtype(op.results[0].type)

    def step(env, state):
        ptrs = as_array(env[p_i])
        cmp = np.broadcast_to(as_array(env[c_i]), ptrs.shape).reshape(-1)
        val = np.broadcast_to(as_array(env[v_i]), ptrs.shape).reshape(-1)
        old = np.zeros(ptrs.shape, dtype=dtype)
        flat_p, flat_o = ptrs.reshape(-1), old.reshape(-1)
        # compared as bits, as the GPUs' atom.cas and the CPU's cmpxchg do (-0.0 is not 0.0, a NaN
        # matches the same NaN)
        bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
        wanted = np.ascontiguousarray(cmp.astype(dtype)).view(bits)
        for k in range(flat_p.size):
            addr = flat_p[k : k + 1]
            current = state.memory.read(addr, dtype)
            flat_o[k] = current[0]
            if np.ascontiguousarray(current[:1]).view(bits)[0] == wanted[k]:
                state.memory.write(addr, val[k : k + 1].astype(dtype))
        env[out] = old

    return step


@handles("tile.print")
def _print(tr, op):
    arg = tr.slot(op.operands[0]) if len(op.operands) else None
    prefix = ir.StringAttr(op.attributes["prefix"]).value
    as_hex = "hex" in op.attributes and ir.BoolAttr(op.attributes["hex"]).value

    def step(env, state):
        if arg is None:
            print(f"pid ({state.pid[0]}, {state.pid[1]}, {state.pid[2]}) {prefix}")
            return
        value = as_array(env[arg])
        for idx in np.ndindex(value.shape or ()):
            v = value[idx]
            if as_hex and np.issubdtype(value.dtype, np.integer):
                text = hex(int(v))
            elif np.issubdtype(value.dtype, np.floating):
                text = repr(float(v))
            else:
                text = str(int(v))
            px, py, pz = state.pid
            print(f"pid ({px}, {py}, {pz}) idx {tuple(int(i) for i in idx)} {prefix}{text}")
        sys.stdout.flush()

    return step


@handles("tile.assert")
def _assert(tr, op):
    cond = tr.slot(op.operands[0])
    message = ir.StringAttr(op.attributes["message"]).value

    def step(env, state):
        value = as_array(env[cond])
        if not np.all(value):
            first = np.argwhere(~value.astype(bool))
            where = f" at index {tuple(int(i) for i in first[0])}" if value.ndim else ""
            raise InterpreterError(f"device assertion failed{where}: {message}")

    return step
