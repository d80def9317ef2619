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


def vendor_stub(folder):
    """Builds into `folder` libcublas.so.99, a stand-in for cuBLAS whose cublasSaxpy_v2(n, a, x, y, out) writes
    x + a y on the CPU, and libkgoadd.so, whose kgo_add calls it (linked to it, found beside it); skips without a C
    compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the stand-in vendor library")
    folder = pathlib.Path(folder)
    proto = "void cublasSaxpy_v2(long n, float a, const float *x, const float *y, float *o)"
    (folder / "stub.c").write_text(proto + " { for (long i = 0; i < n; i++) o[i] = x[i] + a * y[i]; }\n")
    (folder / "add.c").write_text(proto + ";\nvoid kgo_add(long n, float a, const float *x, const float *y, "
                                  "float *o) { cublasSaxpy_v2(n, a, x, y, o); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname,libcublas.so.99", "-o", str(folder / "libcublas.so.99"),
                    str(folder / "stub.c")], check=True)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(folder / "libkgoadd.so"), str(folder / "add.c"),
                    str(folder / "libcublas.so.99"), "-Wl,-rpath,$ORIGIN"], check=True)
    for source in ("stub.c", "add.c"):
        (folder / source).unlink()
    return folder


# Small shapes keep the CPU interpreter fast; the edge shapes (1, 17, 4097) are added by the harness.
SMALL = [[8, 256]]
