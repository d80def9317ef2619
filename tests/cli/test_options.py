"""Shared option groups (cli/options.hpp): a flag that several commands take is declared once, so its
name and help are the same in each of them, and each command that runs a kernel takes the whole group."""
# ctest-cost: 1
import re

import pytest

from conftest import run_kgo

# The commands that run the workspace kernel through the harness (harness::TargetOptions).
KERNEL_COMMANDS = ["check", "bench", "baseline", "profile", "asm", "propose"]
RUN_OPTIONS = ["--python", "--arg", "--dtype"]
KERNEL_OPTIONS = ["--op", "--entry", "--contract", "--dim", "--allow-op"]


def help_lines(*command):
    r = run_kgo(*command, "--help")
    assert r.rc == 0, r.err
    lines = {}
    for line in r.out.splitlines():
        m = re.match(r"\s+(--[a-z-]+)(?: [A-Z]+\S*(?: \.\.\.)?)?\s+(.*)", line)
        if m:
            lines[m.group(1)] = m.group(2).strip()
    return lines


def test_every_kernel_command_takes_the_same_target_options():
    first = help_lines(KERNEL_COMMANDS[0])
    for cmd in KERNEL_COMMANDS:
        lines = help_lines(cmd)
        for flag in RUN_OPTIONS + KERNEL_OPTIONS + ["--workspace"]:
            assert flag in lines, f"kgo {cmd} lacks {flag}"
            assert lines[flag] == first[flag], f"kgo {cmd} {flag}: {lines[flag]!r} != {first[flag]!r}"


@pytest.mark.parametrize("command", [["ops"], ["env"], ["harness", "start"], ["harness", "status"]])
def test_python_means_the_same_everywhere(command):
    assert help_lines(*command)["--python"] == help_lines("check")["--python"]


def test_check_timeouts_are_one_group():
    for cmd in ["check", "baseline", "ops"]:
        lines = help_lines(cmd)
        assert lines["--case-timeout"] == help_lines("check")["--case-timeout"]
        assert "on --device cpu" in lines["--timeout"]
    r = run_kgo("ops", "softmax", "--timeout", "0")
    assert r.rc == 3 and "--case-timeout and --timeout must be positive" in r.err


def test_profile_has_no_device_flag():
    """kgo profile always runs on the GPU; a --device there would be ignored."""
    assert "--device" not in help_lines("profile")
