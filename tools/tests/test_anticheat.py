"""Anti-cheat: one test per way a kernel can look right or fast without being so. Each must be caught.
Runs on the CPU (Triton interpreter) and, where a GPU is present, on the GPU too."""
# ctest-cost: 26
import pathlib
import shutil

import pytest

from conftest import DEVICES, HAS_CUDA, KERNELS, ROOT, SMALL, kernel, run_cli, vendor_stub


def check(harness, name, op, device, **extra):
    req = dict(kernel=kernel(name), op=op, device=device, trials=2, shapes=SMALL)
    req.update(extra)
    return harness(**req)


@pytest.mark.parametrize("device", DEVICES)
def test_returns_zeros(harness, device):
    res = check(harness, "cheat_zeros.py", "softmax", device)
    assert res["verdict"] == "FAIL"
    first = res["cases"][0]
    assert first["status"] == "FAIL" and first["rel_err"] == pytest.approx(1.0)
    assert first["first_bad_index"] is not None


@pytest.mark.parametrize("device", DEVICES)
def test_returns_constant(harness, device):
    res = check(harness, "cheat_constant.py", "softmax", device)
    assert res["verdict"] == "FAIL"
    # The all-ones 1x1 edge case is the one shape where the constant 1/n is the right answer.
    failed = [c for c in res["cases"] if c["status"] == "FAIL"]
    assert failed and all(c["mismatches"] > 0 for c in failed)


@pytest.mark.parametrize("device", DEVICES)
def test_writes_part_of_output(harness, device):
    res = check(harness, "cheat_partial.py", "gelu", device)
    assert res["verdict"] == "FAIL"
    case = next(c for c in res["cases"] if c["status"] == "FAIL")
    out = case["outputs"][0]
    assert out["nonfinite"] > 0, "unwritten elements must show up as NaN"
    assert case["max_abs_err"] is None  # NaN never produces a finite error


@pytest.mark.parametrize("device", DEVICES)
def test_returns_cached_result(harness, device):
    res = check(harness, "cheat_cached.py", "gelu", device)
    assert res["verdict"] == "FAIL"
    by_trial = {(tuple(c["shape"]), c["trial"]): c["status"] for c in res["cases"]}
    assert by_trial[(8, 256), 0] == "PASS"   # first call computes
    assert by_trial[(8, 256), 1] == "FAIL"   # fresh inputs expose the replay


@pytest.mark.parametrize("device", DEVICES)
def test_calls_the_torch_op_it_replaces(harness, device):
    res = check(harness, "cheat_delegate.py", "softmax", device)
    assert all(c["status"] == "PASS" for c in res["cases"])  # numerically perfect...
    assert res["verdict"] == "FAIL"                          # ...and still rejected
    assert res["delegation"]["delegated"] is True
    assert "aten::softmax" in res["delegation"]["reference_ops_called"]


@pytest.mark.parametrize("device", DEVICES)
def test_only_torch_ops_no_kernel(harness, device):
    res = check(harness, "cheat_delegate_only.py", "softmax", device)
    assert res["verdict"] == "FAIL", res["message"]
    assert res["delegation"]["delegated"] is True and res["delegation"]["own_launches"] == 0


@pytest.mark.skipif(not HAS_CUDA, reason="streams exist only on the GPU")
def test_side_stream_behind_a_slow_host_meets_a_delay_that_follows_the_host(harness):
    """The unjoined side stream launched after a millisecond on the host, in every checked case of one shape: the
    input delay is the long one wherever the call's last run took the host 100 us or more, so each case reads
    poison. With the short delay in every case it passes the check."""
    res = check(harness, "cheat_side_stream_slow_host.py", "softmax", "cuda", shapes=[[4096, 4096]],
                edge_shapes=False, trials=3)
    assert res["verdict"] == "FAIL" and res["streams"]["ordered"] is False, res["message"]
    assert sum(c["status"] == "FAIL" for c in res["cases"]) == 3, res["cases"]


@pytest.mark.skipif(not HAS_CUDA, reason="streams exist only on the GPU")
def test_side_stream_without_sync(harness):
    res = check(harness, "cheat_side_stream.py", "softmax", "cuda", shapes=[[4096, 4096]], edge_shapes=False,
                trials=1)
    assert res["verdict"] == "FAIL"
    assert res["streams"]["ordered"] is False, res["message"]
    bench = harness(command="bench", kernel=kernel("cheat_side_stream.py"), op="softmax", device="cuda",
                    shapes=[[4096, 4096]], bench={"baselines": [], "runs": 10})
    size = bench["sizes"][0]
    # Caught either way: its work escapes the timed stream, or (when the side stream's short kernel finished before
    # the pending probe looked, as seen on an H200) its timed calls' outputs are wrong on their fresh inputs.
    assert bench["verdict"] == "FAIL" and (size["stream_escape"] is True or size["outputs_checked"] is False), size


@pytest.mark.parametrize("device", DEVICES)
def test_right_only_for_power_of_two_shapes(harness, device):
    only_pow2 = check(harness, "cheat_pow2.py", "gelu", device, shapes=[[64, 1024]], edge_shapes=False)
    assert only_pow2["verdict"] == "PASS"  # the cheat works when only powers of two are tried
    res = check(harness, "cheat_pow2.py", "gelu", device, shapes=[[64, 1024]])
    assert res["verdict"] == "FAIL"
    failed = {tuple(c["shape"]) for c in res["cases"] if c["status"] == "FAIL"}
    assert (17, 17) in failed and (3, 4097) in failed


@pytest.mark.parametrize("device", DEVICES)
def test_race_nondeterministic(harness, device):
    shapes = [[64, 4097]] if device == "cuda" else SMALL
    res = check(harness, "cheat_race.py", "softmax", device, shapes=shapes, edge_shapes=False, trials=3)
    assert res["verdict"] == "FAIL"
    assert res["determinism"]["equal"] is False, res["message"]
    assert any(c["deterministic"] is False for c in res["cases"])


@pytest.mark.parametrize("device", DEVICES)
def test_reads_uninitialized_buffer(harness, device):
    res = check(harness, "cheat_uninit.py", "softmax", device)
    assert res["verdict"] == "FAIL"
    assert all(c["outputs"][0]["nonfinite"] > 0 for c in res["cases"] if c["status"] == "FAIL")


@pytest.mark.parametrize("device", DEVICES)
def test_modifies_its_input(harness, device):
    res = check(harness, "cheat_modifies_input.py", "gelu", device)
    assert res["verdict"] == "FAIL" and res["inputs_unchanged"] is False


def test_returns_tensor_subclass(harness):
    res = check(harness, "cheat_lazy.py", "gelu", "cpu")
    assert res["verdict"] == "FAIL"
    assert "not a plain torch.Tensor" in res["cases"][0]["message"]


def test_a_kernel_that_hides_from_the_delegation_check_fails(harness):
    """It raises whenever a profiler is on: every checked call runs in the observer's window, so its checked calls
    fail (before the observer was the checked calls, its cases passed and only an unrun check stood against it)."""
    res = check(harness, "hack_profiler_shy.py", "softmax", "cpu")
    assert res["verdict"] == "FAIL", res["message"]
    asked = {tuple(s) for s in SMALL}
    # At the shapes asked for, its refusal fails; at kgo's own edge shapes a refusal is a skip (check.land), which
    # hides nothing: the shapes asked for decide.
    assert all(c["status"] == "FAIL" for c in res["cases"] if tuple(c["shape"]) in asked), res["cases"]
    assert all(c["status"] in ("FAIL", "SKIPPED") and "not while you are looking" in c["message"] for c in res["cases"])


@pytest.mark.parametrize("device", DEVICES)
def test_delegation_outside_a_profiled_pass_is_seen_in_the_checked_calls(harness, device):
    """Attack (b): torch's softmax in every call but one made under a frame named like a profiling pass. The checked
    calls are the observed calls, so the delegation shows in them (a separate profiled pass saw only the honest
    kernel and passed it)."""
    res = check(harness, "hack_deleg_profile_pass.py", "softmax", device)
    assert all(c["status"] == "PASS" for c in res["cases"])   # torch's answers are right...
    assert res["verdict"] == "FAIL" and res["culprit"] == "delegation", res["message"]
    assert res["delegation"]["delegated"] is True and "aten::softmax" in res["delegation"]["reference_ops_called"]
    observed = [o for c in res["cases"] for o in c["observed"]]
    assert observed and all(o["marks"] == o["calls"] >= 1 for o in observed)


@pytest.mark.parametrize("device", DEVICES)
def test_delegation_handed_to_another_thread_is_seen(harness, device):
    """torch's softmax on a worker thread, a decoy launch of its own kernel on the calling one: the observer records
    every thread, and ops another thread began during a call are the call's."""
    res = check(harness, "hack_deleg_thread.py", "softmax", device)
    assert res["verdict"] == "FAIL" and "aten::softmax" in res["delegation"]["reference_ops_called"], res["message"]


@pytest.mark.skipif(not HAS_CUDA, reason="cuBLAS runs on a GPU")
def test_a_vendor_library_reached_through_ctypes_is_delegation(harness):
    """cuBLAS's SGEMM called through ctypes beside a launch of its own kernel: no aten op, an own launch in every
    call, right answers; the audit hook on ctypes' symbol lookups names them (launches.VENDOR_SYMBOLS). Without it
    this kernel PASSes (6407af7 on an H200: "own kernels ran in all 20 observed calls")."""
    res = check(harness, "hack_cublas_ctypes.py", "matmul", "cuda", shapes=[[256, 256, 256]])
    assert all(c["status"] in ("PASS", "SKIPPED") for c in res["cases"]), res["cases"]   # cuBLAS is right...
    assert res["verdict"] == "FAIL" and res["culprit"] == "delegation", res["message"]
    assert "cublasSgemm_v2" in res["delegation"]["message"] and "--allow-op cublas" in res["delegation"]["message"]
    allowed = check(harness, "hack_cublas_ctypes.py", "matmul", "cuda", shapes=[[256, 256, 256]], allow_ops=["cublas"])
    assert allowed["verdict"] == "PASS", allowed["message"]


@pytest.mark.parametrize("device", DEVICES)
def test_a_vendor_library_linked_by_an_object_it_loads_is_delegation(harness, tmp_path, device):
    """The work done by a compiled object of the kernel's own that links a vendor library (on the CPU a stand-in
    for cuBLAS built here, on a GPU the real one), beside a launch of its own kernel: no aten op, no vendor name
    looked up through ctypes, right answers; the object's undefined symbols name the library (linked.Linked).
    Without that reading it PASSes on the CPU."""
    vendor_stub(tmp_path, device)
    shutil.copy(kernel("hack_linked_vendor.py"), tmp_path)
    req = dict(kernel=str(tmp_path / "hack_linked_vendor.py"), op="add", device=device, trials=2, shapes=SMALL)
    res = harness(**req)
    assert all(c["status"] in ("PASS", "SKIPPED") for c in res["cases"]), res["cases"]   # the library is right...
    assert res["verdict"] == "FAIL" and res["culprit"] == "delegation", res["message"]
    assert "cublasSaxpy_v2" in res["delegation"]["message"] and "--allow-op cublas" in res["delegation"]["message"]
    allowed = harness(**req, allow_ops=["cublas"])
    assert allowed["verdict"] == "PASS", allowed["message"]


@pytest.mark.parametrize("device", DEVICES)
def test_a_vendor_library_reached_through_cffi_is_delegation(harness, tmp_path, device):
    """The work done by cuBLAS (a stand-in on the CPU, the real one on a GPU) reached through cffi's ABI mode
    (ffi.dlopen), beside a launch of its own kernel: the names looked up in cffi's backend name the library
    (launches._hook_cffi). Without the hook it PASSes on the CPU."""
    pytest.importorskip("cffi")
    if device == "cpu":
        vendor_stub(tmp_path, device)
    shutil.copy(kernel("hack_cffi_vendor.py"), tmp_path)
    req = dict(kernel=str(tmp_path / "hack_cffi_vendor.py"), op="add", device=device, trials=2, shapes=SMALL)
    res = harness(**req)
    assert all(c["status"] in ("PASS", "SKIPPED") for c in res["cases"]), res["cases"]
    assert res["verdict"] == "FAIL" and res["culprit"] == "delegation", res["message"]
    assert "cublasSaxpy_v2" in res["delegation"]["message"] and "--allow-op cublas" in res["delegation"]["message"]


def test_a_kernel_that_stops_the_shared_profiler_loses_its_observation(harness):
    """A check's cases share one profiler session: a kernel that stops it in its third call, then lets torch work,
    leaves every later call without its range, and the check fails on the calls the observer lost (torch 2.11, whose
    session the kernel stopped reads no events at all: on the calls not observed)."""
    res = check(harness, "hack_profiler_stop.py", "softmax", "cpu")
    assert res["verdict"] == "FAIL" and res["culprit"] == "delegation", res["message"]
    message = res["delegation"]["message"]
    assert "lost calls" in message or "calls were not observed" in message, res["delegation"]


@pytest.mark.parametrize("device", DEVICES)
def test_ranges_the_kernel_opens_under_the_observers_names_hide_none_of_its_ops(harness, device):
    """Empty ranges opened inside each call under the observer's own names, then torch's softmax: an op is a call's
    when it began inside any of that call's ranges, not only the one begun last before it (which hid the softmax)."""
    res = check(harness, "hack_deleg_nested_mark.py", "softmax", device)
    assert all(c["status"] == "PASS" for c in res["cases"])   # torch's answers are right...
    assert res["verdict"] == "FAIL" and res["culprit"] == "delegation", res["message"]
    assert "aten::softmax" in res["delegation"]["reference_ops_called"], res["delegation"]


def test_an_observer_whose_call_ranges_were_emptied_is_tampering(harness):
    """The observer's call range replaced by one that closes at once (the work falls outside it) is a rebound
    profiler primitive: REWARD_HACK, not a pass on a decoy launch."""
    res = check(harness, "hack_deleg_empty_mark.py", "softmax", "cpu")
    assert res["verdict"] == "REWARD_HACK" and "_RecordFunctionFast" in res["message"], res["message"]


def test_kernel_bundles_unpack_to_one_file_each_and_refuse_bad_paths(tmp_path):
    """The attack kernels live in kernels/<family>.bundle (kernel_files): every section becomes one file of the
    folder the tests judge, and a bundle with a repeated or escaping path, or text before its first header, is
    refused by name rather than unpacked half."""
    import kernel_files
    written = {str(p.relative_to(KERNELS)) for p in KERNELS.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert written == set(kernel_files.contents()) and "cheat_zeros.py" in written and "cell/hack_network.py" in written
    assert (KERNELS / "cheat_zeros.py").read_text() == kernel_files.contents()["cheat_zeros.py"]
    h = kernel_files.HEADER
    for bad in (f"{h}a.py\nx = 1\n{h}a.py\ny = 2\n", f"{h}../a.py\nx = 1\n", "x = 1\n" + f"{h}a.py\n"):
        bundle = tmp_path / "bad.bundle"
        bundle.write_text(bad)
        with pytest.raises(ValueError, match="bad.bundle"):
            kernel_files.unpack(bundle)
    bundle.write_text(f"{h}a.py\nx = 1\n{h}sub/b.py\ny = 2\n")
    assert kernel_files.unpack(bundle) == {"a.py": "x = 1\n", "sub/b.py": "y = 2\n"}


# Issue 33: a warm judge (its caches, a template's spare kernel processes) must judge as a cold one-shot harness does.
SAME_EITHER_WAY = [("cheat_cached.py", "gelu"), ("cheat_delegate.py", "softmax"),
                   (ROOT / "examples" / "softmax" / "kernel.py", "softmax")]


def test_a_warm_judge_and_its_spares_give_a_cold_starts_verdicts(harness):
    """The same verdicts from a warm judge with its spare kernel processes, from a one-shot judge forked by the
    judges' template with a kernel process forked from its own template, and from a cold start: a one-shot judge
    that imported torch itself (KGO_JUDGE_FORK=0) with its kernel process spawned afresh (KGO_HARNESS_TEMPLATE=0:
    on a GPU, a cold judge's first kernel process)."""
    warm, forked, cold = [], [], []
    for name, op in SAME_EITHER_WAY:
        req = dict(kernel=str(name) if isinstance(name, pathlib.Path) else kernel(name), op=op, device="cpu",
                   trials=2, shapes=SMALL, edge_shapes=False)
        res = harness(**req)
        warm.append((res["verdict"], [c["status"] for c in res["cases"]], res["delegation"]["delegated"]))
        for env, out in (({}, forked), ({"KGO_JUDGE_FORK": "0", "KGO_HARNESS_TEMPLATE": "0"}, cold)):
            _, res, err = run_cli("check", req, env=env)
            assert res is not None, err[-2000:]
            assert res["kernel_process"]["started"] == ("spawned" if out is cold else "forked"), res["kernel_process"]
            out.append((res["verdict"], [c["status"] for c in res["cases"]], res["delegation"]["delegated"]))
    assert warm == forked == cold
    assert [v for v, _, _ in warm] == ["FAIL", "FAIL", "PASS"]
