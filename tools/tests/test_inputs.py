"""Issue 29, item 3: the problem defines the inputs, never the candidate. For the seed and fmh66 formats the
judge makes every case's inputs with the problem file's setup() (the baseline kgo init stored; request
`problem`), stresses later trials, and ships them to the kernel's process by name. Each attack below PASSES
when the kernel file's own setup() makes the inputs (no problem file: the behaviour before the defence) or
on the plain trial only (no stress), and FAILS with the defence."""
# ctest-cost: 7
import pathlib
import sys

import pytest

from conftest import KERNELS, ROOT, kernel

FMH66 = ROOT / "examples" / "formats" / "fmh66"
QUICK = dict(device="cpu", edge_shapes=False, delegation=False, determinism="off")


def seed_add(harness, name, problem=True, **kw):
    req = dict(QUICK, kernel=kernel(name), reference=kernel("seed_ref.py"), shapes=[[16, 64]], trials=1)
    if problem:
        req["problem"] = kernel("seed_add.py")
    req.update(kw)
    return harness(**req)


@pytest.mark.parametrize("name", ["hack_setup_answer.py", "hack_setup_rows8.py", "hack_setup_rank1.py"])
def test_a_candidates_own_setup_no_longer_makes_its_inputs(harness, name):
    without = seed_add(harness, name, problem=False)
    assert without["verdict"] == "PASS", f"the attack should pass without the defence: {without['message']}"
    assert any("own setup()" in w for w in without.get("warnings", [])), "the fallback says who made the inputs"
    res = seed_add(harness, name)
    assert res["verdict"] == "FAIL", res["message"]
    assert res["contract"] == "seed"
    assert any(s["path"] == kernel("seed_add.py") for s in res["sources"]), "the problem file is stamped"


def test_honest_seed_kernel_passes_on_judge_made_stressed_inputs(harness):
    res = seed_add(harness, "seed_add.py", trials=4, edge_shapes=True, delegation=True, determinism="bitwise")
    assert res["verdict"] == "PASS", res["message"]
    assert len({c["trial"] for c in res["cases"]}) == 4
    assert not res.get("warnings"), "add's reference stays finite on every stress"


def test_softmax_without_max_subtraction_fails_on_stressed_trials(harness):
    req = dict(QUICK, kernel=kernel("hack_softmax_nomax.py"), reference=kernel("seed_softmax_ref.py"),
               problem=kernel("seed_softmax.py"), shapes=[[8, 128]])
    plain = harness(**req, trials=1)
    assert plain["verdict"] == "PASS", f"right on N(0,1): {plain['message']}"
    res = harness(**req, trials=3)
    assert res["verdict"] == "FAIL", res["message"]
    bad = [c for c in res["cases"] if c["status"] == "FAIL"]
    assert bad and all(c["trial"] != 0 for c in bad)
    honest = harness(**{**req, "kernel": kernel("seed_softmax.py")}, trials=3)
    assert honest["verdict"] == "PASS", honest["message"]


def test_fmh66_setup_answer_is_caught(harness):
    req = dict(QUICK, kernel=kernel("fmh66_hack_answer.py"), reference=str(FMH66 / "ref.py"), trials=1,
               dims={"R": 8, "H": 64})
    without = harness(**req)
    assert without["verdict"] == "PASS", f"the attack should pass without the defence: {without['message']}"
    res = harness(**req, problem=str(FMH66 / "kernel.py"))
    assert res["verdict"] == "FAIL", res["message"]
    assert res["contract"] == "fmh66"


def test_fmh66_softmax_without_max_subtraction_fails(harness):
    req = dict(QUICK, kernel=kernel("fmh66_hack_nomax.py"), reference=kernel("fmh66_softmax_ref.py"),
               problem=kernel("fmh66_softmax.py"), dims={"R": 4, "H": 64})
    assert harness(**req, trials=1)["verdict"] == "PASS"
    res = harness(**req, trials=3)
    assert res["verdict"] == "FAIL", res["message"]
    honest = harness(**{**req, "kernel": kernel("fmh66_softmax.py")}, trials=3)
    assert honest["verdict"] == "PASS", honest["message"]


def test_honest_fmh66_example_passes_with_its_problem_file(harness):
    res = harness(device="cpu", kernel=str(FMH66 / "kernel.py"), reference=str(FMH66 / "ref.py"),
                  problem=str(FMH66 / "kernel.py"), dims={"R": 8, "H": 64}, trials=3)
    assert res["verdict"] == "PASS", res["message"]
    assert res["contract"] == "fmh66"


EXP_PROBLEM = '''
import torch

def setup(shape=(8, 8), dtype="float32", seed=0, device="cpu", **kw):
    torch.manual_seed(seed)
    x = torch.randn(shape, device=device, dtype=getattr(torch, dtype))
    return {"inputs": {"x": x, "out": torch.empty_like(x)}, "outputs": ["out"]}

def run_kernel(x, out, **kw):
    torch.exp(x, out=out)
'''


def test_a_stress_outside_the_problems_domain_falls_back_with_a_warning(harness, tmp_path):
    """exp(30 x + 40) and exp(x * 10^3) are beyond float32's range: those trials keep setup()'s own values and
    say so. 32 x 64 values: with 8 x 8, no x above 1.62 (exp(30 x + 40) finite) has a chance of 3% per run."""
    (tmp_path / "problem.py").write_text(EXP_PROBLEM)
    (tmp_path / "kernel.py").write_text(EXP_PROBLEM)
    (tmp_path / "ref.py").write_text("import torch\n\ndef reference(x, out, **kw):\n    out.copy_(torch.exp(x))\n")
    res = harness(**QUICK, kernel=str(tmp_path / "kernel.py"), reference=str(tmp_path / "ref.py"),
                  problem=str(tmp_path / "problem.py"), shapes=[[32, 64]], trials=3)
    assert res["verdict"] == "PASS", res["message"]
    notes = [w for w in res.get("warnings", []) if "stressed inputs" in w]
    assert [("trial 1" in n, "trial 2" in n) for n in notes] == [(True, False), (False, True)], notes
    assert all("not finite in float32" in n for n in notes)


MM_PROBLEM = '''
import torch

def setup(shape=(8, 8), dtype="float32", seed=0, device="cpu", **kw):
    torch.manual_seed(seed)
    a = torch.randn(shape, device=device, dtype=getattr(torch, dtype))
    b = torch.randn(shape, device=device, dtype=getattr(torch, dtype))
    return {"inputs": {"a": a, "b": b, "out": torch.empty(shape[0], shape[0], device=device)}, "outputs": ["out"]}

def run_kernel(a, b, out, **kw):
    # the contraction a Triton kernel makes with tl.dot(x, y) (fp32 at the default precision: TF32)
    out.copy_(a.double() @ b.double().T)
'''

# What the GPU's TF32 matmul does to fp32 inputs, exaggerated (4 mantissa bits, not 10) so that the CPU shows a
# reference whose reduced-precision run misses the tolerance on stressed inputs and not on plain ones.
TF32_REF = '''import torch

def _coarse(t):
    return (t.float().view(torch.int32) & ~((1 << 19) - 1)).view(torch.float32)

def reference(a, b, out, **kw):
    if torch.backends.cuda.matmul.allow_tf32 and a.dtype == torch.float32:
        a, b = _coarse(a), _coarse(b)
    out.copy_(a @ b.T)
'''


@pytest.mark.parametrize("ieee", [False, True])
def test_a_stress_that_tf32_arithmetic_cannot_meet_falls_back_unless_the_problem_asks_ieee(harness, tmp_path, ieee):
    """An fp32 contraction may run on TF32 tensor cores unless the problem asks for IEEE: where the reference
    itself, run with TF32 matmuls, misses the tolerance on a stressed trial, the trial keeps setup()'s own values
    and says so. A problem that asks for IEEE keeps every stress. The kernel's text decides nothing: here it says
    the opposite of the problem each time."""
    (tmp_path / "problem.py").write_text(MM_PROBLEM)
    src = MM_PROBLEM.replace("tl.dot(x, y)", "tl.dot(x, y, input_precision=\"ieee\")" if not ieee else "tl.dot(x, y)")
    (tmp_path / "kernel.py").write_text(src)
    (tmp_path / "ref.py").write_text(("import torch\ntorch.backends.cuda.matmul.allow_tf32 = False\n" if ieee else "")
                                     + TF32_REF)
    res = harness(**QUICK, kernel=str(tmp_path / "kernel.py"), reference=str(tmp_path / "ref.py"),
                  problem=str(tmp_path / "problem.py"), shapes=[[16, 64]], trials=4)
    notes = [w for w in res.get("warnings", []) if "TF32" in w]
    if not ieee:
        assert notes and all("stressed inputs" in n and "trial 0" not in n for n in notes), res.get("warnings")
        assert res["tolerance"]["rtol"] == 1e-2, res["tolerance"]
    else:
        assert not notes, res.get("warnings")
        assert res["tolerance"]["rtol"] == 1e-3, res["tolerance"]


def test_a_kernel_cannot_widen_its_tolerance_with_its_own_text(harness):
    """Attack: a softmax quantised to 1/4096 (about 5e-3 relative error) whose source names `tl.dot(` in a comment.
    When the kernel's text declared TF32 it got the contraction tolerance (1e-2) and PASSed; the tolerance now
    comes from the problem alone (a softmax: fp32, 1e-3) and it FAILs."""
    req = dict(QUICK, kernel=kernel("hack_tolerance_comment.py"), reference=kernel("seed_softmax_ref.py"),
               problem=kernel("seed_softmax.py"), shapes=[[8, 128]], trials=1)
    res = harness(**req)
    assert res["verdict"] == "FAIL", res["message"]
    assert res["tolerance"]["rtol"] == 1e-3 and "TF32" not in res["tolerance"]["basis"], res["tolerance"]
    loose = harness(**req, rtol=1e-2, atol=1e-2, max_rel_err=1e-2)
    assert loose["verdict"] == "PASS", f"the quantised softmax is within the contraction tolerance: {loose['message']}"


def test_ref_py_can_narrow_the_stress(harness, tmp_path):
    (tmp_path / "ref.py").write_text("STRESS = False\n\ndef reference(x, out, **kw):\n    out.copy_(x.softmax(-1))\n")
    res = harness(**QUICK, kernel=kernel("hack_softmax_nomax.py"), reference=str(tmp_path / "ref.py"),
                  problem=kernel("seed_softmax.py"), shapes=[[8, 128]], trials=3)
    assert res["verdict"] == "PASS", "STRESS = False keeps every trial plain"


def test_bench_times_fresh_judge_made_input_sets(harness):
    """Timed calls on the seed contract rotate through input sets the judge made from distinct seeds: a kernel
    whose own setup() ignored the seed (every set the same) and that replays a memo fails the timed-output
    check once the judge makes the sets."""
    # delegation off: its memo replays launch nothing, which the delegation verdict fails too; this test holds the
    # judge-made sets alone.
    req = dict(device="cpu", kernel=kernel("hack_setup_fixed_seed.py"), reference=kernel("seed_ref.py"),
               shapes=[[16, 64]], command="bench", bench={"runs": 3, "baselines": [], "rotate": 2, "warmup": 1},
               delegation=False)
    without = harness(**req)
    # Without the defence its timed outputs pass their check (the judge's clock may still call the memo's time
    # faked on a loaded machine: not the defence under test here).
    assert without["verdict"] in ("PASS", "REWARD_HACK") and without["sizes"][0]["outputs_checked"] is True, \
        f"the attack should pass the timed-output check without the defence: {without['message']}"
    res = harness(**req, problem=kernel("seed_add.py"))
    assert res["verdict"] == "FAIL" and res["sizes"][0]["outputs_checked"] is False, res["message"]
    honest = harness(**{**req, "kernel": kernel("seed_add.py")}, problem=kernel("seed_add.py"))
    assert honest["verdict"] == "PASS", honest["message"]
    assert honest["sizes"][0]["rotate"] == 2 and honest["sizes"][0]["outputs_checked"] is True


def test_fixed_seed_memo_is_caught_by_check(harness):
    without = seed_add(harness, "hack_setup_fixed_seed.py", problem=False, trials=2)
    assert without["verdict"] == "PASS", without["message"]
    assert seed_add(harness, "hack_setup_fixed_seed.py", trials=2)["verdict"] == "FAIL"


def test_problem_file_runs_only_what_setup_needs():
    sys.path.insert(0, str(ROOT / "tools"))
    from kgo_harness.formats import problem_file
    source = (KERNELS / "seed_add.py").read_text()
    code = problem_file.needed(source)
    names = set(code.co_names)
    assert "setup" in names and "torch" in names
    assert not {"triton", "tl", "_kernel", "run_kernel"} & names, names
    helper = "import os\nimport math\nK = 3\ndef _make(n):\n    return math.sqrt(n) * K\n" \
             "def setup(n=4):\n    return _make(n)\ndef run_kernel():\n    os.system('x')\n"
    scope = {}
    exec(problem_file.needed(helper), scope)
    assert scope["setup"]() == 6.0 and "os" not in scope and "run_kernel" not in scope
    with pytest.raises(LookupError):
        problem_file.needed("def run_kernel():\n    pass\n")


def test_answers_kept_for_kgos_seeds_do_not_match_the_judges_inputs(harness):
    """The kernel replays setup() and the stress for the request's seeds at import: the judge's secret in the
    seeds makes every case's inputs new to it."""
    res = seed_add(harness, "hack_seed_precompute.py", trials=3)
    assert res["verdict"] == "FAIL", res["message"]
    assert all(c["status"] == "FAIL" for c in res["cases"]), [c["status"] for c in res["cases"]]


def test_every_op_has_a_stress_or_a_stated_reason_to_keep_its_plain_inputs():
    sys.path.insert(0, str(ROOT / "tools"))
    from kgo_harness.formats import ops
    from kgo_harness.formats import stress
    undecided = [op.name for op in ops.OPS if (op.name in stress.BY_OP) == (op.name in stress.PLAIN)]
    assert not undecided, f"give these ops a stress (stress.BY_OP) or a reason (stress.PLAIN): {undecided}"


def test_a_problem_file_without_setup_names_the_fix(harness, tmp_path):
    (tmp_path / "problem.py").write_text("def run_kernel(**kw):\n    pass\n")
    res = harness(**QUICK, kernel=kernel("seed_add.py"), reference=kernel("seed_ref.py"),
                  problem=str(tmp_path / "problem.py"), contract="seed", shapes=[[16, 64]], trials=1)
    assert res["verdict"] == "FAIL" and res["culprit"] == "setup", res
    assert "problem.py cannot give setup()" in res["message"] and "git checkout" in res["message"]
