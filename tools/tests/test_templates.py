"""templates/ops (what `kgo ops` instantiates) and examples/ (the committed, measured copies) agree."""
import pathlib

import pytest

from conftest import ROOT, TEMPLATES

OPS = ["softmax", "layer_norm", "gelu", "add"]
FILES = ["v1_baseline.py", "v2_tiling.py", "v3_coalesced.py", "v4_optimized.py", "ref.py"]


@pytest.mark.parametrize("op", OPS)
def test_examples_match_templates(op):
    for name in FILES:
        example = ROOT / "examples" / op / name
        assert example.is_file(), f"{example} is missing"
        assert example.read_text() == (TEMPLATES / op / name).read_text(), f"{example} drifted from templates"


def test_generic_templates_have_placeholders():
    for name in FILES[:4]:
        text = (TEMPLATES / "generic" / name).read_text()
        assert "{{op}}" in text and "{{entry}}" in text
    assert "{{op}}" in (TEMPLATES / "log_template.md").read_text()
