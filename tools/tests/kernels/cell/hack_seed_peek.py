"""Cell attack (the inputs' seeds): at import, find the request the kernel process was loaded with (a dict on the
stack, reached through gc) and report its base seed on stderr; a kernel that knows it can make every case's inputs
and prepare the answers before it is observed. Honest softmax otherwise."""
import gc
import sys

from hack_gpu_memory_hog import honest  # noqa: F401  (kernels/ is on the path of the test's copy)


def _peek():
    for o in gc.get_objects():
        if type(o) is dict and "kernel" in o and "seed" in o and "shapes" in o:
            return o["seed"]
    return None


sys.__stderr__.write(f"KGO-PROBE seed {_peek()}\n")
sys.__stderr__.flush()


def triton_softmax(x):
    return honest(x)
