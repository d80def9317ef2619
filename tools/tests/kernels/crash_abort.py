"""Fixture: the process aborts inside the kernel call (as a failed native assertion would)."""
import os


def triton_gelu(x):
    os.abort()
