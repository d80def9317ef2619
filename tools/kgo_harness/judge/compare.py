"""Comparison of a kernel output with its float64 reference: the error figures of one output."""
import math

import torch

from kgo_harness import tolerance


def _num(x):
    x = float(x)
    return x if math.isfinite(x) else None


SMALL_CASE = 16   # elements; see compare()


def compare(name, out, ref, atol, rtol, max_rel_err, expected_dtype=None, atol_scale="absolute"):
    """Report dict of one output (see result.schema.json#/$defs/output_report) plus 'passed'. With atol_scale
    "reference_rms" (tolerance.py: contractions) atol is multiplied by max(1, RMS of the reference); the atol
    applied is reported as `atol_used`."""
    rep = {"name": name, "max_abs_err": None, "mean_abs_err": None, "rel_err": None, "allclose": False,
           "mismatches": 0, "numel": 0, "nonfinite": 0, "first_bad_index": None, "first_bad_got": None,
           "first_bad_expected": None, "message": "", "passed": False}
    if isinstance(out, str):  # rejected in the kernel's process (wire.py): its description
        rep["message"] = f"output '{name}' {out}"
        return rep
    if not isinstance(out, torch.Tensor) or type(out) is not torch.Tensor:
        rep["message"] = (f"output '{name}' is {type(out).__name__}, not a plain torch.Tensor "
                          "(tensor subclasses and deferred results are rejected)")
        return rep
    ref = ref.detach()
    if tuple(out.shape) != tuple(ref.shape):
        if out.numel() == ref.numel() and out.is_contiguous():
            out = out.reshape(ref.shape)
        else:
            rep["message"] = f"output '{name}' has shape {tuple(out.shape)}, the reference {tuple(ref.shape)}"
            return rep
    rep["numel"] = ref.numel()
    if atol_scale == "reference_rms" and rep["numel"]:
        norms = [torch.linalg.vector_norm(torch.nan_to_num(r.to(torch.float64), nan=0.0, posinf=0.0, neginf=0.0))
                 .item() for _, _, r in _chunks(ref.detach(), ref.detach())]
        rms = _num(math.hypot(*norms) / math.sqrt(rep["numel"]))
        atol = tolerance.effective_atol({"atol": atol, "atol_scale": atol_scale}, rms)
    rep["atol_used"] = atol
    close = _close_figures(out.detach(), ref.detach(), atol, rtol) if rep["numel"] else None
    if close is not None:
        rep.update(close, mismatches=0, nonfinite=0)
    else:
        _full_figures(rep, out.detach(), ref.detach(), atol, rtol)
    rep["allclose"] = rep["mismatches"] == 0
    msgs = []
    if expected_dtype is not None and out.dtype != expected_dtype:
        msgs.append(f"output '{name}' is {str(out.dtype).replace('torch.', '')}, expected "
                    f"{str(expected_dtype).replace('torch.', '')}")
    if rep["nonfinite"]:
        msgs.append(f"{rep['nonfinite']} NaN/Inf values where the reference is finite")
    if rep["mismatches"]:
        got = rep["first_bad_got"]
        msgs.append(f"{rep['mismatches']}/{rep['numel']} elements outside atol={atol:g} rtol={rtol:g}; "
                    f"first at {rep['first_bad_index']}: got {got if got is not None else 'nan/inf'}, "
                    f"expected {rep['first_bad_expected']}")
    # The relative norm judges outputs of some size (all zeros for a reference of 1,000 tiny values fails on it). In
    # a case of a few elements whose reference is near zero (random inputs give gelu(-9) in a 1x1 edge case) a
    # relative error says nothing: there, every element within atol of the reference passes.
    within_atol = rep["numel"] <= SMALL_CASE and rep.get("max_abs_err") is not None and rep["max_abs_err"] <= atol
    rel_ok = rep["rel_err"] is not None and (rep["rel_err"] <= max_rel_err or within_atol)
    if rep["rel_err"] is not None and not rel_ok:
        msgs.append(f"rel_err {rep['rel_err']:.3g} > max_rel_err {max_rel_err:g}")
    rep["passed"] = rep["allclose"] and rel_ok and not msgs
    rep["message"] = "; ".join(msgs) if msgs else "ok"
    return rep


CHUNK = 1 << 24   # elements a pass compares: its float64 temporaries stay at a few hundred MiB whatever the output's
# size (a KernelBench problem's 6 GiB float32 output, compared whole, took about 70 GiB of the judge's GPU memory)


def _chunks(out, ref):
    """(start, output slice, reference slice) over both tensors flattened in order, CHUNK elements at a time."""
    o, r = out.reshape(-1), ref.reshape(-1)
    for start in range(0, r.numel(), CHUNK):
        yield start, o[start:start + CHUNK], r[start:start + CHUNK]


def _close_figures(out, ref, atol, rtol):
    """The error figures when every element is finite and within tolerance (a passing output, the common case),
    in about a third of the device passes of _full_figures; None otherwise (then _full_figures decides)."""
    if out.dtype == torch.bool or out.is_complex():
        return None
    total = biggest = 0.0
    ref_norms, err_norms = [], []
    for _, o, r in _chunks(out.to(device=ref.device), ref):
        r = r.to(torch.float64)
        diff = torch.sub(o, r).abs_()   # float64; NaN/Inf where either is
        within = (diff <= r.abs().mul_(rtol).add_(atol)).sum()
        got = torch.stack([diff.sum(), diff.max(), torch.linalg.vector_norm(r), torch.linalg.vector_norm(diff),
                           within.to(torch.float64)]).tolist()
        # A finite sum of |diff| means every |diff| is finite, so neither side has NaN/Inf anywhere.
        if not math.isfinite(got[0]) or int(got[4]) != r.numel():
            return None
        total += got[0]
        biggest = max(biggest, got[1])
        ref_norms.append(got[2])
        err_norms.append(got[3])
    ref_norm, err_norm = math.hypot(*ref_norms), math.hypot(*err_norms)
    return {"max_abs_err": _num(biggest), "mean_abs_err": _num(total / ref.numel()),
            "rel_err": _num(err_norm / ref_norm) if ref_norm > 0 else _num(err_norm)}


def _full_figures(rep, out, ref, atol, rtol):
    """Every figure, NaN/Inf and mismatches included, and the first bad element."""
    sums = [0, 0, 0, 0.0, 0.0]   # mismatches, nonfinite outputs, elements finite on both sides, sum and max of |diff|
    ref_norms, err_norms, first = [], [], None
    for start, o, r in _chunks(out.to(device=ref.device), ref):
        o, r = o.to(torch.float64), r.to(torch.float64)
        fin_r = torch.isfinite(r)
        fin_o = torch.isfinite(o)
        both = fin_r & fin_o
        # Where the reference itself is NaN/Inf the output must match it exactly; elsewhere NaN/Inf never passes.
        same_nonfinite = (~fin_r) & ((o == r) | (torch.isnan(o) & torch.isnan(r)))
        diff = torch.where(both, (o - r).abs(), torch.zeros_like(o))
        bad = ~((both & (diff <= atol + rtol * r.abs())) | same_nonfinite)
        # Every figure of a pass in one read from the device (each separate read waits for the device).
        figures = [bad.sum(), (fin_r & ~fin_o).sum(), both.sum(), diff.sum(), diff.max(),
                   torch.linalg.vector_norm(torch.where(fin_r, r, torch.zeros_like(r))), torch.linalg.vector_norm(diff)]
        got = torch.stack([f.to(torch.float64) for f in figures]).tolist()
        sums = [sums[0] + int(got[0]), sums[1] + int(got[1]), sums[2] + int(got[2]), sums[3] + got[3],
                max(sums[4], got[4])]
        ref_norms.append(got[5])
        err_norms.append(got[6])
        if first is None and got[0]:
            flat = start + int(torch.nonzero(bad)[0])
            first = (flat, _num(o[flat - start]), _num(r[flat - start]))
    rep["mismatches"], rep["nonfinite"] = sums[0], sums[1]
    if rep["nonfinite"]:
        rep["max_abs_err"] = None
        rep["rel_err"] = None
    else:
        rep["max_abs_err"] = _num(sums[4])
        ref_norm, err_norm = math.hypot(*ref_norms), math.hypot(*err_norms)
        rep["rel_err"] = _num(err_norm / ref_norm) if ref_norm > 0 else _num(err_norm)
    rep["mean_abs_err"] = _num(sums[3] / max(sums[2], 1))
    if first is not None:
        flat, rep["first_bad_got"], rep["first_bad_expected"] = first
        idx = []
        for dim in reversed(ref.shape):
            idx.append(flat % dim)
            flat //= dim
        rep["first_bad_index"] = list(reversed(idx))


def bitwise_equal(a, b):
    """True when two tensors hold the same bits (NaN payloads and signed zeros included)."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a = a.detach().contiguous()
    b = b.detach().contiguous()
    if a.numel() == 0:
        return True
    return bool(torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8)))


def max_diff(a, b):
    try:
        if a.shape != b.shape:
            return None
        worst = [torch.nan_to_num((x.double() - y.double()).abs(), nan=float("inf")).max().item()
                 for _, x, y in _chunks(a.detach(), b.detach())]
        return _num(max(worst, default=0.0))
    except Exception:
        return None
