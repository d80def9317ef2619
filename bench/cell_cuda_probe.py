"""Which layer of the kernel's cell (tools/kgo_harness/cell/confine.py) a CUDA context survives, one at a time, on a GPU
machine (device tool): namespaces only, + the user drop, + Landlock, and Landlock alone. Prints one line a combination."""
import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
CHILD = r"""
import os, sys
sys.path.insert(0, %r)
from kgo_harness.cell import confine
ns = int(os.environ["P_NS"]); drop = int(os.environ["P_DROP"]); ll = int(os.environ["P_LL"])
os.environ["KGO_CELL"] = "auto" if ns else "landlock"
names = confine.enter(os.getppid(), shim=True)
rw = os.environ["P_RW"]
if not drop and os.geteuid() == 0:
    names = [n for n in names if n != "pid"]  # confine drops the user only with a pid namespace
if ll or drop:
    if not ll:
        os.environ["KGO_CELL"] = "off"
    info = confine.confine(rw, names)
else:
    info = {}
import torch
try:
    torch.zeros(1, device="cuda").add_(1).sum().item()
    print("ok", names, info, flush=True)
except Exception as e:
    print("FAIL", names, info, str(e)[:200], flush=True)
"""

for ns, drop, ll in [(1, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 1), (0, 0, 1)]:
    rw = f"/dev/shm/kgo-probe-{ns}{drop}{ll}"
    os.makedirs(rw, exist_ok=True)
    os.chmod(rw, 0o777)
    env = dict(os.environ, P_NS=str(ns), P_DROP=str(drop), P_LL=str(ll), P_RW=rw)
    out = subprocess.run([sys.executable, "-I", "-c", CHILD % TOOLS], env=env, capture_output=True, text=True,
                         timeout=120)
    print(f"ns={ns} drop={drop} landlock={ll}:", out.stdout.strip()[-400:], out.stderr.strip()[-300:])
