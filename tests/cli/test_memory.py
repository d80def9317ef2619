"""`kgo memory` verbs on real workspaces: typed updates, measured-field refusals, masking, diff."""
# ctest-cost: 2
import json

import pytest

from conftest import git, run_kgo, validate
from iteration_helpers import kgo_ok, record, records_valid, stamp, subjects


def test_create_list_latest_numbering(workspace):
    for expect in ["v0", "v1", "v2"]:
        out = kgo_ok("memory", "create", "--workspace", workspace, "--json").json()
        validate(out, "cli/memory.schema.json")
        assert out["version"] == expect
    assert kgo_ok("memory", "create", "v7", "--workspace", workspace).rc == 0
    assert kgo_ok("memory", "create", "--workspace", workspace, "--json").json()["version"] == "v8"
    again = run_kgo("memory", "create", "v1", "--workspace", workspace)
    assert again.rc == 17 and "already exists" in again.err
    listing = kgo_ok("memory", "list", "--workspace", workspace, "--json").json()
    validate(listing, "cli/memory.schema.json")
    assert [r["version"] for r in listing["records"]] == ["v0", "v1", "v2", "v7", "v8"]
    assert kgo_ok("memory", "latest", "--workspace", workspace).out.strip() == "v8"
    records_valid(workspace)


def test_records_match_the_schema_for_an_independent_validator(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    stamp(workspace, "v0", "PASS", 12.5, 1650.0)
    rec = record(workspace, "v0")
    validate(rec, "iteration.schema.json")
    assert rec["correctness"]["stamp"]["tool"] == "kgo_test_stamp"
    assert len(rec["correctness"]["stamp"]["kernel_sha256"]) == 64
    assert rec["performance"]["comparison_with_previous"] is None


def test_read_field_and_all(workspace):
    for _ in range(3):
        kgo_ok("memory", "create", "--workspace", workspace)
    one = kgo_ok("memory", "read", "v1", "--workspace", workspace, "--json").json()
    validate(one, "cli/memory.schema.json")
    assert one["records"][0]["record"]["version"] == "v1"
    field = kgo_ok("memory", "read", "v0", "--field", "optimization.action_category", "--workspace", workspace)
    assert field.out.strip() == "baseline"
    every = kgo_ok("memory", "read", "--field", "version", "--workspace", workspace, "--json").json()
    assert [r["value"] for r in every["records"]] == ["v0", "v1", "v2"]
    missing = run_kgo("memory", "read", "v0", "--field", "optimization.nothing", "--workspace", workspace)
    assert missing.rc == 3
    assert run_kgo("memory", "read", "v9", "--workspace", workspace).rc == 17
    assert run_kgo("memory", "read", "3", "--workspace", workspace).rc == 3


def test_update_types_values(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    env = '{"gpu": "NVIDIA H100", "driver": "550.54", "clocks": null, "torch": "2.5", "triton": "3.1", "cuda": "12.4"}'
    out = kgo_ok("memory", "update", "v0", "--set", f"environment={env}",
                 "--set", "environment.clocks.sm_mhz=1980", "--set", "environment.clocks.locked=true",
                 "--set", "environment.clocks.mem_mhz=2619.5", "--set", "environment.python=null",
                 "--set", "optimization.hypothesis=loads are scalar: vectorize",
                 "--set", 'optimization.rationale="42"', "--workspace", workspace, "--json").json()
    validate(out, "cli/memory.schema.json")
    rec = record(workspace, "v0")
    assert rec["environment"]["clocks"] == {"sm_mhz": 1980, "locked": True, "mem_mhz": 2619.5}
    assert rec["environment"]["python"] is None
    assert rec["optimization"]["hypothesis"] == "loads are scalar: vectorize"
    assert rec["optimization"]["rationale"] == "42"
    assert out["updated"][0] == "environment"


@pytest.mark.parametrize("field", ["correctness.status=PASS", "correctness={}", "performance.latency_us=1",
                                   "quality_gate.result=PASS", "git_commit=abc", "masked=true", "version=v9"])
def test_update_refuses_fields_kgo_owns(workspace, field):
    kgo_ok("memory", "create", "--workspace", workspace)
    before = (workspace / "memory" / "v0.json").read_bytes()
    r = run_kgo("memory", "update", "v0", "--set", field, "--workspace", workspace, "--json")
    assert r.rc == 3, r.err
    assert "refusing to write" in (r.out + r.err)
    validate(r.json(), "cli/error.schema.json")
    assert (workspace / "memory" / "v0.json").read_bytes() == before


def test_measured_field_message_names_the_tool(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    r = run_kgo("memory", "update", "v0", "--set", "correctness.status=PASS", "--workspace", workspace)
    assert "measured field" in r.err and "kgo check" in r.err
    r = run_kgo("memory", "update", "v0", "--set", "performance.tflops=9", "--workspace", workspace)
    assert "kgo bench" in r.err


def test_invalid_write_is_refused_naming_the_field(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    before = (workspace / "memory" / "v0.json").read_bytes()
    r = run_kgo("memory", "update", "v0", "--set", "profile_evidence.bottleneck_type=slow", "--workspace", workspace)
    assert r.rc == 16
    assert "'profile_evidence.bottleneck_type'" in r.err
    r = run_kgo("memory", "update", "v0", "--set", "optimization.typo=1", "--workspace", workspace)
    assert r.rc == 16 and "'optimization.typo' is not a known field" in r.err
    r = run_kgo("memory", "update", "v0", "--set", "no-equals-sign", "--workspace", workspace)
    assert r.rc == 3
    assert (workspace / "memory" / "v0.json").read_bytes() == before


def test_append_pitfall(workspace):
    kgo_ok("memory", "create", "--workspace", workspace)
    entry = {"error_type": "compilation", "error_message": "tl.load mask shape", "root_cause": "tail",
             "fix_applied": "mask offsets < n", "lesson": "always mask tails"}
    out = kgo_ok("memory", "append", "v0", "pitfalls_and_fixes", json.dumps(entry), "--workspace", workspace,
                 "--json").json()
    validate(out, "cli/memory.schema.json")
    assert out["length"] == 1
    assert record(workspace, "v0")["pitfalls_and_fixes"] == [entry]
    bad = run_kgo("memory", "append", "v0", "pitfalls_and_fixes", '{"error_type": "mystery"}', "--workspace", workspace)
    assert bad.rc == 16 and "pitfalls_and_fixes[1]" in bad.err
    assert run_kgo("memory", "append", "v0", "optimization", "{}", "--workspace", workspace).rc == 3
    assert run_kgo("memory", "append", "v0", "correctness", "{}", "--workspace", workspace).rc == 3
    assert len(record(workspace, "v0")["pitfalls_and_fixes"]) == 1


def test_mask_and_unmask_exactly_as_documented(workspace):
    for _ in range(4):
        kgo_ok("memory", "create", "--workspace", workspace)
    r = kgo_ok("memory", "mask", "v3", "--workspace", workspace, "--json")
    out = r.json()
    validate(out, "cli/memory.schema.json")
    assert out["changed"] == ["v3"] and len(out["commit"]) == 40
    assert subjects(workspace)[0] == "memory: mask v3"
    assert out["commit"] == git("rev-parse", "HEAD", cwd=workspace).stdout.strip()
    hidden = run_kgo("memory", "read", "v3", "--workspace", workspace)
    assert hidden.rc == 17 and "--include-masked" in hidden.err
    assert kgo_ok("memory", "read", "v3", "--include-masked", "--workspace", workspace, "--json").json()[
        "records"][0]["masked"] is True
    every = kgo_ok("memory", "read", "--workspace", workspace, "--json").json()
    assert [r["version"] for r in every["records"]] == ["v0", "v1", "v2"]
    summary = kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()
    validate(summary, "cli/memory.schema.json")
    assert [r["version"] for r in summary["records"]] == ["v0", "v1", "v2"]
    assert summary["masked_left_out"] == 1
    marked = kgo_ok("memory", "summary", "--include-masked", "--workspace", workspace)
    assert "v3 [masked]" in marked.out
    assert "1 masked record left out" in kgo_ok("memory", "summary", "--workspace", workspace).out
    assert "v3     MASKED" in kgo_ok("memory", "list", "--workspace", workspace).out
    assert kgo_ok("memory", "latest", "--workspace", workspace).out.strip() == "v2"
    assert kgo_ok("memory", "latest", "--include-masked", "--workspace", workspace).out.strip() == "v3"
    assert "Masked (discarded memory, kept out of planning): v3." in (workspace / "README.md").read_text()
    update = run_kgo("memory", "update", "v3", "--set", "optimization.hypothesis=x", "--workspace", workspace)
    assert update.rc == 17
    again = kgo_ok("memory", "mask", "v3", "--workspace", workspace, "--json").json()
    assert again["unchanged"] == ["v3"] and again["commit"] is None
    kgo_ok("memory", "unmask", "v3", "--workspace", workspace)
    assert subjects(workspace)[0] == "memory: unmask v3"
    assert kgo_ok("memory", "latest", "--workspace", workspace).out.strip() == "v3"
    assert record(workspace, "v3")["masked"] is False


def test_v0_cannot_be_masked_and_refusals_change_nothing(workspace):
    for _ in range(2):
        kgo_ok("memory", "create", "--workspace", workspace)
    log = subjects(workspace)
    r = run_kgo("memory", "mask", "v0", "--workspace", workspace)
    assert r.rc == 17 and "v0 is the baseline" in r.err
    r = run_kgo("memory", "mask", "v1", "v5", "--workspace", workspace)
    assert r.rc == 17 and "no record v5" in r.err
    assert record(workspace, "v1")["masked"] is False
    assert subjects(workspace) == log


def test_diff_two_records(workspace):
    for _ in range(3):
        kgo_ok("memory", "create", "--workspace", workspace)
    kgo_ok("memory", "update", "v2", "--set", "optimization.hypothesis=wider tiles", "--set",
           "optimization.action_category=tiling", "--workspace", workspace)
    kgo_ok("memory", "append", "v2", "references",
           '{"source_type": "gpu-wiki", "path_or_url": "docs/h100.md", "description": "smem"}', "--workspace", workspace)
    out = kgo_ok("memory", "diff", "v0", "v2", "--workspace", workspace, "--json").json()
    validate(out, "cli/memory.schema.json")
    changes = {c["path"]: c for c in out["changes"]}
    assert changes["optimization.hypothesis"] == {"path": "optimization.hypothesis", "change": "changed", "a": "",
                                                  "b": "wider tiles"}
    assert changes["optimization.action_category"]["a"] == "baseline"
    assert changes["references[0].path_or_url"]["change"] == "added"
    assert changes["version"]["b"] == "v2"
    text = kgo_ok("memory", "diff", "v0", "v2", "--workspace", workspace).out
    assert '~ optimization.hypothesis: "" -> "wider tiles"' in text
    kgo_ok("memory", "mask", "v1", "--workspace", workspace)
    assert run_kgo("memory", "diff", "v1", "v2", "--workspace", workspace).rc == 17
    assert kgo_ok("memory", "diff", "v1", "v2", "--include-masked", "--workspace", workspace).rc == 0


def test_workspace_from_cwd_and_no_workspace(workspace, tmp_path):
    assert kgo_ok("memory", "create", cwd=workspace / "memory").rc == 0
    r = run_kgo("memory", "list", cwd=tmp_path)
    assert r.rc == 8


def test_summary_follows_every_change_despite_its_cache(workspace):
    for _ in range(3):
        kgo_ok("memory", "create", "--workspace", workspace)
    first = kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()
    assert [r["action_category"] for r in first["records"]] == ["baseline", "", ""]
    assert (workspace / ".kgo" / "memory-summary-cache.json").is_file()
    kgo_ok("memory", "update", "v1", "--set", "optimization.action_category=tiling", "--workspace", workspace)
    path = workspace / "memory" / "v2.json"
    rec = json.loads(path.read_text())
    rec["optimization"]["action_category"] = "swizzl"  # a hand edit of the same length as another value
    path.write_text(json.dumps(rec, indent=2) + "\n")
    second = kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()
    assert [r["action_category"] for r in second["records"]] == ["baseline", "tiling", "swizzl"]
    rec["optimization"]["action_category"] = "abcdef"
    path.write_text(json.dumps(rec, indent=2) + "\n")
    assert kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()["records"][2]["action_category"] == "abcdef"
    (workspace / ".kgo" / "memory-summary-cache.json").write_text("{ torn")
    torn = kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()
    assert [r["action_category"] for r in torn["records"]] == ["baseline", "tiling", "abcdef"]
    assert len(json.loads((workspace / ".kgo" / "memory-summary-cache.json").read_text())["rows"]) == 3
    (workspace / "memory" / "v1.json").unlink()
    assert [r["version"] for r in kgo_ok("memory", "summary", "--workspace", workspace, "--json").json()["records"]] == \
        ["v0", "v2"]
    path.write_text("{ torn")
    r = run_kgo("memory", "summary", "--workspace", workspace)
    assert r.rc == 17 and "memory/v2.json is not a JSON object" in r.err
