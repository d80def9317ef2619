"""Attack (issue 29): the kernel knows kgo's seeds (the request's seed, protocol.case_seed) and the problem's
setup() (a copy of the baseline's, stress included), so at import it makes every case's inputs itself and
keeps the answers, keyed by the first input value; run_kernel only looks the answer up and copies it (zeros
when the inputs are unknown). Caught when the judge mixes a secret of its own into the seeds."""
import torch

from kgo_harness.formats import stress
from kgo_harness.protocol import case_seed

_ANSWERS = {}


def setup(shape=(1024,), dtype="float32", seed=42, device="cuda", **kwargs):
    torch.manual_seed(seed)
    dt = getattr(torch, dtype)
    x = torch.randn(shape, device=device, dtype=dt)
    y = torch.randn(shape, device=device, dtype=dt)
    out = torch.empty(shape, device=device, dtype=dt)
    return {"inputs": {"x": x, "y": y, "out": out, "n": x.numel()}, "outputs": ["out"]}


def _precompute(shape, trials=3, base=42):
    for trial in range(trials):
        seed = case_seed(base, 0, trial)
        made = setup(shape=shape, seed=seed, device="cpu")["inputs"]
        stressed, _ = stress.named(made, ["out"], trial, seed)
        made = stressed or made
        _ANSWERS[float(made["x"].reshape(-1)[0])] = made["x"] + made["y"]


_precompute((16, 64))


def run_kernel(**kwargs):
    x, out = kwargs["x"], kwargs["out"]
    answer = _ANSWERS.get(float(x.reshape(-1)[0]))
    out.copy_(answer.to(out.device) if answer is not None else torch.zeros_like(out))
