"""`kgo wiki products | lookup | check | index` on the atrex fixture, the embedded wiki and
small temporary wikis; every --json output is validated against its schema."""
# ctest-cost: 1
import json
import os
import pathlib
import re

import pytest

from conftest import FIXTURE_WIKI, SOURCE_DIR, run_kgo, validate

HOPPER = "docs/hardware-specs/hardware_specs_hopper.md"
EMBEDDED = SOURCE_DIR / "gpu-wiki-index" / "wiki"


@pytest.fixture
def wk(tmp_path):
    """run_kgo with a private index cache, so tests never share or pollute ~/.cache/kgo."""
    def run(*args, env=None):
        full = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
        full.update(env or {})
        return run_kgo(*args, env=full)
    return run


def fixture_line(rel, needle):
    for n, line in enumerate((FIXTURE_WIKI / rel).read_text().splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


def cited_text(wiki, citation):
    m = re.fullmatch(r"<gpu-wiki>/(.+):L(\d+)", citation)
    assert m, citation
    return (wiki / m.group(1)).read_text().splitlines()[int(m.group(2)) - 1]


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_lookup_prints_one_cited_spec(wk):
    r = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H100 SXM", "--metric", "hbm_bandwidth")
    assert r.rc == 0, r.err
    line = fixture_line(HOPPER, "| Memory Bandwidth | 3.35 TB/s |")
    cited, used = r.out.splitlines()
    assert cited == f"H100 SXM HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/{HOPPER}:L{line}"
    assert used.startswith(f"gpu-wiki: {pathlib.Path(FIXTURE_WIKI).resolve()} (--wiki; ") and "sha256:" in used
    j = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H100 SXM", "--metric", "hbm_bandwidth", "--json")
    validate(j.json(), "cli/wiki-lookup.schema.json")
    assert j.json()["wiki"]["fingerprint"].startswith("sha256:")


def test_lookup_json_bf16_dense_is_the_tensor_row(wk):
    r = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H100", "--metric", "bf16_tensor", "--json")
    assert r.rc == 0, r.err
    data = r.json()
    validate(data, "cli/wiki-lookup.schema.json")
    assert data["product"] == "H100 SXM"
    assert data["fact"]["value"] == 989.4 and data["fact"]["unit"] == "TFLOPS"
    assert data["fact"]["sparse"] is False
    assert data["fact"]["line"] == fixture_line(HOPPER, "| **FP16 / BF16 (Tensor Core)** | 989.4 |")
    sparse = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H100", "--metric", "bf16_tensor_sparse",
                "--json").json()
    assert sparse["fact"]["value"] == 1978.9 and sparse["fact"]["line"] == data["fact"]["line"]


def test_lookup_h20_is_approximate(wk):
    r = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H20", "--metric", "bf16_tensor")
    assert r.rc == 0, r.err
    assert r.out.startswith("H20 BF16 Tensor Core: ~148 TFLOPS <- <gpu-wiki>/")
    data = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H20", "--metric", "bf16_tensor", "--json").json()
    assert data["fact"]["approximate"] is True


@pytest.mark.parametrize("platform,metric", [("H20", "l2_cache"), ("H200", "smem_per_sm"),
                                             ("H200", "bf16_tensor_sparse"), ("MI308X", "sm_count")])
def test_missing_spec_never_borrows_a_neighbour(wk, platform, metric):
    r = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", platform, "--metric", metric, "--json")
    assert r.rc == 15, (r.rc, r.out, r.err)
    validate(r.json(), "cli/error.schema.json")
    assert platform in (r.out + r.err) and metric in (r.out + r.err)


def test_unknown_platform_and_metric_have_their_own_codes(wk):
    r = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "RTX9999", "--metric", "hbm_bandwidth")
    assert r.rc == 11
    assert "H100 SXM" in r.err and "MI300X" in r.err
    r = wk("wiki", "lookup", "--wiki", FIXTURE_WIKI, "--platform", "H100", "--metric", "flux_capacitance", "--json")
    assert r.rc == 12
    validate(r.json(), "cli/error.schema.json")
    for name in ["hbm_bandwidth", "bf16_tensor", "sm_count", "int8_tensor"]:
        assert name in (r.out + r.err)


def test_ambiguous_platform_lists_candidates(wk, tmp_path):
    wiki = tmp_path / "w"
    write(wiki / "a.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- SM count: 132\n"
                         "## NVIDIA H100 PCIe (sm_90, Hopper)\n- SM count: 114\n")
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H100", "--metric", "sm_count")
    assert r.rc == 11
    assert "ambiguous" in r.err and "H100 PCIe" in r.err and "H100 SXM" in r.err
    write(wiki / "README.md", "# W\n\n## Product aliases\n\n| Alias | Product |\n|---|---|\n| H100 | H100 SXM |\n")
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H100", "--metric", "sm_count")
    assert r.rc == 0, r.err
    assert r.out.startswith("H100 SXM SM count (CUs on AMD): 132 <- ")


def test_measured_lookup(wk, tmp_path):
    wiki = tmp_path / "w"
    write(wiki / "specs.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.8 TB/s\n")
    write(wiki / "measured" / "H200-2026-11-20.md",
          "---\nproduct: H200\nkind: measured\n---\n# Measured maxima: H200, 2026-11-20\n\n"
          "- hbm_bandwidth: 4.31 TB/s (copy, median of 20)\n")
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H200", "--metric", "hbm_bandwidth", "--measured", "--json")
    assert r.rc == 0, r.err
    data = r.json()
    validate(data, "cli/wiki-lookup.schema.json")
    assert data["fact"]["measured"] is True and data["fact"]["value"] == 4.31
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H200", "--metric", "hbm_bandwidth")
    assert "4.8 TB/s" in r.out
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H200", "--metric", "bf16_tensor", "--measured")
    assert r.rc == 15


def test_products(wk):
    r = wk("wiki", "products", "--wiki", FIXTURE_WIKI, "--json")
    assert r.rc == 0, r.err
    data = r.json()
    validate(data, "cli/wiki-products.schema.json")
    names = {p["name"]: p for p in data["products"]}
    assert sorted(names) == ["H100 SXM", "H20", "H200", "MI300X", "MI308X"]
    assert names["MI300X"]["arch"] == "CDNA3" and names["H20"]["arch"] == "Hopper"
    assert data["wiki"]["source"] == "--wiki"
    # Where each product is defined: its heading in the Hopper spec document.
    heading = fixture_line(HOPPER, "NVIDIA H100 SXM")
    assert {"file": HOPPER, "line": heading} in names["H100 SXM"]["defined_at"], names["H100 SXM"]
    text = wk("wiki", "products", "--wiki", FIXTURE_WIKI)
    assert "H100 SXM (Hopper)" in text.out
    assert f"defined at {HOPPER}:L{heading}" in text.out, text.out


def test_check_reports_fixture_problems(wk):
    r = wk("wiki", "check", "--wiki", FIXTURE_WIKI, "--json")
    assert r.rc == 1
    data = r.json()
    validate(data, "cli/wiki-check.schema.json")
    assert not data["clean"]
    lines = {(i["file"], i["line"]) for i in data["issues"]}
    # Ridge points and prose restating H100 figures are spec-looking but not indexable.
    assert (HOPPER, fixture_line(HOPPER, "| H100 SXM | FP16/BF16 |")) in lines
    assert ("README.md", fixture_line("README.md", "304 CU, 1307T BF16")) in lines
    text = wk("wiki", "check", "--wiki", FIXTURE_WIKI)
    assert text.rc == 1 and f"{HOPPER}:L" in text.out


def test_check_clean_and_conflicting(wk, tmp_path):
    wiki = tmp_path / "w"
    write(wiki / "a.md", "## NVIDIA H200 (sm_90, Hopper)\n| Metric | Value |\n|---|---|\n| HBM bandwidth | 4.8 TB/s |\n")
    r = wk("wiki", "check", "--wiki", wiki, "--json")
    assert r.rc == 0, r.out
    validate(r.json(), "cli/wiki-check.schema.json")
    assert r.json()["clean"] and r.json()["facts"] == 1
    assert r.json()["documents"] == {"datasheet": 1}
    write(wiki / "b.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4800 GB/s\n")
    assert wk("wiki", "check", "--wiki", wiki).rc == 0  # the same value in other units
    write(wiki / "c.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.9 TB/s\n")
    r = wk("wiki", "check", "--wiki", wiki, "--json")
    assert r.rc == 1
    kinds = [i["kind"] for i in r.json()["issues"]]
    assert kinds == ["conflict"]
    assert r.json()["documents"] == {"datasheet": 3}
    write(wiki / "notes.md", "# Tuning notes\n\n| GPU | HBM bandwidth |\n|---|---|\n| H200 | 4.8 TB/s |\n")
    r = wk("wiki", "check", "--wiki", wiki)
    assert "documents stating facts: 3 datasheet, 1 notes" in r.out, r.out
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H200", "--metric", "hbm_bandwidth")
    assert r.rc == 14 and "c.md" in r.err


def test_index_lists_every_fact_on_its_line(wk):
    r = wk("wiki", "index", "--wiki", FIXTURE_WIKI, "--json", "--detail")
    assert r.rc == 0, r.err
    validate(r.json(), "cli/wiki-index.schema.json")
    facts = r.json()["facts"]
    assert len(facts) > 50
    for f in facts:
        assert f["value_text"] in cited_text(FIXTURE_WIKI, f["citation"]), f
    sparse = [f for f in facts if f["value"] == 1978.9 and "bf16" in f["metric"] and f["product"] == "H100 SXM"]
    assert [f["metric"] for f in sparse] == ["bf16_tensor_sparse"]
    text = wk("wiki", "index", "--wiki", FIXTURE_WIKI, "--limit", "0")
    assert text.rc == 0 and len(text.out.splitlines()) == len(facts) + 1  # and the wiki it read
    assert text.out.splitlines()[-1].startswith("gpu-wiki: ")


def test_json_records_are_indexed(wk, tmp_path):
    wiki = tmp_path / "w"
    write(wiki / "records" / "h20.json", json.dumps(
        {"product": "H20", "arch": "Hopper",
         "facts": [{"metric": "hbm_bandwidth", "value": 4.0, "unit": "TB/s"}]}, indent=1))
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H20", "--metric", "hbm_bandwidth", "--json")
    assert r.rc == 0, r.err
    assert r.json()["fact"]["citation"].startswith("<gpu-wiki>/records/h20.json:L")
    assert "4.0" in cited_text(wiki, r.json()["fact"]["citation"])


def test_embedded_wiki_is_the_default(wk):
    r = wk("wiki", "lookup", "--platform", "H100", "--metric", "hbm_bandwidth", "--json")
    assert r.rc == 0, r.err
    data = r.json()
    validate(data, "cli/wiki-lookup.schema.json")
    assert data["wiki"]["embedded"] is True and data["wiki"]["source"] == "embedded"
    assert data["product"] == "H100 SXM"
    assert data["fact"]["value_text"] in cited_text(EMBEDDED, data["fact"]["citation"])
    for platform in ["H100 PCIe", "H200", "H20", "A100", "L40S", "B200", "MI300X", "MI308X", "MI325X", "MI355X"]:
        p = wk("wiki", "products", "--json").json()
        assert any(platform == x["name"] or platform in x["aliases"] for x in p["products"]), platform


def test_embedded_wiki_checks_clean(wk):
    r = wk("wiki", "check", "--json")
    assert r.rc == 0, r.out
    validate(r.json(), "cli/wiki-check.schema.json")


def test_env_wiki_and_missing_wiki(wk, tmp_path):
    r = wk("wiki", "products", "--json", env={"KGO_GPU_WIKI": str(FIXTURE_WIKI)})
    assert r.rc == 0, r.err
    assert r.json()["wiki"]["source"] == "KGO_GPU_WIKI"
    r = wk("wiki", "products", "--wiki", tmp_path / "nope", "--json")
    assert r.rc == 14
    validate(r.json(), "cli/error.schema.json")


def test_cache_is_written_and_invalidated(wk, tmp_path):
    wiki = tmp_path / "w"
    doc = write(wiki / "a.md", "## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.8 TB/s\n")
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H200", "--metric", "hbm_bandwidth")
    assert "4.8 TB/s" in r.out
    assert list((tmp_path / "cache" / "kgo").glob("wiki-index-*.tsv"))
    doc.write_text("## NVIDIA H200 (sm_90, Hopper)\n- HBM bandwidth: 4.9 TB/s\n")
    r = wk("wiki", "lookup", "--wiki", wiki, "--platform", "H200", "--metric", "hbm_bandwidth")
    assert "4.9 TB/s" in r.out


def test_init_resolves_through_the_wiki(wk, tmp_path, kernel_file):
    out = tmp_path / "ws"
    out.mkdir()
    r = wk("init", "a", kernel_file, "--platform", "H100", "--dir", out, "--wiki", FIXTURE_WIKI)
    assert r.rc == 0, r.err
    config = json.loads((out / "kernel_opt_a" / "kgo.json").read_text())
    assert config["platform"] == "H100 SXM" and config["arch"] == "Hopper"
    r = wk("init", "b", kernel_file, "--platform", "H100", "--dir", out)
    assert r.rc == 0, r.err
    config = json.loads((out / "kernel_opt_b" / "kgo.json").read_text())
    assert config["platform"] == "H100 SXM" and config["wiki"]["embedded"] is True
    wiki = tmp_path / "amb"
    write(wiki / "a.md", "## NVIDIA H100 SXM (sm_90, Hopper)\n- SM count: 132\n"
                         "## NVIDIA H100 PCIe (sm_90, Hopper)\n- SM count: 114\n")
    r = wk("init", "c", kernel_file, "--platform", "H100", "--dir", out, "--wiki", wiki)
    assert r.rc == 11 and "H100 PCIe" in r.err and "H100 SXM" in r.err
    assert not (out / "kernel_opt_c").exists()
    r = wk("init", "d", kernel_file, "--platform", "H200", "--dir", out, "--wiki", wiki)
    assert r.rc == 11 and "H100 PCIe" in r.err
