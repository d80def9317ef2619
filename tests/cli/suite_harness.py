"""The suite-wide warm harness that CTest starts before the CLI test files and stops after them (a fixture in
tests/CMakeLists.txt): `python3 suite_harness.py start|stop`, in $KGO_TEST_SUITE_RUNTIME. It is started the way
the test files run kgo (conftest._run), from the same interpreter, so that kgo keys it as they do."""
import os
import pathlib
import sys

from conftest import _run


def main(action):
    runtime = pathlib.Path(os.environ["KGO_TEST_SUITE_RUNTIME"])
    runtime.mkdir(mode=0o700, parents=True, exist_ok=True)
    args = ["harness", "start", "--device", "cpu", "--idle-minutes", "30"] if action == "start" else \
        ["harness", "stop", "--grace", "5"]
    r = _run(args, None, {"XDG_RUNTIME_DIR": str(runtime), "KGO_HARNESS_DAEMON": "1"}, 600, None)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
