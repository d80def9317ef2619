"""`kgo profile` end to end with fake ncu / nvidia-smi executables that replay real H200 CSVs, plus the
no-GPU, no-counters and bad-option paths. The real-GPU run is in evidence/profiling-h200-2026-11-20."""
import json
import pathlib

import pytest

from conftest import run_kgo, validate
from profiling_fakes import DATA, calls, fake_env, fake_ncu, fake_smi


@pytest.fixture
def tools(tmp_path):
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake_smi(bindir)
    return bindir


def profile(workspace, env, *args):
    return run_kgo("profile", "--op", "softmax", "--workspace", workspace, *args, env=env)


def test_no_gpu_is_exit_23_with_a_plain_message(tmp_path, workspace):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_smi(bindir, working=False)
    r = profile(workspace, fake_env(bindir), "--json")
    assert r.rc == 23, r.err
    assert "no NVIDIA GPU found" in (r.out + r.err) and "run it on the GPU machine" in (r.out + r.err)
    validate(r.json(), "cli/error.schema.json")
    assert not (workspace / "profiles" / "v0").exists()


def test_missing_ncu_is_exit_23(tools, workspace):
    r = profile(workspace, {**fake_env(tools), "PATH": f"{tools}:/usr/bin:/bin"}, "--ncu", str(tools / "absent-ncu"))
    assert r.rc == 23
    assert "Nsight Compute (ncu) not found" in r.err and "--ncu PATH" in r.err


def test_memory_bound_softmax_end_to_end(tools, workspace):
    log = fake_ncu(tools, csv=DATA / "h200_softmax_ncu_raw.csv")
    assert run_kgo("memory", "create", "--workspace", workspace).rc == 0
    r = profile(workspace, fake_env(tools), "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/profile.schema.json")
    assert j["verdict"]["bottleneck"] == "memory"
    assert "ncu SOLBottleneck" in j["verdict"]["rule"]
    assert j["chosen"]["kernel"] == "_softmax_rows"
    assert j["numbers"]["top_stall"] == "long_scoreboard"
    argv = calls(log)[0]
    for flag in (["--csv"], ["--page", "raw"], ["--clock-control", "none"], ["--nvtx", "--nvtx-include", "kgo_run/"],
                 ["--set", "detailed"]):
        assert any(argv[i:i + len(flag)] == flag for i in range(len(argv))), flag
    assert j["ncu"]["command"][-3:-1] == ["run-once", "--request"]  # the harness command ncu launched
    # Under ncu the kernel's cell is Landlock and another user: fresh namespaces cut ncu off from its target.
    assert pathlib.Path(str(log) + ".cell").read_text().split() == ["landlock"]
    request = json.loads((workspace / "profiles" / "v0" / "run_once_request.json").read_text())
    assert request["command"] == "run-once" and request["op"] == "softmax"
    assert request["run_once"]["nvtx"] == "kgo_run"
    d = workspace / "profiles" / "v0"
    assert (d / "ncu_raw.csv").read_text() == "==PROF== Connected to process 4242\n" + (DATA / "h200_softmax_ncu_raw.csv").read_text()
    summary = (d / "ncu_summary.md").read_text()
    assert "## Bottleneck verdict" in summary and "none (SM clocks not locked by ncu)" in summary
    details = (d / "ncu_details.md").read_text()
    for section in ("Speed of Light", "Memory", "Compute", "Occupancy", "Launch", "Warp stalls", "Divergence",
                    "Shared memory"):
        assert f"## {section}\n" in details, section
    record = json.loads((workspace / "memory" / "v0.json").read_text())
    validate(record, "iteration.schema.json")
    ev = record["profile_evidence"]
    assert ev["bottleneck_type"] == "memory_bound"
    assert ev["evidence_chain"][0]["inference"].startswith("memory-bound")
    assert j["record_updated"] is True
    # What kgo profile wrote passes kgo audit: ncu's numbers (SM count, L2 sizes) are labelled as measured.
    audit = run_kgo("audit", "--workspace", workspace, env=fake_env(tools))
    assert "profiles/v0/ncu_" not in audit.out + audit.err, audit.out + audit.err


def test_compute_bound_matmul_and_thresholds(tools, workspace):
    fake_ncu(tools, csv=DATA / "h200_matmul_ncu_raw.csv", launches=["_matmul_tiles"])
    r = run_kgo("profile", "--op", "matmul", "--workspace", workspace, "--json", env=fake_env(tools))
    assert r.rc == 0, r.err
    assert r.json()["verdict"]["bottleneck"] == "compute"
    # Raising every "bound" line above the measured SM% turns the same numbers into another verdict.
    r = run_kgo("profile", "--op", "matmul", "--workspace", workspace, "--json", "--threshold", "ncu_high=95",
                "--threshold", "skill_bound=95", "--threshold", "ncu_low=95", env=fake_env(tools))
    assert r.rc == 0, r.err
    assert r.json()["verdict"]["bottleneck"] != "compute"
    assert r.json()["thresholds"]["ncu_high"] == 95


def test_bad_threshold_is_usage_error_before_profiling(tools, workspace):
    log = fake_ncu(tools, csv=DATA / "h200_softmax_ncu_raw.csv")
    r = profile(workspace, fake_env(tools), "--threshold", "bogus=1")
    assert r.rc == 3
    assert "ncu_high" in r.err
    assert calls(log) == []


def test_no_counters_says_so_and_falls_back_to_timing(tools, workspace):
    fake_ncu(tools, csv=None, stderr_text="==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
                                           "access NVIDIA GPU Performance Counters on the target device 0.\n")
    r = profile(workspace, fake_env(tools), "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/profile.schema.json")
    assert j["counters"] is False
    assert "ERR_NVGPUCTRPERM" in j["counters_message"]
    assert j["verdict"]["bottleneck"] == "unknown"
    assert j["timing"] is not None
    summary = (workspace / "profiles" / "v0" / "ncu_summary.md").read_text()
    assert "Hardware counters are not available here" in summary and "ERR_NVGPUCTRPERM" in summary


def test_summary_first_profiles_the_last_launch_of_the_harness_kernel(tools, workspace, tmp_path):
    summary = tmp_path / "summary.csv"
    summary.write_text(
        "ID,Process ID,Process Name,Host Name,Kernel Name,Context,Stream,Block Size,Grid Size,Device,CC,gpu__time_duration.sum\n"
        ",,,,,,,,,,,ns\n"
        "0,1,python3,h,distribution_elementwise_grid_stride_kernel,1,7,\"(256, 1, 1)\",\"(1, 1, 1)\",0,9.0,\"900,000\"\n"
        "1,1,python3,h,_softmax_rows,1,7,\"(128, 1, 1)\",\"(8192, 1, 1)\",0,9.0,\"130,000\"\n"
        "2,1,python3,h,_softmax_rows,1,7,\"(128, 1, 1)\",\"(8192, 1, 1)\",0,9.0,\"128,000\"\n"
        "3,1,python3,h,vectorized_elementwise_kernel,1,7,\"(128, 1, 1)\",\"(8, 1, 1)\",0,9.0,\"2,000\"\n")
    log = fake_ncu(tools, csv=DATA / "h200_softmax_ncu_raw.csv", summary_csv=summary)
    r = profile(workspace, fake_env(tools), "--summary-first", "--json")
    assert r.rc == 0, r.err
    argvs = calls(log)
    assert len(argvs) == 2
    assert "--print-kernel-base" in argvs[0] and "--nvtx" not in argvs[0]
    second = argvs[1]
    assert second[second.index("-k") + 1] == "regex:^_softmax_rows$"
    assert second[second.index("--launch-skip") + 1] == "1"
    assert "per-kernel summary first (4 launches)" in r.json()["selection"]


def test_a_cell_the_user_chose_stands_under_ncu(tools, workspace):
    log = fake_ncu(tools, csv=DATA / "h200_softmax_ncu_raw.csv")
    assert profile(workspace, {**fake_env(tools), "KGO_CELL": "off"}, "--unconfined").rc == 0
    assert pathlib.Path(str(log) + ".cell").read_text().split() == ["off"]


def test_kernel_regex_and_launch_skip_are_passed_to_ncu(tools, workspace):
    log = fake_ncu(tools, csv=DATA / "h200_softmax_ncu_raw.csv")
    r = profile(workspace, fake_env(tools), "--kernel-regex", "_softmax", "--launch-skip", "3", "--set", "full")
    assert r.rc == 0, r.err
    argv = calls(log)[0]
    assert argv[argv.index("-k") + 1] == "regex:_softmax"
    assert argv[argv.index("--launch-skip") + 1] == "3"
    assert argv[argv.index("--launch-count") + 1] == "1"
    assert argv[argv.index("--set") + 1] == "full"
    assert "--nvtx" not in argv
    assert "verdict: memory" in r.out


def test_nothing_profiled_is_a_clear_error(tools, workspace):
    fake_ncu(tools, csv=None, stderr_text="==WARNING== No kernels were profiled.\n")
    r = profile(workspace, fake_env(tools), "--kernel-regex", "nope")
    assert r.rc == 1
    assert "ncu profiled no kernel" in r.err and "--kernel-regex" in r.err


def test_a_failing_kernel_is_a_harness_error(tools, workspace):
    fake_ncu(tools, csv=None, verdict="FAIL")
    r = profile(workspace, fake_env(tools))
    assert r.rc == 20
    assert "the kernel did not run under ncu" in r.err and "bad shape" in r.err
