"""`bench`: the timer's result fields and checks. On the CPU it times with the host clock (the plumbing:
rotation, checked outputs, baselines, aggregates); GPU-only properties run where a GPU is present."""
# ctest-cost: 8
import math

import pytest

from kgo_harness import timing
from conftest import HAS_CUDA, TEMPLATES, kernel


def test_cpu_bench_fields_and_aggregates(harness):
    res = harness(command="bench", kernel=str(TEMPLATES / "add" / "v4_optimized.py"), op="add", device="cpu",
                  shapes=[[16, 64], [32, 64]], bench={"runs": 5, "precision_pct": 0, "baselines": ["eager"]},
                  work=[{"shape": [16, 64], "bytes": 12288, "flops": 2048}])
    assert res["verdict"] == "PASS", res["message"]
    small, large = res["sizes"]
    assert small["mode"] == "host" and small["runs"] == 5 and len(small["samples_us"]) == 5
    assert small["median_us"] > 0 and small["iqr_us"] >= 0 and small["outputs_checked"] is True
    assert small["work_source"] == "request" and small["bytes"] == 12288
    assert large["work_source"] == "harness" and large["bytes"] == 3 * 32 * 64 * 4
    assert small["eager_us"] > 0 and small["speedup_vs_eager"] == pytest.approx(
        small["eager_us"] / small["median_us"])
    assert small["speedup_vs_best"] == pytest.approx(small["speedup_vs_eager"])
    assert res["final_mean_us"] == pytest.approx((small["mean_us"] + large["mean_us"]) / 2)
    geo = math.sqrt(small["speedup_vs_eager"] * large["speedup_vs_eager"])
    assert res["geomean_speedup_vs_eager"] == pytest.approx(geo)
    assert res["timing"]["wall_s"] > 0


def test_median_interval_from_order_statistics():
    assert timing.median_ci_pct([1.0] * 5) is None  # too few samples for a 95% interval
    assert timing.median_ci_pct([10.0] * 20) == 0.0
    # n = 20: ranks 5 and 16 (1-based; 5.6 and 15.4 rounded outwards) bound the interval.
    s = [float(v) for v in range(100, 120)]
    assert timing.median_ci_pct(s) == pytest.approx(100 * (s[15] - s[4]) / 2 / 109.5)
    assert timing.median_ci_pct(list(reversed(s))) == timing.median_ci_pct(s)


def test_sampling_continues_until_the_median_is_precise():
    calls = []

    def take(k, noisy):
        calls.append(k)
        return [100.0 + (37 * (len(calls) * 1000 + i) % 11 if noisy else 0) for i in range(k)]

    assert len(timing.until_precise(lambda k: take(k, False), 10, 0.5, 200)) == 10 and calls == [10]
    calls.clear()
    got = timing.until_precise(lambda k: take(k, True), 10, 0.5, 55)  # +-5% noise never gets within 0.5%
    assert len(got) == 55 and calls == [10, 10, 10, 10, 10, 5]
    calls.clear()
    assert len(timing.until_precise(lambda k: take(k, True), 10, 0, 200)) == 10  # precision 0: fixed count
    calls.clear()
    # Noise of +-5%: 0.5% needs many samples; 3% is reached well before the cap.
    assert len(timing.until_precise(lambda k: take(k, True), 10, 3.0, 200)) < 200


def test_cpu_bench_reports_the_interval_and_stops_early_when_precise(harness):
    res = harness(command="bench", kernel=str(TEMPLATES / "add" / "v4_optimized.py"), op="add", device="cpu",
                  shapes=[[16, 64]], bench={"runs": 6, "precision_pct": 1000.0, "max_runs": 50, "baselines": []})
    assert res["verdict"] == "PASS", res["message"]
    size = res["sizes"][0]
    assert size["runs"] == 6 and size["median_ci_pct"] is not None and size["median_ci_pct"] <= 1000.0


def test_bench_checks_timed_outputs(harness):
    # A result cached from the first call is replayed while the rotating input sets change underneath it.
    res = harness(command="bench", kernel=kernel("cheat_cached.py"), op="gelu", device="cpu",
                  shapes=[[8, 64]], bench={"runs": 4, "baselines": [], "rotate": 2})
    assert res["verdict"] == "FAIL"
    assert res["sizes"][0]["outputs_checked"] is False


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_gpu_events_graph_and_baselines(harness):
    res = harness(command="bench", kernel=str(TEMPLATES / "add" / "v4_optimized.py"), op="add", device="cuda",
                  shapes=[[256, 256], [4096, 4096]], bench={"runs": 20})
    assert res["verdict"] == "PASS", res["message"]
    small, large = res["sizes"]
    assert small["mode"] == "graph" and large["mode"] == "events"
    assert large["flush_l2"] is True and large["rotate"] >= 2 and large["outputs_checked"] is True
    assert large["eager_us"] and large["compile_us"] and large["achieved_tbps"] > 0
    assert large["stream_escape"] is False
    assert res["clocks"]["before"] is not None


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_gpu_default_timing_repeats_within_one_percent(harness):
    # The timing goal: two runs of the same kernel at 4096^2 differ by at most 1% in median, with the defaults.
    meds = []
    for _ in range(2):
        res = harness(command="bench", kernel=str(TEMPLATES / "softmax" / "v4_optimized.py"), op="softmax",
                      device="cuda", shapes=[[4096, 4096]], bench={"baselines": []})
        assert res["verdict"] == "PASS", res["message"]
        size = res["sizes"][0]
        assert size["median_ci_pct"] is not None and size["runs"] >= 10
        meds.append(size["median_us"])
    assert abs(meds[0] - meds[1]) / min(meds) <= 0.01, meds


def test_warmup_credit_counts_recent_device_work_only():
    t = timing.Timer("cpu", None, {"warmup_ms": 25.0, "warmup_credit": True}, {})
    assert t._credit_ms() == 0.0                       # nothing ran yet
    t.busy(10.0)
    assert t._credit_ms() == pytest.approx(10.0)       # 10 ms of the 25 ms warm-up already done
    t.busy(80.0)
    assert t._credit_ms() == pytest.approx(25.0)       # never more than the warm-up's time
    t.busy_at -= timing.HOT_WINDOW_S + 0.01
    assert t._credit_ms() == 0.0                       # the clocks may have dropped since
    off = timing.Timer("cpu", None, {"warmup_ms": 25.0, "warmup_credit": False}, {})
    off.busy(80.0)
    assert off._credit_ms() == 0.0
    t.busy(30.0, age_s=0.1)                            # the previous request's work, 0.1 s ago
    assert t._credit_ms() == pytest.approx(25.0)
    t.busy(30.0, age_s=timing.HOT_WINDOW_S + 0.01)
    assert t._credit_ms() == 0.0


def test_the_last_requests_device_work_is_remembered_for_the_next():
    timing.note_busy(40.0)
    last = timing.recent_busy()
    assert last["ms"] == 40.0 and 0 <= last["age_s"] < 1.0
    timing.note_busy(0.0)
    assert timing.recent_busy() is None                # a request without device work gives no credit


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_gpu_baseline_right_after_the_kernel_gets_the_warmup_credit(harness):
    req = dict(command="bench", kernel=str(TEMPLATES / "softmax" / "v4_optimized.py"), op="softmax",
               device="cuda", shapes=[[4096, 4096]])
    res = harness(**req, bench={"baselines": ["eager"]})
    assert res["verdict"] == "PASS", res["message"]
    assert res["timing"]["warmup_credit_s"] > 0 and res["sizes"][0]["eager_us"] > 0
    off = harness(**req, bench={"baselines": ["eager"], "warmup_credit": False})
    assert off["timing"]["warmup_credit_s"] == 0


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if HAS_CUDA else []))
def test_timed_calls_get_fresh_inputs_so_a_memoised_kernel_is_caught(harness, device):
    """Before every timed sample each input set gets fresh values (rolled from a number the kernel's process learns
    with the request); the judge rebuilds the last ones and checks the timed calls' outputs. A kernel that answers
    timed calls from a cache keyed by address returns stale outputs: FAIL. Without the refresh (the judge asks for
    none) its outputs stay right and it passes."""
    req = dict(command="bench", kernel=kernel("hack_bench_memo.py"), op="softmax", device=device,
               shapes=[[64, 256]], bench={"runs": 5, "precision_pct": 0, "baselines": []})
    res = harness(**req)
    assert res["verdict"] == "FAIL", res["message"]
    assert res["sizes"][0]["outputs_checked"] is False
    honest = harness(**dict(req, kernel=str(TEMPLATES / "softmax" / "v1_baseline.py")))
    assert honest["verdict"] == "PASS" and honest["sizes"][0]["outputs_checked"] is True, honest["message"]


def test_a_process_that_skips_the_refresh_is_not_trusted():
    """The judge holds the kernel's process to the refresh it asked for: one set's inputs refreshed before each
    timed sample (a generation per set), as many as the samples it reports."""
    from kgo_harness.judge import bench
    assert bench.refresh_like([], [3], 7, 5).startswith("the kernel's process did not")
    assert bench.refresh_like([], None, 7, 5)
    assert bench.refresh_like([None, None], [2, 2], 7, 5)          # 4 refreshes for 5 samples
    assert bench.refresh_like([], [], 7, 0) is None
