import os
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

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
