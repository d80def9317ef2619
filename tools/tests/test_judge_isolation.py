"""The cheat catalogue (kernels/hack_*.py, written from the public descriptions of KernelBench's
test_kernels and static checker, gpu-mode pygpubench's exploits, METR's 2025 reports and SOL-ExecBench's
reward-hack checks). Each test names the defence that catches the cheat; with that defence removed the
cheat passes and the test fails. Runs on the CPU (Triton interpreter); the GPU-only families (streams,
events, graphs) are in bench/judge_h200.py."""
# ctest-cost: 38
import json
import os
import pathlib
import shutil
import time

import pytest

from conftest import KERNELS, PROBE, ROOT, SMALL, TEMPLATES, alive_with, kernel, needs_cuda

REF = str(ROOT / "templates" / "ops" / "softmax" / "ref.py")


def check(harness, name, **extra):
    req = dict(kernel=kernel(name), op="softmax", device="cpu", trials=1, shapes=SMALL, edge_shapes=False)
    req.update(extra)
    return harness(**req)


def failed_on_values(res):
    return res["verdict"] == "FAIL" and any(c["status"] == "FAIL" and c["mismatches"] for c in res["cases"])


# --- isolation: the reference and the comparison are not in the kernel's process ------------------------
@pytest.mark.parametrize("name", ["hack_gc_theft.py", "hack_frame_theft.py"])
def test_reference_theft_finds_nothing_to_steal(harness, name):
    res = check(harness, name, reference=REF)
    assert failed_on_values(res), res["message"]


@needs_cuda
def test_an_input_ipc_handle_shows_nothing_but_the_input(harness):
    """Judge-made inputs reach the kernel's process as CUDA IPC handles, and a handle maps its whole allocation:
    each staged input has one of its own (wire.isolated), so a kernel that opens the handles itself and looks for
    the judge's float64 reference in them finds none (with the caching allocator's copy, it found it beside the
    input and passed)."""
    res = harness(kernel=kernel("hack_ipc_segment.py"), reference=kernel("seed_softmax_ref.py"),
                  problem=kernel("seed_softmax.py"), device="cuda", shapes=[[8, 128]], trials=1, edge_shapes=False,
                  determinism="off")
    assert failed_on_values(res), res["message"]


def test_a_linked_reply_file_is_not_read_by_the_judge(harness, tmp_path):
    """The kernel's process hands its outputs back as files in its folder, which the judge reads with its own
    rights: a kernel that replaces them with links to a file the cell cannot read (another cell's reply in flight;
    here a planted file of 12345.0) gets its reply refused (wire.receive: one descriptor, no link followed), not
    that file judged as its outputs (before: the judge read it, "got 12345.0")."""
    import numpy as np
    target = tmp_path / "outside.bin"
    np.full(8 * 256, 12345.0, dtype=np.float32).tofile(target)
    probe = tmp_path / "linker.py"
    probe.write_text(f"""import gc, os, torch
_side = next(o for o in gc.get_objects() if type(o).__name__ == "KernelSide")
_execute = _side.execute


def _linked(msg):
    out = _execute(msg)
    for m in out.get("outputs") or []:
        path = os.path.join(_side.folder, m["file"])
        os.unlink(path)
        os.symlink({str(target)!r}, path)
    return out


_side.execute = _linked


def triton_softmax(x):
    return torch.softmax(x, dim=-1)
""")
    res = check(harness, str(probe), shapes=[[8, 256]], delegation=False)
    assert res["verdict"] == "FAIL", res["message"]
    assert "12345" not in res["message"] and "not one the harness writes" in res["message"], res["message"]


FORMATS = ROOT / "examples" / "formats"
THIEVES = {"fmh66": ("fmh66_thief.py", {"reference": str(FORMATS / "fmh66" / "ref.py")}),
           "kernelbench": ("kernelbench_thief.py", {"reference": str(FORMATS / "kernelbench" / "problem.py"),
                                                    "dims": {"batch": 8, "features": 100}}),
           "sol-execbench": ("sol_thief.py", {"reference": str(FORMATS / "sol-execbench" / "definition.json")}),
           "tritonbench": ("tritonbench_thief.py", {})}


@pytest.mark.parametrize("fmt", sorted(THIEVES))
def test_format_kernel_cannot_reach_the_reference(harness, fmt):
    """Per published format: the kernel looks for the reference's code and outputs in its process (gc, the
    stack, sys.modules) and patches the comparison at import. The reference side runs only in the judge (or,
    for tritonbench, whose baseline is in the kernel's file, in a second process) and the judge never imports
    the kernel's file, so it finds nothing, patches nothing that judges, and fails on its values."""
    name, extra = THIEVES[fmt]
    res = harness(command="check", kernel=str(KERNELS / "formats" / name), device="cpu", trials=1,
                  edge_shapes=False, **extra)
    assert res["contract"] == fmt
    assert failed_on_values(res), res["message"]
    assert all(c["status"] == "FAIL" for c in res["cases"])


def test_patched_checker_does_not_judge(harness):
    assert failed_on_values(check(harness, "hack_patch_checker.py"))


def test_rebound_reference_does_not_judge(harness):
    assert failed_on_values(check(harness, "hack_rebind_reference.py", reference=REF))


def test_a_kernel_cannot_rewrite_its_reference(harness, tmp_path):
    """The kernel's cell holds read-only copies of its files: its write of ref.py fails (its import raises) and
    the workspace's ref.py is untouched. (Were the files changed while judged, the verdict is REWARD_HACK:
    remote.rewritten.)"""
    shutil.copy(kernel("hack_rewrite_ref.py"), tmp_path / "kernel.py")
    shutil.copy(REF, tmp_path / "ref.py")
    res = check(harness, "x", kernel=str(tmp_path / "kernel.py"), reference=str(tmp_path / "ref.py"))
    assert res["verdict"] == "FAIL" and "Permission denied" in res["message"], res["message"]
    assert (tmp_path / "ref.py").read_bytes() == pathlib.Path(REF).read_bytes()


def test_a_kernel_process_serves_one_identity(harness, tmp_path):
    """A kernel that patches its process cannot reach the next kernel: each identity gets a fresh process,
    and the same kernel in another workspace is another identity."""
    first = check(harness, "hack_patch_checker.py")
    good = check(harness, "x", kernel=str(ROOT / "examples" / "softmax" / "kernel.py"))
    again = check(harness, "x", kernel=str(ROOT / "examples" / "softmax" / "kernel.py"))
    other = tmp_path / "kernel.py"
    shutil.copy(ROOT / "examples" / "softmax" / "kernel.py", other)
    moved = check(harness, "x", kernel=str(other))
    pids = [r["kernel_process"]["pid"] for r in (first, good, again, moved)]
    assert pids[0] != pids[1] and pids[1] == pids[2] and pids[3] not in pids[:3]
    assert again["kernel_process"]["warm"] and not moved["kernel_process"]["warm"]
    assert good["verdict"] == "PASS" and moved["verdict"] == "PASS"


# --- timing ------------------------------------------------------------------------------------------
def test_patched_timer_is_a_reward_hack(harness):
    res = check(harness, "hack_patch_timer.py")
    assert res["verdict"] == "REWARD_HACK"
    assert "time.perf_counter" in res["message"] and "torch.cuda.Event.elapsed_time" in res["message"]


def test_torch_wrapping_its_own_function_after_the_snapshot_is_not_tampering(harness):
    """The kernel's process does not import torch._dynamo (3.5 s of its cold start) before the snapshot; a kernel
    that imports it later gets torch's own wrapper around torch.manual_seed, which is not a patch."""
    assert check(harness, "dynamo_user.py")["verdict"] == "PASS"


def test_a_rebound_lazy_import_of_the_formats_is_tampering(harness, tmp_path):
    """The formats import torch on first use (lazy.py, so the catalog is read without it); the cell puts the real
    modules in place before its snapshot, so a kernel that swaps one for its own object is seen like any patch."""
    source = (TEMPLATES / "softmax" / "v1_baseline.py").read_text()
    planted = tmp_path / "kernel.py"
    planted.write_text(source + "\nimport types as _t\nimport kgo_harness.formats.stress as _s\n"
                       "_s.torch = _t.SimpleNamespace(**{k: getattr(_s.torch, k) for k in dir(_s.torch)})\n")
    res = check(harness, "x", kernel=str(planted))
    assert res["verdict"] == "REWARD_HACK" and "kgo_harness.formats.stress.torch" in res["message"], res["message"]


def test_kernel_wrapper_dressed_as_torchs_own_is_a_reward_hack(harness):
    res = check(harness, "hack_seed_wrapper.py")
    assert res["verdict"] == "REWARD_HACK" and "torch.manual_seed" in res["message"], res["message"]


def test_timer_patch_that_shadows_the_tamper_check_is_a_reward_hack(harness):
    """The check's method shadowed on its instance (found through gc): the judge still sees the clock."""
    for command in ("check", "bench"):
        res = harness(command=command, kernel=kernel("hack_guard_evasion.py"), op="softmax", device="cpu",
                      shapes=[[64, 256]], edge_shapes=False, trials=1,
                      bench={"runs": 3, "precision_pct": 0, "baselines": []})
        assert res["verdict"] == "REWARD_HACK", (command, res["message"])
        assert "time.perf_counter" in res["message"]


@pytest.mark.parametrize("command", ["check", "bench"])
def test_clock_patch_behind_a_blinded_tamper_check_meets_the_judges_clock(harness, command):
    """Every in-process snapshot rewritten to the patched objects: only the clock readings the judge holds
    against its own clock catch it (guard.clock_disagreement), in check as in bench."""
    res = harness(command=command, kernel=kernel("hack_guard_rewrite.py"), op="softmax", device="cpu",
                  shapes=[[64, 256]], edge_shapes=False, trials=1,
                  bench={"runs": 3, "precision_pct": 0, "baselines": []})
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert "disagrees with the judge's" in res["message"] and "time.perf_counter()" in res["message"]


def test_clock_that_lies_only_to_the_timer_meets_the_judges_wall_clock(harness):
    res = harness(command="bench", kernel=kernel("hack_clock_debt.py"), op="softmax", device="cpu",
                  shapes=[[64, 256]], bench={"runs": 3, "precision_pct": 0, "baselines": []})
    assert res["verdict"] == "REWARD_HACK", res["message"]
    assert "judge's clock" in res["message"] and "back-to-back" in res["message"]


def test_check_runs_under_check_settings_and_bench_times_as_in_use(harness, tmp_path):
    """check: deterministic algorithms and NaN-filled new allocations (unwritten outputs show up); bench: neither,
    so the timed kernel does not pay a fill pass over each output it allocates."""
    for name in ("settings_probe.py", "hack_gpu_memory_hog.py"):
        shutil.copy(kernel(name), tmp_path / name)
    for command in ("check", "bench"):
        mark = harness.mark()
        res = harness(command=command, kernel=str(tmp_path / "settings_probe.py"), op="softmax", device="cpu",
                      shapes=[[64, 256]], edge_shapes=False, trials=1,
                      bench={"runs": 3, "precision_pct": 0, "baselines": []})
        assert res["verdict"] == "PASS", (command, res["message"])
        seen = set(harness.probes(mark, "settings"))
        assert seen == ({"True True"} if command == "check" else {"False False"}), (command, seen)


def test_kernel_process_memory_stays_one_case_whatever_the_trial_count(harness, tmp_path):
    """Inputs the judge ships, finished cases and the outputs held for the judge are dropped case by case: the
    large tensors alive in the kernel's process do not grow with the number of trials."""
    shutil.copy(kernel("kernelbench_memory_probe.py"), tmp_path / "kernelbench_memory_probe.py")
    counts = {}
    for trials in (2, 8):
        mark = harness.mark()
        res = harness(kernel=str(tmp_path / "kernelbench_memory_probe.py"),
                      reference=str(FORMATS / "kernelbench" / "problem.py"), device="cpu", trials=trials,
                      edge_shapes=False, determinism="off", delegation=False, allow_ops=["amax", "exp", "sub", "sum", "div"])
        assert res["verdict"] == "PASS", res["message"]
        counts[trials] = [int(x) for x in harness.probes(mark, "memory", trials)]
        assert len(counts[trials]) == trials
    assert max(counts[8]) <= max(counts[2]), counts


def test_timing_says_how_long_the_judge_waited_on_the_kernels_process(harness):
    honest = ROOT / "templates" / "ops" / "softmax" / "v1_baseline.py"
    res = harness(kernel=str(honest), op="softmax", device="cpu", shapes=[[8, 256]], edge_shapes=False, trials=2)
    assert res["verdict"] == "PASS", res["message"]
    t = res["timing"]
    waits = {k: v for k, v in t.items() if k.startswith("kernel_") and k.endswith("_s")}
    assert waits.get("kernel_execute_s", 0) > 0 and waits.get("kernel_case_s", 0) > 0, t
    assert sum(waits.values()) <= t["wall_s"], t


def test_the_kernels_process_starts_before_the_judge_imports_torch():
    """Without a template (a GPU's default), a cold check's start is the judge's torch import and the kernel
    process's, side by side: the judge spawns that process before it imports torch itself (a torch import first
    made the two serial: 9-11 s on the H100 host instead of 5-6). A pool made before torch's import (this
    snippet's) forks its template, too, before torch's import."""
    import subprocess
    import sys
    for adopter in (False, True):   # a judge adopts orphans: its kernel processes come from the template
        code = ("import sys; sys.path.insert(0, sys.argv[1]); from kgo_harness import procs; from kgo_harness.judge import remote; "
                f"{adopter} and procs.become_subreaper(); "
                "pool = remote.Pool('cpu', keep=0); spawned_before_torch = 'torch' not in sys.modules; "
                "print((pool.template is not None) == procs.is_subreaper()); "
                "pool.wait_ready(); pool.close(); print(spawned_before_torch)")
        out = subprocess.run([sys.executable, "-c", code, str(ROOT / "tools")], capture_output=True, text=True,
                             timeout=120)
        assert out.stdout.split() == ["True", "True"], out.stderr[-2000:]


def test_a_new_identity_gets_a_fork_of_the_template_adopted_by_the_judge(harness, tmp_path):
    """A kernel process for a new identity is forked from the template process (torch already imported there),
    not started afresh, and the judge is its parent: it can wait for it, and it dies with the judge."""
    for name in ("v1_baseline.py", "v3_coalesced.py"):
        res = harness(kernel=str(ROOT / "templates" / "ops" / "softmax" / name), op="softmax",
                      device="cpu", shapes=[[8, 256]], edge_shapes=False, trials=1)
        assert res["verdict"] == "PASS", res["message"]
        pid = res["kernel_process"]["pid"]
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            assert b"__kernel__" not in f.read()   # a fork (of the template, a fork of the judge), not a new one
        with open(f"/proc/{pid}/stat") as f:
            assert int(f.read().rsplit(")", 1)[1].split()[1]) == res["worker"]["pid"]
        # It holds nothing of the template's: the template's request socket is not open in it. (Other sockets may
        # be: on a GPU machine the CUDA driver opens one.)
        template_sockets = {x for x in _fds(_templates(res["worker"]["pid"])[0]).values() if x.startswith("socket:")}
        assert template_sockets and not template_sockets & set(_fds(pid).values()), _fds(pid)


def test_the_template_has_done_each_kernel_processs_own_start_up(harness, tmp_path):
    """The template imports Triton and what a first Triton launch imports, installs launch counting and resolves
    the paths of its modules once; a kernel process forked from it starts with all that done."""
    probe = tmp_path / "softmax_probe.py"
    probe.write_text((TEMPLATES / "softmax" / "v1_baseline.py").read_text() + """
import json as _json, sys as _sys
from kgo_harness.cell import kernel_worker as _kw
_at_import = {"modules": set(_sys.modules), "resolved": len(_kw._REAL_PATHS),
              "with_file": sum(isinstance(getattr(m, "__file__", None), str) for m in list(_sys.modules.values()))}
_inner = triton_softmax


def triton_softmax(*args, **kwargs):
    out = _inner(*args, **kwargs)
    probe("startup", _json.dumps({"resolved": _at_import["resolved"], "with_file": _at_import["with_file"],
                                  "new": sorted(set(_sys.modules) - _at_import["modules"])}))
    return out
""" + PROBE)
    mark = harness.mark()
    res = harness(kernel=str(probe), op="softmax", device="cpu", shapes=[[8, 256]], edge_shapes=False, trials=1)
    assert res["verdict"] == "PASS", res["message"]
    seen = json.loads(harness.probes(mark, "startup")[0])
    assert not [m for m in seen["new"] if m.split(".")[0] in ("triton", "kgo_harness")], seen["new"]
    # Unresolved at the kernel's import, in a process that did its own start-up (the load resolves them after).
    assert seen["resolved"] > 0.5 * seen["with_file"], seen
    [template] = _templates(res["worker"]["pid"])
    with open(f"/proc/{template}/maps") as f:
        assert "libtriton" in f.read()


def test_a_gpu_template_makes_tritons_cache_key_and_a_spawned_process_uses_the_stored_one(tmp_path):
    """A GPU's kernel-process template makes Triton's own cache key, a hash of its compiler and library that a
    process's first compile or cached load makes (0.4 s of a kernel's first launch on an H200 host), so that every
    fork has it, and stores it with its Triton's fingerprint; a later process (a spawned kernel process) takes the
    stored key instead of making it, unless the fingerprint is not its Triton's. The CPU's interpreter never asks
    for the key, so a CPU template skips it."""
    import json
    import subprocess
    import sys
    store = tmp_path / "triton-key.json"
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]); from kgo_harness.cell import kernel_worker as k; "
            "import triton.runtime.cache as c; key = c.triton_key; "
            "k.prepare_template(); print(key.cache_info().currsize); "
            "k.prepare_template(cache_key=True, store=sys.argv[2]); print(key.cache_info().currsize); "
            "key.cache_clear(); stored = json.load(open(sys.argv[2])); "
            "print(k.triton_key(dict(stored, fingerprint='another Triton'), make=False), c.triton_key is key); "
            "k.prepare_template(stored_key=stored); print(c.triton_key() == stored['key'], key.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "tools"), str(store)], capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.split() == ["0", "1", "None", "True", "True", "0"], out.stderr[-2000:]
    assert set(json.loads(store.read_text())) == {"fingerprint", "key"}


def _fds(pid):
    return {int(fd): os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}


def _templates(judge):
    """The judge's forks that are not kernel processes: those lead a session of their own, the template does not."""
    children = set()
    for task in os.listdir(f"/proc/{judge}/task"):
        with open(f"/proc/{judge}/task/{task}/children") as f:
            children |= {int(c) for c in f.read().split()}
    with open(f"/proc/{judge}/cmdline", "rb") as f:
        judge_cmdline = f.read()
    forks = [c for c in children if open(f"/proc/{c}/cmdline", "rb").read() == judge_cmdline]
    return [c for c in forks if int(open(f"/proc/{c}/stat").read().rsplit(")", 1)[1].split()[3]) != c]


def test_the_template_is_a_fork_of_the_judge_holding_none_of_its_descriptors(harness):
    """On the CPU the kernel processes' template is a fork of the judge, made after torch's import (one torch
    import for both): it keeps only its request socket to the judge, reads /dev/null, and runs the interpreter."""
    res = harness(kernel=str(ROOT / "templates" / "ops" / "softmax" / "v1_baseline.py"), op="softmax",
                  device="cpu", shapes=[[8, 256]], edge_shapes=False, trials=1)
    assert res["verdict"] == "PASS", res["message"]
    templates = _templates(res["worker"]["pid"])
    assert len(templates) == 1, {c: _fds(c) for c in templates}
    held = _fds(templates[0])
    assert set(held) - {0, 1, 2} and len(set(held) - {0, 1, 2}) == 1, held   # its socket alone
    assert held[0] == "/dev/null", held
    with open(f"/proc/{templates[0]}/environ", "rb") as f:
        assert b"TRITON_INTERPRET=1" in f.read().split(b"\0")


def test_the_kernels_process_collects_garbage(harness, tmp_path):
    """The judge imports torch with the garbage collector off (procs.collect_later); the template that kernel
    processes are forked from turns it back on, so a kernel's reference cycles are freed. The template freezes
    what it imported first, so no fork's collection walks it; what the kernel process made itself, the guard's
    snapshot among it, stays in gc.get_objects() (where the attack tests look for it)."""
    probe = tmp_path / "gc_probe.py"
    probe.write_text(PROBE + "import gc\nprobe('gc', repr(\n"
                     "    [gc.isenabled(), gc.get_freeze_count() > 100_000,\n"
                     "     any(type(o).__name__ == 'Snapshot' for o in gc.get_objects())]))\n"
                     + (ROOT / "templates" / "ops" / "softmax" / "v1_baseline.py").read_text())
    mark = harness.mark()
    res = harness(kernel=str(probe), op="softmax", device="cpu", shapes=[[8, 256]], edge_shapes=False, trials=1)
    assert res["verdict"] == "PASS", res["message"]
    assert harness.probes(mark, "gc") == ["[True, True, True]"]


def test_honest_kernel_clock_readings_agree_with_the_judges():
    from kgo_harness.cell import guard
    before = guard.clock_stamp()
    mine = guard.clock_stamp()
    assert guard.clock_disagreement(mine, before, guard.clock_stamp()) is None
    assert set(mine) >= {"perf_counter", "monotonic"}
    stale = dict(mine, perf_counter=mine["perf_counter"] - 1.0)
    assert "time.perf_counter()" in guard.clock_disagreement(stale, before, guard.clock_stamp())
    assert "without its clock" in guard.clock_disagreement(None, before, guard.clock_stamp())


def test_time_below_the_physical_floor_is_a_reward_hack(harness):
    # A ceiling no CPU reaches makes an honest time impossible: the floor check alone decides.
    res = harness(command="bench", kernel=str(ROOT / "examples" / "softmax" / "kernel.py"),
                  op="softmax", device="cpu", shapes=[[64, 256]], work=[{"shape": [64, 256], "bytes": 1e15}],
                  ceilings={"bytes_per_s": 1e12, "source": "test"},
                  bench={"runs": 3, "precision_pct": 0, "baselines": []})
    assert res["verdict"] == "REWARD_HACK"
    assert "physical floor" in res["message"] and "1000000000000000 B" in res["message"]


def test_flops_term_of_the_physical_floor(harness):
    """The floor is max(bytes / bandwidth, FLOPs / peak): a FLOP count no CPU can do in the time decides alone,
    with the peak's citation; without a registered peak the floor says it has no FLOPs term."""
    req = dict(command="bench", kernel=str(ROOT / "examples" / "softmax" / "kernel.py"),
               op="softmax", device="cpu", shapes=[[64, 256]], work=[{"shape": [64, 256], "bytes": 1.0, "flops": 1e16}],
               bench={"runs": 3, "precision_pct": 0, "baselines": []})
    res = harness(**req, ceilings={"bytes_per_s": 1e15, "source": "bw cite", "flops_per_s": 1e12,
                                   "flops_source": "peak cite"})
    assert res["verdict"] == "REWARD_HACK"
    assert "10000000000000000 FLOP / 1 TFLOP/s" in res["message"] and "peak cite" in res["message"]
    assert res["sizes"][0]["floor_us"] == pytest.approx(1e10)
    res = harness(**req, ceilings={"bytes_per_s": 1e15, "source": "bw cite", "flops_note": "no fp32 peak registered"})
    size = res["sizes"][0]
    assert res["verdict"] == "PASS" and size["floor_note"] == "no fp32 peak registered"
    assert size["floor_us"] == pytest.approx(1e-9)


def test_near_ceiling_result_is_flagged_for_a_human(harness):
    res = harness(command="bench", kernel=str(ROOT / "examples" / "softmax" / "kernel.py"),
                  op="softmax", device="cpu", shapes=[[64, 256]], work=[{"shape": [64, 256], "bytes": 1e9}],
                  ceilings={"bytes_per_s": 1e15, "audit_bytes_per_s": 1e6, "source": "test"},
                  bench={"runs": 3, "precision_pct": 0, "baselines": []})
    size = res["sizes"][0]
    assert res["verdict"] == "PASS" and size["floor_us"] == pytest.approx(1.0)
    assert size["audit"] and "bandwidth ceiling" in size["audit"][0]


# --- values ------------------------------------------------------------------------------------------
def test_nan_output_is_no_wildcard(harness):
    res = check(harness, "hack_nan_output.py")
    assert res["verdict"] == "FAIL" and res["cases"][0]["outputs"][0]["nonfinite"] > 0


def test_reference_nan_from_finite_inputs_is_invalid(harness, tmp_path):
    ref = tmp_path / "ref.py"
    ref.write_text("import torch\n\n\ndef reference(x):\n    return torch.full_like(x, float('nan'))\n")
    res = check(harness, "hack_nan_output.py", reference=str(ref))
    assert res["verdict"] == "INVALID_REFERENCE" and "fix ref.py" in res["message"]


def test_overflow_unsafe_softmax_fails_on_large_inputs(harness):
    res = check(harness, "hack_overflow.py", trials=2)
    by_trial = {c["trial"]: c["status"] for c in res["cases"]}
    assert by_trial == {0: "PASS", 1: "FAIL"}


def test_precision_downgrade_fails(harness):
    assert failed_on_values(check(harness, "hack_precision.py"))


def test_pointer_keyed_cache_meets_new_values_at_the_same_address(harness):
    res = check(harness, "hack_pointer_cache.py", trials=3)
    assert res["verdict"] == "FAIL"
    assert [c["status"] for c in res["cases"]][:2] == ["PASS", "FAIL"]


def test_thread_deferred_writes_are_not_waited_for(harness):
    res = check(harness, "hack_thread_deferred.py")
    assert res["verdict"] == "FAIL" and res["cases"][0]["outputs"][0]["nonfinite"] > 0


# --- delegation --------------------------------------------------------------------------------------
def test_shape_conditional_fallback_is_caught_at_its_shape(harness):
    res = check(harness, "hack_shape_fallback.py", edge_shapes=True)
    assert all(c["status"] == "PASS" for c in res["cases"])
    assert res["verdict"] == "FAIL" and res["delegation"]["delegated"]
    msg = res["delegation"]["message"]
    assert "softmax" in msg and "[1, 1]" in msg and "[8, 256]" not in msg


def test_decomposed_delegation_with_a_decoy_launch(harness):
    res = check(harness, "hack_decomposed.py")
    assert res["verdict"] == "FAIL" and "aten::exp" in res["delegation"]["message"]
    allowed = check(harness, "hack_decomposed.py", allow_ops=["amax", "sub", "exp", "sum", "div"])
    assert allowed["verdict"] == "PASS"


# --- containment -------------------------------------------------------------------------------------
def test_memory_cap_is_a_crash(harness):
    res = check(harness, "hack_memory_hog.py", memory_limit_mb=2048)
    assert res["verdict"] == "CRASH" and "memory" in res["message"]


def test_memory_cap_while_making_the_case_is_a_crash_and_the_judge_stays_in_step(harness):
    """The kernel's process is sent a case and its run at once (check.start_case): when making the case there
    fails, both replies are read, the verdict is CRASH, and the next request is answered with its own replies."""
    big = harness(kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax", device="cpu", trials=1,
                  shapes=[[6000, 6000]], edge_shapes=False, memory_limit_mb=64)
    assert big["verdict"] == "CRASH" and "ran out of memory" in big["message"], big["message"]
    after = harness(kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax", device="cpu", trials=1,
                    shapes=SMALL)
    assert after["verdict"] == "PASS", after["message"]


def test_out_of_gpu_memory_is_a_crash_naming_the_cap(harness):
    res = check(harness, "raise_oom.py")
    assert res["verdict"] == "CRASH", res["message"]
    assert "ran out of GPU memory" in res["message"] and "--memory-limit" in res["message"]


def test_gpu_cap_is_the_limit_as_a_share_of_the_device():
    from kgo_harness.cell.kernel_worker import gpu_cap_fraction
    assert gpu_cap_fraction(2048, 80 * 2 ** 30) == pytest.approx(2 / 80)
    assert gpu_cap_fraction(10 ** 6, 80 * 2 ** 30) == 1.0
    assert gpu_cap_fraction(None, 80 * 2 ** 30) == 0.5   # no --memory-limit: half of the device, any size


def test_an_out_of_gpu_memory_crash_is_untrusted_only_where_the_judge_sees_others_memory(monkeypatch):
    """envinfo.memory_held_by_others, read by the judge: the device's memory in use beyond what the judge holds, the
    kernel's cap and two contexts' slack is other processes', and only then is an out-of-memory crash not the
    kernel's (worker._crowded finds the report behind the crash; the CPU's cap stays a crash)."""
    import torch
    from kgo_harness.judge import envinfo, remote, worker
    gib = 2 ** 30
    free = {"now": 38 * gib}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda *a: (free["now"], 80 * gib))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda *a: 1 * gib)
    assert envinfo.memory_held_by_others(None) is None   # 42 GiB in use: the judge's 1, the cap's 40, slack
    free["now"] = 1 * gib
    held = envinfo.memory_held_by_others(None)
    assert held and "other processes" in held and "nvidia-smi" in held, held
    assert envinfo.memory_held_by_others(100 * 1024) is None   # a cap of all of it: the kernel's own
    crash = worker.Crash({"status": "CRASH", "message": "out of memory"}, judge_ok=True)
    crash.__context__ = remote.KernelOutOfMemory("the kernel's process ran out of GPU memory")
    assert worker._crowded(crash, {"device": "cuda"}) == held
    assert worker._crowded(crash, {"device": "cpu"}) is None
    crash.__context__ = remote.KernelDied("exit status -11")
    assert worker._crowded(crash, {"device": "cuda"}) is None


SCRATCH_SOFTMAX = """import torch
import triton
import triton.language as tl


@triton.jit
def _row(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + cols, mask=cols < n, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + tl.program_id(0) * n + cols, e / tl.sum(e, axis=0), mask=cols < n)


def triton_softmax(x):
    scratch = torch.empty(6 * 2 ** 30, dtype=torch.uint8, device=x.device)   # a working buffer of 6 GiB
    x2 = x.reshape(-1, x.shape[-1])
    y = torch.empty_like(x2)
    _row[(x2.shape[0],)](x2, y, x2.shape[1], BLOCK=triton.next_power_of_2(x2.shape[1]))
    del scratch
    return y.reshape(x.shape)
"""
FILL_GPU = """import sys, torch
free, total = torch.cuda.mem_get_info()
held = torch.empty(free - 3 * 2 ** 30, dtype=torch.uint8, device="cuda")
print("held", flush=True)
sys.stdin.read()
"""


@needs_cuda
def test_a_kernel_out_of_memory_on_a_gpu_others_filled_is_untrusted_not_a_crash(harness, tmp_path):
    """An honest kernel that needs a 6 GiB working buffer, checked while another process holds all but 3 GiB of the
    GPU: the judge reads the device's memory itself and answers UNTRUSTED (the crash is not the kernel's); with the
    GPU to itself the same check passes. Without the judge's reading it is a CRASH blamed on the kernel."""
    import subprocess
    import sys
    (tmp_path / "kernel.py").write_text(SCRATCH_SOFTMAX)
    req = dict(kernel=str(tmp_path / "kernel.py"), op="softmax", device="cuda", trials=1, shapes=SMALL,
               edge_shapes=False)
    filler = subprocess.Popen([sys.executable, "-c", FILL_GPU], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert filler.stdout.readline().strip() == "held"
        crowded = harness(**req)
    finally:
        filler.stdin.close()
        filler.wait(timeout=60)
    assert crowded["verdict"] == "UNTRUSTED" and "other processes" in crowded["message"], crowded["message"]
    alone = harness(**req)
    assert alone["verdict"] == "PASS", alone["message"]


@needs_cuda
def test_gpu_memory_cap_is_a_crash(harness):
    res = harness(kernel=kernel("hack_gpu_memory_hog.py"), op="softmax", device="cuda", trials=1,
                  shapes=[[64, 256]], edge_shapes=False, memory_limit_mb=2048)
    assert res["verdict"] == "CRASH", res["message"]
    assert "GPU memory" in res["message"] and "2048 MiB" in res["message"]


@needs_cuda
def test_default_gpu_cap_is_half_the_device(harness):
    res = harness(kernel=kernel("hack_gpu_memory_most.py"), op="softmax", device="cuda", trials=1,
                  shapes=[[64, 256]], edge_shapes=False)
    assert res["verdict"] == "CRASH", res["message"]
    assert "the default 50% of the device's memory" in res["message"] and "--memory-limit" in res["message"]


def test_a_timed_out_kernels_children_end_with_it_while_the_judge_serves_on(harness, tmp_path):
    """After a timeout only the kernel's process is killed (the judge serves on): its children, in its session and
    in a session of their own, must not outlive it."""
    shutil.copy(kernel("hack_hang_escape.py"), tmp_path / "kernel.py")
    res = harness(kernel=str(tmp_path / "kernel.py"), op="softmax", device="cpu", shapes=[[8, 256]],
                  edge_shapes=False, trials=1, case_timeout_s=3)
    assert res["verdict"] == "TIMEOUT_FAIL", res["message"]
    after = check(harness, "hack_precision.py")
    assert after["worker"]["warm"] is True, after["worker"]
    _wait_gone("kgo-hang-escape-probe", "the timed-out kernel's children outlived it")


def _wait_gone(marker, failure):
    """Waits up to 5 s for every process whose command line holds `marker` to be gone (or a zombie); fails the
    test with `failure` if one is not. (A kernel's children live in its cell's PID namespace: the marker, not a pid
    they could report, is how they are found from here.)"""
    for _ in range(50):
        if not alive_with(marker):
            return
        time.sleep(0.1)
    pytest.fail(failure)


def test_escaped_grandchild_is_killed(harness, tmp_path):
    shutil.copy(kernel("hack_escape.py"), tmp_path / "kernel.py")
    res = check(harness, "x", kernel=str(tmp_path / "kernel.py"))
    assert res["verdict"] == "PASS", res["message"]
    assert alive_with("kgo-escape-probe"), "the kernel's child did not start"
    # The next identity replaces this kernel's process; its whole tree goes with it.
    check(harness, "hack_precision.py")
    _wait_gone("kgo-escape-probe", "the setsid grandchild outlived its kernel process")
