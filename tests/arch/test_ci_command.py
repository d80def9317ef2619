"""The README's test command is the whole story: `.ci/run` runs exactly it, and the dependency script it starts
with installs what the tests need (so no test skips on a fresh machine for want of a package CI alone installs)."""
import os
import pathlib
import re

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
# The Debian packages behind the programs the tests start: Slurm's daemons and munge (tests/cli/test_sweep.py's
# real cluster), bwrap (the harness's sandbox), rsvg-convert and chromium (tests/cli/test_report.py).
TEST_PACKAGES = ["slurm-wlm", "munge", "bubblewrap", "librsvg2-bin", "chromium"]


def commands(text):
    """The shell commands of a script: its lines without comments, shebang, `set` and `cd` lines."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("#") and not re.match(r"(set|cd) ", line)]


def readme_test_command():
    readme = (SOURCE_DIR / "README.md").read_text()
    m = re.search(r"Build and run every test:\s*```sh\n(.*?)```", readme, re.S)
    assert m, "README.md has no 'Build and run every test:' block"
    return commands(m.group(1))


def test_ci_runs_exactly_the_readmes_test_command():
    assert commands((SOURCE_DIR / ".ci" / "run").read_text()) == readme_test_command()


def test_the_test_command_installs_what_the_tests_need():
    command = " ".join(readme_test_command())
    assert "scripts/deps.sh" in command, command
    deps = " ".join(commands((SOURCE_DIR / "scripts" / "deps.sh").read_text()).copy())
    installed = set(re.findall(r"[a-z0-9][a-z0-9.+-]+", " ".join(re.findall(r"apt-get install ([^>]*)", deps.replace("\\ ", " ")))))
    missing = [p for p in TEST_PACKAGES if p not in installed]
    assert not missing, f"scripts/deps.sh does not install {missing}, which the tests need"
