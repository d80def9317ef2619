"""Cheat catalogue: Containment: start two children (one in this session, one in a session of its own) and then hang,
so that the timeout ends only the kernel's process while the children live on; their pids are written next to this
file."""
import pathlib
import subprocess
import sys
import time

_kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=own)
         for own in (False, True)]
pathlib.Path(__file__).with_name("children.pid").write_text(" ".join(str(k.pid) for k in _kids))


def triton_softmax(x):
    while True:
        time.sleep(0.05)
