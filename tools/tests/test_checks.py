"""The check registry (harness/checks.py): each entry's verdict from the cases, the `checks` summary, and
that one new entry is enough for a check to fail a run, name itself as the culprit and reach the result.

Delegation's evidence, last: the observer's reading of torch's profiler events (launches.Observer.report,
PROTOCOL.md "Delegation", torch versions) on each torch it supports: this machine's, and torch 2.11's, which lacks
_KinetoEvent.activity_type (forced by a wrapper that shows only 2.11's methods). An event API it cannot read makes
the observation missing (a failed verdict), never an exception in the kernel's call."""
import os
import threading
from types import SimpleNamespace

import pytest
import torch
from torch.autograd import DeviceType

from conftest import SMALL, TEMPLATES, validate, vendor_stub
from kgo_harness import launches
from kgo_harness.judge import check, checks
from kgo_harness.judge.check import finish

TOL = {"atol": 1e-5, "rtol": 1e-5, "max_rel_err": 1e-3, "source": "default"}
PROBLEM = SimpleNamespace(device="cpu", dtype=torch.float32, reference_dtype="float64", kernel_info={})
NOT_RUN = {"checked": False, "delegated": None, "message": "disabled by the request"}


def case(**extra):
    return {"shape": [8, 256], "trial": 0, "status": "PASS", "message": "ok", "rel_err": 0.0, **extra}


def by_name(summary):
    return {c["name"]: c for c in summary}


def test_every_entry_is_summarized_in_order():
    details, summary = checks.run_all(checks.Evidence([case(deterministic=True, inputs_unchanged=True)],
                                                      NOT_RUN, "cpu"))
    assert [c["name"] for c in summary] == [c.name for c in checks.CHECKS]
    assert set(details) == {c.name for c in checks.CHECKS}
    s = by_name(summary)
    assert s["determinism"]["passed"] is True and s["inputs_intact"]["passed"] is True
    assert s["delegation"] == {"name": "delegation", "description": checks.CHECKS[1].description,
                               "checked": False, "passed": None, "message": "disabled by the request"}
    assert s["streams"]["checked"] is False  # GPU only


def test_failures_are_read_from_the_cases():
    cases = [case(), case(status="FAIL", deterministic=False, determinism_max_diff=0.5, inputs_unchanged=False)]
    details, summary = checks.run_all(checks.Evidence(cases, {"checked": True, "delegated": True,
                                                              "message": "torch did it"}, "cuda"))
    s = by_name(summary)
    assert s["determinism"]["passed"] is False and details["determinism"]["max_diff"] == 0.5
    assert s["inputs_intact"]["passed"] is False and "modified its inputs" in s["inputs_intact"]["message"]
    assert s["delegation"]["passed"] is False and s["delegation"]["message"] == "torch did it"
    assert s["streams"]["passed"] is True  # no case found unordered work


@pytest.fixture
def planted(monkeypatch):
    """A new check: one entry, failing whenever it sees a case."""
    entry = checks.Check("planted", "a check added by one registry entry",
                         lambda ev: {"checked": True, "passed": not ev.cases, "message": "planted failure"})
    monkeypatch.setattr(checks, "CHECKS", checks.CHECKS + [entry])


def test_one_entry_fails_the_run_and_names_itself(planted):
    out = finish([case(deterministic=True, inputs_unchanged=True)], TOL, NOT_RUN, PROBLEM)
    assert out["verdict"] == "FAIL" and out["culprit"] == "planted"
    assert out["message"] == "planted: planted failure"
    assert by_name(out["checks"])["planted"]["passed"] is False
    assert out["planted"]["message"] == "planted failure"


def test_a_passing_run_stays_pass_without_the_entry():
    out = finish([case(deterministic=True, inputs_unchanged=True)], TOL, NOT_RUN, PROBLEM)
    assert out["verdict"] == "PASS" and out["culprit"] is None and out["inputs_unchanged"] is True


def test_real_check_reports_the_registry(harness):
    res = harness(kernel=str(TEMPLATES / "gelu" / "v1_baseline.py"), op="gelu", device="cpu", trials=1,
                  shapes=SMALL, edge_shapes=False)
    validate(res)
    assert res["verdict"] == "PASS", res["message"]
    s = by_name(res["checks"])
    assert list(s) == [c.name for c in checks.CHECKS]
    assert s["determinism"]["passed"] and s["delegation"]["passed"] and s["inputs_intact"]["passed"]
    assert res["delegation"]["own_launches"] > 0  # the detail stays under the check's name


# torch 2.11.0's _KinetoEvent methods (its torch/_C/_autograd.pyi; its libtorch_python.so names no activity_type).
TORCH_2_11 = ("name", "overload_name", "device_index", "device_resource_id", "start_ns", "end_ns", "duration_ns",
              "is_async", "linked_correlation_id", "shapes", "dtypes", "concrete_inputs", "kwinputs", "device_type",
              "start_thread_id", "end_thread_id", "correlation_id", "fwd_thread_id", "stack", "scope", "sequence_nr",
              "flops", "cuda_elapsed_us", "privateuse1_elapsed_us", "is_user_annotation", "is_hidden_event",
              "metadata_json")


class Restricted:
    """An event that answers only the methods `allowed` (a torch without the others)."""

    def __init__(self, event, allowed):
        self._event, self._allowed = event, allowed

    def __getattr__(self, attr):
        if attr not in self._allowed:
            raise AttributeError(f"'_KinetoEvent' object has no attribute '{attr}'")
        return getattr(self._event, attr)


class Fake:
    """A runtime or device event as torch reports it (the CPU build records none)."""

    def __init__(self, name, device, cid, linked, start, activity):
        self.v = {"name": name, "device_type": device, "correlation_id": cid, "linked_correlation_id": linked,
                  "start_ns": start, "duration_ns": 10, "activity_type": activity}

    def __getattr__(self, attr):
        if attr not in self.v:
            raise AttributeError(attr)
        return lambda: self.v[attr]


class Results:
    def __init__(self, events):
        self._events = events

    def events(self):
        return self._events


def observed_run():
    """A window with two marked calls (one hands its work to a thread) and harness ops outside them."""
    a = torch.ones(64)
    with launches.Observer() as ob:
        a.mul(3)   # the harness's own op, outside every mark
        ob.call(lambda x: x.tanh(), a)

        def pooled(x):
            out = {}
            t = threading.Thread(target=lambda: out.setdefault("y", x.sigmoid()))
            t.start()
            t.join()
            return out["y"]
        ob.call(pooled, a)
    return ob


def report_with(ob, wrap, extra=()):
    """The observer's report read from its events as `wrap` gives them (and `extra` events), the session's read
    of them made afresh before and after."""
    s = ob.session
    real = s.prof.kineto_results
    s.prof.kineto_results = Results([wrap(e) for e in real.events()] + list(extra))
    s.cpu = s.marked = None
    try:
        return ob.report()
    finally:
        s.prof.kineto_results = real
        s.cpu = s.marked = None


@pytest.mark.parametrize("api", ["local", "2.11"])
def test_both_event_apis_see_the_calls_ops(api):
    ob = observed_run()
    wrap = (lambda e: e) if api == "local" else (lambda e: Restricted(e, TORCH_2_11))
    got = report_with(ob, wrap)
    assert got is not None and got["calls"] == 2 and got["marks"] == 2, got
    assert "aten::tanh" in got["aten"] and "aten::sigmoid" in got["aten"] and "aten::mul" not in got["aten"], got
    assert got == report_with(ob, lambda e: e)


@pytest.mark.parametrize("api", ["local", "2.11"])
def test_a_runtime_event_is_not_read_as_an_op(api):
    """A CUDA runtime event (should a profiler in the process trace the runtime) inside a call, whose id (of CUPTI's
    count) is the id of a harness op outside the calls, and a device event: neither is read as one of the ops."""
    ob = observed_run()
    events = list(ob.session.prof.kineto_results.events())
    cpu = DeviceType.CPU
    outside = next(e for e in events if e.device_type() == cpu and e.name() == "aten::mul")
    mark = next(e for e in events if e.device_type() == cpu and e.name() == launches.MARK)
    runtime = Fake("cudaLaunchKernel", cpu, outside.correlation_id(), mark.correlation_id(), mark.start_ns() + 1,
                   "cuda_runtime")
    kernel = Fake("harness_mul_kernel", DeviceType.CUDA, 0, outside.correlation_id(), mark.start_ns() + 2, "kernel")
    allowed = set(TORCH_2_11) if api == "2.11" else set(runtime.v)
    extra = [Restricted(runtime, allowed), Restricted(kernel, allowed)]
    wrap = (lambda e: e) if api == "local" else (lambda e: Restricted(e, TORCH_2_11))
    names = [name for name, *_ in launches.read_events([wrap(e) for e in events] + extra)]
    assert "cudaLaunchKernel" not in names and "harness_mul_kernel" not in names and "aten::mul" in names, names
    assert report_with(ob, wrap, extra) == report_with(ob, lambda e: e)


def test_observers_sharing_one_session_each_report_their_own_calls():
    """A check's cases share one profiler session (launches.Session): each case's report is of its own calls only,
    the same as a window of its own would give, and nothing is readable before the session stops."""
    a = torch.ones(64)
    session = launches.Session()
    shared = []
    for work in (lambda x: x.tanh(), lambda x: x.sigmoid(), lambda x: x.tanh()):
        with launches.Observer(session=session) as ob:
            a.mul(3)   # the harness's own op, outside every mark
            ob.call(work, a)
            ob.call(lambda x: x.neg(), a)
        shared.append(ob)
    assert shared[0].report() is None   # the session still runs
    session.stop()
    got = [ob.report() for ob in shared]
    assert [g["marks"] for g in got] == [2, 2, 2] and all(g["calls"] == 2 for g in got), got
    assert "aten::sigmoid" in got[1]["aten"] and "aten::tanh" not in got[1]["aten"], got[1]
    assert "aten::tanh" in got[0]["aten"] and "aten::sigmoid" not in got[0]["aten"], got[0]
    assert all("aten::neg" in g["aten"] and "aten::mul" not in g["aten"] for g in got), got
    with launches.Observer() as alone:
        a.mul(3)
        alone.call(lambda x: x.sigmoid(), a)
        alone.call(lambda x: x.neg(), a)
    assert alone.report()["aten"] == got[1]["aten"]


def test_a_range_opened_inside_a_call_hides_none_of_its_ops():
    """Ranges a call opens and closes under the observers' names (its own and another's) before its work: the work
    began inside the call's range, so it is the call's, in a window of its own and in a shared session."""
    a = torch.ones(64)

    def work(x):
        for name in (launches.MARK, f"{launches.MARK}#1", f"{launches.MARK}#2"):
            with launches._mark(name):
                pass
        return x.tanh()
    session = launches.Session()
    with launches.Observer(session=session) as first:
        first.call(lambda x: x.neg(), a)
    with launches.Observer(session=session) as second:
        second.call(work, a)
    session.stop()
    with launches.Observer() as alone:
        alone.call(work, a)
    for ob in (second, alone):
        assert "aten::tanh" in ob.report()["aten"], ob.report()
    assert "aten::neg" in first.report()["aten"]


def test_an_unreadable_event_api_is_a_missing_observation(capfd):
    ob = observed_run()
    got = report_with(ob, lambda e: Restricted(e, set(TORCH_2_11) - {"start_ns"}))
    assert got is None
    assert "unreadable" in capfd.readouterr().err
    case = {"status": "PASS", "shape": [64], "trial": 0}   # as check keeps a request's report: only one it got
    if got is not None:
        case["observed"] = [got]
    verdict = check.delegation(None, [case], set())
    assert verdict["delegated"] is True and "not observed" in verdict["message"], verdict


# --- timed calls launch what the observed calls of their shape launch (check.decoy_at) ----------------------------
def window(profiled, own_calls, launched):
    return {"calls": len(own_calls), "own_calls": own_calls, "replays": 0, "marks": len(own_calls) if profiled else None,
            "aten": [], "own": {}, "launched": launched, "profiled": profiled}


SEEN = window(True, [1, 1], {"_softmax_rows[8]": 2})


def test_timed_calls_that_launch_what_the_observed_ones_did_pass():
    assert check.decoy_at([8, 256], [SEEN, window(False, [1, 1, 1], {"_softmax_rows[8]": 3})]) is None
    assert check.decoy_at([8, 256], [SEEN], [{"launched": {"_softmax_rows[8]": 9}, "fewest": 1}]) is None
    # Nothing to hold them against: no profiled call (or no tally) at this shape.
    assert check.decoy_at([8, 256], [window(False, [1], {"decoy[1]": 1})]) is None


@pytest.mark.parametrize("seen,tally", [
    (SEEN, window(False, [1, 1], {"_softmax_rows[1]": 2})),   # the kernel itself, on one row: another grid
    (SEEN, window(False, [1, 1], {"decoy[8]": 2})),           # another kernel
    (window(True, [2], {"_max[8]": 1, "_norm[8]": 1}), window(False, [1, 1], {"_norm[8]": 2}))])   # one of two
def test_a_decoy_beside_work_done_elsewhere_is_delegation(seen, tally):
    msg = check.decoy_at([8, 256], [seen, tally])
    assert msg and "shape [8, 256]" in msg, msg
    got = check.delegation_at(SimpleNamespace(op=None, contract="triton"), [8, 256], [seen, tally], set())
    assert got["delegated"] is True and got["message"] == msg


def test_a_triton_launch_is_known_by_its_grid():
    """A Triton kernel launched with two grids (a tuple and a callable of its arguments, as Triton evaluates it) is
    two launch shapes; in the interpreter as on a GPU."""
    import triton
    import triton.language as tl

    @triton.jit
    def twice(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    launches.install()
    x = torch.ones(64, device="cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda")
    before = launches.shapes()
    twice[(4,)](x, 64, BLOCK=16)
    twice[lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),)](x, 64, BLOCK=32)
    twice[(1,)](x, 16, BLOCK=16)
    assert launches.since(before, launches.shapes()) == {"twice[4]": 1, "twice[2]": 1, "twice[1]": 1}
    assert torch.equal(x.cpu(), torch.tensor([8.0] * 16 + [4.0] * 48))


# --- vendor libraries reached through ctypes (launches._audit) -----------------------------------------------------
def test_a_vendor_symbol_looked_up_through_ctypes_is_delegation():
    """On the CPU, where no cuBLAS runs: a cuBLAS symbol looked up in a loaded library (libm here: the audit event
    comes before the lookup, found or not) and libc's dlsym looked up to find symbols unseen are both recorded, for
    the whole process; an ordinary symbol is not. check.delegation_at fails them unless the library is allowed."""
    import ctypes
    launches.install()
    lib = ctypes.CDLL("libm.so.6")
    lib.cos(0)
    try:
        with pytest.raises(AttributeError):
            lib.cublasSgemm_v2
        ctypes.CDLL(None).dlsym
        with launches.Observer(profiled=False) as ob:
            ob.call(lambda: None)
        got = ob.report()
    finally:
        launches.reset()   # this process's record: later tests here observe calls of their own
    assert {"cublasSgemm_v2", "dlsym"} <= set(got["libraries"]) and "cos" not in got["libraries"], got
    verdict = check.delegation_at(SimpleNamespace(op=None, contract="cuda"), [8], [got], set())
    assert verdict["delegated"] is True and "cublasSgemm_v2" in verdict["message"], verdict
    assert "--allow-op cublas" in verdict["message"]
    allowed = check.delegation_at(SimpleNamespace(op=None, contract="cuda"), [8], [got], {"cublas", "dlsym"})
    assert allowed["delegated"] is False, allowed


def test_a_loaded_object_that_calls_a_vendor_library_is_named_by_its_symbols(tmp_path):
    """linked.Linked reads the objects mapped since it began (again whenever the loader has loaded more): one that
    calls a vendor symbol (the stand-in cuBLAS's cublasSaxpy_v2) names it; the library that defines it does not, and
    objects under a trusted folder are not read."""
    import ctypes
    from kgo_harness import linked
    vendor_stub(tmp_path)
    seen, trusted = linked.Linked(), linked.Linked([str(tmp_path)])
    assert seen.vendor_symbols() == {}   # read now, and again once the loader has loaded another object
    ctypes.CDLL(str(tmp_path / "libkgoadd.so"))
    called = {"cublasCreate_v2", "cublasSetStream_v2", "cublasScopy_v2", "cublasSaxpy_v2"}
    assert seen.vendor_symbols() == dict.fromkeys(called, 1)
    assert trusted.vendor_symbols() == {}
    assert "cublasSaxpy_v2" in linked.undefined_symbols(str(tmp_path / "libkgoadd.so"))
    assert linked.undefined_symbols(str(tmp_path / "libcublas.so.99")).isdisjoint(called)
    # Stripped of its section headers (which the loader never reads), it still names what it calls.
    image = bytearray((tmp_path / "libkgoadd.so").read_bytes())
    image[0x28:0x30], image[0x3A:0x40] = bytes(8), bytes(6)   # e_shoff; e_shentsize, e_shnum, e_shstrndx
    (tmp_path / "stripped.so").write_bytes(bytes(image))
    ctypes.CDLL(str(tmp_path / "stripped.so"))
    assert seen.vendor_symbols() == dict.fromkeys(called, 2)
