"""Shared fixtures for CLI tests: they run the built `kgo` binary on real temp workspaces."""
import json
import os
import pathlib
import subprocess

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
                  pathlib.Path("/work/shared/fixtures/atrex-gpu-wiki-v0.1.0")]
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


def run_kgo(*args, cwd=None, env=None, timeout=600, input=None):
    """Runs the built kgo with `args`; returns a Result (rc, out, err)."""
    full_env = dict(os.environ)
    full_env.setdefault("KGO_DATA_DIR", str(SOURCE_DIR))
    full_env.pop("KGO_GPU_WIKI", None)
    full_env["KGO_HARNESS_DAEMON"] = "0"  # hermetic: a warm harness of the user's is not used
    if env:
        full_env.update(env)
    proc = subprocess.run([KGO_BIN, *map(str, args)], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=timeout, input=input)
    return Result(proc)


def _registry():
    resources = []
    for path in SCHEMAS.rglob("*.schema.json"):
        schema = json.loads(path.read_text())
        uri = path.resolve().as_uri()
        resources.append((uri, Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def validate(instance, schema_name):
    """Validates `instance` against schemas/<schema_name> (relative $refs resolve)."""
    path = (SCHEMAS / schema_name).resolve()
    schema = json.loads(path.read_text())
    schema.setdefault("$id", path.as_uri())
    validator = jsonschema.Draft202012Validator(schema, registry=_registry(),
                                                format_checker=jsonschema.FormatChecker())
    validator.validate(instance)


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture
def kgo():
    return run_kgo


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "src" / "kernel.py"
    path.parent.mkdir()
    path.write_text((SOURCE_DIR / "examples" / "softmax" / "kernel.py").read_text())
    return path


@pytest.fixture
def workspace(tmp_path, kernel_file):
    """A fresh workspace made by `kgo init` on the example softmax kernel (H100, embedded wiki)."""
    parent = tmp_path / "ws"
    parent.mkdir()
    r = run_kgo("init", "softmax", kernel_file, "--platform", "H100", "--dir", parent,
                "--shape", "4096x4096", "--reference", SOURCE_DIR / "examples" / "softmax" / "ref.py")
    assert r.rc == 0, r.err
    return parent / "kernel_opt_softmax"
