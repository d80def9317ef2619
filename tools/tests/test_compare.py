"""The comparison of one output with its float64 reference."""
import math

import pytest
import torch

from kgo_harness.judge import compare


def rep(out, ref, atol=1e-4, rtol=1e-3, max_rel=1e-3, dtype=None):
    return compare.compare("out", out, ref, atol, rtol, max_rel, dtype)


def test_exact_match_passes():
    ref = torch.randn(5, 7, dtype=torch.float64)
    r = rep(ref.float(), ref)
    assert r["passed"] and r["mismatches"] == 0 and r["first_bad_index"] is None
    assert r["rel_err"] < 1e-7 and r["max_abs_err"] < 1e-6


def test_nan_and_inf_never_pass():
    ref = torch.randn(4, 4, dtype=torch.float64)
    for bad in (float("nan"), float("inf"), -float("inf")):
        out = ref.float().clone()
        out[2, 3] = bad
        r = rep(out, ref, atol=1e9, rtol=1e9, max_rel=1e9)
        assert not r["passed"] and r["nonfinite"] == 1 and r["first_bad_index"] == [2, 3]
        assert r["max_abs_err"] is None and r["rel_err"] is None


def test_nonfinite_reference_positions_must_match():
    ref = torch.tensor([1.0, float("nan"), float("inf")], dtype=torch.float64)
    assert rep(torch.tensor([1.0, float("nan"), float("inf")]), ref)["passed"]
    r = rep(torch.tensor([1.0, 0.0, float("inf")]), ref)
    assert not r["passed"] and r["first_bad_index"] == [1]


def test_tiny_outputs_zeros_fail_on_rel_err():
    # |ref| ~ 1e-6 is inside atol, so allclose alone would accept all zeros (KernelBench issue #165).
    ref = torch.rand(1000, dtype=torch.float64) * 1e-6
    r = rep(torch.zeros(1000), ref)
    assert r["allclose"] is True
    assert r["rel_err"] == pytest.approx(1.0) and r["passed"] is False


def test_first_bad_index_and_counts():
    ref = torch.zeros(3, 4, 5, dtype=torch.float64) + 1.0
    out = ref.float().clone()
    out[1, 2, 3] = 2.0
    out[2, 0, 0] = 3.0
    r = rep(out, ref)
    assert r["mismatches"] == 2 and r["first_bad_index"] == [1, 2, 3]
    assert r["first_bad_got"] == 2.0 and r["first_bad_expected"] == 1.0
    assert r["max_abs_err"] == pytest.approx(2.0)
    assert r["mean_abs_err"] == pytest.approx(3.0 / 60)
    assert r["rel_err"] == pytest.approx(math.sqrt(5) / math.sqrt(60))


def test_shape_dtype_and_type_checks():
    ref = torch.ones(4, 4, dtype=torch.float64)
    assert "shape" in rep(torch.ones(3, 4), ref)["message"]
    assert rep(torch.ones(16), ref)["passed"]  # a contiguous flat buffer of the right size is reshaped
    r = rep(torch.ones(4, 4, dtype=torch.float64), ref, dtype=torch.float32)
    assert not r["passed"] and "expected float32" in r["message"]

    class Sub(torch.Tensor):
        pass
    assert "not a plain torch.Tensor" in rep(torch.ones(4, 4).as_subclass(Sub), ref)["message"]


def test_bitwise_equal():
    a = torch.tensor([0.0, 1.0, float("nan")])
    assert compare.bitwise_equal(a, a.clone())
    assert not compare.bitwise_equal(a, torch.tensor([-0.0, 1.0, float("nan")]))
    assert not compare.bitwise_equal(a, a.double())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int32])
def test_a_passing_output_gets_the_same_figures_from_the_short_path(dtype):
    """compare takes a short path when every element is finite and close; its figures are the full path's."""
    ref = torch.randn(64, 33, dtype=torch.float64) * 3
    ref = ref.round() if not dtype.is_floating_point else ref
    out = ref.to(dtype)
    short = compare._close_figures(out, ref, 0.05, 0.02)
    full = {"numel": ref.numel()}
    compare._full_figures(full, out, ref, 0.05, 0.02)
    assert short is not None and full["mismatches"] == 0 and full["nonfinite"] == 0
    for key in ("max_abs_err", "mean_abs_err", "rel_err"):
        assert short[key] == pytest.approx(full[key], rel=1e-12, abs=1e-300), key


def test_the_short_path_leaves_every_failure_to_the_full_path():
    ref = torch.randn(8, 8, dtype=torch.float64)
    for bad in (float("nan"), float("inf"), 5.0):
        out = ref.float().clone()
        out[1, 2] += bad
        assert compare._close_figures(out, ref, 1e-4, 1e-3) is None
    nan_ref = ref.clone()
    nan_ref[0, 0] = float("nan")
    assert compare._close_figures(nan_ref.float(), nan_ref, 1e-4, 1e-3) is None   # even where both are NaN
    huge = torch.full((4,), 1e308, dtype=torch.float64)
    assert compare._close_figures(-huge, huge, 1e-4, 1e-3) is None   # |diff| overflows
    assert compare._close_figures(torch.ones(4, dtype=torch.bool), torch.ones(4, dtype=torch.float64), 0, 0) is None


def test_a_reference_near_zero_within_atol_is_not_judged_by_its_relative_norm():
    """A 1x1 case whose reference is tiny (random inputs give gelu(-9) ~ -1e-18): an output within atol of it is
    right even though its relative error is 1 (seen on an H200 once seeds were drawn per request)."""
    import torch
    from kgo_harness.judge import compare
    ref = torch.tensor([[-1e-18]], dtype=torch.float64)
    rep = compare.compare("out", torch.zeros(1, 1), ref, 1e-4, 1e-3, 1e-3)
    assert rep["rel_err"] == 1.0 and rep["passed"], rep
    far = compare.compare("out", torch.full((1, 1), 1.0), ref, 1e-4, 1e-3, 1e-3)
    assert not far["passed"]


@pytest.mark.parametrize("scale", ["absolute", "reference_rms"])
def test_chunked_passes_give_the_figures_of_one_pass(monkeypatch, scale):
    """A large output is compared CHUNK elements at a time (bounded judge memory): every figure, the first bad
    element and the verdict are those of a single pass over the whole tensor."""
    gen = torch.Generator().manual_seed(3)
    ref = torch.randn(37, 29, generator=gen, dtype=torch.float64) * 10
    ok = ref.float()
    bad = ok.clone()
    bad[20, 5] += 1.0
    bad[30, 7] = float("nan")
    bad[33, 0] += 2.0
    whole = [compare.compare("out", o, ref, 1e-4, 1e-3, 1e-3, atol_scale=scale) for o in (ok, bad)]
    monkeypatch.setattr(compare, "CHUNK", 100)   # 11 passes, the last one partial
    chunked = [compare.compare("out", o, ref, 1e-4, 1e-3, 1e-3, atol_scale=scale) for o in (ok, bad)]
    for w, c in zip(whole, chunked):
        for key in ("passed", "mismatches", "nonfinite", "first_bad_index", "first_bad_got", "first_bad_expected"):
            assert w[key] == c[key], key
        for key in ("max_abs_err", "mean_abs_err", "rel_err", "atol_used"):
            assert (w[key] is None and c[key] is None) or math.isclose(w[key], c[key], rel_tol=1e-9), key
    assert chunked[1]["first_bad_index"] == [20, 5] and chunked[1]["mismatches"] == 3
    a = torch.randn(1000, generator=gen)
    b = a.clone()
    b[777] += 0.5
    assert compare.max_diff(a, b) == pytest.approx(0.5, rel=1e-6)
