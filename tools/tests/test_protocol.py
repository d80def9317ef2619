"""The protocol itself: one-shot CLI exit codes and schemas, invalid requests, env, catalog, run-once,
and the warm worker of `serve`."""
# ctest-cost: 10
import json
import os
import sys

from conftest import SCHEMAS, TEMPLATES, kernel, run_cli, validate


def test_request_schema_is_valid_and_matches_defaults():
    import pytest
    jsonschema = pytest.importorskip("jsonschema")
    from kgo_harness import protocol
    schema = json.loads((SCHEMAS / "request.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    full = dict(protocol.DEFAULTS, command="bench", kernel="k.py", bench=protocol.BENCH_DEFAULTS,
                total_timeout_s=60.0, run_once={"warmup": 1, "nvtx": "kgo_run"})
    jsonschema.Draft202012Validator(schema).validate(full)


def test_one_shot_check_pass(tmp_path):
    rc, res, err = run_cli("check", {"kernel": str(TEMPLATES / "gelu" / "v4_optimized.py"), "op": "gelu",
                                     "device": "cpu", "trials": 1, "shapes": [[8, 64]], "edge_shapes": False})
    assert rc == 0 and res["verdict"] == "PASS", err[-2000:]
    validate(res)
    assert len(res["kernel_sha256"]) == 64 and res["worker"]["warm"] is False
    assert "kgo-harness:" in err  # progress goes to stderr, never stdout


def test_invalid_requests_exit_2():
    rc, res, _ = run_cli("check", "not json")
    assert rc == 2 and res["verdict"] == "ERROR" and "JSON" in res["error"]
    rc, res, _ = run_cli("check", {"kernel": "/no/such/kernel.py"})
    assert rc == 2 and "does not exist" in res["message"]
    rc, res, _ = run_cli("bench", {"kernel": kernel("seed_add.py"), "trials": 0})
    assert rc == 2 and "trials" in res["message"]
    rc, res, _ = run_cli("check", {"command": "bench", "kernel": kernel("seed_add.py")})
    assert rc == 2 and "agree" in res["message"]
    validate(res)


def test_env_and_catalog(harness):
    env = harness(command="env", device="cpu")
    assert env["verdict"] == "PASS" and env["torch"] and env["triton"] and env["interpreter"] is True
    assert "nvcc" in env and "ncu" in env and env["ready"] is True
    cat = harness(command="catalog")
    names = {op["name"] for op in cat["ops"]}
    assert {"softmax", "layer_norm", "gelu", "add"} <= names
    ln = next(op for op in cat["ops"] if op["name"] == "layer_norm")
    assert ln["entry"] == "triton_layer_norm" and "aliases" not in ln  # aliases live in kgo's catalog


def _processes_of(command, request):
    """Runs `kgo_harness <command>` once (python -I, as kgo does) and returns the command lines of every process
    it started (the supervisor's descendants), seen by polling /proc until it exits; each lives for seconds."""
    import subprocess
    import time
    from conftest import ENTRY, ROOT
    proc = subprocess.Popen([sys.executable, "-I", str(ENTRY), command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    proc.stdin.write(json.dumps(request).encode())
    proc.stdin.close()
    reads = {}   # pid -> every command line read from it, in order
    while proc.poll() is None:
        kids = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    kids.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(pid))
            except OSError:
                pass
        todo = [proc.pid]
        while todo:
            for child in kids.get(todo.pop(), []):
                todo.append(child)
                try:
                    with open(f"/proc/{child}/cmdline", "rb") as f:   # every read: the first may precede exec
                        text = f.read()
                except OSError:
                    continue
                if text:   # empty once the process is a zombie
                    reads.setdefault(child, []).append(tuple(text.split(b"\0")))
        time.sleep(0.01)
    proc.stdout.read()
    # A process is what its last read shows. A child the judge forks to exec a program (ctypes' `ldconfig -p`) shows the
    # judge's command line until its exec: one still showing it counts as the judge or a fork of it (a template, a
    # kernel process: they live for the whole request) only where three reads or more showed it.
    out = []
    for seq in reads.values():
        if b"__worker__" not in seq[-1]:
            out.append(set(seq[-1]))
        elif sum(b"__worker__" in a for a in seq) >= 3:
            out.append(set().union(*seq))
    return out


def _judges(processes):
    """The processes with the judge's command line: the judge and its forks (template, cells)."""
    return sum(b"__worker__" in argv for argv in processes)


def _roles(processes):
    return sorted({arg.decode() for argv in processes for arg in argv if arg in (b"__worker__", b"__kernel__")})


def test_a_one_shot_request_that_runs_no_kernel_starts_no_kernel_process():
    """env is answered by the judge alone: no kernel process nor template is started beside it (a fork of the judge
    keeps its command line): each would cost a process for nothing. The catalog is static tables, which the
    supervisor answers without torch: no judge either (a judge start imports torch, about 2 s of CPU)."""
    seen = _processes_of("env", {"command": "env", "device": "cuda"})
    assert _roles(seen) == ["__worker__"] and _judges(seen) == 1
    seen = _processes_of("catalog", {"command": "catalog", "device": "cuda"})
    assert _roles(seen) == [] and _judges(seen) == 0
    # The probe sees a kernel process where one is started: a check's judge forks its template and a cell.
    seen = _processes_of("check", {"command": "check", "kernel": str(TEMPLATES / "add" / "v1_baseline.py"),
                                   "op": "add", "device": "cuda"})
    assert _judges(seen) > 1


def test_run_once_reports_launches(harness):
    res = harness(command="run-once", kernel=str(TEMPLATES / "softmax" / "v4_optimized.py"), op="softmax",
                  device="cpu", shapes=[[4, 32]])
    assert res["verdict"] == "PASS" and res["launches"] == ["_softmax_persistent"]


def test_serve_keeps_worker_warm(harness):
    req = dict(kernel=str(TEMPLATES / "add" / "v1_baseline.py"), op="add", device="cpu", trials=1,
               shapes=[[4, 32]], edge_shapes=False)
    harness(**req)
    second = harness(**req)
    assert second["worker"]["warm"] is True and second["timing"]["import_s"] == 0.0
    assert second["timing"]["worker_start_s"] == 0.0


def test_judge_profile_for_developers(tmp_path, monkeypatch):
    """KGO_HARNESS_PROFILE=FILE writes the judge's cProfile stats there when it exits (the whole run), and each
    request's own to FILE.<n>."""
    import pstats
    out = tmp_path / "judge.prof"
    monkeypatch.setenv("KGO_HARNESS_PROFILE", str(out))
    rc, res, err = run_cli("check", {"kernel": str(TEMPLATES / "gelu" / "v4_optimized.py"), "op": "gelu",
                                     "device": "cpu", "shapes": [[8, 64]], "edge_shapes": False, "trials": 1})
    assert rc == 0 and res["verdict"] == "PASS", err
    names = {f[2] for f in pstats.Stats(str(out)).stats}
    assert "run_check" in names, sorted(names)[:20]
    first = {f[2] for f in pstats.Stats(str(out) + ".1").stats}
    assert "run_check" in first, sorted(first)[:20]


def test_catalog_is_answered_without_a_judge_and_leaves_the_warm_one_alone(harness):
    """The op table is static and names no device: the supervisor answers it without a judge, so a catalog request
    neither starts one nor restarts a CPU worker as a CUDA one (it cost `kgo ops --device cpu` two judge starts)."""
    first = harness(command="env", device="cpu")
    res = harness(command="catalog")
    assert res["verdict"] == "PASS" and res["ops"], res.get("message")
    assert res["worker"]["pid"] is None
    after = harness(command="env", device="cpu")
    assert after["worker"]["warm"] is True and after["worker"]["pid"] == first["worker"]["pid"], after["worker"]


def test_the_triton_version_is_read_without_importing_triton_where_its_metadata_describes_it(tmp_path):
    """Every result's environment names Triton's version; a judge reads it from the installed metadata (no import
    of Triton, which it never needs) only when that metadata describes the files `import triton` would load."""
    import os
    import subprocess
    import sys
    from conftest import TOOLS
    tools = str(TOOLS)
    probe = ("import sys; from kgo_harness.judge import envinfo; v = envinfo.triton_version(); "
             "print(v, 'triton' in sys.modules)")

    def run(*path):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, path), tools]))
        return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True).stdout.split()

    installed = subprocess.run([sys.executable, "-c", "import triton; print(triton.__version__)"],
                               capture_output=True, text=True).stdout.strip()
    assert run() == [installed, "False"]
    shadow = tmp_path / "triton"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("__version__ = '0.0-shadow'\n")
    assert run(tmp_path) == ["0.0-shadow", "True"]   # another Triton first on the path: the module's own version
