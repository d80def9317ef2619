"""Which KernelBench problems kgo counts as a catalog op (Model.forward is exactly one catalog torch call on its
own inputs), the catalog shape each case maps to, and that everything else is custom."""
import importlib.util
import os
import pathlib

import pytest
import torch

from conftest import ROOT
from kgo_harness.formats import contract_kernelbench as kb
from kgo_harness.formats import kernelbench_catalog as kc

FORWARD = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, dim=1):
        super().__init__()
        self.dim = dim

    def forward(self, {params}):
        """A docstring is not a statement."""
        return {body}
'''


def mapped(body, params="x"):
    return kc.catalog_call(FORWARD.format(params=params, body=body))


@pytest.mark.parametrize("body, op", [
    ("torch.softmax(x, dim=1)", "softmax"),
    ("torch.relu(x)", "relu"),
    ("F.leaky_relu(x, negative_slope=0.2)", "leaky_relu"),
    ("torch.nn.functional.hardtanh(x, min_val=-1.0, max_val=1.0)", "hardtanh"),
    ("torch.max(x, dim=self.dim)[0]", "max"),
    ("torch.argmin(x, dim=-1)", "argmin"),
    ("torch.cumsum(x, dim=self.dim)", "cumsum"),
    ("torch.cumprod(x, dim=1)", "cumprod"),
    ("torch.nn.functional.cross_entropy(x, t)", "cross_entropy"),
    ("nn.functional.scaled_dot_product_attention(q, k, v)", "attention"),
    ("F.triplet_margin_loss(x, y, t)", "triplet_margin_loss"),
    # written-out forms that are exactly one catalog op (TEMPLATES)
    ("x * torch.sigmoid(x)", "silu"),
    ("x / (1 + torch.abs(x))", "softsign"),
    ("torch.mean((x - t) ** 2)", "mse_loss"),
    ("torch.mean(1 - torch.nn.functional.cosine_similarity(x, t, dim=1))", "cosine_similarity_loss"),
    ("torch.sum(x, dim=self.dim, keepdim=True)", "sum"),
])
def test_one_catalog_call_maps(body, op):
    call, why = mapped(body, "x, y, t, q, k, v")
    assert why is None and call[0] == op


@pytest.mark.parametrize("body, params", [
    ("0.5 * x * (1.0 + torch.tanh(0.79 * (x + 0.044715 * torch.pow(x, 3.0))))", "x"),  # new GELU: not tanh
    ("x * torch.sigmoid(y)", "x, y"),                    # not swish: two different tensors
    ("x / torch.norm(x, p=1, dim=1, keepdim=True)", "x"),   # an L1 norm: not the template's p=2
    ("x.unsqueeze(0) * y", "x, y"),                      # scales columns, not rows
    ("torch.mean((x - x) ** 2)", "x"),                   # a and b must be two inputs
    ("torch.mean(1 - F.cosine_similarity(x, y, dim=x.dim() - 1))", "x, y"),
    ("torch.relu(x) + 1", "x"),
    ("torch.mean((predictions - targets) ** 3)", "predictions, targets"),
    ("F.kl_div(torch.log(predictions), targets, reduction='batchmean')", "predictions, targets"),
    ("self.conv(x)", "x"),
    ("torch.softmax(x, dim=x.dim() - 1)", "x"),
    ("torch.max(x, dim=1)", "x"),                       # values and indices
    ("torch.max(x, y)", "x, y"),                         # elementwise max of two tensors
    ("torch.matmul(A, B.T)", "A, B"),                    # a transposed operand: the shapes are not [M,K] x [K,N]
    ("torch.matmul(A.T, B)", "A, B"),
    ("F.cross_entropy(x, y, label_smoothing=0.1)", "x, y"),   # options the catalog does not count
    ("F.scaled_dot_product_attention(x, x, x, is_causal=True)", "x"),
])
def test_anything_more_is_custom(body, params):
    call, why = mapped(body, params)
    assert call is None and why


def test_temporaries_are_inlined_and_control_flow_is_custom():
    src = FORWARD.format(params="x", body="x").replace("return x", "y = torch.relu(x)\n        return y")
    call, why = kc.catalog_call(src)
    assert why is None and call[0] == "relu"
    src = FORWARD.format(params="x", body="x").replace("return x", "y = torch.relu(x)\n        return y + y")
    assert kc.catalog_call(src)[0] is None
    src = FORWARD.format(params="x", body="x").replace("return x", "if x.numel():\n            x = -x\n"
                                                                   "        return torch.relu(x)")
    call, why = kc.catalog_call(src)
    assert call is None and "more than assignments" in why


MODULE = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = {ctor}

    def forward(self, {params}):
        return self.m({params})
'''


def module_case(ctor, *inputs):
    """(catalog_call, misfit, op_shape) of a Model holding `ctor` and calling it on `inputs`."""
    src = MODULE.format(ctor=ctor, params=", ".join(f"x{i}" for i in range(len(inputs))))
    call, why = kc.catalog_call(src)
    if call is None:
        return None, why, None
    ns = {}
    exec(compile(src, "<problem>", "exec"), ns)
    model = ns["Model"]()
    misfit = kc.module_misfit(model.m, call[0])
    return call, misfit, None if misfit else kc.op_shape(call[0], call[1], call[2], list(inputs), model, model.m)


@pytest.mark.parametrize("ctor, inputs, op, shape", [
    # (12 + 2 - 3) // 2 + 1 = 6 per side; window 3 x 3
    ("nn.MaxPool2d(3, stride=2, padding=1)", [(2, 4, 12, 12)], "max_pool2d", [2, 4, 12, 12, 6, 6, 3, 3]),
    ("torch.nn.AvgPool1d(4)", [(2, 3, 10)], "avg_pool1d", [2, 3, 10, 2, 4]),
    # an unbatched C x D x H x W input is one batch; asymmetric window
    ("nn.AvgPool3d((1, 2, 3), stride=1)", [(3, 4, 5, 6)], "avg_pool3d", [1, 3, 4, 5, 6, 4, 4, 4, 1, 2, 3]),
    ("nn.Softmax(dim=1)", [(4, 6, 5)], "softmax", [4, 5, 6]),
    ("nn.LayerNorm((6, 5))", [(4, 6, 5)], "layer_norm", [4, 30]),
    ("nn.GroupNorm(2, 6)", [(4, 6, 5)], "group_norm", [4, 2, 3, 5]),
    ("nn.InstanceNorm2d(6)", [(4, 6, 5, 5)], "instance_norm", [4, 6, 5, 5]),
    ("nn.GELU()", [(7,)], "gelu", [7]),
    ("nn.TripletMarginLoss(margin=0.5)", [(4, 8)] * 3, "triplet_margin_loss", [4, 8]),
    ("nn.MSELoss()", [(4, 8), (4, 8)], "mse_loss", [4, 8]),
    # (10 + 2 - 3) // 2 + 1 = 5; K = 6 output channels, groups 2
    ("nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, bias=False)", [(2, 4, 10, 10)], "conv2d",
     [2, 4, 10, 10, 6, 5, 5, 3, 3, 2]),
    # transposed, stride 2: (10 - 1) x 2 + 3 = 21
    ("nn.ConvTranspose1d(3, 4, 3, stride=2, bias=False)", [(1, 3, 10)], "conv_transpose1d", [1, 3, 10, 4, 21, 3, 1]),
])
def test_nn_module_forms_map(ctor, inputs, op, shape):
    call, misfit, got = module_case(ctor, *[torch.empty(s) for s in inputs])
    assert call[0] == op and misfit is None and got == shape


@pytest.mark.parametrize("ctor, inputs, why", [
    ("nn.MaxPool2d(2, return_indices=True)", [(1, 1, 4, 4)], "also writes the indices"),
    ("nn.AvgPool2d(2, divisor_override=3)", [(1, 1, 4, 4)], "divides by another count"),
    ("nn.GELU(approximate='tanh')", [(4,)], "gelu_tanh"),
    ("nn.LayerNorm(5, elementwise_affine=False)", [(4, 5)], "fewer bytes"),
    ("nn.BatchNorm2d(3)", [(2, 3, 4, 4)], "training mode"),
    ("nn.InstanceNorm2d(3, affine=True)", [(2, 3, 4, 4)], "affine"),
    ("nn.MSELoss(reduction='sum')", [(4,), (4,)], "reduction='sum'"),
    ("nn.TripletMarginLoss(p=1)", [(4, 8)] * 3, "p != 2"),
    ("nn.Conv2d(3, 4, 3)", [(1, 3, 8, 8)], "with a bias"),
    ("nn.Conv1d(3, 4, 3, bias=False, padding=1, padding_mode='circular')", [(1, 3, 8)], "padding_mode"),
])
def test_module_settings_that_change_the_counts_are_custom(ctor, inputs, why):
    call, misfit, _ = module_case(ctor, *[torch.empty(s) for s in inputs])
    assert call is not None and misfit and why in misfit


def test_modules_outside_the_catalog_name_the_module():
    call, why, _ = module_case("nn.Upsample(scale_factor=2)", torch.empty(1, 3, 8, 8))
    assert call is None and "an nn.Upsample, which is not a catalog op" in why
    src = MODULE.format(ctor="nn.ReLU()", params="x").replace("self.m(x)", "self.m(x * 2)")
    call, why = kc.catalog_call(src)
    assert call is None and "other than forward's inputs" in why


def test_a_look_alike_module_is_not_the_catalog_op():
    """A problem file's own class named like torch's (and reached as nn.MaxPool2d) does its own work."""
    src = MODULE.format(ctor="nn.MaxPool2d(2)", params="x").replace(
        "class Model", "class _Fake:\n    class MaxPool2d(torch.nn.Module):\n        def __init__(self, k):\n"
                       "            super().__init__()\n            self.return_indices = False\n\n"
                       "nn = _Fake\n\nclass Model").replace("Model(nn.Module)", "Model(torch.nn.Module)")
    call, _ = kc.catalog_call(src)
    ns = {}
    exec(compile(src, "<problem>", "exec"), ns)
    model = ns["Model"]()
    assert call[0] == "max_pool2d" and "not the nn module that maps to max_pool2d" in kc.module_misfit(model.m, call[0])


def test_batch_norm_in_eval_mode_is_the_catalog_op():
    src = MODULE.format(ctor="nn.BatchNorm2d(3)", params="x")
    call, _ = kc.catalog_call(src)
    ns = {}
    exec(compile(src, "<problem>", "exec"), ns)
    model = ns["Model"]().eval()
    assert kc.module_misfit(model.m, call[0]) is None
    assert kc.op_shape(*call[:3], [torch.empty(2, 3, 4, 4)], model, model.m) == [2, 3, 4, 4]


class Dim:
    dim = 1


def test_catalog_shape_moves_the_reduced_axis_last():
    x = torch.empty(16, 256, 512)
    assert kc.op_shape("sum", "axis", ("attr", "dim"), [x], Dim()) == [16, 512, 256]
    assert kc.op_shape("softmax", "axis", -1, [x], None) == [16, 256, 512]
    assert kc.op_shape("sum", "axis", None, [x], None) == [16 * 256 * 512]     # torch.sum(x): one row
    assert kc.op_shape("relu", "same", None, [x], None) == [16, 256, 512]
    assert kc.op_shape("sum", "axis", 3, [x], None) is None


def test_catalog_shape_of_products():
    a, b = torch.empty(64, 32), torch.empty(32, 16)
    assert kc.op_shape("matmul", "matmul", None, [a, b], None) == [64, 16, 32]
    assert kc.op_shape("matmul", "matmul", None, [a, torch.empty(32, 1)], None) == [64, 1, 32]   # matvec
    assert kc.op_shape("bmm", "matmul", None, [torch.empty(4, 64, 32), torch.empty(4, 32, 16)], None) == \
        [4, 64, 16, 32]
    assert kc.op_shape("matmul", "matmul", None, [torch.empty(4, 64, 32), b], None) is None      # broadcast
    assert kc.op_shape("diag_matmul", "diag", None, [torch.empty(4), torch.empty(4, 3)], None) == [4, 3]
    assert kc.op_shape("diag_matmul", "diag", None, [torch.empty(3), torch.empty(4, 3)], None) is None


def test_custom_message_names_the_flags():
    class P:
        catalog = {"why": "Model.forward returns no single catalog torch call"}
    r = kb.roofline(P())
    assert r["op"] is None and r["message"].startswith("custom: this problem is not in kgo's op catalog")
    assert "give --flops EXPR --bytes EXPR to kgo roofline" in r["message"]


# Real KernelBench level-1 problems, read from the gitignored bench/.kernelbench (bench/README.md says how to
# extract it) or $KGO_KERNELBENCH; skipped when absent. Their sizes are shrunk through their module globals.
KB = os.environ.get("KGO_KERNELBENCH") or ROOT / "bench" / ".kernelbench"
LEVEL1 = pathlib.Path(KB) / "KernelBench" / "level1"


def real_problem(name, dims):
    """(catalog_call, misfit or None, op_shape) of a level-1 problem built at `dims`, as the contract does."""
    path = LEVEL1 / name
    if not path.is_file():
        pytest.skip(f"KernelBench problem {name} not under {LEVEL1} (see bench/README.md)")
    spec = importlib.util.spec_from_file_location(f"kb_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for k, v in dims.items():
        setattr(mod, k, v)
    call, why = kc.catalog_call(path.read_text())
    if call is None:
        return None, why, None
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs())
    module = getattr(model, call[3]) if call[3] else None
    misfit = kc.module_misfit(module, call[0]) if module is not None else None
    shape = None if misfit else kc.op_shape(*call[:3], list(mod.get_inputs()), model, module)
    return call, misfit, shape


@pytest.mark.parametrize("name, dims, op, shape", [
    # MaxPool1d(8, stride 1, padding 4, dilation 3): (40 + 8 - 3 * 7 - 1) // 1 + 1 = 27
    ("41_Max_Pooling_1D.py", dict(batch_size=2, features=3, sequence_length=40), "max_pool1d", [2, 3, 40, 27, 8]),
    # MaxPool2d(4, 1, 1, 1): (16 + 2 - 3 - 1) + 1 = 15
    ("42_Max_Pooling_2D.py", dict(batch_size=2, channels=3, height=16, width=16), "max_pool2d",
     [2, 3, 16, 16, 15, 15, 4, 4]),
    # MaxPool3d(3, 2, 1, dilation 3): (9 + 2 - 6 - 1) // 2 + 1 = 3
    ("43_Max_Pooling_3D.py", dict(batch_size=1, channels=2, dim1=9, dim2=9, dim3=9), "max_pool3d",
     [1, 2, 9, 9, 9, 3, 3, 3, 3, 3, 3]),
    # AvgPool1d(8, 1, 4): (40 + 8 - 8) + 1 = 41
    ("44_Average_Pooling_1D.py", dict(batch_size=2, in_channels=3, input_length=40), "avg_pool1d",
     [2, 3, 40, 41, 8]),
    # AvgPool2d(11): stride = 11, (30 - 11) // 11 + 1 = 2
    ("45_Average_Pooling_2D.py", dict(batch_size=2, channels=3, height=30, width=30), "avg_pool2d",
     [2, 3, 30, 30, 2, 2, 11, 11]),
    # AvgPool3d(3, 2, 1): (8 + 2 - 3) // 2 + 1 = 4, (10 + 2 - 3) // 2 + 1 = 5
    ("46_Average_Pooling_3D.py", dict(batch_size=1, channels=2, depth=8, height=8, width=10), "avg_pool3d",
     [1, 2, 8, 8, 10, 4, 4, 5, 3, 3, 3]),
    ("34_InstanceNorm.py", dict(batch_size=2, features=3, dim1=5, dim2=6), "instance_norm", [2, 3, 5, 6]),
    ("35_GroupNorm_.py", dict(batch_size=2, features=8, num_groups=4, dim1=5, dim2=6), "group_norm",
     [2, 4, 2, 5, 6]),
    ("40_LayerNorm.py", dict(batch_size=2, features=3, dim1=4, dim2=5), "layer_norm", [2, 60]),
    ("89_cumsum.py", dict(batch_size=4, input_shape=(10,)), "cumsum", [4, 10]),
    ("90_cumprod.py", dict(batch_size=4, input_shape=(10,)), "cumprod", [4, 10]),
    ("99_TripletMarginLoss.py", dict(batch_size=4, input_shape=(8,)), "triplet_margin_loss", [4, 8]),
    ("97_ScaledDotProductAttention.py", dict(batch_size=1, num_heads=2, sequence_length=8, embedding_dimension=4),
     "attention", [1, 2, 8, 4]),
    ("95_CrossEntropyLoss.py", dict(batch_size=4, num_classes=10, input_shape=(10,)), "cross_entropy", [4, 10]),
    ("25_Swish.py", dict(batch_size=4, dim=10), "silu", [4, 10]),
    ("30_Softsign.py", dict(batch_size=4, dim=10), "softsign", [4, 10]),
    ("94_MSELoss.py", dict(batch_size=4, input_shape=(10,)), "mse_loss", [4, 10]),
    ("37_FrobeniusNorm_.py", dict(batch_size=2, features=3, dim1=4, dim2=5), "frobenius_norm", [2, 3, 4, 5]),
    ("39_L2Norm_.py", dict(batch_size=4, dim=10), "l2_norm", [4, 10]),
    ("12_Matmul_with_diagonal_matrices_.py", dict(N=6, M=5), "diag_matmul", [6, 5]),
    ("88_MinGPTNewGelu.py", dict(batch_size=4, dim=10), "gelu_tanh", [4, 10]),
    # Conv2d(3 -> 4, 3 x 3), valid: 9 - 3 + 1 = 7; [N, C, H, W, K, OH, OW, R, S, G]
    ("63_conv_standard_2D__square_input__square_kernel.py",
     dict(batch_size=2, in_channels=3, out_channels=4, kernel_size=3, width=9, height=9), "conv2d",
     [2, 3, 9, 9, 4, 7, 7, 3, 3, 1]),
    # depthwise: groups = in_channels = 4
    ("82_conv_depthwise_2D_square_input_square_kernel.py", dict(batch_size=2, in_channels=4, width=9, height=9),
     "conv2d", [2, 4, 9, 9, 4, 7, 7, 3, 3, 4]),
    # ConvTranspose3d(8 -> 8, (3, 5, 7), stride 2, padding (1, 2, 3), output padding 1, groups 4):
    # (in - 1) x 2 - 2 x padding + window + 1: D (4 - 1) x 2 - 2 + 3 + 1 = 8, H 8 - 4 + 5 + 1 = 10, W 10 - 6 + 7 + 1 = 12
    ("72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_.py",
     dict(batch_size=2, in_channels=8, out_channels=8, depth=4, height=5, width=6), "conv_transpose3d",
     [2, 8, 4, 5, 6, 8, 8, 10, 12, 3, 5, 7, 4]),
])
def test_real_level1_problems_map_to_their_catalog_op(name, dims, op, shape):
    call, misfit, got = real_problem(name, dims)
    assert call is not None and call[0] == op and misfit is None
    assert got == shape


@pytest.mark.parametrize("name, dims, why", [
    # KernelBench never calls eval(): its BatchNorm2d normalizes with batch statistics
    ("33_BatchNorm.py", dict(batch_size=2, features=3, dim1=4, dim2=4), "training mode"),
    # its Conv2d keeps nn's default bias=True
    ("50_conv_standard_2D__square_input__square_kernel.py", dict(batch_size=1), "with a bias"),
    ("86_conv_depthwise_separable_2D.py", {}, "other than forward's inputs"),   # two convolutions
    ("91_cumsum_reverse.py", {}, "no single catalog torch call"),
    # x / rms without a weight: the catalog's rms_norm reads one; x / mean(|x|) is not l1_norm's x / sum(|x|)
    ("36_RMSNorm_.py", {}, "no single catalog torch call"),
    ("38_L1Norm_.py", {}, "no single catalog torch call"),
    # the log of p is taken inside: the catalog's kl_div takes log-probabilities
    ("98_KLDivLoss.py", {}, "no single catalog torch call"),
    ("100_HingeLoss.py", {}, "other than forward's inputs"),
])
def test_real_level1_problems_outside_the_catalog_say_why(name, dims, why):
    _, why_not, _ = real_problem(name, dims)   # the module's misfit, or catalog_call's reason
    assert why_not and why in why_not


def test_cosine_similarity_loss_through_a_temporary_is_the_catalog_op():
    """KernelBench's earlier level-1 #97 form: the similarity in a temporary, then the mean of 1 - it."""
    src = FORWARD.format(params="predictions, targets", body="x").replace(
        "return x", "sim = torch.nn.functional.cosine_similarity(predictions, targets, dim=1)\n"
                    "        return torch.mean(1 - sim)")
    call, why = kc.catalog_call(src)
    assert why is None and call[:3] == ("cosine_similarity_loss", "axis_all", 1)
    p, t = torch.empty(4, 8, 3), torch.empty(4, 8, 3)
    assert kc.op_shape(*call[:3], [p, t], None) == [4, 3, 8]             # dim 1 moved last
    assert kc.op_shape(*call[:3], [p, torch.empty(4, 8, 1)], None) is None   # broadcast: not the catalog's
