"""The kernel's cell (kgo_harness/cell/confine.py): attacks that reach past the kernel's process (tools/tests/kernels/cell/).
Each is caught by the cell; the `*_without_the_cell` tests run the same attack with the cell off (KGO_CELL=off and
an unconfined request) and show that it then lands, so each test here fails with its defence removed."""
# ctest-cost: 22
import contextlib
import os
import shutil
import pathlib
import socket
import sys
import threading
import time

import pytest

from conftest import KERNELS, ROOT, SMALL, Serve, needs_cuda, run_cli, vendor_stub

CELL = KERNELS / "cell"
OFF = {"KGO_CELL": "off"}


@pytest.fixture(scope="module")
def off(tmp_path_factory):
    """A warm harness with the cell off (KGO_CELL=off), for the attacks that must land without it: one judge start
    for them all, where each one-shot run started its own (a torch import, about 2 s of CPU)."""
    serve = Serve(tmp_path_factory.mktemp("off") / "serve.stderr", env=OFF)
    yield serve
    serve.close()


@contextlib.contextmanager
def judge(tmp_path, env):
    """A warm harness of this test's own environment for its few requests (one judge start, not one per request)."""
    serve = Serve(tmp_path / "judge.stderr", env=env)
    try:
        yield serve
    finally:
        serve.close()


def request(kernel, **extra):
    return dict(kernel=str(kernel), op="softmax", device="cpu", trials=1, shapes=SMALL, edge_shapes=False,
                delegation=False, **extra)


def written(tmp_path, name, **subst):
    text = (CELL / name).read_text()
    for key, value in subst.items():
        text = text.replace(key, value)
    path = tmp_path / name
    path.write_text(text)
    return path


def test_forged_verdict_cannot_reach_the_judge(harness):
    res = harness(**request(CELL / "hack_forge_verdict.py"))
    assert res["verdict"] == "FAIL", (res["verdict"], res["message"])
    assert res["cell"]["confinement"] != "none"


def test_forged_verdict_without_the_cell_is_caught_by_the_token(off):
    """With the cell off the kernel does reach the judge's channel; its line lacks the request's token."""
    res = off(**request(CELL / "hack_forge_verdict.py", unconfined=True))
    assert res["verdict"] == "REWARD_HACK" and "token" in res["message"], res["message"]


def _workspace(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".kgo").mkdir(parents=True)
    key = ws / ".kgo" / "stamp.key"
    key.write_bytes(os.urandom(32))
    key.chmod(0o600)
    return ws, written(ws, "hack_steal_key.py", __TARGET__=str(ws))


def _landed(ws):
    return [p for p in ("memory/v0.json", "planted.txt") if (ws / p).exists()]


def test_workspace_and_key_are_out_of_reach(harness, tmp_path):
    ws, kernel = _workspace(tmp_path)
    res = harness(**request(kernel))
    assert res["verdict"] in ("PASS", "FAIL"), res["message"]
    assert _landed(ws) == [], "the kernel wrote into its workspace"


def test_workspace_without_the_cell_is_written(off, tmp_path):
    ws, kernel = _workspace(tmp_path)
    off(**request(kernel, unconfined=True))
    assert _landed(ws) == ["memory/v0.json", "planted.txt"]
    assert "None" not in (ws / "planted.txt").read_text()   # the key was read


def _planted():
    return sorted({pathlib.Path(p).resolve() / "kgo_cell_attack.pth" for p in sys.path
                   if p and (pathlib.Path(p) / "kgo_cell_attack.pth").exists()})


@pytest.fixture
def pth_cleanup():
    yield
    for p in _planted():
        p.unlink(missing_ok=True)


def test_no_pth_can_be_planted(tmp_path, pth_cleanup):
    marker = tmp_path / "marker"
    kernel = written(tmp_path, "hack_plant_pth.py", __MARKER__=str(marker))
    rc, res, err = run_cli("check", request(kernel))
    assert res["verdict"] == "FAIL", (res["message"], err[-2000:])
    assert _planted() == []
    run_cli("catalog", {"command": "catalog"})   # a later judge
    assert not marker.exists()


def test_pth_without_the_cell_is_planted_and_i_ignores_it(tmp_path, pth_cleanup):
    """With the cell off the file lands in site-packages; a judge under python -I still runs .pth files of the
    system's site-packages, which is why the cell (not -I alone) must keep them read-only: the marker shows it ran."""
    marker = tmp_path / "marker"
    kernel = written(tmp_path, "hack_plant_pth.py", __MARKER__=str(marker))
    run_cli("check", request(kernel, unconfined=True), env=OFF)
    assert _planted(), "the attack could not write site-packages even without the cell"
    run_cli("catalog", {"command": "catalog"})
    assert marker.exists()


def _listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(30)
    got = []

    def accept():
        try:
            conn, _ = srv.accept()
            got.append(conn.recv(100))
            conn.close()
        except OSError:
            pass
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return srv, got


def _network_attack(tmp_path, serve, **extra):
    srv, got = _listener()
    kernel = written(tmp_path, "hack_network.py", **{"PORT = 0  # __PORT__": f"PORT = {srv.getsockname()[1]}"})
    serve(**request(kernel, **extra))
    srv.close()
    return got


def test_the_cell_has_no_network(harness, tmp_path):
    assert _network_attack(tmp_path, harness) == []


def test_network_without_the_cell(off, tmp_path):
    assert _network_attack(tmp_path, off, unconfined=True) == [b"hello from the kernel\n"]


def test_no_confinement_is_refused_unless_unconfined(off):
    res = off(**request(ROOT / "examples" / "softmax" / "kernel.py"))
    assert res["verdict"] == "ERROR" and "--unconfined" in res["message"]
    res = off(**request(ROOT / "examples" / "softmax" / "kernel.py", unconfined=True))
    assert res["verdict"] == "PASS" and res["cell"] == {"confinement": "none (unconfined)", "namespaces": [],
                                                         "landlock_abi": None, "user": None, "unconfined": True}


def test_landlock_alone_still_holds(tmp_path):
    """Where namespaces are refused, Landlock is the floor: the workspace and the judge's channel stay closed."""
    ws, kernel = _workspace(tmp_path)
    with judge(tmp_path, {"KGO_CELL": "landlock"}) as landlock:
        res = landlock(**request(kernel))
        assert res["cell"]["confinement"] == "landlock" and _landed(ws) == []
        # Without a PID namespace the kernel finds its own process (a fork of the judge: the same command line)
        # and writes into its own reply pipe, which the judge refuses; the judge's channel itself stays closed.
        res = landlock(**request(CELL / "hack_forge_verdict.py"))
    assert res["verdict"] in ("FAIL", "REWARD_HACK") and "forged" not in res["message"], res["message"]


SHM_PROBE = """
import json as _json, os as _os
_own = _os.path.dirname(_os.path.dirname(_os.environ["HOME"]))   # HOME: <own folder>/rw/home


def _ls(path):
    try:
        _os.listdir(path)
        return "listed"
    except OSError:
        return "denied"


def _read(path):
    try:
        with open(path) as _f:
            return _f.read()
    except OSError:
        return "denied"


probe("shm", _json.dumps({"shm": _ls("/dev/shm"), "root": _ls(_os.path.dirname(_own)), "own": _ls(_own),
                          "planted": _read("__PLANTED__")}))
"""


def test_a_cell_reads_nothing_of_dev_shm_but_its_own_folder(harness, tmp_path):
    """Every cell folder of a judge lies under one root in /dev/shm (where kgo runs as root, every cell is the same
    user), beside other programs' shared memory: a kernel lists neither /dev/shm nor its judge's root, and reads no
    file there but its own folder's (confine.read_paths: /dev's entries but shm). With /dev readable whole, as
    before, it listed both and read a file another process left in /dev/shm."""
    import json
    import uuid
    from conftest import PROBE
    planted = pathlib.Path("/dev/shm") / f"kgo-test-planted-{uuid.uuid4().hex}"
    if not planted.parent.is_dir():
        pytest.skip("no /dev/shm here")
    planted.write_text("secret")
    planted.chmod(0o644)
    try:
        (tmp_path / "probe").mkdir()
        v1 = (ROOT / "templates" / "ops" / "softmax" / "v1_baseline.py").read_text()
        (tmp_path / "probe" / "kernel.py").write_text(PROBE + SHM_PROBE.replace("__PLANTED__", str(planted)) + v1)
        mark = harness.mark()
        res = harness(**request(tmp_path / "probe" / "kernel.py"))
    finally:
        planted.unlink()
    assert res["verdict"] == "PASS", res["message"]
    seen = json.loads(harness.probes(mark, "shm")[0])
    assert seen == {"shm": "denied", "root": "denied", "own": "listed", "planted": "denied"}, seen


def test_the_cell_learns_no_seed_before_its_cases(harness, tmp_path):
    """The request a kernel process is loaded with carries no base seed (each case's comes with the case), so a
    kernel cannot make its inputs and prepare their answers at import. Without the defence it reads 12345."""
    kernel = written(tmp_path, "hack_seed_peek.py")
    shutil.copy(KERNELS / "hack_gpu_memory_hog.py", tmp_path / "hack_gpu_memory_hog.py")
    mark = harness.mark()
    res = harness(**request(kernel, seed=12345))
    assert res["verdict"] == "PASS", res["message"]
    assert harness.probes(mark, "seed") == ["0"]


def test_a_spawned_kernel_process_builds_the_same_cell(tmp_path):
    """On a GPU kernel processes are spawned, not forked from the template: the spawned one enters its cell before
    it imports anything (torch, the protocol's schemas) and still judges an honest kernel and keeps the workspace
    out of reach."""
    with judge(tmp_path, {"KGO_HARNESS_TEMPLATE": "0"}) as spawned:
        res = spawned(**request(ROOT / "examples" / "softmax" / "kernel.py"))
        assert res["verdict"] == "PASS", res["message"]
        assert res["kernel_process"]["started"] == "spawned"
        assert "landlock" in res["cell"]["confinement"]
        ws, kernel = _workspace(tmp_path)
        spawned(**request(kernel))
    assert _landed(ws) == []


@needs_cuda
def test_a_cold_gpu_judge_spawns_its_first_kernel_process_and_forks_the_next(tmp_path):
    """On a GPU a judge that imports torch itself spawns its first kernel process beside that import (a fork could
    only follow it); the next identity's is a fork of the template. Both are cells that judge an honest kernel."""
    serve = Serve(tmp_path / "s.stderr", env={"KGO_JUDGE_FORK": "0"})
    try:
        got = []
        for name in ("kernel.py", "kernel_v2.py"):
            kernel = tmp_path / name
            shutil.copy(ROOT / "examples" / "softmax" / "kernel.py", kernel)
            res = serve(**dict(request(kernel), device="cuda"))
            assert res["verdict"] == "PASS", res["message"]
            assert "landlock" in res["cell"]["confinement"]
            got.append(res["kernel_process"]["started"])
        assert got == ["spawned", "forked"]
    finally:
        serve.close()


def test_a_warm_kernel_process_serves_its_identity_request_after_request(harness):
    """A warm harness loads the same identity into its kernel process again for each request; the cell's second
    Landlock layer is applied once (Landlock stacks at most 16 layers: the 16th request used to fail)."""
    req = dict(request(ROOT / "templates" / "ops" / "add" / "v1_baseline.py"), op="add")
    for i in range(18):
        res = harness(**req)
        assert res["verdict"] == "PASS", (i, res["message"])
        assert i == 0 or res["kernel_process"]["warm"] is True
        assert res["kernel_process"]["started"] == "forked"


LOADS_AN_OBJECT = """import ctypes, os
import torch
_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libkgoadd.so"))


def triton_add(x, y, alpha=1.0):
    xc, yc = x.contiguous(), y.contiguous()
    out = torch.empty_like(xc)
    _lib.kgo_add(None, ctypes.c_int(xc.numel()), ctypes.c_float(alpha), ctypes.c_void_p(xc.data_ptr()),
                 ctypes.c_void_p(yc.data_ptr()), ctypes.c_void_p(out.data_ptr()))
    return out
"""


def test_a_shared_object_the_kernel_loaded_is_not_rewritten_under_it(harness, tmp_path):
    """A kernel that calls a shared object beside it (ctypes), checked twice by one warm harness: its copies in the
    cell are not written again while its kernel process has them mapped (every second request died from SIGSEGV)."""
    vendor_stub(tmp_path)
    (tmp_path / "kernel.py").write_text(LOADS_AN_OBJECT)
    req = dict(request(tmp_path / "kernel.py"), op="add", delegation=False)
    for i in range(3):
        res = harness(**req)
        assert res["verdict"] == "PASS", (i, res["message"])
        assert i == 0 or res["kernel_process"]["warm"] is True


def _honest(folder):
    """A kernel of its own sources in `folder` (its verdict does not matter here, only its compile cache)."""
    folder.mkdir()
    kernel = folder / "kernel.py"
    shutil.copyfile(KERNELS / "cheat_zeros.py", kernel)
    return kernel


def _cache_attack(tmp_path, env, **extra):
    cache = tmp_path / "cache"
    with judge(tmp_path, {**env, "KGO_CACHE_DIR": str(cache)}) as serve:
        serve(**request(_honest(tmp_path / "a"), **extra))
        first = sorted(p.name for p in (cache / "cells").iterdir())
        serve(**request(written(tmp_path, "hack_plant_cache.py"), **extra))
    return cache / "cells" / first[0], first


def test_no_kernel_can_plant_an_object_in_another_kernels_compile_cache(tmp_path):
    victim, _ = _cache_attack(tmp_path, {})
    assert not (victim / "planted").exists()
    assert not (tmp_path / "cache" / "triton-key.json").exists()   # where a GPU template stores Triton's key


def test_compile_cache_without_the_cell_is_planted(tmp_path):
    victim, _ = _cache_attack(tmp_path, OFF, unconfined=True)
    assert (victim / "planted").exists()
    assert "planted" in (tmp_path / "cache" / "triton-key.json").read_text()


def test_the_same_sources_in_another_workspace_share_their_compile_cache(tmp_path):
    """remote.compile_key: the cache follows the sources' bytes, not the workspace folder, so a sweep's copies and a
    second workspace reuse what the first compiled; other sources get a cache of their own."""
    cache = tmp_path / "cache"
    with judge(tmp_path, {"KGO_CACHE_DIR": str(cache)}) as serve:
        for name in ("a", "b"):
            serve(**request(_honest(tmp_path / name)))
        assert len(list((cache / "cells").iterdir())) == 1
        other = _honest(tmp_path / "c")
        other.write_text(other.read_text() + "\n# another kernel\n")
        serve(**request(other))
    assert len(list((cache / "cells").iterdir())) == 2


def test_a_dead_judges_cell_root_is_removed_by_the_next_judge():
    """A judge killed before its cleanup leaves its root of cell folders in /dev/shm; the next judge removes the
    roots whose judge no longer runs, and no other."""
    import subprocess
    import tempfile
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = subprocess.Popen(["sleep", "60"])
    try:
        orphan = pathlib.Path(tempfile.mkdtemp(prefix=f"kgo-cells-{dead.pid}-", dir=base))
        (orphan / "c1-1").mkdir()
        kept = pathlib.Path(tempfile.mkdtemp(prefix=f"kgo-cells-{alive.pid}-", dir=base))
        code = ("import shutil; from kgo_harness.judge import cellfs; r = cellfs.root(); print(r); "
                "shutil.rmtree(r)")
        r = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'tools')!r}); "
                            + code], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert not orphan.exists() and kept.exists()
    finally:
        alive.kill()
        shutil.rmtree(kept, ignore_errors=True)


def _daemon(tmp_path, folder, env):
    """`kgo_harness serve --socket` (kgo harness start's warm harness) in the private `folder`; its socket's path."""
    import subprocess
    import time
    from conftest import ENTRY
    path = folder / "harness-test.sock"
    proc = subprocess.Popen([sys.executable, "-I", str(ENTRY), "serve", "--socket", str(path), "--idle", "60"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=open(tmp_path / "daemon.stderr", "w"), env={**os.environ, **env}, cwd=ROOT)
    deadline = time.time() + 60
    while not path.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert path.exists(), (tmp_path / "daemon.stderr").read_text()
    return proc, path


def _call(path, req, key=True):
    """One request to the daemon, as kgo sends it: its key (read from the file beside the socket) on the first line."""
    import json
    lines = [json.dumps(req)]
    if key:
        lines.insert(0, path.with_suffix(".key").read_text().strip())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(path))
        s.sendall(("\n".join(lines) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
    return json.loads(data)


def test_a_kernel_cannot_queue_requests_on_the_warm_harness(tmp_path, socket_folder):
    """The warm harness (kgo harness start, the shared judge of a GPU) serves only callers that read its key, a file
    beside its socket that no cell can read; a kernel that connects to the socket and queues a request of its own
    (a reference the judge would import outside any cell) is answered with a refusal and nothing of it runs. Landlock
    alone (the cell of a machine without namespaces, and as kgo's own user) does not stop the connection."""
    marker = tmp_path / "escaped"
    payload = tmp_path / "payload.py"
    payload.write_text(f"open({str(marker)!r}, 'w').write('ran outside the cell')\n")
    proc, path = _daemon(tmp_path, socket_folder, {"KGO_CELL": "landlock"})
    try:
        kernel = written(tmp_path, "hack_harness_socket.py", **{'SOCKET = ""  # __SOCKET__': f"SOCKET = {str(path)!r}",
                                                                'PAYLOAD = ""  # __PAYLOAD__': f"PAYLOAD = {str(payload)!r}"})
        res = _call(path, {**request(kernel), "command": "check"})
        assert res.get("cell", {}).get("confinement") == "landlock" and res["verdict"] == "FAIL", res
        assert _call(path, {"command": "ping"})["served"] == 1   # answered after the queued request, if any
        assert _call(path, {"command": "ping"}, key=False)["verdict"] == "ERROR"
    finally:
        _call(path, {"command": "shutdown"})
        proc.wait(timeout=30)
    assert not marker.exists(), "the kernel's queued request ran its reference outside the cell"


def _ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])   # utime, stime


def test_the_judge_holds_the_cell_still_while_it_times_its_own_work():
    """remote.Pool.still, which the judge's own timings run inside (wallclock.alone): every process of the kernel's
    cell stopped, its threads and the child it forked too, and continued after. busy_idle.py uses the CPU from a
    thread and a child: none of it runs while held (with `still` a no-op, its CPU time goes on)."""
    from kgo_harness import procs, protocol
    from kgo_harness.judge import remote
    pool = remote.Pool("cpu", keep=0)
    kp, _ = pool.get("busy-idle")
    try:
        kp.call("load", request=protocol.normalize({"command": "check", "kernel": str(CELL / "busy_idle.py"),
                                                    "op": "softmax", "device": "cpu"}))
        pids = {kp.proc.pid, *procs.descendants(kp.proc.pid)}
        assert pids <= pool.cell_pids() and len(pids) >= 2, pids   # the kernel's process and its child

        def used():
            return sum(_ticks(p) for p in pids)
        start = used()
        time.sleep(0.5)
        assert used() > start   # burning
        with pool.still() as running:
            assert running == []
            held = used()
            time.sleep(0.5)
            assert used() == held
        moving = used()
        time.sleep(0.5)
        assert used() > moving   # continued
    finally:
        kp.close()   # not pool.close(): that also ends this process's strays (other tests' harnesses)
