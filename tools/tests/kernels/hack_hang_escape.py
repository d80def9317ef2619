"""Cheat catalogue: Containment: start two children (one in this session, one in a session of its own) and then hang,
so that the timeout ends only the kernel's process while the children live on; the marker in their command lines
is how the test finds them from outside the cell."""
import subprocess
import sys
import time

_kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # kgo-hang-escape-probe"],
                          start_new_session=own) for own in (False, True)]


def triton_softmax(x):
    while True:
        time.sleep(0.05)
