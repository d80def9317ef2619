"""The protocol itself: one-shot CLI exit codes and schemas, invalid requests, env, catalog, run-once,
and the warm worker of `serve`."""
# ctest-cost: 22
import json
import os
import pathlib
import sys

import pytest

from conftest import ROOT, SCHEMAS, TEMPLATES, kernel, run_cli, validate


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
    it started (the supervisor's descendants), seen by polling /proc until it exits; each lives for seconds. Its judge
    starts as a fresh interpreter (KGO_JUDGE_FORK=0): one forked by the judges' template is not the supervisor's
    descendant (the template's tests below follow those)."""
    import subprocess
    import time
    from conftest import ENTRY, ROOT
    proc = subprocess.Popen([sys.executable, "-I", str(ENTRY), command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT,
                            env={**os.environ, "KGO_JUDGE_FORK": "0"})
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
        time.sleep(0.05)   # a scan of /proc costs milliseconds of CPU; the processes it looks for live for seconds
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


# --- the judges' template (forker_client.py, judge/forker.py) -------------------------------------------------
def _ppid(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _gone(pid, within=10.0):
    import time
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def template_env(socket_folder):
    """A private socket folder, so that this test's template is its own, and a short idle time."""
    return {"XDG_RUNTIME_DIR": str(socket_folder), "KGO_JUDGE_FORK": "auto", "KGO_JUDGE_FORK_IDLE_S": "2"}


def _template(env):
    """(pid, socket) of the one template serving `env`'s folder."""
    from conftest import alive_with
    sockets = list((pathlib.Path(env["XDG_RUNTIME_DIR"]) / "kgo").glob("judges-*.sock"))
    assert len(sockets) == 1, sockets
    pids = alive_with(str(sockets[0]))   # the template and its forks (judges, their templates, cells' roots)
    top = [p for p in pids if _ppid(p) not in pids]
    assert len(top) == 1, pids
    return top[0], sockets[0]


def test_judges_fork_from_one_template_that_ends_when_idle(tmp_path, template_env):
    """Judges of one import identity are forks of one template (torch imported once), which lives on between them
    and exits once idle; a KGO_* setting is no part of the identity, another variable is."""
    from conftest import Serve
    req = dict(kernel=str(ROOT / "examples" / "softmax" / "kernel.py"), op="softmax", device="cpu", trials=1,
               shapes=[[8, 64]], edge_shapes=False)
    first = Serve(tmp_path / "a.stderr", env=template_env)
    second = Serve(tmp_path / "b.stderr", env={**template_env, "KGO_CELL_TEST_SETTING": "x"})
    try:
        a, b = first(**req), second(**req)
        assert a["verdict"] == b["verdict"] == "PASS", (a["message"], b["message"])
        template, sock = _template(template_env)
        assert _ppid(a["worker"]["pid"]) == _ppid(b["worker"]["pid"]) == template
    finally:
        first.close()
        second.close()
    assert _gone(template), "the template outlived its idle time"
    assert not sock.exists()
    # Another variable makes another identity, so another template and socket (started as the first was).
    from kgo_harness import forker_client
    env = {**os.environ, **template_env}
    assert forker_client.identity({**env, "KGO_CELL_TEST_SETTING": "x"}, "cpu") == forker_client.identity(env, "cpu")
    # The caller's folder is no part of it either: a check from another workspace forks from the same template.
    elsewhere = {**env, "PWD": str(tmp_path), "OLDPWD": str(ROOT), "SHLVL": "7", "_": "/usr/bin/env"}
    assert forker_client.identity(elsewhere, "cpu") == forker_client.identity(env, "cpu")
    assert forker_client.identity({**env, "OMP_NUM_THREADS": "2"}, "cpu") != forker_client.identity(env, "cpu")


def test_a_forked_judge_dies_with_its_supervisor(tmp_path, template_env):
    """A forked judge is not its supervisor's child: the template kills it (and its cells with it) when the
    supervisor's connection closes, here by SIGKILL while the judge waits on a kernel's slow import (an idle judge
    would end anyway, at the end of its stdin)."""
    import time
    from conftest import Serve
    serve = Serve(tmp_path / "s.stderr", env=template_env)
    req = dict(kernel=str(ROOT / "examples" / "softmax" / "kernel.py"), op="softmax", device="cpu", trials=1,
               shapes=[[8, 64]], edge_shapes=False)
    judge = serve(**req)["worker"]["pid"]
    assert _ppid(judge) == _template(template_env)[0]
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(120)\n\ndef triton_softmax(x):\n    return x.softmax(-1)\n")
    serve.proc.stdin.write(json.dumps({**req, "command": "check", "kernel": str(slow)}) + "\n")
    serve.proc.stdin.flush()
    time.sleep(1.5)
    assert not _gone(judge, 0.1)
    serve.proc.kill()
    serve.proc.wait()
    assert _gone(judge, 5), "the judge outlived its supervisor"


def test_the_template_forks_nothing_without_its_key(tmp_path, template_env):
    """Connecting to the template's socket takes no read right (a kernel's cell could); a request without the key
    beside it is refused and no judge is forked."""
    import socket
    from conftest import Serve
    serve = Serve(tmp_path / "s.stderr", env=template_env)
    try:
        serve(command="env", device="cpu")
        template, sock = _template(template_env)
        before = _children_of(template)
        r, w = os.pipe()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(str(sock))
            spec = json.dumps({"device": "cpu", "kernels": False, "env": {}, "cwd": "/"}).encode()
            socket.send_fds(s, [b"0" * 64 + b"\n" + spec + b"\n"], [r, w, w])
            reply = s.makefile("rb").readline()
        os.close(r)
        os.close(w)
        assert b"refused" in reply and b"pid" not in reply, reply
        assert _children_of(template) == before
    finally:
        serve.close()


def test_a_failed_fork_request_leaves_no_descriptor_open(tmp_path, monkeypatch):
    """The supervisor makes two pipes for a forked judge; where the request fails (here the template's end closes
    before the request is sent), it closes all four ends and falls back to a judge of its own."""
    import socket
    from kgo_harness import forker_client
    ours, theirs = socket.socketpair()
    theirs.close()
    path = str(tmp_path / "judges-x.sock")
    (tmp_path / "judges-x.key").write_bytes(b"k" * 64 + b"\n")
    monkeypatch.setattr(forker_client, "folder", lambda: str(tmp_path))
    monkeypatch.setattr(forker_client, "_ensure", lambda base, env, device: (path, ours))
    r, w = os.pipe()
    before = set(os.listdir("/proc/self/fd"))
    try:
        assert forker_client.start({}, "cpu", False, w) is None
        assert set(os.listdir("/proc/self/fd")) <= before
    finally:
        os.close(r)
        os.close(w)


def _children_of(pid):
    out = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            out |= set(f.read().split())
    return out
