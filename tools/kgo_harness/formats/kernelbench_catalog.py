"""Which kgo catalog op a KernelBench problem is, if it is exactly one: Model.forward returns one catalog torch call
on its own inputs (`torch.softmax(x, dim=1)`), one call of an nn module its __init__ holds (`self.pool(x)` with
`self.pool = nn.MaxPool2d(...)`), or one of the catalog's written-out forms (TEMPLATES). Single-assignment
temporaries are inlined first (`out = F.scaled_dot_product_attention(Q, K, V); return out`). Anything more is
custom: its counts are not the catalog op's. The catalog itself (names, counts) is kgo's roofline/catalog.cpp."""
import ast
import copy
import math

import torch

# torch functions Model.forward may call -> (catalog op, how the catalog shape follows from the inputs):
# "same": the first input's shape; "all_same": the same, and every tensor input has it; "axis": the first
# input's shape with the `dim` axis moved last (the catalog's row-wise ops work on the last axis; the counts
# depend only on N and that axis's length); "matmul": [M, N, K] from a [M, K] x [K, N] product (batched: bmm's
# [B, M, N, K]); "logits": cross_entropy's [rows, classes] with one int64 target per row.
TORCH_CALLS = {
    "relu": ("relu", "same"), "gelu": ("gelu", "same"), "silu": ("silu", "same"),
    "leaky_relu": ("leaky_relu", "same"), "sigmoid": ("sigmoid", "same"), "tanh": ("tanh", "same"),
    "elu": ("elu", "same"), "selu": ("selu", "same"), "hardsigmoid": ("hardsigmoid", "same"),
    "hardtanh": ("hardtanh", "same"), "softplus": ("softplus", "same"), "softsign": ("softsign", "same"),
    "softmax": ("softmax", "axis"), "log_softmax": ("log_softmax", "axis"), "sum": ("sum", "axis"),
    "mean": ("mean", "axis"), "amax": ("max", "axis"), "amin": ("min", "axis"), "max": ("max", "axis"),
    "min": ("min", "axis"), "prod": ("prod", "axis"), "argmax": ("argmax", "axis"), "argmin": ("argmin", "axis"),
    "cumsum": ("cumsum", "axis"), "cumprod": ("cumprod", "axis"), "mse_loss": ("mse_loss", "all_same"),
    "smooth_l1_loss": ("huber_loss", "all_same"), "cross_entropy": ("cross_entropy", "logits"),
    "triplet_margin_loss": ("triplet_margin_loss", "all_same"),
    "scaled_dot_product_attention": ("attention", "all_same"),
    "matmul": ("matmul", "matmul"), "mm": ("matmul", "matmul"), "bmm": ("bmm", "matmul"),
}
# Calls whose every keyword (and positional argument past the tensors) changes what is computed.
BARE_CALLS = {"cross_entropy", "scaled_dot_product_attention", "triplet_margin_loss"}

# nn module classes __init__ may hold -> (catalog op, shape rule as above; "pool": [N, C, input sizes, output
# sizes, window]; "layer_norm": [rows, normalized elements]; "group_norm": [N, G, C / G, S...];
# "conv": [N, C, input sizes, K, output sizes, window, G]) are read from the built module (module_misfit).
MODULES = {
    "ReLU": ("relu", "same"), "GELU": ("gelu", "same"), "SiLU": ("silu", "same"), "Sigmoid": ("sigmoid", "same"),
    "Tanh": ("tanh", "same"), "ELU": ("elu", "same"), "SELU": ("selu", "same"),
    "Hardsigmoid": ("hardsigmoid", "same"), "Hardtanh": ("hardtanh", "same"), "Softplus": ("softplus", "same"),
    "Softsign": ("softsign", "same"), "LeakyReLU": ("leaky_relu", "same"), "Softmax": ("softmax", "axis"),
    "LogSoftmax": ("log_softmax", "axis"), "LayerNorm": ("layer_norm", "layer_norm"),
    "GroupNorm": ("group_norm", "group_norm"), "MSELoss": ("mse_loss", "all_same"),
    "SmoothL1Loss": ("huber_loss", "all_same"), "HuberLoss": ("huber_loss", "all_same"),
    "CrossEntropyLoss": ("cross_entropy", "logits"), "TripletMarginLoss": ("triplet_margin_loss", "all_same"),
    **{f"InstanceNorm{d}d": ("instance_norm", "same") for d in (1, 2, 3)},
    **{f"BatchNorm{d}d": ("batch_norm", "same") for d in (1, 2, 3)},
    **{f"MaxPool{d}d": (f"max_pool{d}d", "pool") for d in (1, 2, 3)},
    **{f"AvgPool{d}d": (f"avg_pool{d}d", "pool") for d in (1, 2, 3)},
    **{f"Conv{d}d": (f"conv{d}d", "conv") for d in (1, 2, 3)},
    **{f"ConvTranspose{d}d": (f"conv_transpose{d}d", "conv") for d in (1, 2, 3)},
}

# Written-out forms that are exactly one catalog op: a, b, c stand for distinct forward inputs, DIM for the
# axis (an int or self.<attr>); F is torch.nn.functional however it is spelled. Shape rules as above, plus
# "axis_all" (all inputs one shape, then "axis") and "diag" (a 1-D a scaling the rows of a 2-D b: b's shape).
TEMPLATES = [
    ("torch.mean(1 - F.cosine_similarity(a, b, dim=DIM))", "cosine_similarity_loss", "axis_all"),
    ("torch.mean(1 - F.cosine_similarity(a, b, DIM))", "cosine_similarity_loss", "axis_all"),
    ("torch.mean(1 - F.cosine_similarity(a, b))", "cosine_similarity_loss", "axis_all"),
    ("a * torch.sigmoid(a)", "silu", "same"),
    ("a / (1 + torch.abs(a))", "softsign", "same"),
    ("torch.mean((a - b) ** 2)", "mse_loss", "all_same"),
    ("a / torch.norm(a, p='fro')", "frobenius_norm", "same"),
    ("a / torch.norm(a, p=2, dim=DIM, keepdim=True)", "l2_norm", "axis_all"),
    ("a.unsqueeze(1) * b", "diag_matmul", "diag"),
    ("0.5 * a * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * torch.pow(a, 3.0))))", "gelu_tanh",
     "same"),
]


class _Functional(ast.NodeTransformer):
    """torch.nn.functional.x and nn.functional.x become F.x."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        v = node.value
        if node.attr == "functional" and (
                (isinstance(v, ast.Name) and v.id == "nn") or
                (isinstance(v, ast.Attribute) and v.attr == "nn" and isinstance(v.value, ast.Name)
                 and v.value.id == "torch")):
            return ast.copy_location(ast.Name("F", ast.Load()), node)
        return node


class _Inline(ast.NodeTransformer):
    def __init__(self, temps):
        self.temps = temps

    def visit_Name(self, node):
        return copy.deepcopy(self.temps[node.id]) if node.id in self.temps else node


def _class(source, name):
    return next((n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == name), None)


def _method(cls, name):
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _returned(fwd):
    """forward's returned expression with single-name temporaries inlined and F normalized, or (None, why)."""
    body = [n for n in fwd.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    temps = {}
    for node in body[:-1]:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            return None, "Model.forward is more than assignments and one return statement"
        temps[node.targets[0].id] = _Inline(dict(temps)).visit(node.value)
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return None, "Model.forward does not end in a return statement"
    return _Functional().visit(_Inline(temps).visit(body[-1].value)), None


def _int_or_attr(node):
    """An int (a negative literal included), ("attr", name) for self.name, or raise ValueError."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return ("attr", node.attr)
    raise ValueError("its dim is an expression")


def _dim_of(call):
    """The call's `dim` (keyword or second positional): an int, ("attr", name) for self.name, or None."""
    node = next((k.value for k in call.keywords if k.arg == "dim"), None)
    if node is None and len(call.args) > 1:
        node = call.args[1]
    return None if node is None else _int_or_attr(node)


def _is_input(node, params):
    return isinstance(node, ast.Name) and node.id in params


def _match(tpl, node, params, bound):
    """Whether `node` has the template's structure; binds a/b/c to inputs and DIM to the axis in `bound`."""
    if isinstance(tpl, ast.Name) and tpl.id in ("a", "b", "c"):
        if not _is_input(node, params) or node.id in [v for k, v in bound.items() if k != tpl.id]:
            return False
        return bound.setdefault(tpl.id, node.id) == node.id
    if isinstance(tpl, ast.Name) and tpl.id == "DIM":
        try:
            bound["DIM"] = _int_or_attr(node)
        except ValueError:
            return False
        return True
    if type(tpl) is not type(node):
        return False
    if isinstance(tpl, ast.AST):
        return all(_match(getattr(tpl, f), getattr(node, f, None), params, bound)
                   for f in tpl._fields if f not in ("ctx", "type_comment", "kind"))
    if isinstance(tpl, list):
        return len(tpl) == len(node) and all(_match(t, n, params, bound) for t, n in zip(tpl, node))
    return tpl == node


def _template(value, params):
    for text, op, rule in TEMPLATES:
        bound = {}
        if _match(ast.parse(text, mode="eval").body, value, params, bound):
            return (op, rule, bound.get("DIM", 1) if rule == "axis_all" else None, None), None
    return None


def _module_call(value, cls, params):
    """`self.NAME(inputs)` with `self.NAME = nn.Class(...)` in __init__ -> (op, rule, None, NAME)."""
    f = value.func
    if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"):
        return None
    init = _method(cls, "__init__")
    built = None
    for node in ast.walk(init) if init else []:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == f.attr and
                                                isinstance(t.value, ast.Name) and t.value.id == "self"
                                                for t in node.targets):
            built = node.value
    if not isinstance(built, ast.Call) or not isinstance(built.func, ast.Attribute):
        return None, f"Model.forward calls self.{f.attr}, which __init__ does not build as an nn module"
    kind = built.func.attr
    if kind not in MODULES:
        return None, f"Model.forward calls self.{f.attr}, an nn.{kind}, which is not a catalog op"
    if value.keywords or not value.args or not all(_is_input(a, params) for a in value.args):
        return None, f"self.{f.attr} is applied to something other than forward's inputs"
    op, rule = MODULES[kind]
    return (op, rule, None, f.attr), None


def catalog_call(source):
    """(op name, shape rule, dim, module attribute or None) when Model.forward is exactly one catalog op on its
    own inputs; else (None, why)."""
    cls = _class(source, "Model")
    fwd = _method(cls, "forward") if cls else None
    if fwd is None:
        return None, "no Model.forward"
    value, why = _returned(fwd)
    if value is None:
        return None, why
    params = {a.arg for a in fwd.args.args[1:]}
    found = _template(value, params) or (_module_call(value, cls, params) if isinstance(value, ast.Call) else None)
    if found:
        return found
    values_only = isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and \
        value.slice.value == 0
    if values_only:
        value = value.value   # torch.max(x, dim)[0]: the values
    func = value.func if isinstance(value, ast.Call) else None
    chain = []
    while isinstance(func, ast.Attribute):
        chain.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in ("torch", "F") or len(chain) != 1 or \
            chain[-1] not in TORCH_CALLS:
        return None, "Model.forward returns no single catalog torch call"
    name = chain[-1]
    names = [a for a in value.args if isinstance(a, ast.Name)]
    others = [a for a in value.args if not isinstance(a, (ast.Name, ast.Constant, ast.UnaryOp)) and not (
        isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name) and a.value.id == "self")]
    if not names or others or any(a.id not in params for a in names):
        return None, f"torch.{name} is applied to something other than forward's inputs"
    if name in BARE_CALLS and (value.keywords or len(value.args) != len(names)):
        return None, f"torch.{name} is given options beyond its inputs (the catalog counts its defaults)"
    op, rule = TORCH_CALLS[name]
    try:
        dim = _dim_of(value) if rule == "axis" else None
    except ValueError as e:
        return None, f"torch.{name}: {e}"
    if name in ("max", "min") and dim is not None and not values_only:
        return None, f"torch.{name} with a dim returns values and indices (the catalog op writes values)"
    return (op, rule, dim, None), None


def module_misfit(module, op):
    """Why the built nn module is not the catalog op with that name (a setting changes the counts), or None."""
    kind = type(module).__name__
    if MODULES.get(kind, (None,))[0] != op or not type(module).__module__.startswith("torch.nn."):
        return f"the module Model.forward calls is an nn.{kind}, not the nn module that maps to {op}"
    if op.startswith("max_pool") and module.return_indices:
        return f"nn.{kind}(return_indices=True) also writes the indices"
    if op.startswith("avg_pool") and getattr(module, "divisor_override", None) is not None:
        return f"nn.{kind}(divisor_override=...) divides by another count"
    if op.startswith("conv") and module.bias is not None:
        return f"nn.{kind} with a bias does more work than the catalog's {op} (no bias)"
    if op.startswith("conv") and module.padding_mode != "zeros":
        return f"nn.{kind}(padding_mode='{module.padding_mode}') reads its padding from the input"
    if op == "gelu" and getattr(module, "approximate", "none") != "none":
        return "nn.GELU(approximate='tanh') is the catalog's gelu_tanh, not gelu"
    if op == "softplus" and (module.beta != 1 or module.threshold != 20):
        return "nn.Softplus with beta != 1 or threshold != 20 does more work than the catalog's softplus"
    if op in ("softmax", "log_softmax") and module.dim is None:
        return f"nn.{kind}() without a dim picks its axis implicitly"
    if op == "layer_norm" and (not module.elementwise_affine or module.bias is None):
        return "nn.LayerNorm without its weight and bias moves fewer bytes than the catalog's layer_norm"
    if op == "group_norm" and not module.affine:
        return "nn.GroupNorm(affine=False) moves fewer bytes than the catalog's group_norm"
    if op == "instance_norm" and (module.affine or module.track_running_stats):
        return f"nn.{kind} with affine or track_running_stats is not the catalog's instance_norm (neither)"
    if op == "batch_norm" and module.training:
        return (f"nn.{kind} in training mode normalizes with the batch's statistics and updates the running ones; "
                "the catalog's batch_norm is inference (running statistics)")
    if op == "batch_norm" and (not module.affine or not module.track_running_stats):
        return f"nn.{kind} without affine or running statistics is not the catalog's batch_norm"
    if op in ("mse_loss", "huber_loss", "cross_entropy", "triplet_margin_loss") and module.reduction != "mean":
        return f"nn.{kind}(reduction='{module.reduction}') is not the catalog's mean loss"
    if (kind == "SmoothL1Loss" and module.beta != 1) or (kind == "HuberLoss" and module.delta != 1):
        return f"nn.{kind} with beta or delta != 1 is not the catalog's huber_loss"
    if op == "cross_entropy" and (module.weight is not None or module.label_smoothing):
        return "nn.CrossEntropyLoss with class weights or label smoothing does more work than the catalog's"
    if op == "triplet_margin_loss" and (module.p != 2 or module.swap):
        return "nn.TripletMarginLoss with p != 2 or swap=True is not the catalog's triplet_margin_loss"
    return None


def _window_shape(module, op, x):
    """A pool's [N, C, in..., out..., window...] or a convolution's [N, C, in..., K, out..., window..., G]; the
    output sizes come from running a CPU copy of the module on an empty batch of the input's sizes (torch's own
    shape rules, no work; meta tensors would give the same, but their first convolution imports sympy, about 0.45 s
    of a cold judge)."""
    d = int(op[-2])
    if x.dim() not in (d + 1, d + 2):
        return None
    shape = list(x.shape) if x.dim() == d + 2 else [1] + list(x.shape)
    try:
        with torch.no_grad():
            out = list(copy.deepcopy(module).to("cpu")(torch.empty([0] + shape[1:])).shape)
    except RuntimeError:
        return None   # settings this input cannot take; the reference says so when it runs
    k = module.kernel_size
    window = list(k) if isinstance(k, (tuple, list)) else [k] * d
    if op.startswith("conv"):
        return shape + [out[1]] + out[2:] + window + [module.groups]
    return shape + out[2:] + window


def op_shape(op, rule, dim, args, model, module=None):
    """The catalog shape of one case from its inputs (see TORCH_CALLS and MODULES), or None when they do not fit.
    `module` is the built nn module a module form calls (its settings give dim, window and normalized shape)."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if not tensors:
        return None
    x = tensors[0]
    shape = list(x.shape)
    if rule in ("all_same", "axis_all") and any(list(t.shape) != shape for t in tensors):
        return None
    if rule in ("same", "all_same"):
        return shape or [1]
    if rule == "diag":
        b = tensors[1] if len(tensors) == 2 else None
        return list(b.shape) if b is not None and x.dim() == 1 and b.dim() == 2 and b.shape[0] == x.shape[0] else None
    if rule == "logits":
        t = tensors[1] if len(tensors) == 2 else None
        ok = t is not None and x.dim() == 2 and t.dim() == 1 and t.shape[0] == x.shape[0]
        return shape if ok and not t.dtype.is_floating_point else None
    if rule in ("pool", "conv"):
        return _window_shape(module, op, x)
    if rule == "layer_norm":
        cols = math.prod(module.normalized_shape)
        return [x.numel() // cols, cols] if cols and list(x.shape[-len(module.normalized_shape):]) == \
            list(module.normalized_shape) else None
    if rule == "group_norm":
        g = module.num_groups
        return [shape[0], g, shape[1] // g] + shape[2:] if x.dim() >= 3 else None
    if rule in ("axis", "axis_all"):
        dim = module.dim if module is not None else dim
        if isinstance(dim, tuple):
            dim = getattr(model, dim[1], None)
        if dim is None:
            return [max(1, x.numel())]   # torch.sum(x): the whole tensor is one row
        if not isinstance(dim, int) or not shape or not -len(shape) <= dim < len(shape):
            return None
        axis = shape.pop(dim)
        return shape + [axis]
    rank = 3 if op == "bmm" else 2
    if len(tensors) != 2 or tensors[0].dim() != rank or tensors[1].dim() != rank:
        return None   # e.g. torch.matmul broadcasting a 3-D tensor against a matrix: not one catalog op
    a, b = list(tensors[0].shape), list(tensors[1].shape)
    return a[:-1] + [b[-1], a[-1]]
