"""`kgo ops`: the seed's multi-op variants workflow on CPU (checks, recorded regenerations, logs);
timing and the best-variant choice need a GPU."""
# ctest-cost: 7
import json

import pytest

from conftest import SOURCE_DIR, run_kgo, validate
from planted import has_gpu

FAST = ["--device", "cpu", "--shape", "8x33", "--no-edge-shapes", "--trials", "1"]
VARIANTS = ["v1_baseline", "v2_tiling", "v3_coalesced", "v4_optimized"]


def ops(tmp_path, *args, **kw):
    return run_kgo("ops", *args, "--dir", tmp_path, **kw)


def state(tmp_path):
    return json.loads((tmp_path / "logs" / "ops_state.json").read_text())


def attempts(tmp_path, op, v):
    return [(a["attempt"], a["verdict"]) for a in state(tmp_path)["ops"][op]["variants"][v]["attempts"]]


def test_sets_up_checks_and_logs_each_op(tmp_path):
    r = ops(tmp_path, "softmax,layernorm", *FAST, "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/ops.schema.json")
    assert [o["op"] for o in j["ops"]] == ["softmax", "layer_norm"]  # alias canonicalized
    for o in j["ops"]:
        folder = tmp_path / "kernels" / o["op"]
        for v in VARIANTS:
            template = SOURCE_DIR / "templates" / "ops" / o["op"] / f"{v}.py"
            assert (folder / f"{v}.py").read_text() == template.read_text()
        assert [v["status"] for v in o["variants"]] == ["PASS"] * 4
        assert all(v["attempts"] == 1 for v in o["variants"])
        log = (tmp_path / "logs" / f"{o['op']}_log.md").read_text()
        for phase in ["## Phase 1", "## Phase 2", "## Phase 3: correctness check", "## Phase 3: benchmark",
                      "## Phase 4"]:
            assert phase in log, phase
        assert "{{" not in log
        if not has_gpu():
            assert o["best"] is None and "no GPU" in o["note"]
    summary = (tmp_path / "logs" / "summary.md").read_text()
    assert "| softmax | 4/4 |" in summary and "| layer_norm | 4/4 |" in summary


def test_regeneration_retries_are_recorded_and_limited(tmp_path):
    assert ops(tmp_path, "softmax", *FAST).rc == 0
    v2 = tmp_path / "kernels" / "softmax" / "v2_tiling.py"
    good = v2.read_text()
    broken = good.replace("/ row_sum", "/ (row_sum + 1.0)")
    assert broken != good
    # A variant the agent broke is re-checked on the next run: its second attempt fails.
    v2.write_text(broken)
    r = ops(tmp_path, "softmax", *FAST, "--max-retries", "2", "--json")
    assert r.rc == 1
    validate(r.json(), "cli/ops.schema.json")
    assert attempts(tmp_path, "softmax", "v2_tiling") == [(1, "PASS"), (2, "FAIL")]
    assert "kgo ops --retry softmax/v2_tiling" in ops(tmp_path, "softmax", *FAST, "--max-retries", "2").out
    # Retrying an unchanged file is refused and records nothing.
    r = ops(tmp_path, "--retry", "softmax/v2_tiling", *FAST, "--max-retries", "2")
    assert r.rc == 3 and "unchanged" in r.err
    # The agent regenerates it (still wrong), then correctly.
    v2.write_text(broken + "\n# regenerated\n")
    r = ops(tmp_path, "--retry", "softmax/v2_tiling", *FAST, "--max-retries", "2")
    assert r.rc == 1
    v2.write_text(good)
    r = ops(tmp_path, "--retry", "softmax/v2_tiling", *FAST, "--max-retries", "2", "--json")
    assert r.rc == 1  # 2 retries used on a FAIL: the limit is reached, it stays failed
    assert "already used its 2 retries" in (r.out + r.err)
    assert attempts(tmp_path, "softmax", "v2_tiling") == [(1, "PASS"), (2, "FAIL"), (3, "FAIL")]


def test_retry_that_fixes_the_variant(tmp_path):
    assert ops(tmp_path, "softmax", *FAST).rc == 0
    v3 = tmp_path / "kernels" / "softmax" / "v3_coalesced.py"
    good = v3.read_text()
    v3.write_text(good.replace("tl.store(", "0 and tl.store(", 1))  # writes nothing
    r = ops(tmp_path, "softmax", *FAST)
    assert r.rc == 1
    v3.write_text(good)
    r = ops(tmp_path, "--retry", "softmax/v3_coalesced", *FAST, "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/ops.schema.json")
    v = next(x for x in j["ops"][0]["variants"] if x["name"] == "v3_coalesced")
    assert v["status"] == "PASS" and v["attempts"] == 3 and v["checked_now"]
    log = (tmp_path / "logs" / "softmax_log.md").read_text()
    assert "| v3_coalesced | PASS | 3 |" in log


def test_existing_kernels_are_not_overwritten(tmp_path):
    folder = tmp_path / "kernels" / "gelu"
    folder.mkdir(parents=True)
    mine = "# my own v1\n" + (SOURCE_DIR / "templates" / "ops" / "gelu" / "v1_baseline.py").read_text()
    (folder / "v1_baseline.py").write_text(mine)
    r = ops(tmp_path, "gelu", *FAST, "--json")
    assert r.rc == 0, r.err
    assert (folder / "v1_baseline.py").read_text() == mine
    assert "kernels/gelu/v1_baseline.py" not in r.json()["ops"][0]["created"]


def test_op_without_template_gets_failing_skeletons(tmp_path):
    r = ops(tmp_path, "my_op", *FAST, "--json")
    assert r.rc == 1
    j = r.json()
    validate(j, "cli/ops.schema.json")
    text = (tmp_path / "kernels" / "my_op" / "v1_baseline.py").read_text()
    assert "def triton_my_op(" in text and "{{" not in text
    assert all(v["status"] != "PASS" for v in j["ops"][0]["variants"])


def test_bad_ops_usage(tmp_path):
    assert ops(tmp_path, "--device", "cpu").rc == 3
    assert ops(tmp_path, "soft/max", "--device", "cpu").rc == 3
    assert ops(tmp_path, "--retry", "softmax", "--device", "cpu").rc == 3
    assert ops(tmp_path, "--retry", "softmax/v9", "--device", "cpu").rc == 3
    assert ops(tmp_path, "--retry", "softmax/v2_tiling", "--device", "cpu").rc == 3  # never run


@pytest.mark.skipif(not has_gpu(), reason="timing the variants needs a GPU")
def test_gpu_ops_pick_fastest_correct(tmp_path):
    r = ops(tmp_path, "softmax", "--size", "1024x1024", "--runs", "5", "--json", timeout=1800)
    assert r.rc == 0, r.err
    o = r.json()["ops"][0]
    finals = {v["name"]: v["final_us"] for v in o["variants"]}
    assert o["best"] == min(finals, key=finals.get)
    assert o["eager_final_us"] > 0
