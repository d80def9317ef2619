"""`kgo init` and `kgo status` on real temporary directories, checked with the git CLI."""
# ctest-cost: 1
import json
import os
import stat

import pytest

from conftest import SOURCE_DIR, git, run_kgo, validate


def test_init_makes_clean_committed_workspace(workspace):
    for name in ["kernel.py", "ref.py", "README.md", "kgo.json", ".gitignore"]:
        assert (workspace / name).is_file(), name
    for name in ["memory", "plans", "profiles"]:
        assert (workspace / name).is_dir(), name
    log = git("log", "--format=%s", cwd=workspace)
    assert log.returncode == 0
    assert log.stdout.startswith("init: kgo workspace softmax")
    fsck = git("fsck", "--strict", cwd=workspace)
    assert fsck.returncode == 0, fsck.stderr
    assert git("status", "--porcelain", cwd=workspace).stdout == ""
    config = json.loads((workspace / "kgo.json").read_text())
    validate(config, "workspace.schema.json")
    assert config["arch"] == "Hopper"
    assert config["shapes"] == [[4096, 4096]]
    readme = (workspace / "README.md").read_text()
    for section in ["Target", "Inputs", "Hard Constraints", "Hardware Spec", "Roofline Analysis",
                    "Stop Conditions", "Task Context", "ISA Optimization Targets", "Iteration Log"]:
        assert f"## {section}\n" in readme, section
    assert "TBD" in readme and "{{" not in readme
    ignore = (workspace / ".gitignore").read_text()
    for pattern in ["__pycache__/", "*.ncu-rep"]:
        assert pattern in ignore


def test_init_json_output_matches_schema(tmp_path, kernel_file):
    r = run_kgo("init", "j", kernel_file, "--platform", "H200", "--dir", tmp_path, "--json")
    assert r.rc == 0, r.err
    validate(r.json(), "cli/init.schema.json")


def test_cuda_framework_copies_kernel_cu(tmp_path, kernel_file):
    r = run_kgo("init", "c", kernel_file, "--platform", "H100", "--dir", tmp_path, "--framework", "cuda")
    assert r.rc == 0, r.err
    assert (tmp_path / "kernel_opt_c" / "kernel.cu").is_file()


def test_workspaces_env_is_default_dir(tmp_path, kernel_file):
    r = run_kgo("init", "e", kernel_file, "--platform", "H100", env={"KGO_WORKSPACES": str(tmp_path)})
    assert r.rc == 0, r.err
    assert (tmp_path / "kernel_opt_e" / "kgo.json").is_file()


def test_author_from_git_config(tmp_path, kernel_file):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Ada Tester\n\temail = ada@example.com\n")
    r = run_kgo("init", "a", kernel_file, "--platform", "H100", "--dir", tmp_path,
                env={"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    assert r.rc == 0, r.err
    assert git("log", "--format=%an", cwd=tmp_path / "kernel_opt_a").stdout.strip() == "Ada Tester"


def _only(tmp_path, allowed):
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in allowed)


@pytest.mark.parametrize("name", ["a/b", "..", "../x", "bad name", "semi;colon", ""])
def test_bad_name_rejected_and_nothing_written(tmp_path, kernel_file, name):
    r = run_kgo("init", name, kernel_file, "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 4, (r.rc, r.err)
    assert "invalid workspace name" in r.err
    assert _only(tmp_path, {"src"}) == []


def test_missing_kernel(tmp_path):
    r = run_kgo("init", "m", tmp_path / "nope.py", "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 5
    assert "does not exist" in r.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_kernel(tmp_path, kernel_file):
    kernel_file.chmod(0)
    r = run_kgo("init", "u", kernel_file, "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 5
    assert "not readable" in r.err


def test_kernel_is_a_directory(tmp_path, kernel_file):
    r = run_kgo("init", "d", kernel_file.parent, "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 5
    assert "not a regular file" in r.err


def test_existing_workspace_needs_force_and_force_keeps_user_files(tmp_path, kernel_file):
    assert run_kgo("init", "f", kernel_file, "--platform", "H100", "--dir", tmp_path).rc == 0
    ws = tmp_path / "kernel_opt_f"
    (ws / "my_notes.md").write_text("precious")
    before = sorted(p.name for p in tmp_path.iterdir())
    r = run_kgo("init", "f", kernel_file, "--platform", "H100", "--dir", tmp_path)
    assert r.rc == 6
    assert "--force" in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    r = run_kgo("init", "f", kernel_file, "--platform", "H100", "--dir", tmp_path, "--force", "--json")
    assert r.rc == 0, r.err
    moved = r.json()["previous_moved_to"]
    assert moved and (tmp_path / moved).joinpath("my_notes.md").read_text() == "precious"
    assert not (ws / "my_notes.md").exists()


def test_unwritable_dir(tmp_path, kernel_file):
    target = tmp_path / "ro"
    target.mkdir()
    target.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        r = run_kgo("init", "w", kernel_file, "--platform", "H100", "--dir", target)
        if os.geteuid() == 0:
            pytest.skip("root can write anywhere")
        assert r.rc == 7
        assert "not writable" in r.err
        assert list(target.iterdir()) == []
    finally:
        target.chmod(0o755)


def test_missing_dir(tmp_path, kernel_file):
    r = run_kgo("init", "w", kernel_file, "--platform", "H100", "--dir", tmp_path / "nope")
    assert r.rc == 7
    assert "does not exist" in r.err


def test_unknown_platform_lists_known(tmp_path, kernel_file):
    r = run_kgo("init", "p", kernel_file, "--platform", "RTX9999", "--dir", tmp_path)
    assert r.rc == 11
    assert "H100" in r.err and "MI300X" in r.err
    assert _only(tmp_path, {"src"}) == []


def test_unknown_framework(tmp_path, kernel_file):
    r = run_kgo("init", "p", kernel_file, "--platform", "H100", "--dir", tmp_path, "--framework", "jax")
    assert r.rc == 3
    assert "unknown framework" in r.err
    assert _only(tmp_path, {"src"}) == []


def test_bad_shape(tmp_path, kernel_file):
    r = run_kgo("init", "p", kernel_file, "--platform", "H100", "--dir", tmp_path, "--shape", "4096*4096")
    assert r.rc == 3
    assert "bad shape" in r.err
    assert _only(tmp_path, {"src"}) == []


def test_status_text_and_json(workspace):
    r = run_kgo("status", "--workspace", workspace)
    assert r.rc == 0, r.err
    assert "softmax" in r.out and "Commits (1)" in r.out
    r = run_kgo("status", "--json", cwd=workspace / "memory")
    assert r.rc == 0, r.err
    data = r.json()
    validate(data, "cli/status.schema.json")
    assert data["commits"][0]["summary"].startswith("init:")


def test_status_outside_workspace(tmp_path):
    r = run_kgo("status", "--json", cwd=tmp_path)
    assert r.rc == 8
    validate(r.json(), "cli/error.schema.json")
