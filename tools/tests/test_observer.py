"""The observer's reading of torch's profiler events (launches.Observer.report, PROTOCOL.md "Delegation", torch
versions) on each torch it supports: the event API of this machine's torch, and torch 2.11's, which lacks
_KinetoEvent.activity_type (forced here by a wrapper that shows only 2.11's methods). An event API it cannot read
makes the observation missing (a failed verdict), never an exception in the kernel's call."""
import threading

import pytest
import torch
from torch.autograd import DeviceType

from kgo_harness import launches
from kgo_harness.judge import check

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
    with launches.Observer(cuda=False) as ob:
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
    real = ob.prof.kineto_results
    ob.prof.kineto_results = Results([wrap(e) for e in real.events()] + list(extra))
    try:
        return ob.report()
    finally:
        ob.prof.kineto_results = real


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
    """A CUDA runtime event inside a call whose id (of CUPTI's count) is the id of a harness op outside the calls:
    read as an op it would make the kernel that harness op launched the call's."""
    ob = observed_run()
    events = list(ob.prof.kineto_results.events())
    cpu = DeviceType.CPU
    outside = next(e for e in events if e.device_type() == cpu and e.name() == "aten::mul")
    mark = next(e for e in events if e.device_type() == cpu and e.name() == launches.MARK)
    runtime = Fake("cudaLaunchKernel", cpu, outside.correlation_id(), mark.correlation_id(), mark.start_ns() + 1,
                   "cuda_runtime")
    kernel = Fake("harness_mul_kernel", DeviceType.CUDA, 0, outside.correlation_id(), mark.start_ns() + 2, "kernel")
    allowed = set(TORCH_2_11) if api == "2.11" else set(runtime.v)
    extra = [Restricted(runtime, allowed), Restricted(kernel, allowed)]
    wrap = (lambda e: e) if api == "local" else (lambda e: Restricted(e, TORCH_2_11))
    got = report_with(ob, wrap, extra)
    assert got is not None and got["gpu"] == [], got


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
