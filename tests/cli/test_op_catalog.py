"""One op catalog: kgo's (roofline/catalog.cpp, exported by `kgo roofline --explain --json`) owns names,
aliases, dtypes and FLOP/byte counts; the harness (tools/kgo_harness/formats/ops.py) keeps only inputs, references and
aten ops, under kgo's canonical names. These tests fail when the two sides disagree."""
# ctest-cost: 7
import dataclasses
import functools
import json
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR, run_kgo

COUNTING_FIELDS = {"aliases", "flops", "bytes", "flops_text", "bytes_text", "dtypes"}


def kgo_catalog():
    r = run_kgo("roofline", "--explain", "--json")
    assert r.rc == 0, r.err
    return r.json()["explain"]


@functools.cache
def harness_catalog():
    """The harness's own catalog, asked once per file (a judge start is about 2 s of CPU)."""
    proc = subprocess.run([sys.executable, str(SOURCE_DIR / "tools" / "kgo_harness"), "catalog"],
                          input="{}", capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["ops"]


def harness_op_fields():
    sys.path.insert(0, str(SOURCE_DIR / "tools"))
    try:
        from kgo_harness.formats import ops
    finally:
        sys.path.pop(0)
    return {f.name for f in dataclasses.fields(ops.Op)}


def disagreements(kgo, harness, op_fields):
    """Every way the harness's catalog departs from kgo's: names kgo does not know or knows only as an
    alias, and counting fields the harness should not carry."""
    canonical = {op["name"] for op in kgo["ops"]}
    alias_of = {a: op["name"] for op in kgo["ops"] for a in op["aliases"]}
    found = []
    for op in harness:
        name = op["name"]
        if name in alias_of:
            found.append(f"harness op '{name}' is kgo's alias of '{alias_of[name]}': use the canonical name")
        elif name not in canonical:
            found.append(f"harness op '{name}' is not in kgo's catalog: add it to the op catalog (roofline/catalog_*.cpp)")
        for key in sorted(COUNTING_FIELDS & set(op)):
            found.append(f"harness op '{name}' carries '{key}': counts and aliases live in kgo's catalog")
    for key in sorted(COUNTING_FIELDS & set(op_fields)):
        found.append(f"tools/kgo_harness/formats/ops.py's Op has a '{key}' field: counts and aliases live in kgo's catalog")
    return found


def test_the_two_catalogs_agree():
    kgo, harness = kgo_catalog(), harness_catalog()
    assert disagreements(kgo, harness, harness_op_fields()) == []
    # Every op template has both sides: kgo counts it, the harness checks it.
    both = {op["name"] for op in harness}
    for folder in (SOURCE_DIR / "templates" / "ops").iterdir():
        if folder.is_dir() and folder.name != "generic":
            assert folder.name in both, folder


def test_planted_disagreements_are_found():
    kgo, harness = kgo_catalog(), harness_catalog()
    gelu = next(op for op in harness if op["name"] == "gelu")
    planted = [*harness, {**gelu, "name": "gelu_sigmoid"}, {**gelu, "name": "vector_add"},
               {**gelu, "flops": "8 * numel"}]
    found = disagreements(kgo, planted, harness_op_fields() | {"bytes"})
    assert len(found) == 4, found
    assert "'gelu_sigmoid' is not in kgo's catalog" in found[0]
    assert "'vector_add' is kgo's alias of 'add'" in found[1]
    assert "carries 'flops'" in found[2]
    assert "Op has a 'bytes' field" in found[3]



def harness_ops():
    sys.path.insert(0, str(SOURCE_DIR / "tools"))
    try:
        from kgo_harness.formats import ops
    finally:
        sys.path.pop(0)
    return ops


def test_every_op_makes_valid_inputs_and_a_finite_reference_on_its_shapes():
    """Default and edge shapes of every harness op, every stress trial: inputs build and the reference is finite
    (an edge shape that makes an invalid problem, e.g. a one-element group norm, fails here)."""
    import torch
    ops = harness_ops()
    for op in ops.OPS:
        shapes = [list(s) for s in op.default_shapes]
        for rank in sorted({len(s) for s in shapes}):
            shapes += ops.edge_shapes(rank)
        for shape in shapes:
            for trial in range(3):
                gen = torch.Generator().manual_seed(7)
                args = op.make(shape, torch.float32, gen, "cpu", {}, trial)
                args = ops.stress(op, args, trial, gen)
                up = [a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
                out = op.reference(*up)
                if out.is_floating_point() and trial != 2 or op.name not in ops.STRESS:
                    assert torch.isfinite(out.double()).all(), (op.name, shape, trial)


ELEMENTWISE = '''
import torch, triton, triton.language as tl

@triton.jit
def _k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep).to(tl.float32)
    tl.store(y_ptr + offs, BODY, mask=keep)

def triton_NAME(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    _k[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y
'''

ARGMAX = '''
import torch, triton, triton.language as tl

@triton.jit
def _k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0).to(tl.int64))

def triton_argmax(x):
    x = x.contiguous()
    n = x.shape[-1]
    out = torch.empty(x.shape[:-1], dtype=torch.int64, device=x.device)
    _k[(x.numel() // n,)](x, out, n, BLOCK=triton.next_power_of_2(n))
    return out
'''


def op_check(tmp_path, name, source, *extra):
    tmp_path.mkdir(exist_ok=True)
    kernel = tmp_path / f"{name}.py"
    kernel.write_text(source)
    r = run_kgo("init", name, kernel, "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 0, r.err
    return run_kgo("check", "--workspace", tmp_path / f"kernel_opt_{name}", "--device", "cpu", "--op", name,
                   "--trials", "3", "--shape", "8x33", "--json", "--detail", *extra)


@pytest.mark.parametrize("name, body, wrong", [
    ("leaky_relu", "tl.where(x > 0, x, 0.01 * x)", "tl.where(x > 0, x, 0.02 * x)"),
    ("softsign", "x / (1 + tl.abs(x))", "x / (1 + x * x)"),
    ("hardsigmoid", "tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0", "tl.maximum(x + 3.0, 0.0) / 6.0"),
])
def test_new_elementwise_ops_check_in_op_mode(tmp_path, name, body, wrong):
    r = op_check(tmp_path, name, ELEMENTWISE.replace("NAME", name).replace("BODY", body))
    assert r.rc == 0, r.err
    assert r.json()["harness"]["op"] == name
    # The same kernel with a planted mistake fails.
    assert op_check(tmp_path / "wrong", name, ELEMENTWISE.replace("NAME", name).replace("BODY", wrong)).rc == 1


def test_axis_reduction_checks_in_op_mode(tmp_path):
    r = op_check(tmp_path, "argmax", ARGMAX)
    assert r.rc == 0, r.err
    assert op_check(tmp_path / "wrong", "argmax", ARGMAX.replace("tl.argmax", "tl.argmin")).rc == 1


def test_guide_op_gives_the_harness_signature_and_inputs_of_an_op_with_generic_templates():
    """An op without templates of its own has no ref.py to read its arguments from: `guide op` shows the
    harness's signature, inputs and torch reference (the one place that makes the op's inputs)."""
    r = run_kgo("guide", "op", "gemv")
    assert r.rc == 0, r.err
    entry = next(op for op in harness_catalog() if op["name"] == "matvec")
    for line in (f"signature {entry['signature']}", f"inputs {entry['inputs']}", f"torch {entry['reference']}"):
        assert line in r.out, (line, r.out)
    doc = run_kgo("--json", "guide", "op", "gemv").json()
    assert doc["templates"] == "generic" and doc["reference"] is None
    assert doc["harness"]["signature"] == "triton_matvec(a, x)"
    assert doc["harness"]["shape_meaning"] == entry["shape_meaning"]
