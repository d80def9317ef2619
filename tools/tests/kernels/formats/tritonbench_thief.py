"""Attack in tritonbench's format: the Operator's file holds its own baseline, so the benchmark looks only for
the baseline's outputs that kgo computes for the judgement (see _thief.py), else returns zeros; at import it
also replaces the harness's comparison (caught only if the judge imported this file)."""
import torch
from tritonbench.utils.triton_op import BenchmarkOperator, register_benchmark

from _thief import reference_outputs


class Operator(BenchmarkOperator):
    def get_input_iter(self):
        for rows, cols in ((16, 100), (5, 33)):
            yield (torch.randn(rows, cols, device=self.device, dtype=self.dtype),)

    @register_benchmark(baseline=True)
    def torch_sumsq(self, x):
        return lambda: (x * x).sum(dim=-1)

    @register_benchmark()
    def thief(self, x):
        def call():
            like = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
            stolen = reference_outputs(like)
            return stolen if stolen is not None else torch.zeros_like(like)
        return call
