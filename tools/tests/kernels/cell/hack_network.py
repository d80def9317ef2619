"""Cell attack (network): at import, connect to a TCP port on this machine (PORT, written in by the test) and send
what it found; then return zeros. A cell has no network."""
import socket

import torch

PORT = 0  # __PORT__


def _call():
    try:
        with socket.create_connection(("127.0.0.1", PORT), timeout=2) as s:
            s.sendall(b"hello from the kernel\n")
    except OSError:
        pass


_call()


def triton_softmax(x):
    return torch.zeros_like(x)
