"""`kgo check` on real workspaces with the real harness in Triton-interpreter mode (--device cpu)."""
# ctest-cost: 26
import os
import shutil
import stat
import time

import pytest

from conftest import SOURCE_DIR, attack_kernels, run_kgo, validate
from planted import CPU, GOOD, abort, check, record, segfault, sha256, sleeper, wrong


def test_pass_on_example_softmax_records_stamped_pass(workspace):
    r = check(workspace, "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "PASS" and j["device"] == "cpu"
    assert j["harness"]["environment"]["interpreter"] is True
    assert j["kernel_sha256"] == sha256(workspace / "kernel.py") == j["harness"]["kernel_sha256"]
    rec = record(workspace)
    assert rec["correctness"]["status"] == "PASS"
    assert rec["correctness"]["stamp"]["kernel_sha256"] == sha256(workspace / "kernel.py")
    assert rec["correctness"]["stamp"]["tool"] == "kgo check"
    assert 0 <= rec["correctness"]["rel_err"] <= rec["correctness"]["threshold"]
    assert rec["environment"]["torch"]


def test_stamp_covers_kernel_and_reference_and_an_edited_reference_is_refused(workspace):
    r = check(workspace)
    assert r.rc == 0, r.err
    stamp = record(workspace)["correctness"]["stamp"]
    assert {s["path"]: s["sha256"] for s in stamp["sources"]} == {
        "kernel.py": sha256(workspace / "kernel.py"), "ref.py": sha256(workspace / "ref.py")}
    assert len(stamp["mac"]) == 64
    ref = workspace / "ref.py"
    ref.write_text(ref.read_text().replace("return", "return 0 * ", 1))
    r = check(workspace)
    assert r.rc == 5 and "differs from its committed version" in r.err and "git checkout -- ref.py" in r.err


def test_allow_op_lets_named_aten_ops_count_as_the_kernels_own(workspace):
    decomposed = attack_kernels() / "hack_decomposed.py"
    (workspace / "kernel.py").write_text(decomposed.read_text())
    r = check(workspace, "--no-record", "--json")
    assert r.rc == 1
    msg = r.json()["harness"]["delegation"]["message"]
    assert "aten::exp" in msg and "--allow-op NAME" in msg
    allowed = [a for op in ("amax", "sub", "exp", "sum", "div") for a in ("--allow-op", op)]
    r = check(workspace, "--no-record", "--json", *allowed)
    assert r.rc == 0, r.err
    assert r.json()["verdict"] == "PASS"


def test_memory_limit_caps_the_kernels_process(workspace):
    hog = ("\n\ndef _holding(fn):\n"
           "    def run(x):\n"
           "        held = torch.empty(768 << 20, dtype=torch.uint8)  # 768 MiB of address space\n"
           "        out = fn(x)\n"
           "        del held\n"
           "        return out\n"
           "    return run\n\n\n"
           "triton_softmax = _holding(triton_softmax)\n")
    (workspace / "kernel.py").write_text((workspace / "kernel.py").read_text() + hog)
    r = check(workspace, "--no-record", "--json", "--memory-limit", "256")
    assert r.rc != 0 and r.json()["verdict"] == "CRASH", r.out
    assert "cap: 256 MiB" in r.json()["message"] and "--memory-limit" in r.json()["message"], r.json()["message"]
    r = check(workspace, "--no-record", "--json")  # the default cap leaves room for it
    assert r.rc == 0 and r.json()["verdict"] == "PASS", r.out
    assert run_kgo("check", "--workspace", workspace, *CPU, "--memory-limit", "0").rc == 3


def test_text_report_has_per_case_table(workspace):
    r = check(workspace, "--trials", "2")
    assert r.rc == 0, r.err
    assert "| shape | trial | status | max abs err |" in r.out
    assert "| 8x33 | 0 | PASS |" in r.out and "| 8x33 | 1 | PASS |" in r.out
    assert "verdict: PASS" in r.out and "recorded: memory/v0.json" in r.out


def test_wrong_kernel_fails_and_is_never_recorded_as_pass(workspace):
    (workspace / "kernel.py").write_text(wrong())
    r = check(workspace, "--json")
    assert r.rc == 1
    assert "check FAILED" in (r.out + r.err)
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "FAIL"
    case = j["harness"]["cases"][0]
    assert case["status"] == "FAIL" and case["mismatches"] > 0 and case["first_bad_index"] is not None
    rec = record(workspace)
    assert rec["correctness"]["status"] == "FAIL"
    assert rec["correctness"]["stamp"]["kernel_sha256"] == sha256(workspace / "kernel.py")


def test_json_default_is_a_summary_with_failures_only(workspace):
    """`check --json` is sized for an agent: verdict, key figures, failing cases only; --detail has everything."""
    r = check(workspace, "--json", "--trials", "2", "--no-record", detail=False)
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "PASS" and j["cases"] == {"total": 2, "passed": 2, "failed": 0, "skipped": 0} and j["failures"] == []
    assert "harness" not in j and "correctness" not in j and "--detail" in j["detail"]
    assert 0 <= j["rel_err"] <= j["threshold"]
    full = check(workspace, "--json", "--trials", "2", "--no-record").json()
    validate(full, "cli/check.schema.json")
    assert len(full["harness"]["cases"]) == 2 and full["cases"] == j["cases"]
    assert len(r.out) * 3 < len(full.__repr__())
    (workspace / "kernel.py").write_text(wrong())
    r = check(workspace, "--json", "--trials", "2", "--no-record", detail=False)
    assert r.rc == 1
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "FAIL" and j["cases"]["failed"] == len(j["failures"]) == 2
    f = j["failures"][0]
    assert f["status"] == "FAIL" and f["shape"] == [8, 33] and f["mismatches"] > 0 and f["first_bad_index"] is not None


@pytest.mark.parametrize("planted, signal_name", [(segfault, "SIGSEGV"), (abort, "SIGABRT")])
def test_crashing_kernel_is_a_verdict_not_a_kgo_crash(workspace, planted, signal_name):
    (workspace / "kernel.py").write_text(planted())
    r = check(workspace, "--json")
    assert r.rc == 1, r.err
    assert "check CRASHED" in (r.out + r.err) and "internal error" not in (r.out + r.err)
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "CRASH"
    assert signal_name in j["message"]
    rec = record(workspace)
    assert rec["correctness"]["status"] == "FAIL"
    assert rec["correctness"]["details"]["verdict"] == "CRASH"


def test_sleeping_kernel_times_out(workspace):
    (workspace / "kernel.py").write_text(sleeper())
    start = time.monotonic()
    r = check(workspace, "--case-timeout", "3", "--timeout", "30", "--json")
    assert time.monotonic() - start < 60
    assert r.rc == 1
    assert "check TIMED OUT" in (r.out + r.err)
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "TIMEOUT_FAIL"
    assert record(workspace)["correctness"]["status"] == "TIMEOUT_FAIL"


def _tree(pid):
    """pid and all its live descendants, from /proc."""
    kids = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            kids.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _forked_judges(runtime):
    """The live processes forked by the judges' template of the socket folder `runtime` (judges and their cells)."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{entry}/cmdline", "rb").read()
            ppid = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError):
            continue
        if b"__forker__" in cmd and str(runtime).encode() in cmd:
            found[int(entry)] = ppid
    templates = [p for p, parent in found.items() if parent not in found]
    return [p for t in templates for p in _tree(t)]


@pytest.mark.parametrize("sig,fork", [("SIGTERM", "0"), ("SIGTERM", "auto"), ("SIGINT", "auto")])
def test_a_signal_to_kgo_ends_the_whole_harness(workspace, socket_folder, sig, fork):
    """Also where the judge is a fork of the judges' template (KGO_JUDGE_FORK=auto), not a descendant of kgo."""
    import signal
    import subprocess
    from conftest import KGO_BIN, SOURCE_DIR
    (workspace / "kernel.py").write_text(sleeper())
    runtime = socket_folder
    env = dict(os.environ, KGO_DATA_DIR=str(SOURCE_DIR), KGO_HARNESS_DAEMON="0", KGO_JUDGE_FORK=fork,
               XDG_RUNTIME_DIR=str(runtime))
    # SIGINT as a terminal would deliver it: a shell without job control starts background commands with it ignored,
    # which kgo, like any program, keeps.
    proc = subprocess.Popen([KGO_BIN, "check", "--workspace", str(workspace), *CPU, "--trials", "1"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 240
    # supervisor, judge, kernel process
    while time.monotonic() < deadline and len(_tree(proc.pid) + _forked_judges(runtime)) < 3:
        time.sleep(0.5)
    harness = _tree(proc.pid) + _forked_judges(runtime)
    assert len(harness) >= 3, "the harness did not start its processes"
    proc.send_signal(getattr(signal, sig))
    proc.wait(timeout=30)
    for _ in range(100):
        alive = [p for p in harness if os.path.exists(f"/proc/{p}") and
                 open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, f"harness processes outlived kgo: {alive}"


def _fake_python(tmp_path, body):
    path = tmp_path / "fakepython"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_harness_killed_by_a_signal_becomes_crash(workspace, tmp_path):
    fake = _fake_python(tmp_path, "cat > /dev/null; kill -SEGV $$")
    r = check(workspace, "--python", fake, "--json")
    assert r.rc == 1, r.err
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "CRASH" and j["synthesized"] is True
    assert "signal 11" in j["message"]


def test_harness_without_result_is_a_harness_error(workspace, tmp_path):
    fake = _fake_python(tmp_path, "cat > /dev/null; echo 'Traceback: boom' >&2; exit 1")
    r = check(workspace, "--python", fake)
    assert r.rc == 20
    assert "without a result" in r.err and "Traceback: boom" in r.err
    assert not (workspace / "memory" / "v0.json").exists()


def test_interpreter_order_flag_then_env(workspace, tmp_path):
    log = tmp_path / "used"
    wrapper = _fake_python(tmp_path, f'echo env >> {log}\nexec python3 "$@"')
    r = check(workspace, env={"KGO_PYTHON": str(wrapper)})
    assert r.rc == 0, r.err
    assert log.read_text() == "env\n"
    r = run_kgo("check", "--workspace", workspace, *CPU, "--python", tmp_path / "nope")
    assert r.rc == 20
    assert "--python" in r.err and "nope" in r.err
    r = run_kgo("check", "--workspace", workspace, *CPU, env={"KGO_PYTHON": str(tmp_path / "nope")})
    assert r.rc == 20 and "$KGO_PYTHON" in r.err


def test_kernel_edited_during_check_is_refused(workspace, tmp_path):
    # The interpreter wrapper edits the kernel before the harness reads it: hashes disagree.
    k = workspace / "kernel.py"
    wrapper = _fake_python(tmp_path, f'echo "# edited" >> {k}\nexec python3 "$@"')
    r = check(workspace, "--python", wrapper)
    assert r.rc == 17
    assert "sha256" in r.err
    assert not (workspace / "memory" / "v0.json").exists() or record(workspace)["correctness"] is None


def test_decided_record_is_left_alone(workspace):
    r = run_kgo("baseline", "--workspace", workspace, *CPU, "--quiet")
    assert r.rc == 0, r.err
    before = (workspace / "memory" / "v0.json").read_text()
    (workspace / "kernel.py").write_text(GOOD + "\n# next idea\n")
    r = check(workspace)
    assert r.rc == 0, r.err
    assert "not recorded: v0 is already decided" in r.out
    assert (workspace / "memory" / "v0.json").read_text() == before


def test_bad_options(workspace, tmp_path):
    assert run_kgo("check", "--workspace", workspace, "--device", "tpu").rc == 3
    assert run_kgo("check", "--workspace", workspace, *CPU, "--arg", "novalue").rc == 3
    assert run_kgo("check", "--workspace", workspace, *CPU, "--timeout", "0").rc == 3
    assert run_kgo("check", "--workspace", tmp_path, *CPU).rc == 8
    os.remove(workspace / "kernel.py")
    assert run_kgo("check", "--workspace", workspace, *CPU).rc == 5


def _harness_with_planted_check(tmp_path):
    """A kgo data dir identical to the source tree but for one more entry in tools/kgo_harness/judge/checks.py."""
    data = tmp_path / "data"
    (data / "tools").mkdir(parents=True)
    for p in SOURCE_DIR.iterdir():
        if p.name not in ("tools", "build") and not p.name.startswith("."):
            (data / p.name).symlink_to(p)
    for p in (SOURCE_DIR / "tools").iterdir():
        if p.name != "kgo_harness":
            (data / "tools" / p.name).symlink_to(p)
    shutil.copytree(SOURCE_DIR / "tools" / "kgo_harness", data / "tools" / "kgo_harness",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(data / "tools" / "kgo_harness" / "judge" / "checks.py", "a") as f:
        f.write('\n\n@check("planted", "a check added by one registry entry")\n'
                'def planted(ev):\n'
                '    return {"checked": True, "passed": False, "message": "planted failure", "seen": len(ev.cases)}\n')
    return data


def test_a_new_harness_check_is_one_registry_entry(workspace, tmp_path):
    """kgo names no check: an entry added to the harness's registry alone fails the check, is printed,
    reaches --json (schema-valid) and the record, with its details."""
    env = {"KGO_DATA_DIR": str(_harness_with_planted_check(tmp_path))}
    r = check(workspace, env=env)
    assert r.rc == 1
    assert "planted: planted failure" in r.out and "determinism: " in r.out
    r = check(workspace, "--json", env=env)
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "FAIL" and j["harness"]["culprit"] == "planted"
    details = {c["name"]: c for c in record(workspace)["correctness"]["details"]["checks"]}
    assert details["planted"]["passed"] is False and details["planted"]["details"]["seen"] == 1
    assert details["delegation"]["passed"] is True and details["delegation"]["details"]["own_launches"] > 0
    assert run_kgo("check", "--workspace", workspace, *CPU, "--trials", "1").rc == 0  # the real harness: PASS


def test_a_kernel_no_cell_can_confine_is_refused_unless_unconfined(workspace):
    """Where no cell can confine the kernel (KGO_CELL=off stands in for a machine without namespaces or Landlock),
    check refuses with its own exit code and names --unconfined; with it the verdict and the record say so."""
    cold = {"KGO_CELL": "off", "KGO_HARNESS_DAEMON": "0"}
    r = check(workspace, env=cold)
    assert r.rc == 26 and "--unconfined" in r.err, (r.rc, r.err)
    r = check(workspace, "--unconfined", env=cold)
    assert r.rc == 0, r.err
    cell = record(workspace)["correctness"]["details"]["cell"]
    assert cell["unconfined"] is True and cell["confinement"] == "none (unconfined)"
    r = check(workspace)
    assert r.rc == 0, r.err
    cell = record(workspace)["correctness"]["details"]["cell"]
    assert cell["unconfined"] is False and "landlock" in cell["confinement"]
