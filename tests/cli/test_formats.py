"""Published kernel formats taken as they are: `kgo init` + `kgo check --device cpu` on the examples under
examples/formats/ (one per contract), the messages that name the culprit, and CPU honesty."""
# ctest-cost: 19
import json
import pathlib
import shutil

import pytest

from conftest import SOURCE_DIR, run_kgo, validate

EX = SOURCE_DIR / "examples" / "formats"


def init(tmp_path, name, kernel, *extra):
    parent = tmp_path / "ws"
    parent.mkdir(exist_ok=True)
    r = run_kgo("init", name, kernel, "--platform", "H100", "--dir", parent, *extra)
    assert r.rc == 0, r.err
    return parent / f"kernel_opt_{name}"


def check(ws, *extra):
    return run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "1", "--json", "--detail", *extra)


def copy_example(tmp_path, name):
    dst = tmp_path / "src" / name
    shutil.copytree(EX / name, dst)
    return dst


def test_init_help_lists_every_contract():
    r = run_kgo("init", "--help")
    assert r.rc == 0
    for name in ("seed", "op", "cuda", "fmh66", "kernelbench", "sol-execbench", "--dim", "--inputs", "--size"):
        assert name in r.out


def test_fmh66_named_dims_from_shape_and_dim(tmp_path):
    ws = init(tmp_path, "rms", EX / "fmh66" / "kernel.py", "--reference", EX / "fmh66" / "ref.py",
              "--shape", "16x100")
    r = check(ws)
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/check.schema.json")
    h = j["harness"]
    assert h["contract"] == "fmh66"
    shapes = [c["shape"] for c in h["cases"]]
    assert shapes[0] == [16, 100]
    # every dim, the reduced one included, gets an odd size among the edge shapes
    assert any(all(d % 2 == 1 for d in s) and s != [1, 1] for s in shapes)
    assert any("first config only" in w for w in h["warnings"]), h["warnings"]
    r = check(ws, "--dim", "R=8", "--dim", "H=40", "--no-edge-shapes", "--no-record")
    assert r.rc == 0, r.err
    assert [c["shape"] for c in r.json()["harness"]["cases"]] == [[8, 40]]


def test_fmh66_shape_of_the_wrong_rank_names_setup_and_the_fix(tmp_path):
    ws = init(tmp_path, "rms", EX / "fmh66" / "kernel.py", "--reference", EX / "fmh66" / "ref.py")
    r = check(ws, "--shape", "16x100x3")
    assert r.rc == 1
    j = r.json()
    assert j["harness"]["culprit"] == "contract"
    assert "setup() takes R, H" in j["message"] and "--dim R=" in j["message"]
    assert "does not match the reference" not in r.err and "do not fit the contract" in r.err
    r = check(ws, "--contract", "seed", "--shape", "4096x4096")
    assert r.rc == 1
    assert "setup() takes R, H; kgo passed shape=(4096, 4096): use --dim R=4096 --dim H=4096" in r.json()["message"]


def test_bf16_on_the_cpu_is_untrusted_and_not_recorded(tmp_path):
    ws = init(tmp_path, "rms", EX / "fmh66" / "kernel.py", "--reference", EX / "fmh66" / "ref.py")
    r = check(ws, "--dim", "R=8", "--dim", "H=64", "--no-edge-shapes", "--dtype", "bf16")
    assert r.rc == 1
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["verdict"] == "UNTRUSTED" and j["recorded"] is None
    assert j["harness"]["trust"]["trustworthy"] is False and "bfloat16" in j["message"]
    assert "check UNTRUSTED" in r.err
    assert not (ws / "memory" / "v0.json").exists() or "correctness" not in json.loads(
        (ws / "memory" / "v0.json").read_text()) or json.loads(
        (ws / "memory" / "v0.json").read_text())["correctness"] is None


def test_kernelbench_problem_and_model_new(tmp_path):
    ws = init(tmp_path, "kb", EX / "kernelbench" / "model_new.py", "--reference", EX / "kernelbench" / "problem.py")
    r = check(ws, "--dim", "batch=8", "--dim", "features=100")
    assert r.rc == 0, r.err
    h = r.json()["harness"]
    assert h["contract"] == "kernelbench" and h["op"] == "softmax"
    assert [8, 100] in [c["shape"] for c in h["cases"]]


BAD_MODEL_NEW = '''
import torch, torch.nn as nn, triton, triton.language as tl

@triton.jit
def _k(src, dst, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n
    v = tl.load(src + row * n + cols, mask=keep, other=0.0)   # padding 0 instead of -inf
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(dst + row * n + cols, e / tl.sum(e, axis=0), mask=keep)

class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        _k[(x.shape[0],)](x, out, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
'''


def test_kernelbench_edge_shapes_catch_a_padding_bug_the_default_size_hides(tmp_path):
    kernel = tmp_path / "bad.py"
    kernel.write_text(BAD_MODEL_NEW)
    ws = init(tmp_path, "kb", kernel, "--reference", EX / "kernelbench" / "problem.py")
    r = check(ws, "--dim", "batch=8", "--dim", "features=64")
    assert r.rc == 1
    h = r.json()["harness"]
    by_shape = {tuple(c["shape"]): c["status"] for c in h["cases"]}
    assert by_shape[(8, 64)] == "PASS" and by_shape[(7, 17)] == "FAIL"
    assert h["culprit"] == "kernel" and "does not match the reference" in r.err
    assert "only kgo's edge shapes failed" in h["message"] and "--no-edge-shapes" in h["message"], h["message"]
    r = check(ws, "--dim", "batch=8", "--dim", "features=64", "--no-edge-shapes")
    assert r.rc == 0, r.err


def test_a_raising_reference_is_blamed_not_the_kernel(tmp_path):
    src = copy_example(tmp_path, "kernelbench")
    text = (src / "problem.py").read_text().replace("return torch.softmax(x, dim=-1)",
                                                   "raise ValueError('reference broke')")
    (src / "problem.py").write_text(text)
    ws = init(tmp_path, "kb", src / "model_new.py", "--reference", src / "problem.py")
    r = check(ws, "--dim", "batch=4", "--dim", "features=32", "--no-edge-shapes")
    assert r.rc == 1
    j = r.json()
    assert j["harness"]["culprit"] == "reference"
    assert "the reference raised ValueError: reference broke" in j["message"]
    assert "the kernel raised" not in j["message"] and "the reference failed (not the kernel)" in r.err


def test_sol_execbench_definition_workloads_and_destination_passing(tmp_path):
    ws = init(tmp_path, "sol", EX / "sol-execbench" / "kernel.py", "--reference",
              EX / "sol-execbench" / "definition.json")
    assert (ws / "definition.json").is_file() and (ws / "workload.jsonl").is_file()
    r = check(ws)
    assert r.rc == 0, r.err
    h = r.json()["harness"]
    assert h["contract"] == "sol-execbench" and h["entry"] == "scaled_silu"
    cases = {tuple(c["shape"]): c for c in h["cases"]}
    assert (64,) in cases and (333,) in cases and (17,) in cases
    assert cases[(333,)]["atol"] == 1e-5  # the workload's own tolerance
    assert cases[(64,)]["atol"] == 1e-2  # none stated: SOL-ExecBench's default ToleranceSpec, as its harness judges


def test_sol_execbench_returning_entry(tmp_path):
    src = copy_example(tmp_path, "sol-execbench")
    (src / "kernel.py").write_text((src / "kernel.py").read_text() + '''

def run(x, scale):
    import torch
    y = torch.empty_like(x)
    scaled_silu(x, scale, y)
    return y
''')
    ws = init(tmp_path, "sol", src / "kernel.py", "--reference", src / "definition.json")
    r = check(ws, "--no-edge-shapes")
    assert r.rc == 0, r.err
    assert r.json()["harness"]["entry"] == "run"


def test_cu_implies_cuda_and_no_gpu_is_23_with_nothing_recorded(tmp_path):
    ws = init(tmp_path, "gemm", EX / "cuda-solve" / "kernel.cu", "--reference", EX / "cuda-solve" / "ref.py",
              "--inputs", "A,B", "--outputs", "C", "--size", "A=M*K", "--size", "B=K*N", "--size", "C=M*N",
              "--shape", "64x32x16")
    cfg = json.loads((ws / "kgo.json").read_text())
    assert cfg["framework"] == "cuda" and cfg["kernel_file"] == "kernel.cu"
    assert cfg["contract"] == {"inputs": ["A", "B"], "outputs": ["C"],
                               "sizes": {"A": "M*K", "B": "K*N", "C": "M*N"}}
    validate(cfg, "workspace.schema.json")
    before = sorted(p.name for p in (ws / "memory").iterdir())
    r = run_kgo("check", "--workspace", ws, "--device", "cpu")
    assert r.rc == 23 and "GPU" in r.err
    assert sorted(p.name for p in (ws / "memory").iterdir()) == before


def test_cu_with_another_framework_is_a_usage_error(tmp_path):
    parent = tmp_path / "ws"
    parent.mkdir()
    r = run_kgo("init", "g", EX / "cuda-solve" / "kernel.cu", "--platform", "H100", "--dir", parent,
                "--framework", "triton")
    assert r.rc == 3 and "implies cuda" in r.err
    assert not (parent / "kernel_opt_g").exists()


def test_bad_contract_flags_are_usage_errors(tmp_path):
    parent = tmp_path / "ws"
    parent.mkdir()
    for flags, text in ((["--contract", "nope"], "unknown contract"), (["--dim", "N=abc"], "positive integer"),
                        (["--size", "A"], "NAME=VALUE")):
        r = run_kgo("init", "x", EX / "fmh66" / "kernel.py", "--platform", "H100", "--dir", parent, *flags)
        assert r.rc == 3 and text in r.err, (flags, r.err)


def test_tritonbench_operator_named_benchmark_against_its_baseline(tmp_path):
    ws = init(tmp_path, "tb", EX / "tritonbench" / "operator.py")
    r = check(ws)
    assert r.rc == 0, r.err
    h = r.json()["harness"]
    assert h["contract"] == "tritonbench" and h["entry"] == "triton_sumsq"
    assert sorted({c["shape"][0] for c in h["cases"]}) == [1, 2, 3]
    r = check(ws, "--entry", "nope", "--no-record")
    assert r.rc == 1 and "is not one of the Operator's benchmarks (triton_sumsq)" in r.json()["message"]


TB_PUBLISHED = """import torch
import triton
import triton.language as tl
from tritonbench.utils.env_utils import is_fbcode
from tritonbench.utils.triton_op import BenchmarkOperator, register_benchmark

try:
    from not_installed_library import fast_neg
    HAS_IT = True
except ImportError:
    HAS_IT = False


@triton.jit
def _neg(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y + i, -tl.load(x + i, mask=i < n), mask=i < n)


class Operator(BenchmarkOperator):
    def get_input_iter(self):
        sizes = [1000, 3000, 77]
        if is_fbcode():
            sizes.append(10 ** 9)
        for n in sizes:
            yield (torch.randn(n, device=self.device, dtype=self.dtype),)

    @register_benchmark()
    def triton_neg(self, x):
        def call():
            y = torch.empty_like(x)
            _neg[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
            return y
        return call

    @register_benchmark(baseline=True)
    def torch_neg(self, x):
        return lambda: -x

    @register_benchmark(enabled=HAS_IT)
    def library_neg(self, x):
        return lambda: fast_neg(x)
"""


def test_tritonbench_published_operator_helpers_disabled_benchmark_and_first_input(tmp_path):
    """As tritonbench's own operators are written (its operators/<op>/operator.py): a tritonbench.utils helper
    imported beside triton_op, a benchmark disabled for a missing library; --shape 1 is the first input set."""
    src = tmp_path / "operator.py"
    src.write_text(TB_PUBLISHED)
    ws = init(tmp_path, "tbpub", src)
    r = check(ws, "--shape", "1", "--shape", "3")
    assert r.rc == 0, r.err
    h = r.json()["harness"]
    assert h["entry"] == "triton_neg", h
    assert sorted({c["shape"][0] for c in h["cases"]}) == [1, 3]
    r = check(ws, "--shape", "4", "--no-record")
    assert r.rc == 1 and "--shape K takes the K-th, 1 to 3" in r.json()["message"], r.out


def test_contract_names_agree(tmp_path):
    """kgo's --contract names, the harness's adapters and the three schemas list the same contracts
    (docs/howto/add-a-contract.md)."""
    import re
    import sys
    r = run_kgo("init", "x", EX / "fmh66" / "kernel.py", "--platform", "H100", "--dir", tmp_path,
                "--contract", "no-such-format")
    assert r.rc == 3, r.err
    kgo_names = set(re.search(r"use one of ([^;\n]+)", r.err).group(1).split(", "))
    sys.path.insert(0, str(SOURCE_DIR / "tools"))
    try:
        from kgo_harness import protocol
    finally:
        sys.path.remove(str(SOURCE_DIR / "tools"))
    assert kgo_names == set(protocol.CONTRACTS)
    schemas = SOURCE_DIR / "schemas"
    request = json.loads((schemas / "harness" / "request.schema.json").read_text())["properties"]["contract"]["enum"]
    result = json.loads((schemas / "harness" / "result.schema.json").read_text())["properties"]["contract"]["enum"]
    workspace = json.loads((schemas / "workspace.schema.json").read_text())
    ws_enum = workspace["properties"]["contract"]["properties"]["name"]["enum"]
    assert set(request) == set(ws_enum) == kgo_names
    assert kgo_names - {"auto"} <= set(result)  # a result names the contract used, never auto


DATA = SOURCE_DIR / "tests" / "data" / "kernelbench"


def roofline(ws, *extra):
    return run_kgo("roofline", "--workspace", ws, *extra)


def test_kernelbench_roofline_counts_the_catalog_op_the_check_mapped(tmp_path):
    ws = init(tmp_path, "kb", EX / "kernelbench" / "model_new.py", "--reference", EX / "kernelbench" / "problem.py")
    assert run_kgo("spec", "auto", "--workspace", ws).rc == 0
    r = roofline(ws)
    assert r.rc == 3 and "run kgo check" in r.err and "--flops EXPR --bytes EXPR" in r.err  # nothing mapped yet
    r = check(ws, "--dim", "batch=8", "--dim", "features=100")
    assert r.rc == 0, r.err
    roof = r.json()["harness"]["roofline"]
    assert roof == {"op": "softmax", "shapes": [{"shape": [8, 100], "op_shape": [8, 100]}], "message": None}
    text = run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "1", "--dim", "batch=8",
                   "--dim", "features=100")
    assert "catalog op softmax" in text.out and "--op softmax --shape 8x100" in text.out
    r = roofline(ws, "--json")
    assert r.rc == 0, r.err
    doc = json.loads((ws / "roofline.json").read_text())
    assert doc["op"] == "softmax" and [s["shape"] for s in doc["shapes"]] == [[8, 100]]
    assert doc["shapes"][0]["flops"] == 5 * 800 and doc["shapes"][0]["bytes"] == 2 * 800 * 4


def test_kernelbench_problem_outside_the_catalog_is_custom(tmp_path):
    ws = init(tmp_path, "conv", DATA / "conv2d_model_new.py", "--reference", DATA / "conv2d_problem.py")
    assert run_kgo("spec", "auto", "--workspace", ws).rc == 0
    r = check(ws)
    custom = "custom: this problem is not in kgo's op catalog"
    roof = r.json()["harness"]["roofline"]
    assert roof["op"] is None and roof["message"].startswith(custom)
    assert "give --flops EXPR --bytes EXPR to kgo roofline" in roof["message"]
    r = roofline(ws)
    assert r.rc == 3 and custom in r.err and "--flops EXPR --bytes EXPR" in r.err
    assert not (ws / "roofline.json").exists()
    # The way out it names works: a 3x3 valid convolution of 2x3x9x9 into 4 channels (the ReLU not counted).
    r = roofline(ws, "--flops", "2*N*K*(H-R+1)*(W-R+1)*C*R*R", "--bytes", "(N*C*H*W+K*C*R*R+N*K*(H-R+1)*(W-R+1))*4",
                 "--var", "N=2", "--var", "C=3", "--var", "H=9", "--var", "W=9", "--var", "K=4", "--var", "R=3")
    assert r.rc == 0, r.err
    doc = json.loads((ws / "roofline.json").read_text())
    assert doc["op"] == "custom" and doc["shapes"][0]["flops"] == 2 * 2 * 4 * 7 * 7 * 3 * 9


def test_kernelbench_nn_module_form_maps_and_the_summary_says_so(tmp_path):
    """Model holds an nn.MaxPool2d and forward calls it: the catalog op max_pool2d, in kgo check's --json summary
    and text, and counted by kgo roofline."""
    ws = init(tmp_path, "pool", DATA / "maxpool2d_model_new.py", "--reference", DATA / "maxpool2d_problem.py")
    assert run_kgo("spec", "auto", "--workspace", ws).rc == 0
    r = run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "1", "--json")
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert "harness" not in j   # the summary, not --detail
    # the all-ones edge shape (window 1 with padding 1) is rejected by the problem: skipped, not failed
    assert j["cases"]["skipped"] == 1 and j["cases"]["failed"] == 0 and j["failures"] == []
    assert "1 edge shapes skipped" in j["message"]
    # 9 x 11 planes, window 3, stride 2, padding 1: (9 + 2 - 3) // 2 + 1 = 5, (11 + 2 - 3) // 2 + 1 = 6
    assert j["roofline"] == {"op": "max_pool2d", "message": None,
                             "shapes": [{"shape": [2, 3, 9, 11, 3, 2, 1], "op_shape": [2, 3, 9, 11, 5, 6, 3, 3]}]}
    text = run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "1", "--no-record")
    assert "catalog op max_pool2d" in text.out and "--op max_pool2d --shape 2x3x9x11x5x6x3x3" in text.out
    r = roofline(ws, "--json")
    assert r.rc == 0, r.err
    shape = json.loads((ws / "roofline.json").read_text())["shapes"][0]
    # 2 x 3 planes x 5 x 6 outputs, 9 compares each; 2 x 3 x 9 x 11 inputs read and the outputs written in fp32
    assert shape["flops"] == 9 * 180 and shape["bytes"] == (594 + 180) * 4


def test_kernelbench_custom_summary_carries_the_custom_message(tmp_path):
    ws = init(tmp_path, "conv", DATA / "conv2d_model_new.py", "--reference", DATA / "conv2d_problem.py")
    r = run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "1", "--json", "--no-record")
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["roofline"]["op"] is None and "torch.relu is applied to something other than forward's inputs" in \
        j["roofline"]["message"]


def test_opus24_kernel_finds_its_test_file_and_runs_as_published(tmp_path):
    """opus24/mcp-for-triton-kernel's layout: kernel/triton_<op>_kernel_v<N>.py + tests/test_<op>_kernel.py,
    no flag: kgo init takes the test file as the reference, kgo check detects the format from the contents."""
    src = copy_example(tmp_path, "opus24")
    ws = init(tmp_path, "rowscale", src / "kernel" / "triton_rowscale_kernel_v1.py")
    assert (ws / "ref.py").read_text() == (src / "tests" / "test_rowscale_kernel.py").read_text()
    r = check(ws)
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/check.schema.json")
    assert j["harness"]["contract"] == "opus24" and j["verdict"] == "PASS"
    assert j["harness"]["tolerance"]["source"] == "format"
    assert "from format" in run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "1").out


def test_kernelbench_problem_without_dims_ignores_the_init_shape(tmp_path):
    kb = EX / "kernelbench-fixed"
    ws = init(tmp_path, "fixed", kb / "model_new.py", "--reference", kb / "problem.py", "--shape", "1x128")
    r = check(ws)
    assert r.rc == 0, r.err
    j = r.json()
    assert j["verdict"] == "PASS" and [c["shape"] for c in j["harness"]["cases"]] == [[]]
    assert any("no named dims" in w for w in j["harness"]["warnings"])
    assert "takes ;" not in r.err and "use  " not in r.err


def test_sol_execbench_solution_document_as_the_kernel(tmp_path):
    sol = EX / "sol-execbench-solution"
    ws = init(tmp_path, "solution", sol / "solution.json", "--reference", sol / "definition.json")
    r = check(ws, "--no-edge-shapes")
    assert r.rc == 0, r.err
    j = r.json()
    assert j["harness"]["contract"] == "sol-execbench" and j["verdict"] == "PASS"
    assert "NameError" not in r.err


KB_PRODUCT_DIMS = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return A * B + 1.0


M = 16 * 4
N = 2 ** 5


def get_inputs():
    return [torch.rand(M, N), torch.rand(M, N)]


def get_init_inputs():
    return []
"""


def test_kernelbench_dims_written_as_integer_products(tmp_path):
    """KernelBench's matmul problems write their dims as products (`N = 2048 * 2`): they are named dims too, so
    --dim sets them and the edge shapes vary them (a problem of our own in that layout)."""
    problem = tmp_path / "problem.py"
    problem.write_text(KB_PRODUCT_DIMS)
    model_new = tmp_path / "model_new.py"
    model_new.write_text(KB_PRODUCT_DIMS + "\n\nclass ModelNew(Model):\n    pass\n")
    ws = init(tmp_path, "kbprod", model_new, "--reference", problem)
    r = check(ws, "--no-record")
    shapes = [c["shape"] for c in r.json()["harness"]["cases"]]
    assert shapes[0] == [64, 32] and len({tuple(s) for s in shapes}) > 1, shapes
    r = check(ws, "--dim", "M=40", "--dim", "N=3", "--no-edge-shapes", "--no-record")
    cases = r.json()["harness"]["cases"]
    assert [c["shape"] for c in cases] == [[40, 3]] and cases[0]["status"] == "PASS", r.out


KB_TUPLE_INIT = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x):
        return self.conv(x)


batch_size = 2
in_channels = 3
out_channels = 4
kernel_size = (3, 5)
height = 12
width = 16


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
"""
KB_TUPLE_NEW = """

class ModelNew(Model):
    def __init__(self, in_channels, out_channels, kernel_size):
        assert type(kernel_size) is tuple, kernel_size  # what Model got
        super().__init__(in_channels, out_channels, kernel_size)
"""


def test_kernelbench_init_inputs_with_a_tuple_reach_model_new_as_a_tuple(tmp_path):
    """KernelBench's asymmetric convolutions pass kernel_size = (5, 7) in get_init_inputs(): the judge ships it to
    the kernel's process, and ModelNew gets the tuple Model got (a problem of our own in that layout)."""
    problem = tmp_path / "problem.py"
    problem.write_text(KB_TUPLE_INIT)
    model_new = tmp_path / "model_new.py"
    model_new.write_text(KB_TUPLE_INIT + KB_TUPLE_NEW)
    ws = init(tmp_path, "kbtuple", model_new, "--reference", problem)
    r = check(ws, "--no-edge-shapes", "--no-record")
    cases = r.json()["harness"]["cases"]
    assert cases and all(c["status"] == "PASS" for c in cases), r.out


KB_UTILS = "import not_installed_llm_client_xyz\nfrom not_installed_llm_client_xyz.sub import Client\n\n" \
           "def read_file(p):\n    return open(p).read()\n"
KB_EVAL = """from pydantic_not_installed_xyz import BaseModel
from . import utils
from {pkg}.timing import trials


class KernelExecResult(BaseModel):
    compiled: bool = False
    correctness: bool = False
    metadata: dict = {{}}


def eval_kernel_against_ref(original_model_src, custom_model_src, num_correct_trials=1, measure_performance=False,
                            verbose=False, device=None):
    return KernelExecResult(compiled=True, correctness=original_model_src == custom_model_src,
                            metadata={{"trials": trials(num_correct_trials)}})
"""


@pytest.mark.parametrize("layout", ["src/kernelbench", "src"])
def test_side_by_side_loads_kernelbench_eval_from_each_layout_it_has_had(tmp_path, layout):
    """bench/formats_own.py kb-serve: KernelBench's eval.py imports its siblings relatively and by package name, in
    the package `src` (the earlier layout) or `kernelbench` (src/kernelbench/); modules only its LLM clients need
    are stubbed and named. A tree written here after that layout, run from another directory with a relative path."""
    import subprocess
    import sys
    pkg_dir = tmp_path / "kb" / layout
    pkg_dir.mkdir(parents=True)
    pkg = pkg_dir.name
    (pkg_dir / "__init__.py").write_text("from . import utils\n")
    (pkg_dir / "utils.py").write_text(KB_UTILS)
    (pkg_dir / "timing.py").write_text(f"def trials(n):\n    from {pkg}.eval import KernelExecResult\n    return n\n")
    (pkg_dir / "eval.py").write_text(KB_EVAL.format(pkg=pkg))
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("x = 1\n")
    other = tmp_path / "elsewhere"
    other.mkdir()
    p = subprocess.run([sys.executable, str(SOURCE_DIR / "bench" / "formats_own.py"), "kb-serve",
                        str(pathlib.Path("..") / "kb"), "cuda"], cwd=other, capture_output=True, text=True,
                       input=json.dumps([str(a), str(b)]) + "\n", timeout=300)
    assert p.returncode == 0, p.stderr
    ready, reply = [json.loads(line) for line in p.stdout.splitlines()]
    assert ready["ready"].startswith(f"{pkg}.eval from ")
    assert set(ready["stubbed"]) == {"not_installed_llm_client_xyz", "pydantic_not_installed_xyz"}
    assert reply["own_pass"] is True and reply["own_detail"] == {"trials": "5"}, reply  # eval's own call, 5 trials
