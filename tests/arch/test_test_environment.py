"""What every Python test process runs with under CTest (tests/CMakeLists.txt, KGO_TEST_PYTHON_ENV and
KGO_TEST_PYTHON): one OpenMP thread, the bytecode cache on, no pytest plugins loaded that the tests do not ask
for, and `python3` on PATH starting the interpreter CMake found without a launcher shim in between."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("OMP_NUM_THREADS") != "1", reason="run by CTest only (`ctest -R arch`)")


def test_settings():
    assert os.environ.get("PYTHONDONTWRITEBYTECODE") == ""
    assert os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") == "1"


def test_python3_on_path_execs_the_interpreter_directly():
    found = pathlib.Path(shutil.which("python3"))
    if found.resolve() != pathlib.Path(sys.executable).resolve():
        # Else it is the build's one-line wrapper: an exec of this very interpreter, not a launcher such as pyenv's.
        lines = found.read_text().splitlines()
        assert lines == ["#!/bin/sh", f"exec '{sys.executable}' \"$@\""], (found, lines)
    out = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
    assert out.stdout.strip() == sys.executable
