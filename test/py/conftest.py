import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

# Tests compile into a cache of their own: hermetic, and never the user's ~/.cache/tilec.
if "TILEC_TEST_KEEP_CACHE" not in os.environ:
    os.environ["TILEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tilec-test-cache-")
