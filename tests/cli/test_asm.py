"""`kgo asm`: saved H200 SASS/PTX and compiler reports (--file), and a kernel.cu workspace compiled with nvcc
when the CUDA toolkit is installed. Triton kernels on a real GPU: evidence/profiling-h200-2026-11-20."""
import json
import os
import shutil

import pytest

from conftest import SOURCE_DIR, run_kgo, validate
from profiling_fakes import DATA


def asm(workspace, *args):
    return run_kgo("asm", "--workspace", workspace, "--json", *args)


def checks(j):
    return {c["id"]: c for c in j["checks"]}


def test_saved_softmax_sass_meets_the_targets_and_updates_the_record(workspace):
    assert run_kgo("memory", "create", "--workspace", workspace).rc == 0
    r = asm(workspace, "--file", DATA / "h200_softmax_rows.sass", "--file", DATA / "sm90_fma_ptxas.txt")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/asm.schema.json")
    c = checks(j)
    assert c["nv_global_load_128"]["current"] == 16 and c["nv_global_load_128"]["met"] is True
    assert c["nv_no_local_spill"]["met"] is True
    assert "nv_tensor_core_mma" not in c  # softmax is not a matrix kernel
    assert j["resources"][0]["registers"] == 26
    record = json.loads((workspace / "memory" / "v0.json").read_text())
    validate(record, "iteration.schema.json")
    progress = {p["metric"]: p for p in record["isa_metric_progress"]}
    assert progress["nv_global_load_128"] == {"metric": "nv_global_load_128", "target": c["nv_global_load_128"]["target"],
                                              "current": 16, "met": True}
    summary = (workspace / "profiles" / "v0" / "asm" / "asm_summary.md").read_text()
    assert "| 128-bit global loads |" in summary and "LDG.E.128 x16" in summary


def test_matmul_targets_follow_the_matmul_flag(workspace):
    r = asm(workspace, "--file", DATA / "h200_matmul_tiles.sass", "--matmul")
    assert r.rc == 0, r.err
    c = checks(r.json())
    assert c["nv_tensor_core_mma"]["current"] == 4 and c["nv_tensor_core_mma"]["met"] is True
    assert c["nv_async_tiled_load"]["current"] == 36 and c["nv_async_tiled_load"]["met"] is True
    r = asm(workspace, "--file", DATA / "h200_matmul_tiles.sass", "--no-matmul")
    assert "nv_tensor_core_mma" not in checks(r.json())
    assert "no record v0" in r.json()["record_note"]  # no record yet: evidence stays in profiles/


def test_ptx_only_counts_on_ptx(workspace):
    r = asm(workspace, "--file", DATA / "h200_softmax_rows.ptx")
    assert r.rc == 0, r.err
    c = checks(r.json())
    assert c["nv_global_load_128"]["basis"] == "ptx" and c["nv_global_load_128"]["current"] == 16


def test_missing_file_is_usage_error(workspace, tmp_path):
    r = asm(workspace, "--file", tmp_path / "absent.sass")
    assert r.rc == 3


@pytest.mark.skipif(shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"),
                    reason="nvcc not installed")
def test_cuda_workspace_compiles_with_nvcc(tmp_path):
    parent = tmp_path / "ws"
    parent.mkdir()
    kernel = SOURCE_DIR / "bench" / "profile_kernels" / "vector_add.cu"
    r = run_kgo("init", "vadd", kernel, "--platform", "H200", "--framework", "cuda", "--dir", parent,
                "--shape", "1048576")
    assert r.rc == 0, r.err
    ws = parent / "kernel_opt_vadd"
    r = run_kgo("asm", "--workspace", ws, "--arch", "sm_90", "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/asm.schema.json")
    assert j["source"] == "nvcc"
    kernels = {x["kernel"]: x for x in j["resources"]}
    assert any("add_vec4" in k for k in kernels) and any("add_tail" in k for k in kernels)
    assert all(x["registers"] and x["spill_store_bytes"] == 0 for x in j["resources"])
    c = checks(j)
    assert c["nv_global_load_128"]["met"] is True  # add_vec4's float4 loads
    assert c["nv_global_load_128"]["basis"] in ("sass", "ptx")
    assert (ws / "profiles" / "v0" / "asm" / "ptxas_report.txt").is_file()


def _fake_nvcc(bindir):
    """An nvcc that writes an empty cubin with a real ptxas report on stderr, and a real saved PTX."""
    bindir.mkdir(parents=True)
    nvcc = bindir / "nvcc"
    nvcc.write_text(
        "#!/bin/sh\n"
        "out=''; mode=''\n"
        "while [ $# -gt 0 ]; do\n"
        "  case \"$1\" in\n"
        "    --version) echo 'Cuda compilation tools, release 99.9, V99.9.1'; exit 0 ;;\n"
        "    -cubin) mode=cubin ;; -ptx) mode=ptx ;; -o) out=\"$2\"; shift ;;\n"
        "  esac; shift\n"
        "done\n"
        f"if [ \"$mode\" = cubin ]; then : > \"$out\"; cat '{DATA / 'sm90_fma_ptxas.txt'}' >&2;\n"
        f"else cp '{DATA / 'h200_softmax_rows.ptx'}' \"$out\"; fi\n")
    nvcc.chmod(0o755)
    return nvcc


@pytest.mark.skipif(shutil.which("nvcc", path="/usr/bin:/bin") is not None, reason="an nvcc is in /usr/bin")
def test_env_and_asm_find_the_same_nvcc_under_cuda_home(tmp_path):
    """One tool finder: an nvcc only under $CUDA_HOME/bin (not in PATH) is the one kgo env reports and
    the one kgo asm compiles with."""
    import sys
    nvcc = _fake_nvcc(tmp_path / "cuda" / "bin")
    env = {"PATH": "/usr/bin:/bin", "CUDA_HOME": str(tmp_path / "cuda"), "CUDA_PATH": "", "CUDA_ROOT": "",
           "KGO_PYTHON": sys.executable}
    parent = tmp_path / "ws"
    parent.mkdir()
    r = run_kgo("init", "vadd", SOURCE_DIR / "bench" / "profile_kernels" / "vector_add.cu", "--platform", "H200",
                "--framework", "cuda", "--dir", parent, "--shape", "1048576", env=env)
    assert r.rc == 0, r.err
    ws = parent / "kernel_opt_vadd"
    e = run_kgo("env", "--json", cwd=tmp_path, env=env).json()
    assert e["nvcc"]["path"] == str(nvcc) and "99.9" in e["nvcc"]["version"]
    r = run_kgo("asm", "--workspace", ws, "--arch", "sm_90", "--json", env=env)
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/asm.schema.json")
    assert j["source"] == "nvcc" and j["resources"], j
    assert any("cuobjdump" in n for n in j["notes"])  # none here: the targets are checked on PTX


def test_missing_nvcc_names_every_place_searched(tmp_path):
    if (shutil.which("nvcc", path="/usr/bin:/bin") or os.path.exists("/usr/local/cuda/bin/nvcc")
            or os.path.exists("/opt/cuda/bin/nvcc")):
        pytest.skip("an nvcc is installed in a standard place")
    parent = tmp_path / "ws"
    parent.mkdir()
    env = {"PATH": "/usr/bin:/bin", "CUDA_HOME": str(tmp_path / "nowhere"), "CUDA_PATH": "", "CUDA_ROOT": ""}
    r = run_kgo("init", "vadd", SOURCE_DIR / "bench" / "profile_kernels" / "vector_add.cu", "--platform", "H200",
                "--framework", "cuda", "--dir", parent, "--shape", "1048576", env=env)
    assert r.rc == 0, r.err
    r = run_kgo("asm", "--workspace", parent / "kernel_opt_vadd", "--json", env=env)
    assert r.rc == 23, r.err
    assert "$CUDA_HOME/bin" in (r.out + r.err) and "/usr/local/cuda/bin" in (r.out + r.err) and "--file" in (r.out + r.err)
