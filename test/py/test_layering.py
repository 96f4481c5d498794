"""tilec's layers (tools/import_graph.py): base, ir, frontend, passes, targets, driver. Each imports
only layers below it (the front end and the passes not each other), counting imports inside
functions too, so no circle runs through them; the passes apply the language's expansions without
importing the language."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import import_graph  # noqa: E402


def test_no_import_breaks_the_layering():
    edges = import_graph.layer_edges()
    assert import_graph.forbidden(edges) == []
    assert import_graph.cycles(edges, set(import_graph.LAYERS)) == []


def test_the_graph_sees_imports_inside_functions(tmp_path, monkeypatch):
    package = tmp_path / "tilec"
    (package / "passes").mkdir(parents=True)
    (package / "language").mkdir()
    (package / "__init__.py").write_text("")
    (package / "language" / "__init__.py").write_text("")
    (package / "passes" / "__init__.py").write_text("def f():\n    from tilec.language import core\n")
    monkeypatch.setattr(import_graph, "ROOT", package)
    edges = import_graph.layer_edges()
    assert import_graph.forbidden(edges) == ["tilec.passes:2 -> tilec.language"]


def test_passes_load_without_the_language_and_say_what_an_expansion_needs():
    script = textwrap.dedent(
        """
        import sys
        from mlir import ir
        import tilec.passes
        import tilec.targets
        tilec.targets.load_passes()
        assert "tilec.language" not in sys.modules, "the passes imported the language"
        from tilec.dialects import tile
        from tilec.passes import REGISTRY
        from tilec.passes.base import PassError
        with tile.make_context():
            module = ir.Module.parse('func.func @k(%x: tensor<4xf32>) -> tensor<4xf32> {'
                '%s = "tile.sort"(%x) {axis = 0 : i32} : (tensor<4xf32>) -> tensor<4xf32>'
                ' return %s : tensor<4xf32> }')
            try:
                REGISTRY["tile-expand-sort"]().run(module)
            except PassError as e:
                print(e.message)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "no 'sort' expansions are registered" in out.stdout
    assert "tilec.language" in out.stdout


@pytest.mark.parametrize("family", ["sort", "float64-math", "float-remainder"])
def test_the_language_registers_every_expansion_family(family):
    import tilec.language  # noqa: F401
    from tilec.dialects import expansions

    assert expansions.family(family)
