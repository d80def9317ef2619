"""Two probes of the kernel's cell (tools/kgo_harness/cell/confine.py) on a GPU machine (device tool), one line printed
per case:
  cuda  which layer of the cell a CUDA context survives, one at a time: namespaces only, + the user drop,
        + Landlock, and Landlock alone;
  ipc   whether CUDA IPC crosses the cell: this process allocates a buffer and exports its raw driver IPC handle
        (cuIpcGetMemHandle: no /dev/shm file, unlike torch's own sharing); a child in a cell (confine.enter +
        confine.confine, as a kernel process) opens the handle and fills the buffer; this process checks it.
Usage: python3 bench/cell_probes.py cuda|ipc"""
import ctypes
import os
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools")
CUDA_CHILD = r"""
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
IPC_CHILD = r"""
import ctypes, os, sys
sys.path.insert(0, %r)
from kgo_harness.cell import confine
names = confine.enter(os.getppid(), shim=True)
rw = os.environ["P_RW"]
info = confine.confine(rw, names)
import torch
torch.zeros(1, device="cuda").sum().item()
cu = ctypes.CDLL("libcuda.so.1")
class Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]
handle = Handle.from_buffer_copy(bytes.fromhex(sys.argv[1]))
ptr = ctypes.c_uint64(0)
open_fn = getattr(cu, "cuIpcOpenMemHandle_v2", None) or cu.cuIpcOpenMemHandle
rc = open_fn(ctypes.byref(ptr), handle, ctypes.c_uint(1))
if rc != 0:
    print("open failed", rc, names, info, flush=True); sys.exit(0)
rc = cu.cuMemsetD32_v2(ptr, ctypes.c_uint(0x3F800000), ctypes.c_size_t(1024))
cu.cuCtxSynchronize()
print("opened and wrote", rc, names, info, flush=True)
cu.cuIpcCloseMemHandle(ptr)
"""


def cuda():
    for ns, drop, ll in [(1, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 1), (0, 0, 1)]:
        rw = f"/dev/shm/kgo-probe-{ns}{drop}{ll}"
        os.makedirs(rw, exist_ok=True)
        os.chmod(rw, 0o777)
        env = dict(os.environ, P_NS=str(ns), P_DROP=str(drop), P_LL=str(ll), P_RW=rw)
        out = subprocess.run([sys.executable, "-I", "-c", CUDA_CHILD % TOOLS], env=env, capture_output=True, text=True,
                             timeout=120)
        print(f"ns={ns} drop={drop} landlock={ll}:", out.stdout.strip()[-400:], out.stderr.strip()[-300:])


def ipc():
    import torch
    buf = torch.zeros(1024, device="cuda")
    torch.cuda.synchronize()
    cu = ctypes.CDLL("libcuda.so.1")
    handle = (ctypes.c_char * 64)()
    rc = cu.cuIpcGetMemHandle(ctypes.byref(handle), ctypes.c_uint64(buf.data_ptr()))
    print("export", rc)
    for policy in ("auto", "landlock", "off"):
        buf.zero_()
        torch.cuda.synchronize()
        rw = f"/dev/shm/kgo-ipc-probe-{policy}"
        os.makedirs(rw, exist_ok=True)
        os.chmod(rw, 0o777)
        env = dict(os.environ, KGO_CELL=policy, P_RW=rw)
        out = subprocess.run([sys.executable, "-I", "-c", IPC_CHILD % TOOLS, bytes(handle).hex()], env=env,
                             capture_output=True, text=True, timeout=120)
        torch.cuda.synchronize()
        print(policy, "child:", out.stdout.strip()[-300:], out.stderr.strip()[-300:] if not out.stdout else "",
              "| parent sees sum", float(buf.sum()))



if __name__ == "__main__":
    probes = {"cuda": cuda, "ipc": ipc}
    if len(sys.argv) != 2 or sys.argv[1] not in probes:
        sys.exit(f"usage: {sys.argv[0]} {'|'.join(probes)}")
    probes[sys.argv[1]]()
