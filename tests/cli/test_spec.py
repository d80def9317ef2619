"""`kgo spec add|auto|unknown|list|remove` on real workspaces against the atrex fixture wiki and
the embedded wiki. Line numbers are looked up in the wiki files, never hard-coded."""
# ctest-cost: 2
import json
import pathlib
import shutil

import pytest

from conftest import FIXTURE_WIKI, git, run_kgo, validate

HOPPER = "docs/hardware-specs/hardware_specs_hopper.md"


def line_of(wiki, needle, path=HOPPER):
    for n, line in enumerate((wiki / path).read_text().splitlines(), start=1):
        if needle in line:
            return n
    raise AssertionError(f"{needle!r} not in {path}")


def make_ws(tmp_path, kernel_file, platform="H100", wiki=FIXTURE_WIKI, dtype="bf16", name="s"):
    parent = tmp_path / f"ws_{name}"
    parent.mkdir()
    r = run_kgo("init", name, kernel_file, "--platform", platform, "--dir", parent, "--wiki", wiki,
                "--dtype", dtype)
    assert r.rc == 0, r.err
    return parent / f"kernel_opt_{name}"


@pytest.fixture
def ws(tmp_path, kernel_file):
    return make_ws(tmp_path, kernel_file)


def snapshot(ws):
    return {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()}


def spec(ws, *args):
    return run_kgo("spec", *args, "--workspace", ws)


def hardware_spec_lines(ws):
    readme = (ws / "README.md").read_text()
    body = readme.split("## Hardware Spec\n", 1)[1].split("\n## ", 1)[0]
    return [line for line in body.splitlines() if line.startswith("- ")]


def test_add_seed_format_registers_and_commits(ws):
    line = line_of(FIXTURE_WIKI, "| Memory Bandwidth | 3.35 TB/s |")
    text = f"H100 SXM HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/{HOPPER}:L{line}"
    r = spec(ws, "add", text, "--json")
    assert r.rc == 0, r.err
    out = r.json()
    validate(out, "cli/spec.schema.json")
    assert out["entry"]["metric"] == "hbm_bandwidth"
    assert out["entry"]["si_value"] == pytest.approx(3.35e12)
    registry = json.loads((ws / "specs.json").read_text())
    validate(registry, "specs.schema.json")
    entry = registry["specs"][0]
    assert entry["line_text"] == (FIXTURE_WIKI / HOPPER).read_text().splitlines()[line - 1]
    assert len(entry["line_sha256"]) == 64 and len(entry["file_sha256"]) == 64
    assert hardware_spec_lines(ws) == [f"- {text}"]
    assert git("status", "--porcelain", cwd=ws).stdout == ""
    assert "spec: add hbm_bandwidth" in git("log", "-1", "--format=%s", cwd=ws).stdout


def test_add_accepts_normalized_units_and_thousands(ws):
    bw = line_of(FIXTURE_WIKI, "| Memory Bandwidth | 3.35 TB/s |")
    assert spec(ws, "add", f"H100 bandwidth: 3350 GB/s <- <gpu-wiki>/{HOPPER}:L{bw}").rc == 0
    fp8 = line_of(FIXTURE_WIKI, "| **FP8 (Tensor Core)** | 1,978.9 | 3,957.8 |")
    r = spec(ws, "add", f"H100 FP8 tensor dense: 1978.9 TFLOPS <- <gpu-wiki>/{HOPPER}:L{fp8}")
    assert r.rc == 0, r.err
    r = spec(ws, "add", f"H100 FP8 tensor sparse: 3,957.8 TFLOPS <- <gpu-wiki>/{HOPPER}:L{fp8}")
    assert r.rc == 0, r.err
    metrics = [e["metric"] for e in json.loads((ws / "specs.json").read_text())["specs"]]
    assert {"hbm_bandwidth", "fp8_tensor", "fp8_tensor_sparse"} <= set(metrics)


def test_section_form_resolves_to_the_line_stating_the_metric(ws):
    r = spec(ws, "add", f"H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/{HOPPER}:Memory Specifications", "--json")
    assert r.rc == 0, r.err
    line = line_of(FIXTURE_WIKI, "| Memory Bandwidth | 3.35 TB/s |")
    assert r.json()["entry"]["citation"] == f"<gpu-wiki>/{HOPPER}:L{line}"


def test_atrex_bf16_dense_accepted_and_sparse_refused_as_dense(ws):
    line = line_of(FIXTURE_WIKI, "| **FP16 / BF16 (Tensor Core)** | 989.4 |")
    before = snapshot(ws)
    r = spec(ws, "add", f"H100 SXM BF16 tensor: 1,978.9 TFLOPS <- <gpu-wiki>/{HOPPER}:L{line}")
    assert r.rc == 13, (r.rc, r.err)
    assert "sparse figure" in r.err and "989.4" in r.err and "the line says" in r.err
    assert snapshot(ws) == before
    r = spec(ws, "add", f"H100 SXM BF16 tensor: 989.4 TFLOPS <- <gpu-wiki>/{HOPPER}:L{line}")
    assert r.rc == 0, r.err


REJECTS = [
    # (statement template, exit code, message fragment)
    ("H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/../outside.md:L1", 13, "'..'"),
    ("H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>//etc/passwd:L1", 13, "absolute"),
    ("H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/nope.md:L1", 13, "does not exist"),
    ("H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/{hopper}:L99999", 13, "L99999 does not exist"),
    ("H100 HBM bandwidth: 3.5 TB/s <- <gpu-wiki>/{hopper}:L{bw}", 13, "not 3.5 TB/s"),
    ("H100 HBM bandwidth: 3.35 TFLOPS <- <gpu-wiki>/{hopper}:L{bw}", 13, "flop_per_s"),
    ("H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/{hopper}:L1", 13, "states no hardware figure"),
    ("H100 HBM bandwidth: 4.0 TB/s <- <gpu-wiki>/{hopper}:L{h20bw}", 13, "not for the workspace's platform H100 SXM"),
    ("H20 HBM3 bandwidth: 3.35 TB/s <- <gpu-wiki>/{hopper}:L{bw}", 13, "names H20"),
    ("H100 L2 cache: 3.35 TB/s <- <gpu-wiki>/{hopper}:L{bw}", 13, "does not state l2_cache"),
    ("H100 flux capacitor: 3.35 TB/s <- <gpu-wiki>/{hopper}:L{bw}", 12, "hbm_bandwidth, "),
    ("H100 HBM bandwidth: 3.35 TB/s", 3, "no '<- <gpu-wiki>/...' citation"),
    ("H100 HBM bandwidth: 3.35 TB/s <- docs/x.md:L3", 13, "must start with <gpu-wiki>/"),
    ("H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/{hopper}:No Such Heading", 13, "no heading 'No Such Heading'"),
]


@pytest.mark.parametrize("template,code,fragment", REJECTS)
def test_every_reject_path_has_its_message_and_writes_nothing(ws, template, code, fragment):
    statement = template.format(hopper=HOPPER, bw=line_of(FIXTURE_WIKI, "| Memory Bandwidth | 3.35 TB/s |"),
                                h20bw=line_of(FIXTURE_WIKI, "| Memory Bandwidth | 4.0 TB/s |"))
    before = snapshot(ws)
    r = spec(ws, "add", statement, "--json")
    assert r.rc == code, (r.rc, r.err)
    assert fragment in (r.out + r.err), r.err
    validate(r.json(), "cli/error.schema.json")
    assert snapshot(ws) == before
    assert git("status", "--porcelain", cwd=ws).stdout == ""


def test_symlink_leaving_the_wiki_is_rejected(tmp_path, kernel_file):
    wiki = tmp_path / "wiki"
    shutil.copytree(FIXTURE_WIKI, wiki)
    outside = tmp_path / "outside.md"
    outside.write_text((FIXTURE_WIKI / HOPPER).read_text())
    (wiki / "docs" / "leak.md").symlink_to(outside)
    ws = make_ws(tmp_path, kernel_file, wiki=wiki)
    line = line_of(FIXTURE_WIKI, "| Memory Bandwidth | 3.35 TB/s |")
    r = spec(ws, "add", f"H100 HBM bandwidth: 3.35 TB/s <- <gpu-wiki>/docs/leak.md:L{line}")
    assert r.rc == 13, (r.rc, r.err)
    assert "leaves the wiki through a symlink" in r.err


def test_auto_registers_roofline_specs_with_citations(ws):
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    out = r.json()
    validate(out, "cli/spec.schema.json")
    metrics = {e["metric"] for e in out["registered"]}
    assert {"hbm_bandwidth", "bf16_tensor", "fp32", "sm_count", "l2_cache"} <= metrics
    bf16 = next(e for e in out["registered"] if e["metric"] == "bf16_tensor")
    assert bf16["value"] == pytest.approx(989.4)
    assert bf16["line"] == line_of(FIXTURE_WIKI, "| **FP16 / BF16 (Tensor Core)** | 989.4 |")
    lines = hardware_spec_lines(ws)
    assert len(lines) == len(out["registered"])
    assert all(" <- <gpu-wiki>/" in line for line in lines)
    validate(json.loads((ws / "specs.json").read_text()), "specs.schema.json")
    assert git("status", "--porcelain", cwd=ws).stdout == ""
    audit = run_kgo("audit", "--workspace", ws)
    assert audit.rc == 0, audit.out + audit.err


@pytest.mark.parametrize("dtype,expected", [("fp32", {"fp32"}), ("fp8", {"fp8_tensor", "fp32"}),
                                            ("tf32", {"tf32_tensor", "fp32"}), ("int8", {"int8_tensor", "fp32"})])
def test_auto_compute_metric_follows_dtype(tmp_path, kernel_file, dtype, expected):
    ws = make_ws(tmp_path, kernel_file, dtype=dtype)
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    metrics = {e["metric"] for e in r.json()["registered"]}
    flops = {m for m in metrics if m.startswith(("fp", "bf", "tf", "int"))}
    assert flops == expected


def test_auto_never_borrows_a_neighbours_numbers(tmp_path, kernel_file):
    # The fixture's H200 section says "All other parameters same as H100": no L2 for H200.
    ws = make_ws(tmp_path, kernel_file, platform="H200")
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    out = r.json()
    assert "l2_cache" in out["unknown"]
    assert "l2_cache" not in {e["metric"] for e in out["registered"]}
    bw = next(e for e in out["registered"] if e["metric"] == "hbm_bandwidth")
    assert bw["value"] == pytest.approx(4.8)
    registry = json.loads((ws / "specs.json").read_text())
    assert any(p["metric"] == "l2_cache" for p in registry["pitfalls"])
    assert "- l2_cache: UNKNOWN (gpu-wiki not found)" in hardware_spec_lines(ws)


def test_auto_registers_measured_maxima(tmp_path, kernel_file):
    wiki = tmp_path / "wiki"
    shutil.copytree(FIXTURE_WIKI, wiki)
    (wiki / "measured").mkdir()
    (wiki / "measured" / "H100 SXM-2026-11-20.md").write_text(
        "---\nproduct: H100 SXM\nkind: measured\n---\n# Measured maxima: H100 SXM, 2026-11-20\n\n"
        "Method: test data written by this test.\n\n"
        "- hbm_bandwidth: 2.9 TB/s (copy, read+write bytes, median of 20)\n"
        "- launch_latency: 2.5 us (empty kernel, CUDA events, median)\n")
    ws = make_ws(tmp_path, kernel_file, wiki=wiki)
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    measured = {e["metric"]: e for e in r.json()["registered"] if e["measured"]}
    assert set(measured) == {"hbm_bandwidth", "launch_latency"}
    assert measured["hbm_bandwidth"]["citation"].startswith("<gpu-wiki>/measured/")
    datasheet = [e for e in r.json()["registered"] if e["metric"] == "hbm_bandwidth" and not e["measured"]]
    assert datasheet and datasheet[0]["value"] == pytest.approx(3.35)
    assert run_kgo("audit", "--workspace", ws).rc == 0


def test_unknown_records_gap_and_pitfall(ws):
    r = spec(ws, "unknown", "launch_latency", "--json")
    assert r.rc == 0, r.err
    validate(r.json(), "cli/spec.schema.json")
    registry = json.loads((ws / "specs.json").read_text())
    validate(registry, "specs.schema.json")
    assert registry["specs"][0]["unknown"] is True
    assert registry["pitfalls"][0]["error_message"] == "launch_latency: UNKNOWN (gpu-wiki not found)"
    assert "- launch_latency: UNKNOWN (gpu-wiki not found)" in hardware_spec_lines(ws)


def test_unknown_refused_when_the_wiki_states_it(ws):
    r = spec(ws, "unknown", "hbm_bandwidth")
    assert r.rc == 3, (r.rc, r.err)
    assert "kgo spec add" in r.err and "<gpu-wiki>/" in r.err


def test_unknown_metric_text_lists_canonical_names(ws):
    r = spec(ws, "unknown", "flux capacitor")
    assert r.rc == 12
    assert "l2_cache" in r.err


def test_list_and_remove(ws):
    assert spec(ws, "auto").rc == 0
    r = spec(ws, "list", "--json")
    assert r.rc == 0
    validate(r.json(), "cli/spec.schema.json")
    assert r.json()["platform"] == "H100 SXM"
    n = len(r.json()["specs"])
    r = spec(ws, "remove", "sm_count", "--json")
    assert r.rc == 0, r.err
    validate(r.json(), "cli/spec.schema.json")
    assert r.json()["removed"] == 1
    assert len(spec(ws, "list", "--json").json()["specs"]) == n - 1
    assert not any("SM count" in line for line in hardware_spec_lines(ws))
    r = spec(ws, "remove", "sm_count")
    assert r.rc == 15
    assert git("status", "--porcelain", cwd=ws).stdout == ""


def test_unknown_list_and_remove_name_their_wiki(ws):
    wiki_root = str(pathlib.Path(FIXTURE_WIKI).resolve())
    r = spec(ws, "unknown", "launch_latency")
    assert r.rc == 0, r.err
    assert f"gpu-wiki searched: {wiki_root} (kgo.json; " in r.out and "sha256:" in r.out  # no specs.json yet
    unknown = spec(ws, "unknown", "warp_size", "--json").json()
    validate(unknown, "cli/spec.schema.json")
    assert unknown["wiki"]["path"] == wiki_root and unknown["wiki"]["fingerprint"].startswith("sha256:")
    listed = spec(ws, "list", "--json").json()
    validate(listed, "cli/spec.schema.json")
    assert listed["wiki"] == unknown["wiki"] and listed["wiki_changed"] is False
    text = spec(ws, "list").out.splitlines()
    assert text[-1].startswith(f"  gpu-wiki: {wiki_root} (specs.json; ")
    removed = spec(ws, "remove", "warp_size", "--json").json()
    validate(removed, "cli/spec.schema.json")
    assert removed["wiki"] == unknown["wiki"] and removed["wiki_changed"] is False
    r = spec(ws, "remove", "launch_latency")
    assert r.rc == 0, r.err
    assert r.out.splitlines()[-1].startswith(f"  gpu-wiki: {wiki_root} (specs.json; ")


def test_list_says_when_the_wiki_changed_since_verification(tmp_path, kernel_file):
    wiki = tmp_path / "wiki"
    shutil.copytree(FIXTURE_WIKI, wiki)
    ws = make_ws(tmp_path, kernel_file, wiki=wiki)
    assert spec(ws, "auto").rc == 0
    before = spec(ws, "list", "--json").json()
    assert before["wiki_changed"] is False
    (wiki / "docs" / "notes.md").write_text("# Notes\n\nNothing to index.\n")
    after = spec(ws, "list", "--json").json()
    validate(after, "cli/spec.schema.json")
    assert after["wiki_changed"] is True
    assert after["wiki"]["fingerprint"] != before["wiki"]["fingerprint"]
    assert "differs from the wiki these specs were verified against" in spec(ws, "list").out
    # The wiki gone and no default readable: list still lists, and says why no wiki is named.
    shutil.rmtree(wiki)
    env_wiki = tmp_path / "missing"
    r = run_kgo("spec", "list", "--workspace", ws, "--json", "--wiki", env_wiki)
    assert r.rc == 0, r.err
    out = r.json()
    validate(out, "cli/spec.schema.json")
    assert out["wiki"] is None and out["wiki_changed"] is None and str(env_wiki) in out["wiki_problem"]
    assert out["specs"] == before["specs"]


def test_readme_edits_outside_the_section_survive(ws):
    readme = ws / "README.md"
    readme.write_text(readme.read_text().replace("## Task Context\n", "## Task Context\n\nmy own note\n"))
    assert spec(ws, "auto").rc == 0
    assert "my own note" in readme.read_text()


def test_done_when_embedded_wiki(tmp_path, kernel_file):
    parent = tmp_path / "emb"
    parent.mkdir()
    r = run_kgo("init", "x", kernel_file, "--platform", "H100", "--dir", parent)
    assert r.rc == 0, r.err
    ws = parent / "kernel_opt_x"
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    lines = hardware_spec_lines(ws)
    assert lines and all(" <- <gpu-wiki>/" in l or "UNKNOWN (gpu-wiki not found)" in l for l in lines)
    assert {"hbm_bandwidth", "fp32", "sm_count", "l2_cache"} <= {e["metric"] for e in r.json()["registered"]}
    audit = run_kgo("audit", "--workspace", ws, "--json")
    assert audit.rc == 0, audit.out
    assert audit.json()["citations_checked"] >= len(lines) - len(r.json()["unknown"])


def test_seed_example_on_h20_and_approximate_values(tmp_path, kernel_file):
    ws = make_ws(tmp_path, kernel_file, platform="H20")
    line = line_of(FIXTURE_WIKI, "| Memory Bandwidth | 4.0 TB/s |")
    text = f"H20 HBM3 bandwidth: 4.0 TB/s <- <gpu-wiki>/{HOPPER}:L{line}"
    r = spec(ws, "add", text)
    assert r.rc == 0, r.err
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    bf16 = next(e for e in r.json()["registered"] if e["metric"] == "bf16_tensor")
    assert bf16["approximate"] is True and bf16["value_text"] == "~148"
    lines = hardware_spec_lines(ws)
    assert f"- {text}" in lines  # auto keeps the hand-registered entry for the same line
    assert any(l.startswith("- H20 BF16 Tensor Core (dense): ~148 TFLOPS <- ") for l in lines)
    assert run_kgo("audit", "--workspace", ws).rc == 0


def conflict_wiki(tmp_path, notes_value="4.0 TB/s"):
    wiki = tmp_path / "cw"
    (wiki / "notes").mkdir(parents=True)
    (wiki / "h200-specs.md").write_text(
        "# H200 Specifications\n\n## NVIDIA H200 (sm_90, Hopper)\n\n| Metric | Value |\n|---|---|\n"
        "| HBM bandwidth | 4.8 TB/s |\n| FP32 | 67 TFLOPS |\n")
    (wiki / "notes" / "tuning.md").write_text(
        f"# Tuning notes\n\n| GPU | HBM bandwidth |\n|---|---|\n| H200 | {notes_value} |\n")
    return wiki


def test_add_names_both_lines_when_the_wiki_disagrees(tmp_path, kernel_file):
    wiki = conflict_wiki(tmp_path)
    ws = make_ws(tmp_path, kernel_file, platform="H200", wiki=wiki)
    r = spec(ws, "add", "H200 HBM bandwidth: 4.8 TB/s <- <gpu-wiki>/h200-specs.md:L7", "--json")
    assert r.rc == 0, r.err
    validate(r.json(), "cli/spec.schema.json")
    [c] = r.json()["conflicts"]
    assert "4.0 TB/s at notes/tuning.md:L5 (notes)" in c and "h200-specs.md:L7 (datasheet)" in c, c
    r = spec(ws, "add", "H200 HBM bandwidth: 4.8 TB/s <- <gpu-wiki>/h200-specs.md:L7")
    assert "conflict: hbm_bandwidth: the wiki also states 4.0 TB/s at notes/tuning.md:L5" in r.out, r.out
    # Agreeing lines are no conflict.
    (wiki / "notes" / "tuning.md").write_text("# Tuning notes\n\n| GPU | HBM bandwidth |\n|---|---|\n| H200 | 4800 GB/s |\n")
    r = spec(ws, "add", "H200 HBM bandwidth: 4.8 TB/s <- <gpu-wiki>/h200-specs.md:L7", "--json")
    assert r.rc == 0 and r.json()["conflicts"] == [], r.json()


def test_auto_says_when_a_measured_value_stands_in_for_a_missing_datasheet_one(tmp_path, kernel_file):
    wiki = tmp_path / "wiki"
    shutil.copytree(FIXTURE_WIKI, wiki)
    (wiki / "measured").mkdir()
    (wiki / "measured" / "H200-2026-11-20.md").write_text(
        "---\nproduct: H200\nkind: measured\n---\n# Measured maxima: H200, 2026-11-20\n\n"
        "Method: test data written by this test.\n\n- l2_cache: 48 MB (pointer chase, knee)\n")
    plain = make_ws(tmp_path, kernel_file, platform="H200", name="plain")
    r = spec(plain, "auto")
    assert r.rc == 0, r.err
    assert "l2_cache: UNKNOWN" in r.out and "ask whether a placeholder is acceptable" in r.out, r.out
    ws = make_ws(tmp_path, kernel_file, platform="H200", wiki=wiki)
    r = spec(ws, "auto")
    assert r.rc == 0, r.err
    lines = {line.split(":")[0].strip(): line for line in r.out.splitlines() if "UNKNOWN" in line}
    assert "the measured value registered above serves the roofline" in lines["l2_cache"], r.out


def test_auto_prefers_the_datasheet_and_says_so(tmp_path, kernel_file):
    wiki = conflict_wiki(tmp_path)
    ws = make_ws(tmp_path, kernel_file, platform="H200", wiki=wiki, dtype="fp32")
    r = spec(ws, "auto", "--json")
    assert r.rc == 0, r.err
    out = r.json()
    validate(out, "cli/spec.schema.json")
    bw = next(e for e in out["registered"] if e["metric"] == "hbm_bandwidth")
    assert bw["value"] == pytest.approx(4.8)
    choice = next(c for c in out["choices"] if c.startswith("hbm_bandwidth:"))
    assert choice == ("hbm_bandwidth: chose 4.8 TB/s at h200-specs.md:L7 (datasheet) "
                      "over 4.0 TB/s at notes/tuning.md:L5 (notes)"), choice
    assert any(c.startswith("fp32: chose 67 TFLOPS at h200-specs.md:L8 (datasheet)") for c in out["choices"])
    assert "hbm_bandwidth: chose 4.8 TB/s" in spec(ws, "auto").out


def test_auto_refuses_when_two_datasheets_disagree(tmp_path, kernel_file):
    wiki = conflict_wiki(tmp_path)
    (wiki / "h200-datasheet.md").write_text(
        "# H200 Datasheet\n\n## NVIDIA H200 (sm_90, Hopper)\n\n- HBM bandwidth: 4.9 TB/s\n")
    ws = make_ws(tmp_path, kernel_file, platform="H200", wiki=wiki, dtype="fp32")
    r = spec(ws, "auto", "--json")
    assert r.rc == 14, r.err
    out = r.json()
    assert "hbm_bandwidth" not in {e["metric"] for e in out["registered"]}
    [c] = out["conflicts"]
    assert "4.8 TB/s at h200-specs.md:L7 (datasheet)" in c and "4.9 TB/s at h200-datasheet.md:L5 (datasheet)" in c, c
