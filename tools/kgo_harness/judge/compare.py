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
    r = ref.to(torch.float64)
    if atol_scale == "reference_rms" and rep["numel"]:
        rms = _num(torch.linalg.vector_norm(torch.nan_to_num(r, nan=0.0, posinf=0.0, neginf=0.0))
                   / math.sqrt(rep["numel"]))
        atol = tolerance.effective_atol({"atol": atol, "atol_scale": atol_scale}, rms)
    rep["atol_used"] = atol
    close = _close_figures(out.detach(), r, atol, rtol) if rep["numel"] else None
    if close is not None:
        rep.update(close, mismatches=0, nonfinite=0)
    else:
        _full_figures(rep, out.detach(), r, atol, rtol)
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


def _close_figures(out, r, atol, rtol):
    """The error figures when every element is finite and within tolerance (a passing output, the common case),
    in about a third of the device passes of _full_figures; None otherwise (then _full_figures decides)."""
    if out.dtype == torch.bool or out.is_complex():
        return None
    diff = torch.sub(out.to(device=r.device), r).abs_()   # float64 by promotion; NaN/Inf where either is
    within = (diff <= r.abs().mul_(rtol).add_(atol)).sum()
    got = torch.stack([diff.sum(), diff.max(), torch.linalg.vector_norm(r), torch.linalg.vector_norm(diff),
                       within.to(torch.float64)]).tolist()
    total, biggest, ref_norm, err_norm, inside = got
    # A finite sum of |diff| means every |diff| is finite, so neither side has NaN/Inf anywhere.
    if not math.isfinite(total) or int(inside) != r.numel():
        return None
    return {"max_abs_err": _num(biggest), "mean_abs_err": _num(total / r.numel()),
            "rel_err": _num(err_norm / ref_norm) if ref_norm > 0 else _num(err_norm)}


def _full_figures(rep, out, r, atol, rtol):
    """Every figure, NaN/Inf and mismatches included, and the first bad element."""
    o = out.to(device=r.device, dtype=torch.float64)
    fin_r = torch.isfinite(r)
    fin_o = torch.isfinite(o)
    both = fin_r & fin_o
    # Where the reference itself is NaN/Inf the output must match it exactly; elsewhere NaN/Inf never passes.
    same_nonfinite = (~fin_r) & ((o == r) | (torch.isnan(o) & torch.isnan(r)))
    diff = torch.where(both, (o - r).abs(), torch.zeros_like(o))
    close = (both & (diff <= atol + rtol * r.abs())) | same_nonfinite
    bad = ~close
    # Every figure in one read from the device (each separate read waits for the device: 6 waits an output).
    figures = [bad.sum(), (fin_r & ~fin_o).sum(), both.sum(), diff.sum()]
    if rep["numel"]:
        figures += [diff.max(), torch.linalg.vector_norm(torch.where(fin_r, r, torch.zeros_like(r))),
                    torch.linalg.vector_norm(diff)]
    got = torch.stack([f.to(torch.float64) for f in figures]).tolist()
    rep["mismatches"], rep["nonfinite"] = int(got[0]), int(got[1])
    if rep["numel"]:
        if rep["nonfinite"]:
            rep["max_abs_err"] = None
            rep["rel_err"] = None
        else:
            rep["max_abs_err"] = _num(got[4])
            ref_norm, err_norm = got[5], got[6]
            rep["rel_err"] = _num(err_norm / ref_norm) if ref_norm > 0 else _num(err_norm)
        rep["mean_abs_err"] = _num(got[3] / max(int(got[2]), 1))
    if rep["mismatches"]:
        flat = int(torch.nonzero(bad.reshape(-1))[0])
        idx = []
        for dim in reversed(r.shape):
            idx.append(flat % dim)
            flat //= dim
        idx = list(reversed(idx))
        rep["first_bad_index"] = idx
        rep["first_bad_got"] = _num(o[tuple(idx)]) if o.dim() else _num(o)
        rep["first_bad_expected"] = _num(r[tuple(idx)]) if r.dim() else _num(r)


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
        d = (a.detach().double() - b.detach().double()).abs()
        return _num(torch.nan_to_num(d, nan=float("inf")).max()) if d.numel() else 0.0
    except Exception:
        return None
