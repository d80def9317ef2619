"""`kgo harness start|stop|status`: the warm harness on a Unix socket, and check/bench going through it.
Each test has its own XDG_RUNTIME_DIR, so its daemon is private to it; CPU device (Triton interpreter)."""
# ctest-cost: 39
import json
import os
import pathlib
import socket
import subprocess
import time

import pytest

from conftest import KGO_BIN, SOURCE_DIR, make_workspace, run_kgo, validate
from planted import sleeper

CHECK = ["check", "--device", "cpu", "--shape", "8x1000", "--trials", "1", "--no-edge-shapes", "--json", "--detail"]


@pytest.fixture
def runtime(socket_folder):
    env = {"XDG_RUNTIME_DIR": str(socket_folder), "KGO_HARNESS_DAEMON": "1"}
    yield env
    run_kgo("harness", "stop", "--grace", "2", env=env)


def socket_files(env):
    return sorted(p.name for p in (pathlib.Path(env["XDG_RUNTIME_DIR"]) / "kgo").glob("harness-*.sock"))


def check(workspace, env):
    r = run_kgo(*CHECK, "--workspace", workspace, env=env)
    assert r.rc == 0, r.err
    return r.json()


def test_start_status_stop(runtime):
    assert run_kgo("harness", "status", env=runtime).out.startswith("warm harness: not running")
    r = run_kgo("harness", "start", "--device", "cpu", "--json", env=runtime)
    assert r.rc == 0, r.err
    j = r.json()
    assert j["running"] and j["started"] and j["warmup"]["verdict"] == "PASS"
    assert j["daemon"]["worker"] == {"device": "cpu", "alive": True}
    assert len(socket_files(runtime)) == 1
    again = run_kgo("harness", "start", "--device", "cpu", "--json", env=runtime).json()
    assert again["running"] and not again["started"] and again["daemon"]["pid"] == j["daemon"]["pid"]
    st = run_kgo("harness", "status", "--json", env=runtime).json()
    assert st["running"] and st["daemon"]["served"] == 2
    r = run_kgo("harness", "stop", env=runtime)
    assert r.rc == 0 and "stopped" in r.out
    assert socket_files(runtime) == []
    assert run_kgo("harness", "stop", env=runtime).out.startswith("no warm harness")


def test_check_goes_through_the_warm_worker(runtime, workspace):
    assert run_kgo("harness", "start", "--device", "cpu", env=runtime).rc == 0
    first, second = check(workspace, runtime), check(workspace, runtime)
    for j in (first, second):
        validate(j, "cli/check.schema.json")
        assert j["verdict"] == "PASS"
    assert first["harness"]["worker"]["warm"] and second["harness"]["worker"]["warm"]
    assert first["harness"]["worker"]["pid"] == second["harness"]["worker"]["pid"]
    assert run_kgo("harness", "status", "--json", env=runtime).json()["daemon"]["served"] == 3
    # KGO_HARNESS_DAEMON=0: a fresh process, same verdict.
    cold = check(workspace, {**runtime, "KGO_HARNESS_DAEMON": "0"})
    assert cold["verdict"] == "PASS" and not cold["harness"]["worker"]["warm"]
    assert run_kgo("harness", "status", "--json", env=runtime).json()["daemon"]["served"] == 3


def test_a_kernel_edit_is_seen_by_the_warm_worker(runtime, workspace):
    assert run_kgo("harness", "start", "--device", "cpu", env=runtime).rc == 0
    assert check(workspace, runtime)["verdict"] == "PASS"
    kernel = workspace / "kernel.py"
    kernel.write_text(kernel.read_text().replace("tl.exp(", "tl.exp(2.0 * "))
    r = run_kgo(*CHECK, "--workspace", workspace, env=runtime)
    assert r.rc == 1 and r.json()["verdict"] == "FAIL"


def test_a_busy_daemon_is_reported_busy_not_killed(runtime, workspace):
    assert run_kgo("harness", "start", "--device", "cpu", env=runtime).rc == 0
    pid = run_kgo("harness", "status", "--json", env=runtime).json()["daemon"]["pid"]
    (workspace / "kernel.py").write_text(sleeper())
    env = {**os.environ, "KGO_DATA_DIR": str(SOURCE_DIR), **runtime}
    slow = subprocess.Popen([KGO_BIN, *CHECK, "--workspace", str(workspace), "--case-timeout", "7"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # the request is in the daemon, its kernel asleep for longer than a ping waits (2 s)
    st = run_kgo("harness", "status", "--json", env=runtime).json()
    assert st["running"] and st["busy"]
    out, _ = slow.communicate(timeout=120)
    assert json.loads(out)["verdict"] == "TIMEOUT_FAIL"
    after = run_kgo("harness", "status", "--json", env=runtime).json()
    assert after["running"] and not after["busy"] and after["daemon"]["pid"] == pid


def test_stale_socket_falls_back_to_a_fresh_process(runtime, workspace):
    d = pathlib.Path(runtime["XDG_RUNTIME_DIR"]) / "kgo"
    assert run_kgo("harness", "start", "--device", "cpu", env=runtime).rc == 0
    name = socket_files(runtime)[0]
    assert run_kgo("harness", "stop", env=runtime).rc == 0
    # A socket file nobody listens on, as a killed daemon leaves behind.
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(d / name))
    s.close()
    j = check(workspace, runtime)
    assert j["verdict"] == "PASS" and not j["harness"]["worker"]["warm"]
    assert socket_files(runtime) == []


def test_idle_daemon_exits(runtime):
    assert run_kgo("harness", "start", "--device", "cpu", "--idle-minutes", "0.02", env=runtime).rc == 0
    deadline = time.time() + 30
    while socket_files(runtime) and time.time() < deadline:
        time.sleep(0.2)
    assert socket_files(runtime) == []
    assert not run_kgo("harness", "status", "--json", env=runtime).json()["running"]


def test_a_shared_socket_folder_is_refused(tmp_path, workspace):
    d = tmp_path / "run"
    (d / "kgo").mkdir(parents=True)
    os.chmod(d / "kgo", 0o777)
    env = {"XDG_RUNTIME_DIR": str(d), "KGO_HARNESS_DAEMON": "1"}
    r = run_kgo("harness", "start", "--device", "cpu", env=env)
    assert r.rc == 20 and "not a private folder" in r.err
    # Commands never use a socket in such a folder: they run the harness in a fresh process.
    j = check(workspace, env)
    assert j["verdict"] == "PASS" and not j["harness"]["worker"]["warm"]


def test_a_socket_path_too_long_is_refused(tmp_path):
    d = tmp_path / ("x" * 90)
    d.mkdir()
    r = run_kgo("harness", "start", "--device", "cpu", env={"XDG_RUNTIME_DIR": str(d)})
    assert r.rc == 20 and "too long" in r.err and "XDG_RUNTIME_DIR" in r.err


def test_bad_options(runtime):
    assert run_kgo("harness", "start", "--device", "tpu", env=runtime).rc == 3
    assert run_kgo("harness", "start", "--idle-minutes", "0", env=runtime).rc == 3
    assert run_kgo("harness", env=runtime).rc == 3


def test_auto_starts_the_shared_judge_on_first_use_for_every_workspace(runtime, workspace, tmp_path, kernel_file):
    """harness/warm_judge.hpp: KGO_HARNESS_DAEMON=auto (the default for the GPU) starts the warm judge on a first
    check, and a second workspace's check is served by it, in a kernel process of its own."""
    auto = {**runtime, "KGO_HARNESS_DAEMON": "auto", "KGO_HARNESS_IDLE_S": "60"}
    assert socket_files(runtime) == []
    first = check(workspace, auto)
    assert first["verdict"] == "PASS" and not first["harness"]["worker"]["warm"]
    assert len(socket_files(runtime)) == 1
    (tmp_path / "second").mkdir()
    other = make_workspace(tmp_path / "second", kernel_file)
    second = check(other, auto)
    assert second["verdict"] == "PASS" and second["harness"]["worker"]["warm"]
    assert second["harness"]["worker"]["pid"] == first["harness"]["worker"]["pid"]
    assert second["harness"]["kernel_process"]["pid"] != first["harness"]["kernel_process"]["pid"]
    st = run_kgo("harness", "status", "--json", env=runtime).json()
    assert st["running"] and st["daemon"]["idle_s"] == 60


def test_bad_daemon_settings_name_the_fix(runtime, workspace):
    for env, word in (({"KGO_HARNESS_DAEMON": "yes"}, "0, 1 or auto"),
                      ({"KGO_HARNESS_DAEMON": "auto", "KGO_HARNESS_IDLE_S": "-1"}, "KGO_HARNESS_IDLE_S")):
        r = run_kgo(*CHECK, "--workspace", workspace, env={**runtime, **env})
        assert r.rc == 3 and word in r.err + r.out, (r.rc, r.err, r.out)
    assert socket_files(runtime) == []
