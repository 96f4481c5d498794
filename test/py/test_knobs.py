"""tilec's environment variables: declared once (tilec/knobs.py), read nowhere else, documented in the
README from the declarations, parsed alike, and the ones that change code in the cache key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilec import cache, compiler, knobs

ROOT = Path(__file__).resolve().parents[2]


def test_readme_lists_exactly_the_declared_knobs():
    assert knobs.table() in (ROOT / "README.md").read_text()


def test_no_module_but_knobs_reads_a_tilec_variable():
    readers = []
    for path in sorted((ROOT / "tilec").rglob("*.py")):
        if path.name == "knobs.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"""["']TILEC_[A-Z_]+["']""", line):
                readers.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not readers, "read these through tilec.knobs:\n" + "\n".join(readers)


@pytest.mark.parametrize("value, on", [(None, False), ("", False), ("0", False), ("Off", False),
                                       ("false", False), (" no ", False), ("1", True), ("yes", True)])  # fmt: skip
def test_flags_parse_alike(monkeypatch, value, on):
    for flag in (k for k in knobs.KNOBS if isinstance(k, knobs.Flag)):
        if value is None:
            monkeypatch.delenv(flag.name, raising=False)
            assert flag.on() is flag.default
        else:
            monkeypatch.setenv(flag.name, value)
            assert flag.on() is on, flag.name


def test_a_knob_set_between_calls_takes_effect(monkeypatch):
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    assert compiler.select_target([]) == "cpu"
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    assert compiler.select_target([]) == "interpreter"


def test_knobs_that_change_code_change_the_cache_key(monkeypatch):
    monkeypatch.delenv("TILEC_NO_TMA", raising=False)
    before = cache.kernel_key("src", (), "sm_90a", compiler.Options())
    monkeypatch.setenv("TILEC_NO_TMA", "1")
    after = cache.kernel_key("src", (), "sm_90a", compiler.Options())
    monkeypatch.setenv("TILEC_NO_TMA", "0")
    assert after != before
    assert cache.kernel_key("src", (), "sm_90a", compiler.Options()) == before
    # a knob that changes no code does not split the cache
    monkeypatch.setenv("TILEC_TIMING", "1")
    assert cache.kernel_key("src", (), "sm_90a", compiler.Options()) == before


@pytest.mark.parametrize("value", ["zero", "0", "-2", "1.5"])
def test_a_bad_count_is_an_error_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("TILEC_AUTOTUNE_JOBS", value)
    with pytest.raises(ValueError, match="TILEC_AUTOTUNE_JOBS must be a positive whole number"):
        knobs.AUTOTUNE_JOBS.value(4)


def test_dumped_stages(monkeypatch):
    monkeypatch.setenv("TILEC_DUMP_IR", "tile, ptx")
    assert knobs.dumped_stages() == {"tile", "ptx"}
    monkeypatch.setenv("TILEC_DUMP_IR", "1")
    assert knobs.dumped_stages() == {"all"}
    monkeypatch.setenv("TILEC_DUMP_IR", "off")
    assert knobs.dumped_stages() is None
