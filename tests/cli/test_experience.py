"""`kgo experience` end to end: accept / reject add records computed from stamped measurements (plus a
ledger line when a plan follows advice), predicted vs measured in the record and README, recommend from
the workspace, vocabulary refusal, concurrent writers through the CLI, merge, sync and stats."""
# ctest-cost: 2
import json
import subprocess

import pytest

from conftest import KGO_BIN, run_kgo, validate
from iteration_helpers import kgo_ok, learning_session, record, stamp
from profiling_fakes import DATA, fake_env, fake_ncu, fake_smi


@pytest.fixture
def tools(tmp_path):
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake_smi(bindir)
    return bindir


@pytest.fixture
def store(tmp_path):
    return tmp_path / "experience"


def entries(store):
    return [json.loads(l) for l in (store / "experience.jsonl").read_text().splitlines()]


def session(ws, tools, store, steps):
    env = {**fake_env(tools), "KGO_EXPERIENCE_DIR": str(store)}
    return learning_session(ws, env, steps, lambda: fake_ncu(tools, csv=DATA / "h200_softmax_ncu_raw.csv"))


def test_accept_and_reject_learn_from_stamped_measurements(workspace, tools, store, monkeypatch):
    monkeypatch.setenv("KGO_EXPERIENCE_DIR", str(store))
    outs = session(workspace, tools, store, [("vectorized_load", 80.0, "accept", "none"),
                                             ("swizzle", 99.0, "reject", "vectorized_load@softmax/sm_90/memory")])
    for o in outs:
        validate(o, "cli/iterate.schema.json")
    assert outs[0]["experience"].startswith("no experience record: no accepted record before v0")
    assert outs[1]["experience"].endswith("(success)") and outs[2]["experience"].endswith("(failure)")
    got = entries(store)
    assert [(e["action_category"], e["outcome"]) for e in got] == [("vectorized_load", "success"), ("swizzle", "failure")]
    first = got[0]
    assert (first["kernel_class"], first["arch"], first["bottleneck"], first["language"], first["dtype"]) == \
        ("softmax", "sm_90", "memory", "triton", "fp32")
    assert first["speedup"] == pytest.approx(100 / 80)
    assert first["change"] == "vectorized_load in the row loop"
    assert first["evidence"][0].endswith("(profiles/v0/profile.json)")
    assert first["roofline_pct_after"] > first["roofline_pct_before"]
    assert not any("latency" in k or k.endswith("_us") for k in first)  # ratios only, never a time
    assert got[1]["followed"] == "vectorized_load@softmax/sm_90/memory"
    ledger = [json.loads(l) for l in (store / "ledger.jsonl").read_text().splitlines()]
    assert ledger == [{"recommendation": "vectorized_load@softmax/sm_90/memory", "plan": got[1]["source"],
                       "outcome": "failure", "speedup": pytest.approx(80 / 99), "recorded_at": got[1]["recorded_at"]}]
    # Predicted against measured, in the record and the README.
    p1 = record(workspace, "v1")["prediction"]
    assert p1["baseline"] == "v0"
    assert p1["checks"] == [{"metric": "latency_us", "predicted_pct": -15, "measured_pct": -20.0, "held": True}]
    p2 = record(workspace, "v2")["prediction"]["checks"][0]
    assert p2["measured_pct"] == pytest.approx(23.75) and p2["held"] is False
    readme = (workspace / "README.md").read_text()
    assert "latency_us -15% / -20.0% held" in readme and "latency_us -15% / +23.8% missed" in readme
    assert "Predictions: 1 of 2 held" in readme


def test_recommend_from_workspace_ranks_and_warns(workspace, tools, store):
    session(workspace, tools, store, [("vectorized_load", 80.0, "accept", "none"), ("swizzle", 99.0, "reject", "none")])
    r = run_kgo("experience", "recommend", "--from-workspace", "--workspace", workspace, "--store", store, "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/experience.schema.json")
    assert [a["action_category"] for a in j["advice"]] == ["vectorized_load"]
    assert j["advice"][0]["id"] == "vectorized_load@softmax/sm_90/memory"
    assert [w["action_category"] for w in j["warnings"]] == ["swizzle"]
    text = run_kgo("experience", "recommend", "--kernel-class", "softmax", "--arch", "sm_100", "--bottleneck", "memory",
                   "--store", store).out
    assert "1.25x" in text and "(0 on the same arch)" in text and " us" not in text


@pytest.mark.parametrize("flag,value,hint", [("--bottleneck", "memory_bound", "did you mean 'memory'"),
                                             ("--bottleneck", "memory-bound", "did you mean 'memory'"),
                                             ("--arch", "H200", "sm_90"), ("--kernel-class", "Softmax", "did you mean 'softmax'"),
                                             ("--dtype", "float32", "fp32")])
def test_unknown_vocabulary_is_refused_as_a_usage_error(store, flag, value, hint):
    r = run_kgo("experience", "recommend", flag, value, "--store", store, "--json")
    assert r.rc == 3, (r.rc, r.err)
    validate(r.json(), "cli/error.schema.json")
    assert hint in (r.out + r.err) and value in (r.out + r.err)
    assert not (store / "experience.jsonl").exists()


def test_add_refuses_unstamped_records_and_claims_cannot_be_made(workspace, store):
    kgo_ok("memory", "create", "--workspace", workspace)
    stamp(workspace, "v0", "PASS", 100.0)
    kgo_ok("iterate", "accept", "v0", "--workspace", workspace)
    kgo_ok("memory", "create", "--workspace", workspace)
    r = run_kgo("experience", "add", "v1", "--workspace", workspace, "--store", store)
    assert r.rc == 17 and "no stamped correctness verdict" in r.err
    assert run_kgo("experience", "add", "v1", "--outcome", "success", "--workspace", workspace, "--store", store).rc == 3


def test_concurrent_cli_writers_merge_sync_and_stats(workspace, tools, store):
    session(workspace, tools, store, [("vectorized_load", 80.0, "accept", "none")])
    procs = [subprocess.Popen([KGO_BIN, "experience", "add", "v1", "--workspace", str(workspace), "--store", str(store)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(12)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    got = entries(store)
    assert len(got) == 13  # one from the accept, twelve from the concurrent adds: none lost or torn
    m = kgo_ok("experience", "merge", "--store", store, "--json").json()
    validate(m, "cli/experience.schema.json")
    assert m["before"] == 13 and m["after"] == 1
    merged = entries(store)[0]
    assert merged["evidence_count"] == 13 and len(merged["speedups"]) == 13 and len(merged["sources"]) == 13
    s = kgo_ok("experience", "stats", "--store", store, "--json").json()
    validate(s, "cli/experience.schema.json")
    assert s["by_kernel_class"] == [{"key": "softmax", "records": 13, "successes": 13, "neutrals": 0, "failures": 0,
                                     "median_speedup": pytest.approx(1.25)}]
    y = kgo_ok("experience", "sync", "--store", store, "--json").json()
    md = (store / "EXPERIENCE.md").read_text()
    assert y["path"] == str(store / "EXPERIENCE.md")
    assert "| softmax | sm_90 | memory | triton | fp32 | vectorized_load | success | 1.25x |" in md
    found = kgo_ok("experience", "search", "row loop", "--store", store, "--json").json()
    assert found["total"] == 1
    assert kgo_ok("experience", "list", "--arch", "sm_80", "--store", store, "--json").json()["total"] == 0
