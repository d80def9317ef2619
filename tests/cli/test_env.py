"""`kgo env` on this machine (no GPU in CI) and with a stand-in nvidia-smi on PATH."""
# ctest-cost: 11
import os
import stat

from conftest import run_kgo, validate
from planted import has_gpu


def test_env_reports_readiness_and_names_what_is_missing(tmp_path):
    r = run_kgo("env", "--json", cwd=tmp_path)
    j = r.json()
    validate(j, "cli/env.schema.json")
    report = tmp_path / "env_check.md"
    assert report.is_file() and j["report"] == str(report)
    md = report.read_text()
    assert "| Requirement | Status | Detail |" in md
    assert j["ready"] == (r.rc == 0) == (j["missing"] == [])
    for item in j["items"]:
        assert item["name"] in md
    if not has_gpu():
        assert r.rc == 1
        assert "CUDA GPU" in j["missing"] and "nvidia-smi" in j["missing"]
        assert "environment not ready: missing" in (r.out + r.err) and "CUDA GPU" in (r.out + r.err)
        assert "No GPU" in md


def test_env_text_and_out_file(tmp_path):
    out = tmp_path / "sub" / "env.md"
    out.parent.mkdir()
    r = run_kgo("env", "--out", out)
    assert out.is_file()
    assert ("Environment READY" in r.out) == (r.rc == 0)
    assert "Python" in r.out and "torch" in r.out and "ncu" in r.out


def test_env_inside_a_workspace_writes_there(workspace):
    run_kgo("env", cwd=workspace)
    assert (workspace / "env_check.md").is_file()


def test_missing_interpreter_is_named(tmp_path):
    r = run_kgo("env", "--python", tmp_path / "nopython", "--json", cwd=tmp_path)
    assert r.rc == 1
    j = r.json()
    validate(j, "cli/env.schema.json")
    assert "Python" in j["missing"]
    assert "nopython" in next(i["detail"] for i in j["items"] if i["name"] == "Python")


def _fake_smi(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    smi = bindir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        "case \"$1\" in\n"
        "  --query-gpu=*) echo '0, NVIDIA H200, 9.0, 580.159.04, 1980, 3201, 1980, 3201, 41, 120.5, 0x0000000000000004' ;;\n"
        "  *) echo '| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0 |' ;;\n"
        "esac\n")
    smi.chmod(smi.stat().st_mode | stat.S_IXUSR)
    return bindir


def test_nvidia_smi_fields_are_parsed(tmp_path):
    bindir = _fake_smi(tmp_path)
    r = run_kgo("env", "--json", cwd=tmp_path, env={"PATH": f"{bindir}:{os.environ['PATH']}"})
    j = r.json()
    validate(j, "cli/env.schema.json")
    smi = j["nvidia_smi"]
    assert smi["available"] and smi["cuda_version"] == "13.0"
    gpu = smi["gpus"][0]
    assert gpu["name"] == "NVIDIA H200" and gpu["compute_cap"] == "9.0"
    assert gpu["sm_clock_mhz"] == 1980 and gpu["max_mem_clock_mhz"] == 3201
    assert gpu["clock_events"] == ["sw_power_cap"]
    assert "nvidia-smi" not in j["missing"]
    assert any("sw_power_cap" in w for w in j["warnings"])
    md = (tmp_path / "env_check.md").read_text()
    assert "NVIDIA H200" in md and "1980 MHz SM" in md and "580.159.04" in md
