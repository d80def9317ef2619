"""`kgo roofline` on real workspaces: refusal without specs, the cited README sections, exit codes 0/2,
custom expressions, and the bounds the issue pins (softmax memory-bound, bf16 matmul compute-bound)."""
# ctest-cost: 1
import json
import re

import pytest

from conftest import FIXTURE_WIKI, SOURCE_DIR, git, needs_fixture, run_kgo, validate

OPS = ["add", "mul", "relu", "gelu", "silu", "softmax", "log_softmax", "layer_norm", "matmul", "dropout", "attention",
       "cross_entropy", "sum", "mean", "rms_norm", "bmm", "gelu_tanh", "leaky_relu", "sigmoid", "tanh", "elu", "selu",
       "hardsigmoid", "hardtanh", "softplus", "softsign", "max", "min", "prod", "argmax", "argmin", "cumsum",
       "batch_norm", "group_norm", "instance_norm", "l2_norm", "l1_norm", "frobenius_norm", "mse_loss", "huber_loss",
       "kl_div", "hinge_loss", "matvec", "diag_matmul", "cumprod", "max_pool1d", "max_pool2d", "max_pool3d",
       "avg_pool1d", "avg_pool2d", "avg_pool3d", "cosine_similarity_loss", "triplet_margin_loss", "conv1d", "conv2d",
       "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def section(readme, heading):
    m = re.search(r"^## " + re.escape(heading) + r"\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
    assert m, heading
    return m.group(1)


def spec_auto(ws):
    r = run_kgo("spec", "auto", "--workspace", ws)
    assert r.rc == 0, r.err
    return {e["metric"]: e for e in json.loads((ws / "specs.json").read_text())["specs"] if not e["unknown"]}


def new_workspace(tmp_path, kernel_file, name, platform, dtype, wiki=None):
    extra = ["--wiki", wiki] if wiki else []
    r = run_kgo("init", name, kernel_file, "--platform", platform, "--dir", tmp_path, "--dtype", dtype, *extra)
    assert r.rc == 0, r.err
    return tmp_path / f"kernel_opt_{name}"


def test_explain_lists_every_op_without_a_workspace(tmp_path):
    r = run_kgo("roofline", "--explain", cwd=tmp_path)
    assert r.rc == 0, r.err
    for op in OPS:
        assert f"  {op}" in r.out, op
    for word in ["exp", "erf", "division", "weight and bias", "balanced", "waves"]:
        assert word in r.out, word
    j = run_kgo("roofline", "--explain", "--json", cwd=tmp_path)
    assert j.rc == 0, j.err
    validate(j.json(), "cli/roofline.schema.json")
    assert sorted(o["name"] for o in j.json()["explain"]["ops"]) == sorted(OPS)


def test_refuses_without_registered_specs(workspace):
    readme = (workspace / "README.md").read_text()
    r = run_kgo("roofline", "--op", "softmax", "--workspace", workspace)
    assert r.rc == 15, r.err
    assert "kgo spec auto" in r.err and "hbm_bandwidth" in r.err
    assert (workspace / "README.md").read_text() == readme
    assert not (workspace / "roofline.json").exists()
    j = run_kgo("roofline", "--op", "softmax", "--workspace", workspace, "--json")
    assert j.rc == 15 and j.json()["exit_code"] == 15


def test_done_when_softmax_three_shapes_is_cited_and_audit_passes(workspace):
    specs = spec_auto(workspace)
    bw, fp32 = specs["hbm_bandwidth"], specs["fp32"]
    r = run_kgo("roofline", "--op", "softmax", "--shape", "256x256", "--shape", "1024x1024",
                "--shape", "4096x4096", "--dtype", "fp32", "--workspace", workspace)
    assert r.rc == 0, r.err
    readme = (workspace / "README.md").read_text()
    analysis = section(readme, "Roofline Analysis")
    stop = section(readme, "Stop Conditions")
    assert f"{bw['value_text']} {bw['unit']} <- {bw['citation']}" in analysis
    assert f"{fp32['value_text']} {fp32['unit']} <- {fp32['citation']}" in analysis
    assert "134,217,728" in analysis and "memory-bound" in analysis
    shape_lines = [l for l in stop.splitlines() if l.startswith("- ") and "x" in l.split(":")[0]]
    assert [l.split(":")[0] for l in shape_lines[:3]] == ["- 256x256", "- 1024x1024", "- 4096x4096"]
    target = f"{0.9 * bw['si_value'] / 1e12:.4g} TB/s = 0.9 x {bw['value_text']} {bw['unit']} <- {bw['citation']}"
    for line in shape_lines[:3]:
        assert target in line, line
        assert "latency floor unknown" in line
    assert "seed figure" in stop
    isa = section(readme, "ISA Optimization Targets")
    assert "LDG.E.128" in isa and "LDL" in isa and "not applicable to softmax" in isa
    doc = json.loads((workspace / "roofline.json").read_text())
    validate(doc, "roofline.schema.json")
    assert [s["bound"] for s in doc["shapes"]] == ["memory"] * 3
    assert doc["shapes"][2]["bytes"] == 134217728
    audit = run_kgo("audit", "--workspace", workspace)
    assert audit.rc == 0, audit.out + audit.err
    assert git("status", "--porcelain", cwd=workspace).stdout == ""
    assert git("log", "-1", "--format=%s", cwd=workspace).stdout.startswith("roofline: softmax fp32")


def test_rerun_updates_only_its_sections(workspace):
    spec_auto(workspace)
    assert run_kgo("roofline", "--op", "softmax", "--workspace", workspace).rc == 0
    readme = (workspace / "README.md").read_text()
    edited = readme.replace("## Task Context\n", "## Task Context\n\n- my own note\n")
    edited += "\n## My Notes\n\nkeep this\n"
    (workspace / "README.md").write_text(edited)
    r = run_kgo("roofline", "--op", "softmax", "--shape", "2048x2048", "--workspace", workspace)
    assert r.rc == 0, r.err
    after = (workspace / "README.md").read_text()
    assert "- my own note" in section(after, "Task Context")
    assert after.endswith("## My Notes\n\nkeep this\n")
    assert section(after, "Target") == section(readme, "Target")
    assert section(after, "Hardware Spec") == section(readme, "Hardware Spec")
    assert "- 2048x2048:" in section(after, "Stop Conditions")
    assert "- 4096x4096:" not in section(after, "Stop Conditions")


def test_measured_time_exit_codes(workspace):
    spec_auto(workspace)
    j = run_kgo("roofline", "--op", "softmax", "--shape", "4096x4096", "--workspace", workspace, "--json")
    assert j.rc == 0, j.err
    validate(j.json(), "cli/roofline.schema.json")
    target_us = j.json()["roofline"]["shapes"][0]["target_time_s"] * 1e6
    readme = (workspace / "README.md").read_text()
    met = run_kgo("roofline", "--op", "softmax", "--shape", "4096x4096", "--time-us", target_us * 0.99,
                  "--workspace", workspace)
    assert met.rc == 0, met.err
    assert "MET" in met.out
    missed = run_kgo("roofline", "--op", "softmax", "--shape", "4096x4096", "--time-us", target_us * 1.5,
                     "--workspace", workspace, "--json")
    assert missed.rc == 2, missed.err
    validate(missed.json(), "cli/roofline.schema.json")
    m = missed.json()["roofline"]["shapes"][0]["measured"]
    assert m["met"] is False and abs(m["pct_of_target"] - 100 / 1.5) < 1e-6
    assert missed.json()["wrote"] is False
    assert (workspace / "README.md").read_text() == readme
    assert run_kgo("roofline", "--op", "softmax", "--shape", "64x64", "--shape", "128x128", "--time-us", "5",
                   "--workspace", workspace).rc == 3


def test_time_us_remembers_the_committed_op_shapes_and_custom_expressions(workspace):
    spec_auto(workspace)
    r = run_kgo("roofline", "--op", "layer_norm", "--shape", "2048x1024", "--workspace", workspace, "--json")
    assert r.rc == 0, r.err
    target_us = r.json()["roofline"]["shapes"][0]["target_time_s"] * 1e6
    head = git("rev-parse", "HEAD", cwd=workspace).stdout
    r = run_kgo("roofline", "--time-us", target_us * 2, "--workspace", workspace, "--json")
    assert r.rc == 2, r.err  # the committed layer_norm 2048x1024, not the default op or shapes
    doc = r.json()["roofline"]
    assert doc["op"] == "layer_norm" and [s["shape"] for s in doc["shapes"]] == [[2048, 1024]]
    assert abs(doc["shapes"][0]["measured"]["pct_of_target"] - 50) < 1e-6
    assert git("rev-parse", "HEAD", cwd=workspace).stdout == head
    r = run_kgo("roofline", "--flops", "2*M*N", "--bytes", "M*N*8", "--shape", "1024x512", "--workspace", workspace)
    assert r.rc == 0, r.err
    r = run_kgo("roofline", "--time-us", "1e6", "--workspace", workspace, "--json")
    assert r.rc == 2, r.err
    assert r.json()["roofline"]["op"] == "custom" and r.json()["roofline"]["shapes"][0]["flops"] == 2 * 1024 * 512


def test_from_memory_record(workspace):
    spec_auto(workspace)
    r = run_kgo("roofline", "--op", "softmax", "--shape", "4096x4096", "--from-memory", "v7", "--workspace", workspace)
    assert r.rc == 17 and "memory/v7.json" in r.err
    (workspace / "memory" / "v7.json").write_text(json.dumps(
        {"version": "v7", "masked": False, "performance": {"latency_us_by_shape": {"4096x4096": 1.0e6}}}))
    r = run_kgo("roofline", "--op", "softmax", "--shape", "4096x4096", "--from-memory", "v7", "--workspace", workspace)
    assert r.rc == 2, r.err
    assert "latency_us_by_shape[4096x4096]" in r.out


@pytest.mark.parametrize("flops", ["2*M;rm -rf /", "$(touch pwned)", "__import__('os')", "M**2", "eval(M)"])
def test_bad_expressions_are_refused_with_a_position(workspace, flops):
    spec_auto(workspace)
    r = run_kgo("roofline", "--flops", flops, "--bytes", "M", "--var", "M=4", "--workspace", workspace,
                cwd=workspace)
    assert r.rc == 22, r.err
    assert re.search(r"at column \d+", r.err), r.err
    assert not (workspace / "pwned").exists()
    assert not (workspace / "roofline.json").exists()


def test_custom_expressions(workspace):
    spec_auto(workspace)
    r = run_kgo("roofline", "--flops", "2*M*N*K", "--bytes", "(M*K + K*N + M*N) * 4", "--shape", "1024x512x256",
                "--workspace", workspace, "--json")
    assert r.rc == 0, r.err
    doc = r.json()["roofline"]
    validate(r.json(), "cli/roofline.schema.json")
    assert doc["op"] == "custom" and doc["inputs"]["compute"]["metric"] == "fp32"
    assert doc["shapes"][0]["flops"] == 2 * 1024 * 512 * 256
    assert doc["shapes"][0]["bytes"] == (1024 * 256 + 256 * 512 + 1024 * 512) * 4


def test_other_dtype_needs_its_own_registered_peak(workspace):
    spec_auto(workspace)  # fp32 workspace: bf16_tensor is not registered
    r = run_kgo("roofline", "--op", "matmul", "--dtype", "bf16", "--workspace", workspace)
    assert r.rc == 15 and "bf16_tensor" in r.err


def test_bf16_matmul_is_compute_bound_on_h100(tmp_path, kernel_file):
    ws = new_workspace(tmp_path, kernel_file, "mm100", "H100", "bf16")
    spec_auto(ws)
    r = run_kgo("roofline", "--op", "matmul", "--shape", "4096x4096x4096", "--grid", "264", "--workspace", ws,
                "--json")
    assert r.rc == 0, r.err
    shape = r.json()["roofline"]["shapes"][0]
    assert shape["bound"] == "compute" and shape["governing_floor"] == "compute"
    assert shape["grid"]["waves"] == -(-264 // r.json()["roofline"]["inputs"]["sm_count"]["si_value"])
    readme = (ws / "README.md").read_text()
    assert "HGMMA" in section(readme, "ISA Optimization Targets")
    assert run_kgo("audit", "--workspace", ws).rc == 0


@needs_fixture
def test_bf16_matmul_is_compute_bound_on_h200(tmp_path, kernel_file):
    ws = new_workspace(tmp_path, kernel_file, "mm200", "H200", "bf16", wiki=FIXTURE_WIKI)
    specs = spec_auto(ws)
    assert "bf16_tensor" in specs
    r = run_kgo("roofline", "--op", "matmul", "--shape", "4096x4096x4096", "--workspace", ws, "--json")
    assert r.rc == 0, r.err
    assert r.json()["roofline"]["shapes"][0]["bound"] == "compute"
    assert run_kgo("audit", "--workspace", ws).rc == 0


def test_h200_bf16_on_the_embedded_wiki_uses_what_it_states(tmp_path, kernel_file):
    # The embedded wiki writes the H200's datasheet BF16 tensor peak as UNKNOWN; kgo may use a
    # measured maximum when the wiki holds one, and must otherwise refuse, never borrow the H100's.
    ws = new_workspace(tmp_path, kernel_file, "h200emb", "H200", "bf16")
    r = run_kgo("spec", "auto", "--workspace", ws)
    assert r.rc == 0, r.err
    specs = json.loads((ws / "specs.json").read_text())["specs"]
    bf16 = [e for e in specs if e["metric"] == "bf16_tensor" and not e["unknown"]]
    r = run_kgo("roofline", "--op", "matmul", "--shape", "4096x4096x4096", "--workspace", ws, "--json")
    if not bf16:
        assert r.rc == 15 and "bf16_tensor" in (r.out + r.err) and "kgo spec auto" in (r.out + r.err)
        assert "4096x4096x4096" not in section((ws / "README.md").read_text(), "Stop Conditions")
        return
    assert r.rc == 0, r.err
    doc = r.json()["roofline"]
    chosen = next((e for e in bf16 if e["measured"]), bf16[0])
    assert doc["inputs"]["compute"]["citation"] == chosen["citation"]
    assert doc["inputs"]["compute"]["source"] == ("measured" if chosen["measured"] else "datasheet")
    assert doc["shapes"][0]["bound"] == "compute"
    stop = section((ws / "README.md").read_text(), "Stop Conditions")
    assert chosen["citation"] in stop
    assert run_kgo("audit", "--workspace", ws).rc == 0
