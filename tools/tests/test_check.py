"""`check`: the example variants pass, the seed contract works with ref.py tolerance overrides, crashes and
hangs become verdicts, the edge shapes are always tried, and isolate=case gives every case a fresh kernel process."""
# ctest-cost: 42
import pathlib

import pytest

from conftest import DEVICES, KERNELS, PROBE, ROOT, SMALL, TEMPLATES, kernel, probe_lines

FORMATS = ROOT / "examples" / "formats"

VARIANTS = ["v1_baseline", "v2_tiling", "v3_coalesced", "v4_optimized"]
OPS = ["softmax", "layer_norm", "gelu", "add"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_template_variants_pass(harness, op, variant):
    # A fixed seed: the error bound below is for these inputs (a request's seed is otherwise drawn afresh).
    res = harness(kernel=str(TEMPLATES / op / f"{variant}.py"), reference=str(TEMPLATES / op / "ref.py"),
                  op=op, device="cpu", trials=2, shapes=SMALL, seed=42)
    assert res["verdict"] == "PASS", res["message"]
    assert res["contract"] == "op" and res["entry"] == f"triton_{op}"
    assert res["determinism"]["equal"] is True
    assert res["delegation"]["delegated"] is False and res["delegation"]["own_launches"] > 0
    assert res["max_rel_err"] < 1e-6
    shapes = {tuple(c["shape"]) for c in res["cases"]}
    assert {(8, 256), (1, 1), (17, 17), (3, 4097)} <= shapes


def test_a_kernel_that_refuses_an_edge_shape_is_skipped_there_not_failed(harness, tmp_path):
    """A kernel that raises at one of kgo's own edge shapes (fmh66's tl.dot kernels need 16 along each dim) has no
    output there to be wrong: that shape is SKIPPED and named in the warnings; the shapes asked for decide. At a
    shape asked for, the same refusal fails."""
    src = (TEMPLATES / "softmax" / "v1_baseline.py").read_text()
    guarded = src.replace("def triton_softmax(x: torch.Tensor) -> torch.Tensor:\n",
                          "def triton_softmax(x: torch.Tensor) -> torch.Tensor:\n"
                          "    if x.shape[-1] % 16:\n"
                          "        raise ValueError('rows must be a multiple of 16')\n")
    assert guarded != src
    (tmp_path / "k.py").write_text(guarded)
    res = harness(kernel=str(tmp_path / "k.py"), op="softmax", device="cpu", trials=1, shapes=[[8, 256]])
    assert res["verdict"] == "PASS", res["message"]
    status = {tuple(c["shape"]): c["status"] for c in res["cases"]}
    assert status[(8, 256)] == "PASS" and status[(17, 17)] == "SKIPPED", status
    assert any("rejected by the kernel" in w and "multiple of 16" in w for w in res["warnings"]), res["warnings"]
    res = harness(kernel=str(tmp_path / "k.py"), op="softmax", device="cpu", trials=1, shapes=[[8, 250]])
    assert res["verdict"] == "FAIL" and res["cases"][0]["status"] == "FAIL", res["message"]


def test_half_precision_uses_half_tolerance(harness):
    res = harness(kernel=str(TEMPLATES / "softmax" / "v4_optimized.py"), op="softmax", device="cpu",
                  dtype="float16", trials=1, shapes=SMALL)
    assert res["verdict"] == "PASS", res["message"]
    assert res["tolerance"]["atol"] == pytest.approx(1e-2) and res["tolerance"]["source"] == "default"
    assert res["reference_dtype"] == "float64"


def test_seed_contract_with_ref_overrides(harness):
    res = harness(kernel=kernel("seed_add.py"), reference=kernel("seed_ref.py"), device="cpu", trials=2,
                  shapes=SMALL)
    assert res["verdict"] == "PASS", res["message"]
    assert res["contract"] == "seed"
    tol = {k: res["tolerance"][k] for k in ("atol", "rtol", "max_rel_err", "source")}
    assert tol == {"atol": 1e-5, "rtol": 1e-5, "max_rel_err": 1e-3, "source": "ref.py"}
    assert "ref.py atol=1e-05" in res["tolerance"]["basis"]
    seeds = {c["seed"] for c in res["cases"]}
    assert len(seeds) == len(res["cases"]), "every case gets its own seed"


def test_seed_contract_wrong_result_and_request_override(harness):
    res = harness(kernel=kernel("seed_add_wrong.py"), reference=kernel("seed_ref.py"), device="cpu",
                  trials=1, shapes=SMALL, atol=1e-3)
    assert res["verdict"] == "FAIL"
    assert res["tolerance"]["source"] == "request" and res["tolerance"]["atol"] == 1e-3
    case = res["cases"][0]
    assert case["mismatches"] > 0 and case["first_bad_index"] is not None


def test_seed_contract_needs_reference(harness):
    res = harness(kernel=kernel("seed_add.py"), device="cpu", shapes=SMALL)
    assert res["verdict"] == "FAIL" and "ref.py" in res["message"]


def test_op_mode_needs_known_op(harness):
    res = harness(kernel=str(TEMPLATES / "gelu" / "v1_baseline.py"), device="cpu", shapes=SMALL)
    assert res["verdict"] == "FAIL" and "--op" in res["message"]
    res = harness(kernel=str(TEMPLATES / "gelu" / "v1_baseline.py"), op="no_such_op", device="cpu")
    assert res["verdict"] == "FAIL" and "catalog" in res["message"]


def test_aliases_are_kgos_and_missing_entry(harness):
    # kgo resolves aliases (its catalog's) before it sends a request: the harness takes canonical names.
    res = harness(kernel=str(TEMPLATES / "layer_norm" / "v1_baseline.py"), op="layer_norm", device="cpu",
                  trials=1, shapes=SMALL)
    assert res["verdict"] == "PASS" and res["op"] == "layer_norm"
    res = harness(kernel=str(TEMPLATES / "layer_norm" / "v1_baseline.py"), op="layernorm", device="cpu",
                  trials=1, shapes=SMALL)
    assert res["verdict"] == "FAIL" and "catalog" in res["message"]
    res = harness(kernel=str(TEMPLATES / "gelu" / "v1_baseline.py"), op="gelu", entry="nope", device="cpu")
    assert res["verdict"] == "FAIL" and "triton_gelu" in res["message"]


def test_segfault_is_crash_and_the_judge_serves_on(harness):
    res = harness(kernel=kernel("crash_segv.py"), op="gelu", device="cpu", shapes=SMALL)
    assert res["verdict"] == "CRASH" and "SIGSEGV" in res["message"]
    assert res["cases"][0]["status"] == "CRASH"
    assert all(c["status"] == "SKIPPED" for c in res["cases"][1:])
    # Only the kernel's process died: the same judge serves the next requests, each with a kernel process.
    again = harness(kernel=kernel("crash_segv.py"), op="gelu", device="cpu", shapes=SMALL)
    assert again["verdict"] == "CRASH" and again["worker"]["warm"] is True, again["worker"]
    after = harness(kernel=str(TEMPLATES / "gelu" / "v4_optimized.py"), op="gelu", device="cpu", trials=1,
                    shapes=SMALL)
    assert after["verdict"] == "PASS", after["message"]
    assert after["worker"]["warm"] is True and after["worker"]["pid"] == res["worker"]["pid"], after["worker"]


def test_abort_is_crash(harness):
    res = harness(kernel=kernel("crash_abort.py"), op="gelu", device="cpu", shapes=SMALL)
    assert res["verdict"] == "CRASH" and "SIGABRT" in res["message"]


def test_hang_is_timeout_and_the_judge_serves_on(harness):
    """A hanging kernel: TIMEOUT_FAIL; the supervisor ends the kernel's process, and the judge, which was only
    waiting on it, serves the next requests (case and total timeouts alike)."""
    res = harness(kernel=kernel("hang.py"), op="gelu", device="cpu", shapes=SMALL, case_timeout_s=2)
    assert res["verdict"] == "TIMEOUT_FAIL"
    assert res["cases"][0]["status"] == "TIMEOUT_FAIL" and "2 s" in res["message"]
    again = harness(kernel=kernel("hang.py"), op="gelu", device="cpu", shapes=SMALL, case_timeout_s=30,
                    total_timeout_s=3)
    assert again["verdict"] == "TIMEOUT_FAIL" and "total timeout" in again["message"]
    after = harness(kernel=str(TEMPLATES / "gelu" / "v4_optimized.py"), op="gelu", device="cpu", trials=1,
                    shapes=SMALL)
    assert after["verdict"] == "PASS", after["message"]
    assert again["worker"]["warm"] is True and after["worker"]["warm"] is True, (again["worker"], after["worker"])
    assert res["worker"]["pid"] == again["worker"]["pid"] == after["worker"]["pid"]


def test_the_kernels_import_has_its_own_limit_outside_the_total(harness, tmp_path):
    """A kernel whose import takes longer than the request's total timeout (a load_inline compile of a CUDA
    extension: 40-60 s of nvcc on a first check) is judged: the import has load_timeout_s of its own. Past that
    limit the import is a TIMEOUT_FAIL that names it."""
    slow = tmp_path / "slow_import.py"
    slow.write_text("import time\ntime.sleep(4)\n" + (TEMPLATES / "gelu" / "v4_optimized.py").read_text())
    res = harness(kernel=str(slow), op="gelu", device="cpu", shapes=SMALL, trials=1, edge_shapes=False,
                  delegation=False, total_timeout_s=3)
    assert res["verdict"] == "PASS", res["message"]
    again = tmp_path / "slow_import_again.py"   # a new identity: a kernel process that has not imported it
    again.write_text(slow.read_text())
    res = harness(kernel=str(again), op="gelu", device="cpu", shapes=SMALL, trials=1, edge_shapes=False,
                  delegation=False, total_timeout_s=3, load_timeout_s=1)
    assert res["verdict"] == "TIMEOUT_FAIL" and "the kernel's import" in res["message"], res["message"]


def test_a_judge_stuck_in_the_reference_is_restarted(harness):
    """The judge itself hangs (the reference runs there): ending the kernel's process does not free it, so after
    its grace the supervisor kills it and the next request gets a fresh judge."""
    res = harness(kernel=kernel("seed_add.py"), reference=kernel("hang_ref.py"), device="cpu", trials=1,
                  shapes=[[8, 16]], edge_shapes=False, case_timeout_s=2)
    assert res["verdict"] == "TIMEOUT_FAIL", res["message"]
    after = harness(kernel=str(TEMPLATES / "gelu" / "v4_optimized.py"), op="gelu", device="cpu", trials=1,
                    shapes=SMALL)
    assert after["verdict"] == "PASS" and after["worker"]["warm"] is False, after["worker"]


def test_a_hang_in_the_case_begun_while_another_is_judged_is_that_cases_timeout(harness):
    """The judge begins case 2 before it has decided case 1 (the pipeline): the case timeout follows case 2,
    rather than lapsing when case 1 is reported done."""
    res = harness(kernel=kernel("hang_later.py"), op="softmax", device="cpu", shapes=SMALL, trials=2,
                  edge_shapes=False, delegation=False, case_timeout_s=3, total_timeout_s=120)
    assert res["verdict"] == "TIMEOUT_FAIL", res["message"]
    assert "trial=1 exceeded its 3 s timeout" in res["message"], res["message"]
    assert [c["status"] for c in res["cases"]] == ["PASS", "TIMEOUT_FAIL"], res["cases"]


def test_isolate_case(harness, tmp_path):
    """isolate=case: each case runs in a kernel process of its own (a probe kernel reports, on each call, a token
    drawn when its process imported it: in their cells all kernel processes have the same pid); the judge stays."""
    probe = tmp_path / "gelu_pids.py"
    probe.write_text((TEMPLATES / "gelu" / "v1_baseline.py").read_text() + PROBE + """
import os as _os
_inner = triton_gelu
_token = _os.urandom(8).hex()


def triton_gelu(*args, **kwargs):
    probe("process", _token)
    return _inner(*args, **kwargs)
""")
    judge = harness(kernel=str(TEMPLATES / "gelu" / "v1_baseline.py"), op="gelu", device="cpu", trials=1,
                    shapes=SMALL, edge_shapes=False)["worker"]["pid"]
    mark = harness.mark()
    res = harness(kernel=str(probe), op="gelu", device="cpu", trials=1, shapes=SMALL + [[4, 64]],
                  edge_shapes=False, isolate="case")
    assert res["verdict"] == "PASS" and len(res["cases"]) == 2
    assert res["delegation"]["checked"] is True
    pids = harness.probes(mark, "process", 3)
    runs = [p for i, p in enumerate(pids) if i == 0 or pids[i - 1] != p]
    assert len(runs) == len(set(runs)) >= 2, pids            # each case's calls in a process no other case used
    assert res["worker"]["pid"] == judge                      # the judge stays
    crashed = harness(kernel=kernel("crash_segv.py"), op="gelu", device="cpu", trials=1, shapes=SMALL,
                      isolate="case")
    assert crashed["verdict"] == "CRASH"


@pytest.mark.parametrize("device", DEVICES)
def test_nan_inputs_reference_nonfinite_positions_must_match(harness, device):
    # Softmax of a row with +inf is NaN in torch; the kernel must reproduce the reference where it is
    # non-finite, and nothing else is allowed to be non-finite: covered by compare tests; here only the
    # plain path on each device.
    res = harness(kernel=str(TEMPLATES / "softmax" / "v1_baseline.py"), op="softmax", device=device,
                  trials=1, shapes=SMALL)
    assert res["verdict"] == "PASS"


def _intervals(lines, who):
    rows = [line.split() for line in lines]
    return [(float(a), float(b)) for w, a, b in rows if w == who]


def _logged(src, line, who, sleep=0.0):
    """`src`'s text with `line` preceded by code that sleeps `sleep` s and prints "KGO-PROBE calls who start end" on
    its stderr (the kernel's cell may write no file here)."""
    return src.read_text().replace(line, "        import sys, time\n        t0 = time.time()\n"
                                   f"        time.sleep({sleep})\n"
                                   f"        sys.__stderr__.write(f'KGO-PROBE calls {who} {{t0}} {{time.time()}}\\n')\n"
                                   "        sys.__stderr__.flush()\n"
                                   + line)


def test_the_judge_makes_the_next_case_while_the_kernel_runs(harness, tmp_path):
    """KernelBench inputs and references are made by the judge: the next case's while the kernel's process runs
    the current one (check.Ahead). Without the overlap no reference call runs during a kernel call. (The
    reference takes 20 ms here, so that a busy machine delaying the kernel's start cannot hide the overlap.)"""
    problem, model = tmp_path / "problem.py", tmp_path / "model_new.py"
    problem.write_text(_logged(FORMATS / "kernelbench" / "problem.py", "        return torch.softmax(x, dim=-1)",
                               "ref", sleep=0.02))
    model.write_text(_logged(FORMATS / "kernelbench" / "model_new.py", "        x = x.contiguous()", "kernel",
                             sleep=0.05))
    mark = harness.mark()
    res = harness(kernel=str(model), reference=str(problem), device="cpu", trials=3, delegation=False)
    assert res["verdict"] == "PASS", res["message"]
    lines = harness.probes(mark, "calls", 6)
    kernel_calls, ref_calls = _intervals(lines, "kernel"), _intervals(lines, "ref")
    assert len(ref_calls) >= 3 and len(kernel_calls) >= 3
    overlapping = [r for r in ref_calls if any(k0 < r[1] and r[0] < k1 for k0, k1 in kernel_calls)]
    assert overlapping, (ref_calls, kernel_calls)


def test_the_kernel_runs_the_next_case_while_the_judge_decides_this_one(monkeypatch):
    """check.run_cases is a pipeline: once a case's outputs are in the judge, the next case is sent, so the
    kernel's process runs it while the judge compares; the supervisor keeps timing the case begun last. Without
    the pipeline every case is decided before the next one is sent. (In this process: the judge's calls are
    observed directly.)"""
    from kgo_harness.judge import check, remote, worker
    from kgo_harness import protocol
    order = []
    begin, judge = remote.KernelProcess.begin, check.judge

    def logged_begin(self, op, **fields):
        if op == "execute":
            order.append(("execute", fields["key"]))
        return begin(self, op, **fields)

    def logged_judge(case, outs, tol):
        order.append(("judge", None))
        return judge(case, outs, tol)
    monkeypatch.setattr(remote.KernelProcess, "begin", logged_begin)
    monkeypatch.setattr(check, "judge", logged_judge)
    monkeypatch.setattr(worker, "POOL", remote.Pool("cpu", keep=0))
    events = []
    try:
        res = worker.handle(protocol.normalize({
            "command": "check", "kernel": str(TEMPLATES / "softmax" / "v1_baseline.py"), "op": "softmax",
            "device": "cpu", "shapes": SMALL, "trials": 4, "edge_shapes": False, "delegation": False}), events.append)
    finally:
        worker.POOL.current.close()   # not discard(): that also ends strays, here the session harness's worker
    assert res["verdict"] == "PASS", res["message"]
    judged = [i for i, (what, _) in enumerate(order) if what == "judge"]
    sent = {key: i for i, (what, key) in enumerate(order) if what == "execute"}
    assert len(judged) == 4 and sorted(sent) == [0, 1, 2, 3], order
    for k in range(3):   # case k+1 runs while case k is judged
        assert sent[k + 1] < judged[k], order
    marks = [(e["type"], e["index"]) for e in events if e["type"] in ("case_start", "case_done")]
    assert marks.index(("case_start", 1)) < marks.index(("case_done", 0)), marks
