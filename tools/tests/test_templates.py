"""templates/ops (what `kgo ops` instantiates) is the only copy of each example kernel."""
# ctest-cost: 1
import hashlib

from conftest import ROOT, TEMPLATES

FILES = ["v1_baseline.py", "v2_tiling.py", "v3_coalesced.py", "v4_optimized.py", "ref.py"]
KERNEL_SUFFIXES = {".py", ".cu", ".cuh"}


def _digests(base):
    return {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in sorted(base.rglob("*"))
            if p.is_file() and p.suffix in KERNEL_SUFFIXES and "__pycache__" not in p.parts}


def test_no_kernel_is_copied_outside_templates():
    templates = _digests(TEMPLATES)
    assert len(templates) > 20, "templates/ops lost its variants"
    for base in ("examples", "bench", "tests", "tools/tests"):
        for digest, path in _digests(ROOT / base).items():
            assert digest not in templates, (f"{path.relative_to(ROOT)} is a copy of "
                                             f"{templates[digest].relative_to(ROOT)}: use that file instead")


def test_generic_templates_have_placeholders():
    for name in FILES[:4]:
        text = (TEMPLATES / "generic" / name).read_text()
        assert "{{op}}" in text and "{{entry}}" in text
    assert "{{op}}" in (TEMPLATES / "log_template.md").read_text()
