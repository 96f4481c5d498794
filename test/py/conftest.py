import os
import sys
import tempfile

import pytest

HERE = os.path.dirname(__file__)
# The helpers (suite.py, gpu_launch.py) live here; targets/nvidia/test_cp_async.py takes the 8-bit matmul
# of language/test_8bit.py. Tests sit in folders that mirror tilec's packages.
sys.path[:0] = [HERE, os.path.join(HERE, "language")]

# Tests compile into a cache of their own: hermetic, and never the user's ~/.cache/tilec.
if "TILEC_TEST_KEEP_CACHE" not in os.environ:
    os.environ["TILEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilec-test-cache-")


@pytest.fixture(params=["cpu", "interpreter"])
def target(request, monkeypatch):
    """Runs a test on both host targets: the CPU target (compiled) and the NumPy interpreter. Tests
    that parametrize `target` themselves override this."""
    if request.param == "interpreter":
        monkeypatch.setenv("TILEC_INTERPRET", "1")
    else:
        monkeypatch.delenv("TILEC_INTERPRET", raising=False)
        monkeypatch.setenv("TILEC_TARGET", "cpu")
    return request.param


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_kernels(request):
    """Each @jit function keeps the kernels it compiled in memory (and an interpreter kernel its MLIR
    context), and pytest keeps every test module alive: over the whole suite that grew past this
    machine's memory. After a module's tests its kernels (and the shared suite's) are dropped; the
    disk cache brings back any that a later module needs."""
    yield
    if os.environ.get("TILEC_TEST_KEEP_KERNELS"):
        return
    import gc

    from tilec.jit_function import JITFunction

    for module in (request.module, sys.modules.get("suite")):
        for value in list(vars(module).values()) if module is not None else []:
            if isinstance(value, JITFunction):
                value.cache.clear()
                value._launches.clear()
    gc.collect()
