"""Answers sized for agents: status, memory read|list|update|append and wiki index are bounded
(at most --limit items per list), filterable, and say what they left out and how to get it."""
# ctest-cost: 1
import pytest

from conftest import FIXTURE_WIKI, git, needs_fixture, run_kgo, validate
from iteration_helpers import kgo_ok


def commits(ws, n):
    for i in range(n):
        (ws / "notes.txt").write_text(f"note {i}\n")
        git("add", "notes.txt", cwd=ws)
        git("commit", "-qm", f"note {i}", cwd=ws)


def records(ws, n):
    for _ in range(n):
        kgo_ok("memory", "create", "--workspace", ws)


def test_status_keeps_the_newest_and_says_what_it_left_out(workspace):
    commits(workspace, 12)
    records(workspace, 13)
    j = kgo_ok("status", "--workspace", workspace, "--json").json()
    validate(j, "cli/status.schema.json")
    assert len(j["commits"]) == 10 and j["commits"][0]["summary"] == "note 11"  # newest first
    assert [r["version"] for r in j["records"]] == [f"v{n}" for n in range(3, 13)]  # the newest records
    assert len(j["uncommitted"]) == 10
    every_commit = git("rev-list", "--count", "HEAD", cwd=workspace).stdout.strip()
    assert j["left_out"] == {"commits": int(every_commit) - 10, "records": 3, "uncommitted paths": 3}
    assert "--limit" in j["detail"] and "3 records" in j["detail"]
    full = kgo_ok("status", "--workspace", workspace, "--json", "--limit", "0").json()
    validate(full, "cli/status.schema.json")
    assert len(full["commits"]) == int(every_commit) and len(full["records"]) == 13
    assert "left_out" not in full and "detail" not in full
    assert kgo_ok("status", "--workspace", workspace, "--json", "--detail").json() == full
    text = kgo_ok("status", "--workspace", workspace, "--limit", "2").out
    assert "Records (13):" in text and "v12" in text and "v10" not in text
    assert "11 records" in text and "--limit N" in text


def test_status_parts_filter(workspace):
    records(workspace, 12)
    j = kgo_ok("status", "--workspace", workspace, "--json", "--part", "records", "--limit", "4").json()
    validate(j, "cli/status.schema.json")
    assert set(j) == {"workspace", "records", "left_out", "detail"}
    assert j["left_out"] == {"records": 8}  # the uncommitted paths it did not show are not counted
    bad = run_kgo("status", "--workspace", workspace, "--json", "--part", "everything")
    assert bad.rc == 3 and "config, commits, records, uncommitted" in bad.json()["error"]
    validate(bad.json(), "cli/error.schema.json")


def test_memory_update_and_append_answer_with_what_changed(workspace):
    records(workspace, 1)
    j = kgo_ok("memory", "update", "v0", "--set", "optimization.hypothesis=wider tiles", "--workspace", workspace,
               "--json").json()
    validate(j, "cli/memory.schema.json")
    assert j["updated"] == ["optimization.hypothesis"] and "record" not in j and "--detail" in j["detail"]
    full = kgo_ok("memory", "update", "v0", "--set", "optimization.rationale=why", "--workspace", workspace, "--json",
                  "--detail").json()
    validate(full, "cli/memory.schema.json")
    assert full["record"]["optimization"]["hypothesis"] == "wider tiles" and "detail" not in full
    entry = ('{"error_type": "compilation", "error_message": "m", "root_cause": "tail", "fix_applied": "mask",'
             ' "lesson": "mask tails"}')
    a = kgo_ok("memory", "append", "v0", "pitfalls_and_fixes", entry, "--workspace", workspace, "--json").json()
    validate(a, "cli/memory.schema.json")
    assert a["length"] == 1 and "record" not in a
    a = kgo_ok("memory", "append", "v0", "pitfalls_and_fixes", entry, "--workspace", workspace, "--json",
               "--detail").json()
    validate(a, "cli/memory.schema.json")
    assert len(a["record"]["pitfalls_and_fixes"]) == 2
    # a document with both (or neither) is not a valid update answer
    with pytest.raises(Exception):
        validate({**full, "detail": "x"}, "cli/memory.schema.json")


def test_memory_read_and_list_keep_the_newest(workspace):
    records(workspace, 14)
    r = kgo_ok("memory", "read", "--field", "version", "--workspace", workspace, "--json").json()
    validate(r, "cli/memory.schema.json")
    assert [x["value"] for x in r["records"]] == [f"v{n}" for n in range(4, 14)]
    assert r["left_out"] == {"older records": 4}
    r = kgo_ok("memory", "read", "--workspace", workspace, "--json", "--limit", "0").json()
    assert len(r["records"]) == 14 and "left_out" not in r
    one = kgo_ok("memory", "read", "v0", "--workspace", workspace, "--json", "--limit", "1").json()
    assert one["records"][0]["version"] == "v0"  # a named version is never cut
    lst = kgo_ok("memory", "list", "--workspace", workspace, "--json", "--limit", "3").json()
    validate(lst, "cli/memory.schema.json")
    assert [x["version"] for x in lst["records"]] == ["v11", "v12", "v13"] and lst["left_out"] == {"older records": 11}
    assert "11 older records left out" in kgo_ok("memory", "list", "--workspace", workspace, "--limit", "3").out


def wiki(*args):
    return run_kgo("wiki", "index", "--wiki", FIXTURE_WIKI, *args)


@needs_fixture
def test_wiki_index_is_bounded_and_filterable():
    every = wiki("--json", "--detail").json()
    validate(every, "cli/wiki-index.schema.json")
    n = every["matched"]
    assert n == len(every["facts"]) > 50 and "left_out" not in every
    j = wiki("--json").json()
    validate(j, "cli/wiki-index.schema.json")
    assert j["facts"] == every["facts"][:10] and j["matched"] == n
    assert j["left_out"] == {"facts": n - 10} and "--platform" in j["detail"]
    h100 = wiki("--json", "--platform", "H100", "--metric", "HBM bandwidth", "--limit", "0").json()
    validate(h100, "cli/wiki-index.schema.json")
    expect = [f for f in every["facts"] if f["product"] == "H100 SXM" and f["metric"] == "hbm_bandwidth"]
    assert h100["facts"] == expect and h100["matched"] == len(expect) >= 1
    notes = wiki("--json", "--kind", "notes", "--limit", "0").json()
    assert notes["facts"] == [f for f in every["facts"] if f["kind"] == "notes"]
    text = wiki("--limit", "3")
    assert text.rc == 0 and len(text.out.splitlines()) == 3 + 2  # facts, the wiki, what was left out
    assert text.out.splitlines()[-1].startswith(f"{n - 3} facts left out")
    bad = wiki("--json", "--kind", "rumour")
    assert bad.rc == 3 and "datasheet, measured or notes" in bad.json()["error"]
    assert wiki("--metric", "flux capacitance").rc == 12
    assert wiki("--platform", "Z9000").rc == 11
