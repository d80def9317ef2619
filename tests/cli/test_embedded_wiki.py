"""The embedded default gpu-wiki (gpu-wiki-index/wiki): its documents are read here with a small
parser of this test's own, independent of kgo's indexer, then cross-checked against `kgo wiki`."""
# ctest-cost: 1
import pathlib
import re

import pytest

from conftest import SOURCE_DIR, run_kgo

WIKI = SOURCE_DIR / "gpu-wiki-index" / "wiki"
SPECS = WIKI / "docs" / "hardware-specs"
RESEARCH = SOURCE_DIR.parent / "shared" / "research" / "gpu-specs.md"

# The products the embedded wiki must cover, with the architecture each heading must carry.
REQUIRED = {
    "H100 SXM": "Hopper", "H100 PCIe": "Hopper", "H200": "Hopper", "H20": "Hopper",
    "A100 SXM 80GB": "Ampere", "L40S": "Ada", "B200": "Blackwell",
    "MI300X": "CDNA3", "MI308X": "CDNA3", "MI325X": "CDNA3", "MI355X": "CDNA4",
}

HEADING = re.compile(r"^## (?:NVIDIA |AMD Instinct )(.+?) \((sm_\d+|gfx\d+), (\w+)\)\s*$")
NUMBER = r"\d{1,3}(?:,\d{3})*(?:\.\d+)?"
UNITS = ["TB/s", "GB/s", "GB", "MB", "MiB", "KB", "KiB", "MHz", "W", "TFLOPS", "TOPS", "PFLOPS",
         "POPS", "SMs", "CUs", "threads"]
VALUE = re.compile(rf"^(?:Up to )?{NUMBER} (?:{'|'.join(re.escape(u) for u in UNITS)})$"
                   rf"|^{NUMBER} × 32-bit$")
QUANTITY = re.compile(rf"(?<![\w.,]){NUMBER}\s?(?:{'|'.join(re.escape(u) for u in UNITS)})(?![\w/])")
LOCATION = re.compile(r"https?://|github\.com/|docs\.nvidia\.com|§|\bsection\b|\bTable \d|\bp\.\d"
                      r"|\brow\b|\bline \d|\bl\.\d|\bfield\b|\bcolumn\b")
METRIC_WORDS = (r"\b(?:FP64|FP32|TF32|BF16|FP16|FP8|INT8|bandwidth|memory|cache|clock|SMs?|CUs?|TDP"
                r"|power|registers?|shared|LDS|threads?|VGPR)\b")
TENSOR = re.compile(r"^(TF32|BF16|FP16|FP8|INT8) (Tensor|Matrix) Core \((dense|sparse)\)$")


def split_row(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_doc(path):
    """Rows of every `| Metric | Value | Source |` table, each with its product and line."""
    rows, product, in_table = [], None, False
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.startswith("## "):
            m = HEADING.match(line)
            product = {"name": m.group(1), "target": m.group(2), "arch": m.group(3)} if m else None
            in_table = False
        elif line.startswith("|"):
            cells = split_row(line)
            if cells == ["Metric", "Value", "Source"]:
                in_table = True
            elif in_table and not set(line) <= set("|- "):
                rows.append({"product": product, "file": path.name, "line": number, "cells": cells})
        else:
            in_table = False
    return rows


def all_rows():
    return [row for path in sorted(SPECS.glob("*.md")) for row in parse_doc(path)]


def readme_table(heading):
    """Rows of the first table after `## <heading>` in the wiki's README."""
    lines = (WIKI / "README.md").read_text().splitlines()
    start = lines.index(f"## {heading}")
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|") and not set(line) <= set("|- "):
            rows.append(split_row(line))
    return rows[1:]  # without the header


def registered_titles():
    titles = []
    for _, title, _ in readme_table("Source register"):
        italic = re.findall(r"\*([^*]+)\*", title)
        titles.extend(italic or [re.sub(r"\s*\(.*", "", title)])
    return titles


def known_labels():
    labels = set()
    for label_cell, _ in readme_table("Metric labels"):
        labels.update(re.sub(r", in bytes$| \(a count of 32-bit registers\)$", "", x).strip()
                      for x in label_cell.split(";"))
    return labels


def test_every_required_product_has_a_section_with_its_architecture():
    found = {}
    for path in SPECS.glob("*.md"):
        for line in path.read_text().splitlines():
            m = HEADING.match(line)
            if m:
                assert m.group(1) not in found, f"{m.group(1)} declared twice"
                found[m.group(1)] = m.group(3)
    assert found == REQUIRED


def test_every_value_cell_is_unknown_or_one_number_with_a_unit():
    rows = all_rows()
    assert len(rows) > 150
    for row in rows:
        assert len(row["cells"]) == 3, f"{row['file']}:{row['line']} has {len(row['cells'])} cells"
        assert row["product"], f"{row['file']}:{row['line']} is outside a product section"
        value = row["cells"][1]
        assert value == "UNKNOWN" or VALUE.match(value), f"{row['file']}:{row['line']}: {value!r}"


def test_every_row_names_its_source():
    titles = registered_titles()
    assert len(titles) >= 20
    for row in all_rows():
        _, value, source = row["cells"]
        where = f"{row['file']}:{row['line']}"
        assert source, f"{where}: empty Source cell"
        if value == "UNKNOWN":
            # An UNKNOWN row explains itself and never repeats a (secondary) figure.
            assert "vendor document" in source, where
            assert not QUANTITY.search(source), f"{where}: a figure in an UNKNOWN row"
            continue
        assert any(t in source for t in titles), f"{where}: no registered document title"
        assert LOCATION.search(source), f"{where}: no URL or section"
        if "derived" in source.lower():
            assert source.startswith("Derived:"), f"{where}: derived values say so first"


def test_dense_and_sparse_are_separate_rows_with_known_labels():
    labels = known_labels()
    seen = set()
    for row in all_rows():
        label, value, _ = row["cells"]
        where = f"{row['file']}:{row['line']}"
        assert label in labels, f"{where}: label {label!r} is not in README's metric-label table"
        key = (row["product"]["name"], label)
        assert key not in seen, f"{where}: {label} twice for {key[0]}"
        seen.add(key)
        if re.match(r"^(TF32|BF16|FP16|FP8|INT8) ", label):
            assert TENSOR.match(label), f"{where}: tensor label must say dense or sparse"
        assert not re.search(r"sparse|dense|sparsity", value, re.I), where
    # Each tensor metric a product states dense it also lists sparse, as its own row.
    for name in REQUIRED:
        for prec in ["TF32", "BF16", "FP16", "FP8", "INT8"]:
            kinds = {lab.split("(")[-1].rstrip(")") for (p, lab) in seen
                     if p == name and lab.startswith(prec + " ") and TENSOR.match(lab)}
            assert kinds in (set(), {"dense", "sparse"}), f"{name} {prec}: {kinds}"


def test_prose_states_no_figures():
    """Outside the tables, documents and README hold no number-with-unit (nothing to mis-index)."""
    for path in [WIKI / "README.md", *SPECS.glob("*.md")]:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.startswith("|") or line.startswith("#"):
                continue
            assert not QUANTITY.search(line), f"{path.name}:{number}: {line}"
            # Nor a `label: ... number` line whose label names a metric (it reads as a fact).
            key, colon, rest = re.sub(r"^\s*[-*+]\s+", "", line).partition(":")
            if colon and len(key) <= 80 and "://" not in line:
                names_metric = re.search(METRIC_WORDS, key, re.I)
                assert not (names_metric and re.search(r"(?<![\w.])\d", rest)), \
                    f"{path.name}:{number}: {line}"


def test_aliases_resolve_to_declared_products_and_never_cross_models():
    aliases = dict(readme_table("Product aliases"))
    assert aliases["H100"] == "H100 SXM"
    assert aliases["A100"] == "A100 SXM 80GB"
    assert "H20" not in aliases and "H200" not in aliases
    for alias, product in aliases.items():
        assert product in REQUIRED, f"alias {alias} -> unknown product {product}"
        model = lambda s: re.match(r"[A-Z]+\d+[A-Z]?", s).group(0)  # noqa: E731
        assert model(alias) == model(product), f"alias {alias} crosses to {product}"


def gpu_specs_sections():
    text = RESEARCH.read_text()
    parts = re.split(r"^## (\d+)\. .*$", text, flags=re.M)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


SECTION = {"H100 SXM": 1, "H100 PCIe": 2, "H200": 3, "H20": 4, "A100 SXM 80GB": 5, "L40S": 6,
           "B200": 7, "MI300X": 8, "MI308X": 9, "MI325X": 10, "MI355X": 11}


@pytest.mark.skipif(not RESEARCH.exists(), reason="shared research file gpu-specs.md not present")
def test_every_number_appears_in_the_research_section_of_its_product():
    sections = gpu_specs_sections()
    for row in all_rows():
        value = row["cells"][1]
        if value == "UNKNOWN":
            continue
        number = re.search(NUMBER, value).group(0)
        text = sections[SECTION[row["product"]["name"]]]
        spellings = [number]
        if value.endswith("× 32-bit") and number == "65,536":
            spellings += ["64K", "65536"]
        pattern = "|".join(rf"(?<![\d.,]){re.escape(s)}(?![\d]|[.,]\d)" for s in spellings)
        assert re.search(pattern, text), f"{row['file']}:{row['line']}: {value} not in gpu-specs.md"


# --- cross-checks against kgo's own indexer (`kgo wiki`) -----------------------------------------

def kgo_has_wiki():
    try:
        return run_kgo("wiki", "--help").rc == 0
    except (FileNotFoundError, PermissionError):
        return False


needs_kgo_wiki = pytest.mark.skipif(not kgo_has_wiki(), reason="the built kgo has no `wiki` command")


@needs_kgo_wiki
def test_kgo_wiki_check_is_clean():
    r = run_kgo("wiki", "check", "--wiki", WIKI)
    assert r.rc == 0, r.out + r.err


@needs_kgo_wiki
def test_kgo_lookup_h100_bandwidth_cites_the_h100_sxm_row():
    row = next(r for r in all_rows()
               if r["product"]["name"] == "H100 SXM" and r["cells"][0] == "HBM bandwidth")
    r = run_kgo("wiki", "lookup", "--platform", "H100", "--metric", "hbm_bandwidth", "--wiki", WIKI)
    assert r.rc == 0, r.err
    assert row["cells"][1] in r.out
    assert f"docs/hardware-specs/{row['file']}:L{row['line']}" in r.out


@needs_kgo_wiki
@pytest.mark.skipif(pathlib.Path("/tmp/gpu-wiki").exists(), reason="/tmp/gpu-wiki takes precedence")
def test_kgo_reads_this_wiki_when_no_wiki_is_named():
    r = run_kgo("wiki", "lookup", "--platform", "H100", "--metric", "hbm_bandwidth", "--json")
    assert r.rc == 0, r.err
    out = r.json()
    assert out["wiki"]["embedded"] is True
    assert pathlib.Path(out["wiki"]["path"]).resolve() == WIKI.resolve()
    assert out["product"] == "H100 SXM"


@needs_kgo_wiki
@pytest.mark.parametrize("platform,metric", [("H20", "hbm_bandwidth"), ("H200", "bf16_tensor"),
                                             ("H20", "sm_count"), ("MI308X", "bf16_tensor")])
def test_kgo_lookup_of_an_unknown_value_fails_instead_of_borrowing(platform, metric):
    r = run_kgo("wiki", "lookup", "--platform", platform, "--metric", metric, "--wiki", WIKI)
    assert r.rc != 0, r.out
    # It fails because the value is not stated, not because the product is unknown.
    assert metric in r.err and platform in r.err, r.err
    assert "unknown platform" not in r.err.lower(), r.err


@needs_kgo_wiki
def test_kgo_indexes_exactly_the_stated_rows():
    """kgo's index holds one fact per stated row, at that row, with that number; none from UNKNOWN."""
    r = run_kgo("wiki", "index", "--wiki", WIKI, "--json", "--detail")
    assert r.rc == 0, r.err
    data = r.json()
    facts = data["facts"] if isinstance(data, dict) else data
    at = {}
    for f in facts:
        at.setdefault((pathlib.PurePosixPath(f["file"]).name, f["line"]), []).append(f)
    for row in all_rows():
        where = (row["file"], row["line"])
        value = row["cells"][1]
        if value == "UNKNOWN":
            assert where not in at, f"{where}: kgo indexed an UNKNOWN row"
            continue
        assert len(at.get(where, [])) == 1, f"{where}: {at.get(where)}"
        fact = at[where][0]
        assert fact["product"] == row["product"]["name"], where
        number = float(re.search(NUMBER, value).group(0).replace(",", ""))
        assert fact["value"] == pytest.approx(number), where
        assert fact["metric"].endswith("_sparse") == ("(sparse)" in row["cells"][0]), where
