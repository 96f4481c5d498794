"""@tilec.autotune: pick the fastest of several configs per key, with Triton's semantics.

    @tilec.autotune(configs=[tilec.Config({"BLOCK": 128}, num_warps=4),
                             tilec.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
    @tilec.jit
    def add(x, y, out, n, BLOCK: tl.constexpr): ...

    add[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, out, n)

The first launch for a new key compiles every config (in parallel processes that fill the disk cache),
times each, and keeps the best: in memory, and in the disk cache (`autotune/<hash>.json`), so another
process launching the same kernel with the same key does not tune again.
"""

from __future__ import annotations

import gc
import hashlib
import os
import sys
import time
import warnings

from tilec import knobs

from . import cache, launch_observers
from .errors import CompilationError, PerformanceWarning
from .targets import target_for


class Config:
    """One candidate: constexpr values plus launch options."""

    def __init__(
        self,
        kwargs: dict,
        num_warps: int = 4,
        num_stages: int = 3,
        num_ctas: int = 1,
        maxnreg=None,
        pre_hook=None,
    ):
        if num_ctas != 1:
            raise ValueError("tilec.Config: num_ctas must be 1 (thread-block clusters are not supported)")
        self.maxnreg = maxnreg  # registers per thread at most (NVIDIA's .maxnreg); None: ptxas decides
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.pre_hook = pre_hook

    def all_kwargs(self) -> dict:
        extra = {} if self.maxnreg is None else {"maxnreg": self.maxnreg}
        return {**self.kwargs, "num_warps": self.num_warps, "num_stages": self.num_stages, **extra}

    def launch_options(self) -> dict:
        """The keywords a launch with this config takes besides the constexprs."""
        return {} if self.maxnreg is None else {"maxnreg": self.maxnreg}

    def __repr__(self):
        return ", ".join(f"{k}: {v}" for k, v in self.all_kwargs().items())

    def __eq__(self, other):
        return isinstance(other, Config) and self.all_kwargs() == other.all_kwargs()

    def __hash__(self):
        return hash(repr(self))


class AutotuneError(RuntimeError):
    pass


class Autotuner:
    def __init__(
        self,
        fn,
        configs,
        key,
        prune_configs_by=None,
        reset_to_zero=None,
        restore_value=None,
        pre_hook=None,
        post_hook=None,
        warmup=25,
        rep=100,
        do_bench=None,
        cache_results=True,
    ):
        if not (hasattr(fn, "run") and hasattr(fn, "arg_names") and hasattr(fn, "cache_key")):
            raise TypeError("@tilec.autotune must decorate a @tilec.jit function (put @tilec.jit below it)")
        self.fn = fn
        self.base_fn = getattr(fn, "base_fn", fn)  # the @tilec.jit function under the decorators
        self.precompile_crashes = 0  # forked precompile children that died of a signal
        self.__name__ = fn.__name__
        self.arg_names = fn.arg_names
        self.configs = list(configs) or [Config({})]
        self.config_names = {k for c in self.configs for k in c.all_kwargs()}
        self.keys = list(key)
        for name in [*self.keys, *(reset_to_zero or []), *(restore_value or [])]:
            if name not in self.arg_names:
                raise ValueError(f"@tilec.autotune: {fn.__name__} has no parameter '{name}'")
        prune = prune_configs_by or {}
        self.early_config_prune = prune.get("early_config_prune")
        self.perf_model = prune.get("perf_model")
        self.top_k = prune.get("top_k", 1.0)
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        self.warmup, self.rep = warmup, rep
        self.bench = do_bench
        self.cache_results = cache_results
        self.cache: dict = {}  # tuning key -> best Config
        self.configs_timings: dict | None = None
        self.best_config: Config | None = None

    # -- launching ---------------------------------------------------------------------------
    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def run(self, *args, grid, **kwargs):
        launch_observers.refuse_inside_torch_compile(self.__name__)
        observer = launch_observers.current
        if observer is not None and observer.skip_launch():
            return None  # no timing of launches that do not run
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        conflicts = sorted(set(kwargs) & self.config_names) if kwargs else ()
        if conflicts:
            raise ValueError(
                f"{self.__name__}: {', '.join(conflicts)} are chosen by @tilec.autotune; do not pass them"
            )
        key = self._key(named)
        config = self.cache.get(key)
        if config is None:
            config = self._stored(key, named) or self._tune(key, args, kwargs, grid, named)
            self.cache[key] = config
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**named, **config.kwargs})
        return self.fn.run(
            *args,
            grid=grid,
            num_warps=config.num_warps,
            num_stages=config.num_stages,
            **kwargs,
            **config.kwargs,
            **config.launch_options(),
        )

    def _key(self, named: dict) -> tuple:
        values = []
        for k in self.keys:
            v = named.get(k)
            dtype = getattr(v, "dtype", None) if not isinstance(v, int | float | bool) else None
            values.append(str(dtype) if dtype is not None else v)
        # As in Triton: the dtypes of every array argument are part of the key.
        for v in named.values():
            dtype = getattr(v, "dtype", None) if not isinstance(v, int | float | bool | str) else None
            if dtype is not None and not isinstance(dtype, type):
                values.append(str(dtype))
        return tuple(values)

    # -- the disk record ---------------------------------------------------------------------
    def _record_name(self, key, named) -> str:
        from .compiler import select_target

        h = hashlib.sha256()
        for part in (cache.compiler_fingerprint(), self.fn.cache_key, repr(self.configs), repr(key)):
            h.update(part.encode() + b"\0")
        h.update(select_target(named.values()).encode())
        return f"autotune/{h.hexdigest()}.json"

    def _stored(self, key, named) -> Config | None:
        if not self.cache_results or not cache.reads_enabled():
            return None
        record = cache.read_json(self._record_name(key, named))
        if not record:
            return None
        for c in self.configs:
            if c.all_kwargs() == record.get("config"):
                return c
        return None

    # -- tuning ------------------------------------------------------------------------------
    def prune_configs(self, named: dict) -> list[Config]:
        configs = self.configs
        if self.early_config_prune is not None:
            configs = list(self.early_config_prune(configs, named))
        if self.perf_model is not None:
            top_k = self.top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = max(1, top_k)
            if len(configs) > top_k:
                estimate = {
                    c: self.perf_model(**named, **c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)
                    for c in configs
                }
                configs = sorted(configs, key=estimate.get)[:top_k]
        if not configs:
            raise AutotuneError(f"{self.__name__}: pruning left no config to try")
        return configs

    def _tune(self, key, args, kwargs, grid, named) -> Config:
        from .compiler import select_target

        configs = self.prune_configs(named)
        if len(configs) == 1:
            return configs[0]
        target = select_target(named.values())
        started = time.perf_counter()
        with warnings.catch_warnings():  # configs the search rejects need no advice (forks inherit this)
            warnings.simplefilter("ignore", PerformanceWarning)
            return self._search(key, configs, args, kwargs, grid, named, target, started)

    def _search(self, key, configs, args, kwargs, grid, named, target, started) -> Config:
        self._precompile(configs, args, kwargs, target)
        device = target_for(target).device
        saved = {n: _copy(named[n]) for n in self.restore_value}
        timings, failures = {}, []
        progress = _Progress(len(configs), f"autotuning {self.__name__}", started)
        for config in configs:
            timings[config] = self._bench(config, args, kwargs, grid, named, saved, device, failures)
            progress.step()
        progress.close()
        for n in self.reset_to_zero:
            _zero(named[n])
        for n, copy in saved.items():
            _restore(named[n], copy)
        self.configs_timings = timings
        best = min(timings, key=timings.get)
        if timings[best] == float("inf"):
            raise failures[0]  # every config failed: the first one's error, at the user's source
        if self.cache_results:
            cache.write_json(
                self._record_name(key, named),
                {
                    "kernel": self.__name__,
                    "key": repr(key),
                    "config": best.all_kwargs(),
                    "timings_ms": {repr(c): t for c, t in timings.items()},
                },
            )
        return best

    def _bench(self, config, args, kwargs, grid, named, saved, device, failures) -> float:
        full = {**named, **config.kwargs}

        def call():
            for n in self.reset_to_zero:
                _zero(named[n])
            if config.pre_hook is not None:
                config.pre_hook(full)
            if self.user_pre_hook is not None:
                self.user_pre_hook(full)
            self.fn.run(
                *args,
                grid=grid,
                num_warps=config.num_warps,
                num_stages=config.num_stages,
                **kwargs,
                **config.kwargs,
                **config.launch_options(),
            )
            for n, copy in saved.items():
                _restore(named[n], copy)
            if self.user_post_hook is not None:
                self.user_post_hook(full, None)

        try:
            if self.bench is not None:
                return float(self.bench(call))
            from .testing import do_bench

            return do_bench(call, warmup=self.warmup, rep=self.rep, device=device)
        except (CompilationError, RuntimeError) as e:  # too many resources, a failed compile, ...
            failures.append(e)
            return float("inf")

    def _precompile(self, configs, args, kwargs, target) -> None:
        """Compiles the configs in forked processes that fill the disk cache; the benchmark loop then
        loads them. Skipped (compiled in the loop instead) without a disk cache or fork."""
        jobs = min(len(configs), knobs.AUTOTUNE_JOBS.value(os.cpu_count() or 1))
        if jobs <= 1 or cache.root() is None or not hasattr(os, "fork") or not target_for(target).stored:
            return
        chunks = [configs[i::jobs] for i in range(jobs)]
        children = []
        for chunk in chunks:
            pid = os.fork()
            if pid == 0:  # the child: compile, write the cache, leave without running any cleanup
                code = 0
                try:
                    from . import compiler
                    from .dialects import tile

                    # Free nothing the parent made: a context or IRDL module of an earlier compile
                    # destroyed here (by the garbage collector, or pushed out of the list that keeps
                    # IRDL modules alive) crashed the child in MLIR (its threads did not survive fork).
                    gc.disable()
                    tile.KEEP_ALIVE.keep_all()
                    compiler.COMPILE_ONLY = True
                    for c in chunk:
                        try:
                            self.fn.warmup(
                                *args,
                                num_warps=c.num_warps,
                                num_stages=c.num_stages,
                                target=target,
                                **kwargs,
                                **c.kwargs,
                                **c.launch_options(),
                            )
                        except BaseException:  # the parent compiles it again and reports the error
                            code = 1
                finally:
                    os._exit(code)
            children.append(pid)
        for pid in children:
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status):  # the parent compiles that chunk again; counted for diagnosis
                self.precompile_crashes += 1


class _Progress:
    """A progress bar on stderr, shown only when the search has run for more than a second."""

    def __init__(self, total: int, label: str, started: float):
        self.total, self.label, self.started, self.done, self.bar = total, label, started, 0, None
        self.shown = False

    def step(self):
        self.done += 1
        if self.bar is None and time.perf_counter() - self.started > 1.0:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=self.total, desc=self.label, file=sys.stderr, leave=False)
                self.bar.update(self.done)
                return
            except ImportError:
                self.bar = False
        if self.bar:
            self.bar.update(1)
        elif self.bar is False:
            print(f"\r{self.label}: {self.done}/{self.total} configs", end="", file=sys.stderr, flush=True)
            self.shown = True

    def close(self):
        if self.bar:
            self.bar.close()
        elif self.shown:
            print(file=sys.stderr, flush=True)


def _copy(value):
    clone = getattr(value, "clone", None)
    return clone() if clone is not None else value.copy()


def _restore(value, saved):
    copy_ = getattr(value, "copy_", None)
    if copy_ is not None:
        copy_(saved)
    else:
        value[...] = saved


def _zero(value):
    zero_ = getattr(value, "zero_", None)
    if zero_ is not None:
        zero_()
    else:
        value[...] = 0


def autotune(
    configs,
    key,
    prune_configs_by=None,
    reset_to_zero=None,
    restore_value=None,
    pre_hook=None,
    post_hook=None,
    warmup=25,
    rep=100,
    do_bench=None,
    cache_results=True,
):
    """Decorator: `@tilec.autotune(configs=[...], key=[...])` above `@tilec.jit` (Triton's arguments)."""

    def decorate(fn):
        return Autotuner(
            fn,
            configs,
            key,
            prune_configs_by=prune_configs_by,
            reset_to_zero=reset_to_zero,
            restore_value=restore_value,
            pre_hook=pre_hook,
            post_hook=post_hook,
            warmup=warmup,
            rep=rep,
            do_bench=do_bench,
            cache_results=cache_results,
        )

    return decorate


def heuristics(values: dict):
    """`@tilec.heuristics({"EVEN": lambda args: args["n"] % 1024 == 0})`: constexprs computed from the
    other arguments at each launch (Triton's @triton.heuristics)."""

    def decorate(fn):
        return Heuristics(fn, values)

    return decorate


class Heuristics:
    def __init__(self, fn, values: dict):
        self.fn, self.values = fn, dict(values)
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.arg_names = fn.arg_names

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    @property
    def cache_key(self) -> str:
        return self.fn.cache_key

    @property
    def base_fn(self):
        """The @tilec.jit function under the decorators (Triton's `base_fn`)."""
        return getattr(self.fn, "base_fn", self.fn)

    def _with_values(self, args, kwargs) -> dict:
        named = {**dict(zip(self.arg_names, args)), **kwargs}
        for name, rule in self.values.items():
            kwargs[name] = named[name] = rule(named)
        return kwargs

    def run(self, *args, grid, **kwargs):
        launch_observers.refuse_inside_torch_compile(self.__name__)
        return self.fn.run(*args, grid=grid, **self._with_values(args, dict(kwargs)))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._with_values(args, dict(kwargs)))
