"""`bench`: the timer's result fields and checks. On the CPU it times with the host clock (the plumbing:
rotation, checked outputs, baselines, aggregates); GPU-only properties run where a GPU is present."""
import math

import pytest

from conftest import HAS_CUDA, TEMPLATES, kernel


def test_cpu_bench_fields_and_aggregates(harness):
    res = harness(command="bench", kernel=str(TEMPLATES / "add" / "v4_optimized.py"), op="add", device="cpu",
                  shapes=[[16, 64], [32, 64]], bench={"runs": 5, "baselines": ["eager"]},
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
