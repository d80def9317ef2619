"""The harness's side of the op catalog: how to make inputs for an op-mode kernel, its torch reference and
the aten ops that count as delegation. Names, aliases, FLOP and byte counts live in kgo's catalog
(roofline/catalog.cpp, exported by `kgo roofline --explain --json`): kgo sends canonical names and the
work of every size; tests/cli/test_op_catalog.py fails when the two sides disagree."""
import math
from dataclasses import dataclass, field
from typing import Callable

from kgo_harness import lazy

torch = lazy.module("torch", globals())   # imported on first use: the catalog is read without torch
F = lazy.module("torch.nn.functional", globals(), "F")

# The stress policy (later trials beyond N(0,1)) lives in stress.py; these names are its op table.
from kgo_harness.formats.stress import BY_OP as STRESS, TEXT as STRESS_TEXT, for_op as stress  # noqa: F401


@dataclass
class Op:
    name: str                 # kgo's canonical catalog name
    signature: str            # the entry's call, e.g. "triton_softmax(x)"
    shape_meaning: str
    inputs: str
    reference_text: str
    make: Callable            # (shape, dtype, gen, device, args, trial) -> list of call arguments
    reference: Callable       # (*args) -> tensor
    aten: tuple               # aten ops whose presence in the kernel's call means delegation
    tolerance_scale: float = 1.0   # multiplies the per-dtype atol/rtol (matmul accumulates error)
    default_shapes: list = field(default_factory=lambda: [[64, 1024], [33, 1000]])

    @property
    def entry(self):
        return "triton_" + self.name


def _numel(shape):
    return math.prod(shape)


def randn(shape, dtype, gen, device):
    """Fresh normal values (never zeros), drawn in float32 and rounded to `dtype`."""
    if dtype.is_floating_point:
        return torch.randn(shape, generator=gen, device=device, dtype=torch.float32).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -100), min(info.max, 100), shape, generator=gen,
                         device=device, dtype=dtype)


def _scalar(args, key, default):
    return float(args[key]) if key in args else default


def _alpha(args, trial, gen):
    if "alpha" in args:
        return float(args["alpha"])
    # Trial 0 uses the common alpha=1; later trials a random one, so a kernel that ignores alpha fails.
    if trial == 0:
        return 1.0
    return round(float(torch.rand((), generator=gen, device=gen.device)) * 3.0 - 1.5, 3)


def _unary(name, fn, aten, text):
    return Op(name=name, signature=f"triton_{name}(x)", shape_meaning="any shape",
              inputs="x ~ N(0,1)", reference_text=text,
              make=lambda s, dt, g, dev, a, t: [randn(s, dt, g, dev)],
              reference=fn, aten=aten)


def _layer_norm_make(s, dt, g, dev, a, t):
    n = s[-1]
    return [randn(s, dt, g, dev), randn([n], dt, g, dev), randn([n], dt, g, dev), _scalar(a, "eps", 1e-5)]


def _rms_norm_make(s, dt, g, dev, a, t):
    return [randn(s, dt, g, dev), randn([s[-1]], dt, g, dev), _scalar(a, "eps", 1e-5)]


def _matmul_make(s, dt, g, dev, a, t):
    m, n, k = s
    return [randn([m, k], dt, g, dev), randn([k, n], dt, g, dev)]


def _batch_norm_make(s, dt, g, dev, a, t):
    c = [s[1]]
    var = (torch.rand(c, generator=g, device=dev) + 0.5).to(dt)   # a variance is positive
    return [randn(s, dt, g, dev), randn(c, dt, g, dev), var, randn(c, dt, g, dev), randn(c, dt, g, dev),
            _scalar(a, "eps", 1e-5)]


def _group_norm_make(s, dt, g, dev, a, t):
    n, groups, per_group = s[0], s[1], s[2]
    c = groups * per_group
    return [randn([n, c] + list(s[3:]), dt, g, dev), groups, randn([c], dt, g, dev), randn([c], dt, g, dev),
            _scalar(a, "eps", 1e-5)]


def _group_norm(x, groups, w, b, eps):
    """torch refuses one-element groups; their normalized value is 0, so y = bias."""
    if x.numel() // (x.shape[0] * groups) > 1:
        return F.group_norm(x, groups, w, b, eps)
    return torch.zeros_like(x) + b.reshape([1, -1] + [1] * (x.dim() - 2))


def _instance_norm(x, eps):
    """As _group_norm: a one-element instance normalizes to 0."""
    return F.instance_norm(x, eps=eps) if math.prod(x.shape[2:]) > 1 else torch.zeros_like(x)


def _two(s, dt, g, dev, a, t):
    return [randn(s, dt, g, dev), randn(s, dt, g, dev)]


def _kl_div_make(s, dt, g, dev, a, t):
    log_p = torch.log_softmax(torch.randn(s, generator=g, device=dev), dim=-1).to(dt)
    target = torch.softmax(torch.randn(s, generator=g, device=dev), dim=-1).to(dt)
    return [log_p, target]


def _hinge_make(s, dt, g, dev, a, t):
    sign = torch.where(torch.rand(s, generator=g, device=dev) < 0.5, -1.0, 1.0).to(dt)
    return [randn(s, dt, g, dev), sign]


def _prod_make(s, dt, g, dev, a, t):
    # Near 1, so a row of 4097 factors stays inside the dtype's range.
    return [torch.exp(0.01 * torch.randn(s, generator=g, device=dev)).to(dt)]


def _loss(name, make, inputs, fn, aten, text):
    return Op(name=name, signature=f"triton_{name}(p, t)", shape_meaning="any shape; p and t both full shape",
              inputs=inputs, reference_text=text, make=make, reference=fn, aten=aten)


OPS = [
    _unary("softmax", lambda x: torch.softmax(x, dim=-1), ("aten::softmax", "aten::_softmax"),
           "torch.softmax(x, dim=-1)"),
    _unary("log_softmax", lambda x: torch.log_softmax(x, dim=-1),
           ("aten::log_softmax", "aten::_log_softmax"), "torch.log_softmax(x, dim=-1)"),
    _unary("gelu", lambda x: F.gelu(x), ("aten::gelu",), "torch.nn.functional.gelu(x) (erf form)"),
    _unary("relu", lambda x: torch.relu(x), ("aten::relu", "aten::clamp_min", "aten::threshold"), "torch.relu(x)"),
    _unary("silu", lambda x: F.silu(x), ("aten::silu",), "torch.nn.functional.silu(x)"),
    _unary("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), ("aten::gelu",),
           "torch.nn.functional.gelu(x, approximate='tanh')"),
    _unary("leaky_relu", lambda x: F.leaky_relu(x), ("aten::leaky_relu",),
           "torch.nn.functional.leaky_relu(x) (slope 0.01)"),
    _unary("sigmoid", lambda x: torch.sigmoid(x), ("aten::sigmoid",), "torch.sigmoid(x)"),
    _unary("tanh", lambda x: torch.tanh(x), ("aten::tanh",), "torch.tanh(x)"),
    _unary("elu", lambda x: F.elu(x), ("aten::elu",), "torch.nn.functional.elu(x) (alpha 1)"),
    _unary("selu", lambda x: F.selu(x), ("aten::selu", "aten::elu"), "torch.nn.functional.selu(x)"),
    _unary("hardsigmoid", lambda x: F.hardsigmoid(x), ("aten::hardsigmoid",), "torch.nn.functional.hardsigmoid(x)"),
    _unary("hardtanh", lambda x: F.hardtanh(x), ("aten::hardtanh", "aten::clamp"), "torch.nn.functional.hardtanh(x)"),
    _unary("softplus", lambda x: F.softplus(x), ("aten::softplus",), "torch.nn.functional.softplus(x)"),
    _unary("softsign", lambda x: F.softsign(x), ("aten::abs", "aten::div"), "torch.nn.functional.softsign(x)"),
    _unary("max", lambda x: x.amax(dim=-1), ("aten::amax", "aten::max"), "x.amax(dim=-1)"),
    _unary("min", lambda x: x.amin(dim=-1), ("aten::amin", "aten::min"), "x.amin(dim=-1)"),
    _unary("argmax", lambda x: x.argmax(dim=-1), ("aten::argmax", "aten::max"), "x.argmax(dim=-1) (int64)"),
    _unary("argmin", lambda x: x.argmin(dim=-1), ("aten::argmin", "aten::min"), "x.argmin(dim=-1) (int64)"),
    _unary("cumsum", lambda x: x.cumsum(dim=-1), ("aten::cumsum",), "x.cumsum(dim=-1)"),
    Op(name="prod", signature="triton_prod(x)", shape_meaning="[..., n]: multiplied over the last axis",
       inputs="x = exp(0.01 N(0,1)) (near 1, so long rows stay in range)", reference_text="x.prod(dim=-1)",
       make=_prod_make, reference=lambda x: x.prod(dim=-1), aten=("aten::prod",)),
    _unary("l2_norm", lambda x: x / torch.linalg.vector_norm(x, dim=-1, keepdim=True),
           ("aten::linalg_vector_norm", "aten::norm"), "x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)"),
    _unary("l1_norm", lambda x: x / x.abs().sum(dim=-1, keepdim=True), ("aten::abs", "aten::sum"),
           "x / x.abs().sum(dim=-1, keepdim=True)"),
    _unary("frobenius_norm", lambda x: x / torch.linalg.vector_norm(x),
           ("aten::linalg_vector_norm", "aten::norm"), "x / torch.linalg.vector_norm(x) (all elements)"),
    Op(name="batch_norm", signature="triton_batch_norm(x, running_mean, running_var, weight, bias, eps)",
       shape_meaning="[N, C, ...]: channels are dim 1 (inference: running statistics)",
       inputs="x, running_mean, weight, bias ~ N(0,1); running_var ~ U(0.5, 1.5); eps = args.eps or 1e-5",
       reference_text="F.batch_norm(x, running_mean, running_var, weight, bias, training=False, eps=eps)",
       make=_batch_norm_make,
       reference=lambda x, m, v, w, b, eps: F.batch_norm(x, m, v, w, b, training=False, eps=eps),
       aten=("aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::native_batch_norm",
             "aten::cudnn_batch_norm"),
       default_shapes=[[8, 16, 9, 9], [3, 5, 33]]),
    Op(name="group_norm", signature="triton_group_norm(x, num_groups, weight, bias, eps)",
       shape_meaning="[N, G, CPG, ...]: x is [N, G*CPG, ...], normalized over each group's channels and the rest",
       inputs="x ~ N(0,1) of shape [N, G*CPG, ...]; num_groups = G; weight, bias ~ N(0,1) of shape [G*CPG]; "
              "eps = args.eps or 1e-5",
       reference_text="F.group_norm(x, num_groups, weight, bias, eps)", make=_group_norm_make,
       reference=_group_norm, aten=("aten::group_norm", "aten::native_group_norm"),
       default_shapes=[[4, 4, 8, 64], [3, 3, 5, 33]]),
    Op(name="instance_norm", signature="triton_instance_norm(x, eps)",
       shape_meaning="[N, C, ...]: each channel of each sample normalized over the rest",
       inputs="x ~ N(0,1); eps = args.eps or 1e-5", reference_text="F.instance_norm(x, eps=eps)",
       make=lambda s, dt, g, dev, a, t: [randn(s, dt, g, dev), _scalar(a, "eps", 1e-5)],
       reference=_instance_norm, aten=("aten::instance_norm", "aten::batch_norm", "aten::native_batch_norm"),
       default_shapes=[[4, 8, 256], [3, 5, 33]]),
    _loss("mse_loss", _two, "p, t ~ N(0,1)", lambda p, t: F.mse_loss(p, t), ("aten::mse_loss",),
          "F.mse_loss(p, t)"),
    _loss("huber_loss", _two, "p, t ~ N(0,1)", lambda p, t: F.smooth_l1_loss(p, t),
          ("aten::smooth_l1_loss", "aten::huber_loss"), "F.smooth_l1_loss(p, t) (beta 1)"),
    _loss("kl_div", _kl_div_make, "p = log_softmax(N(0,1)), t = softmax(N(0,1)) over the last axis",
          lambda lp, t: F.kl_div(lp, t, reduction="batchmean"), ("aten::kl_div",),
          "F.kl_div(log_p, t, reduction='batchmean')"),
    _loss("hinge_loss", _hinge_make, "p ~ N(0,1), t = +-1 at random",
          lambda p, t: torch.mean(torch.clamp(1 - p * t, min=0)),
          ("aten::clamp", "aten::clamp_min"), "torch.mean(torch.clamp(1 - p * t, min=0))"),
    Op(name="matvec", signature="triton_matvec(a, x)", shape_meaning="[M, K]: a is [M, K], x is [K]",
       inputs="a, x ~ N(0,1)", reference_text="torch.mv(a, x)",
       make=lambda s, dt, g, dev, a, t: [randn(s, dt, g, dev), randn([s[1]], dt, g, dev)],
       reference=lambda a, x: torch.mv(a, x), aten=("aten::mv", "aten::matmul", "aten::mm", "aten::addmv"),
       tolerance_scale=20.0, default_shapes=[[256, 1024], [33, 1000]]),
    Op(name="diag_matmul", signature="triton_diag_matmul(a, b)", shape_meaning="[N, M]: a is [N], b is [N, M]",
       inputs="a, b ~ N(0,1)", reference_text="torch.diag(a) @ b",
       make=lambda s, dt, g, dev, a, t: [randn([s[0]], dt, g, dev), randn(s, dt, g, dev)],
       reference=lambda a, b: a[:, None] * b, aten=("aten::diag", "aten::mm", "aten::matmul", "aten::mul"),
       default_shapes=[[256, 1024], [33, 1000]]),
    Op(name="layer_norm",
       signature="triton_layer_norm(x, weight, bias, eps)",
       shape_meaning="[..., n]: normalised over the last axis",
       inputs="x ~ N(0,1); weight, bias ~ N(0,1) of shape [n]; eps = args.eps or 1e-5",
       reference_text="F.layer_norm(x, (n,), weight, bias, eps)",
       make=_layer_norm_make,
       reference=lambda x, w, b, eps: F.layer_norm(x, (x.shape[-1],), w, b, eps),
       aten=("aten::layer_norm", "aten::native_layer_norm")),
    Op(name="rms_norm", signature="triton_rms_norm(x, weight, eps)",
       shape_meaning="[..., n]: normalised over the last axis",
       inputs="x ~ N(0,1); weight ~ N(0,1) of shape [n]; eps = args.eps or 1e-5",
       reference_text="F.rms_norm(x, (n,), weight, eps)", make=_rms_norm_make,
       reference=lambda x, w, eps: F.rms_norm(x, (x.shape[-1],), w, eps),
       aten=("aten::rms_norm", "aten::_fused_rms_norm")),
    Op(name="add", signature="triton_add(x, y, alpha)",
       shape_meaning="any shape", inputs="x, y ~ N(0,1); alpha = args.alpha, else 1 on trial 0, random later",
       reference_text="torch.add(x, y, alpha=alpha)",
       make=lambda s, dt, g, dev, a, t: [randn(s, dt, g, dev), randn(s, dt, g, dev), _alpha(a, t, g)],
       reference=lambda x, y, alpha=1.0: torch.add(x, y, alpha=alpha), aten=("aten::add", "aten::add_")),
    Op(name="mul", signature="triton_mul(x, y)", shape_meaning="any shape",
       inputs="x, y ~ N(0,1)", reference_text="torch.mul(x, y)",
       make=lambda s, dt, g, dev, a, t: [randn(s, dt, g, dev), randn(s, dt, g, dev)],
       reference=lambda x, y: torch.mul(x, y), aten=("aten::mul", "aten::mul_")),
    Op(name="sum", signature="triton_sum(x)",
       shape_meaning="[..., n]: summed over the last axis", inputs="x ~ N(0,1)",
       reference_text="x.sum(dim=-1)", make=lambda s, dt, g, dev, a, t: [randn(s, dt, g, dev)],
       reference=lambda x: x.sum(dim=-1), aten=("aten::sum",)),
    Op(name="matmul", signature="triton_matmul(a, b)",
       shape_meaning="[M, N, K]: a is [M, K], b is [K, N]", inputs="a, b ~ N(0,1)",
       reference_text="torch.matmul(a, b)", make=_matmul_make, reference=lambda a, b: torch.matmul(a, b),
       aten=("aten::matmul", "aten::mm", "aten::bmm", "aten::addmm"), tolerance_scale=20.0,
       default_shapes=[[64, 64, 64], [33, 65, 127]]),
]

_BY_NAME = {op.name: op for op in OPS}


def lookup(name):
    """The op for a canonical name (kgo resolves aliases before it sends one), or None."""
    if not name:
        return None
    return _BY_NAME.get(name.strip())


def names():
    return sorted(op.name for op in OPS)


def catalog():
    return [{"name": op.name, "entry": op.entry, "signature": op.signature,
             "shape_meaning": op.shape_meaning,
             "inputs": op.inputs + (f"; {STRESS_TEXT[STRESS[op.name]]}" if op.name in STRESS else ""),
             "reference": op.reference_text, "aten": list(op.aten), "default_shapes": op.default_shapes}
            for op in OPS]


def edge_shapes(rank):
    """Edge shapes of a rank: all ones, all 17s (neither a power of two nor a multiple of a warp), and
    4097 (one past a power of two) on the last axis, the one kernels tile."""
    if rank == 1:
        return [[1], [17], [4097]]
    return [[1] * rank, [17] * rank, [3] * (rank - 1) + [4097]]


