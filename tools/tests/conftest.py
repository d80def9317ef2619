"""Fixtures for the harness tests: a warm `kgo_harness serve` process shared by the session, one-shot
runs of the CLI, result-schema validation, and the devices to test on (cpu always, cuda when present)."""
import ctypes
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

TOOLS = pathlib.Path(__file__).resolve().parents[1]
ROOT = TOOLS.parent
ENTRY = TOOLS / "kgo_harness"
TEMPLATES = ROOT / "templates" / "ops"
SCHEMAS = ROOT / "schemas" / "harness"
sys.path.insert(0, str(TOOLS))

import kernel_files  # noqa: E402

KERNELS = kernel_files.folder()


def _has_cuda():
    """Whether a CUDA device is visible, asked of the driver (what torch.cuda.is_available() asks) so that a
    test process which never touches a tensor does not import torch (about 1.5 s of CPU)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except (OSError, AttributeError):
        return False


def _tool(name):
    """What kgo would send as the request's tools.<name> (core/tools.hpp, which searches more places; PATH and
    /usr/local/cuda/bin cover the test machines): the harness itself searches for no CUDA program."""
    found = shutil.which(name) or shutil.which(name, path="/usr/local/cuda/bin")
    return str(found) if found else None


CUDA_TOOLS = {"nvcc": _tool("nvcc"), "ncu": _tool("ncu")}
HAS_CUDA = _has_cuda()
DEVICES = ["cpu"] + (["cuda"] if HAS_CUDA else [])
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA GPU")


def validate(result):
    """Validates a harness result against schemas/harness/result.schema.json (skipped without jsonschema)."""
    try:
        import jsonschema
    except ImportError:
        return
    schema = json.loads((SCHEMAS / "result.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(result)


class Serve:
    """One warm harness worker for the whole session (the overhead path kgo uses)."""

    def __init__(self, log_path, env=None):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([sys.executable, str(ENTRY), "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT,
                                     env={**os.environ, **(env or {})})

    def __call__(self, **req):
        req.setdefault("command", "check")
        req.setdefault("tools", CUDA_TOOLS)
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"the harness serve process ended; see {self.log.name}"
        result = json.loads(line)
        validate(result)
        return result

    def mark(self):
        """Where this harness's stderr log ends now: `probes` reads what comes after."""
        self.log.flush()
        return os.path.getsize(self.log.name)

    def probes(self, mark, tag, count=1):
        """The texts of the `KGO-PROBE <tag> <text>` lines a probe kernel printed (probe(), on its stderr) after
        `mark`, waiting up to 5 s for `count` of them (the judge relays a kernel process's stderr as it comes)."""
        import time
        for _ in range(50):
            with open(self.log.name) as f:
                f.seek(mark)
                found = probe_lines(f.read(), tag)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        return found

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.log.close()


@pytest.fixture
def socket_folder():
    """A private folder (0700) for a test's sockets, removed after it: under /tmp, since a Unix socket's path has
    about 100 bytes and a test's tmp_path (under a CI build folder) can be longer."""
    import tempfile
    d = pathlib.Path(tempfile.mkdtemp(prefix="kgo-rt-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def harness(tmp_path_factory):
    serve = Serve(tmp_path_factory.mktemp("harness") / "serve.stderr")
    yield serve
    serve.close()


def run_cli(command, request, timeout=300, env=None):
    """Runs `kgo_harness <command>` once (as kgo does: python -I) with `request` on stdin, with `env` added to the
    environment; returns (rc, result or None, stderr)."""
    text = request if isinstance(request, str) else json.dumps(request)
    proc = subprocess.run([sys.executable, "-I", str(ENTRY), command], input=text, capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})})
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        result = None
    return proc.returncode, result, proc.stderr


# A probe kernel cannot write files outside its cell: it reports on its stderr, which the judge relays (probe()).
PROBE = ("import sys as _probe_sys\n"
         "def probe(tag, text):\n"
         "    _probe_sys.__stderr__.write(f'KGO-PROBE {tag} {text}\\n')\n"
         "    _probe_sys.__stderr__.flush()\n")


def probe_lines(text, tag):
    head = f"KGO-PROBE {tag} "
    return [line[len(head):] for line in text.splitlines() if line.startswith(head)]


def alive_with(marker):
    """Pids of live (not zombie) processes whose command line contains `marker`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z":
            found.append(int(pid))
    return found


def kernel(name):
    return str(KERNELS / name)


# cuBLAS's own signatures for the calls the delegation attacks make (hack_linked_vendor.py, hack_cffi_vendor.py).
VENDOR_API = """int cublasCreate_v2(void **handle);
int cublasSetStream_v2(void *handle, void *stream);
int cublasScopy_v2(void *handle, int n, const float *x, int incx, float *y, int incy);
int cublasSaxpy_v2(void *handle, int n, const float *alpha, const float *x, int incx, float *y, int incy);
"""
_STAND_IN = """int cublasCreate_v2(void **h) { static int one; *h = &one; return 0; }
int cublasSetStream_v2(void *h, void *s) { return 0; }
int cublasScopy_v2(void *h, int n, const float *x, int ix, float *y, int iy)
{ for (int i = 0; i < n; i++) y[i * iy] = x[i * ix]; return 0; }
int cublasSaxpy_v2(void *h, int n, const float *a, const float *x, int ix, float *y, int iy)
{ for (int i = 0; i < n; i++) y[i * iy] += *a * x[i * ix]; return 0; }
"""
_ADD = """int kgo_add(void *stream, int n, float a, const float *x, const float *y, float *o)
{ static void *h; if (!h && cublasCreate_v2(&h)) return 1; cublasSetStream_v2(h, stream);
  cublasScopy_v2(h, n, x, 1, o, 1); return cublasSaxpy_v2(h, n, &a, y, 1, o, 1); }
"""


def _real_cublas():
    """The cuBLAS that torch loads on this machine (a child process asks, so that this one stays without CUDA)."""
    probe = ("import torch; a = torch.ones(2, 2, device='cuda'); (a @ a).sum().item(); "
             "print(next(l.split()[-1] for l in open('/proc/self/maps') if '/libcublas.so' in l))")
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()


def vendor_stub(folder, device="cpu"):
    """Builds into `folder` libkgoadd.so, whose kgo_add(stream, n, a, x, y, out) writes x + a y through cuBLAS's
    Scopy and Saxpy. On the CPU it links libcublas.so.99, also built here: a stand-in with cuBLAS's signatures
    that computes on the host; on "cuda" it links the cuBLAS torch loads (the attacks open the stand-in where it
    is beside them, else that one). Skips without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the stand-in vendor library")
    folder = pathlib.Path(folder)
    if device == "cpu":
        (folder / "stub.c").write_text(_STAND_IN)
        subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname,libcublas.so.99", "-o", str(folder / "libcublas.so.99"),
                        str(folder / "stub.c")], check=True)
        library, rpath = folder / "libcublas.so.99", "$ORIGIN"
    else:
        library = pathlib.Path(_real_cublas())
        rpath = str(library.parent)
    (folder / "add.c").write_text(VENDOR_API + _ADD)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(folder / "libkgoadd.so"), str(folder / "add.c"), str(library),
                    "-Wl,-rpath," + rpath], check=True)
    for source in ("stub.c", "add.c"):
        (folder / source).unlink(missing_ok=True)
    return folder


# Small shapes keep the CPU interpreter fast; the edge shapes (1, 17, 4097) are added by the harness.
SMALL = [[8, 256]]
