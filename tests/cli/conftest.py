"""Shared fixtures for CLI tests: they run the built `kgo` binary on real temp workspaces."""
import atexit
import functools
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import jsonschema
import pytest
from referencing import Registry, Resource

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
KGO_BIN = os.environ.get("KGO_BIN", str(SOURCE_DIR / "build" / "cli" / "kgo"))
SCHEMAS = SOURCE_DIR / "schemas"

def _fixture_wiki():
    """The third-party atrex wiki fixture (outside the repository; never copied in)."""
    candidates = [os.environ.get("KGO_FIXTURE_WIKI", ""),
                  SOURCE_DIR.parent / "shared" / "fixtures" / "atrex-gpu-wiki-v0.1.0",
                  pathlib.Path(os.environ.get("KGO_SHARED_DIR", SOURCE_DIR.parent / "shared")) / "fixtures" / "atrex-gpu-wiki-v0.1.0"]
    for c in candidates:
        if c and (pathlib.Path(c) / "README.md").is_file():
            return pathlib.Path(c)
    return None


FIXTURE_WIKI = _fixture_wiki()
needs_fixture = pytest.mark.skipif(FIXTURE_WIKI is None, reason="atrex fixture wiki not found")


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        return json.loads(self.out)


_EXPERIENCE_DIR = tempfile.mkdtemp(prefix="kgo_test_experience_")
atexit.register(shutil.rmtree, _EXPERIENCE_DIR, True)

# Commands that run the Python harness: these go through the session's warm harness (see warm_harness).
HARNESS_COMMANDS = {"check", "bench", "baseline", "ops", "guide", "propose", "profile"}


class _WarmHarness:
    """One warm harness per test session: CTest's suite-wide one where it runs (KGO_TEST_SUITE_RUNTIME), else
    one private to the session (its own XDG_RUNTIME_DIR), started on first use. A test gets it only when it
    passes no `env` of its own (the daemon would not see that environment) and is not marked `cold_harness`
    (it needs a fresh Python process); KGO_TEST_COLD=1 turns it off."""

    def __init__(self):
        self.runtime = None      # the private XDG_RUNTIME_DIR, once started
        self.enabled = True      # off inside a test marked cold_harness
        self.failed = None
        self.shared = False      # the suite's harness (CTest starts and stops it), not this session's

    def env(self, args):
        if (not self.enabled or not args or str(args[0]) not in HARNESS_COMMANDS or self.failed
                or os.environ.get("KGO_TEST_COLD") == "1"):  # bench/suite_time.sh's cold side
            return None
        if self.runtime is None and self._suite_harness():
            self.runtime, self.shared = pathlib.Path(os.environ["KGO_TEST_SUITE_RUNTIME"]), True
        if self.runtime is None:
            # A short path: Unix socket paths are limited to about 100 bytes.
            runtime = pathlib.Path(tempfile.mkdtemp(prefix="kgo-rt-", dir="/tmp"))
            r = _run(["harness", "start", "--device", "cpu", "--idle-minutes", "30"], None,
                     {"XDG_RUNTIME_DIR": str(runtime), "KGO_HARNESS_DAEMON": "1"}, 600, None)
            if r.returncode != 0:
                self.failed = r.stderr
                shutil.rmtree(runtime, ignore_errors=True)
                return None
            self.runtime = runtime
        return {"XDG_RUNTIME_DIR": str(self.runtime), "KGO_HARNESS_DAEMON": "1"}

    @staticmethod
    def _suite_harness():
        """Whether CTest's suite-wide warm harness (tests/CMakeLists.txt) is running for this test file."""
        runtime = os.environ.get("KGO_TEST_SUITE_RUNTIME")
        if not runtime:
            return False
        r = _run(["harness", "status", "--json"], None, {"XDG_RUNTIME_DIR": runtime, "KGO_HARNESS_DAEMON": "1"},
                 60, None)
        return r.returncode == 0 and json.loads(r.stdout).get("running") is True

    def stop(self):
        if self.runtime is not None and not self.shared:
            _run(["harness", "stop", "--grace", "5"], None,
                 {"XDG_RUNTIME_DIR": str(self.runtime), "KGO_HARNESS_DAEMON": "1"}, 60, None)
            shutil.rmtree(self.runtime, ignore_errors=True)
            self.runtime = None


WARM = _WarmHarness()


def _run(args, cwd, env, timeout, input):
    full_env = dict(os.environ)
    full_env.setdefault("KGO_DATA_DIR", str(SOURCE_DIR))
    full_env.pop("KGO_GPU_WIKI", None)
    full_env["KGO_HARNESS_DAEMON"] = "0"  # hermetic: a warm harness of the user's is not used
    full_env.setdefault("KGO_EXPERIENCE_DIR", _EXPERIENCE_DIR)  # hermetic: the user's experience store is not touched
    if env:
        full_env.update(env)
    return subprocess.run([KGO_BIN, *map(str, args)], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=timeout, input=input)


def run_kgo(*args, cwd=None, env=None, timeout=600, input=None):
    """Runs the built kgo with `args`; returns a Result (rc, out, err). Harness commands of a test that
    passes no `env` use the session's warm harness."""
    if env is None:
        env = WARM.env(args)
    return Result(_run(args, cwd, env, timeout, input))


@pytest.fixture(scope="session", autouse=True)
def warm_harness():
    yield WARM
    WARM.stop()


@pytest.fixture(autouse=True)
def _harness_temperature(request):
    WARM.enabled = request.node.get_closest_marker("cold_harness") is None
    yield
    WARM.enabled = True


def pytest_configure(config):
    config.addinivalue_line("markers", "cold_harness: harness commands start a fresh Python process")


@functools.cache
def _registry():
    """Every schema under schemas/, read once per test process (a registry is immutable)."""
    resources = []
    for path in SCHEMAS.rglob("*.schema.json"):
        schema = json.loads(path.read_text())
        uri = path.resolve().as_uri()
        resources.append((uri, Resource.from_contents(schema)))
    return Registry().with_resources(resources)


@functools.cache
def _validator(schema_name):
    path = (SCHEMAS / schema_name).resolve()
    schema = json.loads(path.read_text())
    schema.setdefault("$id", path.as_uri())
    return jsonschema.Draft202012Validator(schema, registry=_registry(), format_checker=jsonschema.FormatChecker())


def validate(instance, schema_name):
    """Validates `instance` against schemas/<schema_name> (relative $refs resolve)."""
    _validator(schema_name).validate(instance)


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def socket_folder():
    """A private folder (0700) for a test's sockets, removed after it: under /tmp, since a Unix socket's path has
    about 100 bytes and a test's tmp_path (under a CI build folder) can be longer."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="kgo-rt-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def kgo():
    return run_kgo


def make_kernel_file(folder):
    path = folder / "src" / "kernel.py"
    path.parent.mkdir()
    path.write_text((SOURCE_DIR / "examples" / "softmax" / "kernel.py").read_text())
    return path


def make_workspace(folder, kernel_file):
    """A fresh workspace in `folder`/ws made by `kgo init` on `kernel_file` (softmax, H100, embedded wiki)."""
    parent = folder / "ws"
    parent.mkdir()
    r = run_kgo("init", "softmax", kernel_file, "--platform", "H100", "--dir", parent,
                "--shape", "4096x4096", "--reference", SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py")
    assert r.rc == 0, r.err
    return parent / "kernel_opt_softmax"


@pytest.fixture
def kernel_file(tmp_path):
    return make_kernel_file(tmp_path)


@pytest.fixture
def workspace(tmp_path, kernel_file):
    """A fresh workspace made by `kgo init` on the example softmax kernel (H100, embedded wiki)."""
    return make_workspace(tmp_path, kernel_file)


def attack_kernels():
    """The folder of the harness tests' kernels, written out of their bundles (tools/tests/kernel_files.py)."""
    import sys
    sys.path.insert(0, str(SOURCE_DIR / "tools" / "tests"))
    import kernel_files
    return kernel_files.folder()
