"""Modules imported on first use, so that `import tilec` and launching a cached kernel never load MLIR.

ir = lazy_module("mlir.ir")   # nothing imported yet
ir.F32Type.get()              # imports mlir.ir, then behaves as the module itself
"""

from __future__ import annotations

import importlib
import types


class _LazyModule(types.ModuleType):
    def __init__(self, target: str):
        super().__init__(target)
        self.__dict__["_lazy_target"] = target

    def __getattr__(self, name: str):
        module = importlib.import_module(self.__dict__["_lazy_target"])
        # Copy the real module's names in, so later lookups are plain attribute reads.
        self.__dict__.update(module.__dict__)
        return getattr(module, name)


def lazy_module(name: str) -> types.ModuleType:
    return _LazyModule(name)
