"""The CUDA contract: solve() signature parsing, scalar values, nvcc compile cache, and (GPU) running it."""
import pathlib

import pytest

from conftest import CUDA_TOOLS, HAS_CUDA, kernel
from kgo_harness.formats import cuda_contract as cc


def test_parse_const_pointers_are_inputs():
    params = cc.parse_solve('''
        // extern "C" void solve(int bogus);  (a comment is ignored)
        extern "C" void solve(const float* __restrict__ a, float const *b, float* out, int rows, size_t n,
                              float eps) { }''')
    assert [(p.name, p.base, p.pointer, p.const) for p in params] == [
        ("a", "float", True, True), ("b", "float", True, True), ("out", "float", True, False),
        ("rows", "int", False, False), ("n", "size_t", False, False), ("eps", "float", False, False)]


@pytest.mark.parametrize("source, fragment", [
    ("void solve(float* x) {}", 'extern "C"'),
    ('extern "C" void other(float* x) {}', "solve"),
    ('extern "C" void solve(const float* x, int n) {}', "no non-const pointer"),
    ('extern "C" void solve(struct Foo* x, float* y) {}', "points to"),
    ('extern "C" void solve(float*, float* y) {}', "no name"),
    # All-output ABI: every buffer would be poisoned and the reference would run on the poison.
    ('extern "C" void solve(float* a, float* b, float* c, int n) {}', "marks no pointer"),
    ('extern "C" void solve(float* a, float* b, float* c, int n) {}', "pass --outputs c "),
])
def test_parse_errors_name_the_fix(source, fragment):
    with pytest.raises(cc.ContractError, match=fragment):
        cc.parse_solve(source)


def test_scalar_values():
    params = cc.parse_solve('extern "C" void solve(const float* x, float* y, int rows, int cols, float eps)')
    assert cc.scalar_values(params, [4, 8], {}) == {"rows": 4, "cols": 8, "eps": 1e-5}
    assert cc.scalar_values(params, [4, 8], {"rows": 2, "eps": 0.5}) == {"rows": 2, "eps": 0.5, "cols": 32}
    one = cc.parse_solve('extern "C" void solve(const float* x, float* y, int n)')
    assert cc.scalar_values(one, [4, 8], {}) == {"n": 32}
    three = cc.parse_solve('extern "C" void solve(const float* x, float* y, int a, int b, int c)')
    with pytest.raises(cc.ContractError, match=r"pass --shape 4x8x8 \(one axis per parameter"):
        cc.scalar_values(three, [4, 8], {})


@pytest.mark.skipif(CUDA_TOOLS["nvcc"] is None, reason="needs nvcc")
def test_compile_is_cached_by_content(tmp_path):
    so, fresh, _ = cc.compile_so(kernel("vector_add.cu"), "sm_90", tmp_path, CUDA_TOOLS["nvcc"])
    assert fresh and so.is_file() and so.parent == tmp_path / "cuda"
    again, fresh2, _ = cc.compile_so(kernel("vector_add.cu"), "sm_90", tmp_path, CUDA_TOOLS["nvcc"])
    assert again == so and not fresh2


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_cuda_kernel_check_and_crash(harness, tmp_path):
    res = harness(kernel=kernel("vector_add.cu"), op="add", device="cuda", shapes=[[1000], [64, 64]],
                  trials=2, cache_dir=str(tmp_path))
    assert res["verdict"] == "PASS", res["message"]
    assert res["contract"] == "cuda" and res["delegation"]["checked"] is True
    assert res["delegation"]["delegated"] is False, res["delegation"]
    bad = harness(kernel=kernel("vector_add_oob.cu"), op="gelu", device="cuda", shapes=[[1 << 20]],
                  trials=1, cache_dir=str(tmp_path))
    assert bad["verdict"] == "CRASH", bad["message"]


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_a_solve_that_synchronizes_is_timed_without_the_hold(harness, tmp_path):
    """solve() ending in cudaDeviceSynchronize (vector_add.cu, as fmh66's published kernels) waits for the hold
    kernel that keeps launch gaps out of the events, so no sample was ever clean ("the host outran a 21760 us
    hold"). Once a probe shows it, its samples are taken with the device idle, and the size says so."""
    res = harness(command="bench", kernel=kernel("vector_add.cu"), op="add", device="cuda", shapes=[[1 << 16]],
                  cache_dir=str(tmp_path), bench={"runs": 5, "precision_pct": 0, "baselines": []})
    assert res["verdict"] == "PASS", res["message"]
    size = res["sizes"][0]
    assert "waits for the device" in size["message"], size


def test_cuda_contract_on_cpu_is_refused(harness):
    res = harness(kernel=kernel("vector_add.cu"), op="add", device="cpu", shapes=[[64]])
    assert res["verdict"] == "FAIL" and "GPU" in res["message"]


EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "formats"


def test_cuda_solve_roles_and_sizes():
    src = (EXAMPLES / "cuda-solve" / "kernel.cu").read_text()
    with pytest.raises(cc.ContractError, match="marks no pointer `const`"):
        cc.parse_solve(src)
    params = cc.parse_solve(src, ["A", "B"], ["C"])
    assert [(p.name, p.const) for p in params if p.pointer] == [("A", True), ("B", True), ("C", False)]
    assert [p.const for p in cc.parse_solve(src, None, ["C"]) if p.pointer] == [True, True, False]
    with pytest.raises(cc.ContractError, match="no pointer parameter for"):
        cc.parse_solve(src, ["X"], None)
    scalars = cc.scalar_values(params, [64, 32, 16], {})
    assert scalars == {"M": 64, "N": 32, "K": 16}
    # a 4096^3 GEMM's A needs M*K elements, not numel(shape) = 2^36
    assert cc.buffer_numel("A", {"A": "M*K"}, {"M": 4096, "K": 4096}, None) == 4096 * 4096
    for bad, text in (("M*Q", "not an integer parameter"), ("__import__('os')", "only")):
        with pytest.raises(cc.ContractError, match=text):
            cc.buffer_numel("A", {"A": bad}, scalars, None)


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")
def test_a_solve_that_calls_torch_from_its_host_code_is_delegation(harness, tmp_path):
    """Its own kernel is right, but its host code calls back into the interpreter for torch work: the delegation
    check sees the aten ops of that work (it was "not applicable" to the CUDA contract, and this passed)."""
    res = harness(kernel=kernel("hack_cuda_callback.cu"), op="add", device="cuda", shapes=[[1000]], trials=1,
                  cache_dir=str(tmp_path), tools=CUDA_TOOLS)
    assert res["verdict"] == "FAIL" and res["delegation"]["delegated"] is True, res["message"]
    assert "aten::exp" in res["delegation"]["message"], res["delegation"]["message"]


def test_without_an_nvcc_from_kgo_the_harness_does_not_search_for_one(tmp_path):
    """The CUDA tool finder is kgo's (core/tools.hpp): a request without tools.nvcc is refused, naming the fix."""
    with pytest.raises(cc.ContractError, match="kgo found no nvcc"):
        cc.compile_so(kernel("vector_add.cu"), "sm_90", tmp_path, None)
