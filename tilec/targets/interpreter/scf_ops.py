"""scf.if, scf.for and scf.while."""

from __future__ import annotations

import numpy as np

from .memory import np_dtype
from .translator import handles


@handles("scf.if")
def _if(tr, op):
    cond_i = tr.slot(op.operands[0])
    then_run = tr.block(op.regions[0].blocks[0])
    else_run = tr.block(op.regions[1].blocks[0]) if len(op.regions[1].blocks) else None
    outs = [tr.slot(r) for r in op.results]

    def step(env, state):
        if bool(env[cond_i]):
            values = then_run(env, state)
        elif else_run is not None:
            values = else_run(env, state)
        else:
            values = []
        for o, v in zip(outs, values):
            env[o] = v

    return step


@handles("scf.for")
def _for(tr, op):
    lb_i, ub_i, step_i = (tr.slot(v) for v in list(op.operands)[:3])
    init_is = [tr.slot(v) for v in list(op.operands)[3:]]
    body = op.regions[0].blocks[0]
    iv_i = tr.slot(body.arguments[0])
    arg_is = [tr.slot(a) for a in list(body.arguments)[1:]]
    run_body = tr.block(body)
    outs = [tr.slot(r) for r in op.results]
    iv_dtype = np_dtype(body.arguments[0].type)

    def step(env, state):
        values = [env[i] for i in init_is]
        for i in range(int(env[lb_i]), int(env[ub_i]), int(env[step_i])):
            env[iv_i] = np.asarray(i, dtype=iv_dtype)
            for a, v in zip(arg_is, values):
                env[a] = v
            values = run_body(env, state)
        for o, v in zip(outs, values):
            env[o] = v

    return step


@handles("scf.while")
def _while(tr, op):
    init_is = [tr.slot(v) for v in op.operands]
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    before_args = [tr.slot(a) for a in before.arguments]
    after_args = [tr.slot(a) for a in after.arguments]
    run_before, run_after = tr.block(before), tr.block(after)
    outs = [tr.slot(r) for r in op.results]

    def step(env, state):
        values = [env[i] for i in init_is]
        while True:
            for a, v in zip(before_args, values):
                env[a] = v
            cond, *forwarded = run_before(env, state)
            if not bool(cond):
                break
            for a, v in zip(after_args, forwarded):
                env[a] = v
            values = run_after(env, state)
        for o, v in zip(outs, forwarded):
            env[o] = v

    return step


@handles("scf.execute_region")
def _execute_region(tr, op):
    run = tr.block(op.regions[0].blocks[0])
    outs = [tr.slot(r) for r in op.results]

    def step(env, state):
        for o, v in zip(outs, run(env, state)):
            env[o] = v

    return step
