"""Attack in SOL-ExecBench's format (reference: examples/formats/sol-execbench/definition.json): the entry returns
the reference if it can reach it (the definition's run, or its outputs, see _thief.py), else zeros."""
import torch

from _thief import reference_code, reference_outputs


def run(x, scale):
    found = reference_code(__name__)
    if found and found[0] == "run":
        return found[1](x, scale)
    stolen = reference_outputs(x)
    return stolen if stolen is not None else torch.zeros_like(x)
