"""Which KernelBench problems kgo counts as a catalog op (Model.forward is exactly one catalog torch call on its
own inputs), the catalog shape each case maps to, and that everything else is custom."""
import pytest
import torch

from harness import contract_kernelbench as kb

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
    return kb.catalog_call(FORWARD.format(params=params, body=body))


@pytest.mark.parametrize("body, op", [
    ("torch.softmax(x, dim=1)", "softmax"),
    ("torch.relu(x)", "relu"),
    ("F.leaky_relu(x, negative_slope=0.2)", "leaky_relu"),
    ("torch.nn.functional.hardtanh(x, min_val=-1.0, max_val=1.0)", "hardtanh"),
    ("torch.max(x, dim=self.dim)[0]", "max"),
    ("torch.argmin(x, dim=-1)", "argmin"),
    ("torch.cumsum(x, dim=self.dim)", "cumsum"),
    ("torch.sum(x, dim=self.dim, keepdim=True)", "sum"),
])
def test_one_catalog_call_maps(body, op):
    call, why = mapped(body)
    assert why is None and call[0] == op


@pytest.mark.parametrize("body, params", [
    ("0.5 * x * (1.0 + torch.tanh(0.79 * (x + 0.044715 * torch.pow(x, 3.0))))", "x"),  # new GELU: not tanh
    ("x * torch.sigmoid(x)", "x"),                       # swish written out: not sigmoid
    ("torch.relu(x) + 1", "x"),
    ("torch.mean((predictions - targets) ** 2)", "predictions, targets"),
    ("F.kl_div(torch.log(predictions), targets, reduction='batchmean')", "predictions, targets"),
    ("self.conv(x)", "x"),
    ("torch.softmax(x, dim=x.dim() - 1)", "x"),
    ("torch.max(x, dim=1)", "x"),                       # values and indices
    ("torch.max(x, y)", "x, y"),                         # elementwise max of two tensors
    ("torch.matmul(A, B.T)", "A, B"),                    # a transposed operand: the shapes are not [M,K] x [K,N]
    ("torch.matmul(A.T, B)", "A, B"),
])
def test_anything_more_is_custom(body, params):
    call, why = mapped(body, params)
    assert call is None and why


def test_two_statements_are_custom():
    src = FORWARD.format(params="x", body="x").replace("return x", "y = torch.relu(x)\n        return y")
    call, why = kb.catalog_call(src)
    assert call is None and "more than one" in why


class Dim:
    dim = 1


def test_catalog_shape_moves_the_reduced_axis_last():
    x = torch.empty(16, 256, 512)
    assert kb.op_shape("sum", "axis", ("attr", "dim"), [x], Dim()) == [16, 512, 256]
    assert kb.op_shape("softmax", "axis", -1, [x], None) == [16, 256, 512]
    assert kb.op_shape("sum", "axis", None, [x], None) == [16 * 256 * 512]     # torch.sum(x): one row
    assert kb.op_shape("relu", "same", None, [x], None) == [16, 256, 512]
    assert kb.op_shape("sum", "axis", 3, [x], None) is None


def test_catalog_shape_of_products():
    a, b = torch.empty(64, 32), torch.empty(32, 16)
    assert kb.op_shape("matmul", "matmul", None, [a, b], None) == [64, 16, 32]
    assert kb.op_shape("matmul", "matmul", None, [a, torch.empty(32, 1)], None) == [64, 1, 32]   # matvec
    assert kb.op_shape("bmm", "matmul", None, [torch.empty(4, 64, 32), torch.empty(4, 32, 16)], None) == \
        [4, 64, 16, 32]
    assert kb.op_shape("matmul", "matmul", None, [torch.empty(4, 64, 32), b], None) is None      # broadcast


def test_custom_message_names_the_flags():
    class P:
        catalog = {"why": "Model.forward returns no single catalog torch call"}
    r = kb.roofline(P())
    assert r["op"] is None and r["message"].startswith("custom: this problem is not in kgo's op catalog")
    assert "give --flops EXPR --bytes EXPR to kgo roofline" in r["message"]
