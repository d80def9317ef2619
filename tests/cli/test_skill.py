"""`kgo skill install|uninstall` into a temporary HOME, checked file by file: the skill, the MCP
entry (Claude Code's ~/.claude.json, Codex's ~/.codex/config.toml), the hooks, a user's own config
surviving install + uninstall byte for byte, idempotence, refusals; and the hooks' decisions."""
# ctest-cost: 1
import json
import os
import pathlib
import subprocess
import tomllib

import pytest

from conftest import KGO_BIN, SOURCE_DIR, run_kgo, validate

SKILL = (SOURCE_DIR / "templates" / "skill" / "SKILL.md").read_text()
EXE = str(pathlib.Path(KGO_BIN).resolve())


def skill(home, *args):
    r = run_kgo("--json", "skill", *args, "--home", home)
    if r.rc == 0:
        validate(r.json(), "cli/skill.schema.json")
    return r


def snapshot(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_claude_install_file_by_file_and_uninstall_restores_bytes(tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    user_json = b'{"numStartups": 7,\n "mcpServers": {"other": {"command": "x", "args": []}},  "z": [1,2]}'
    user_settings = b'{\n    "model": "opus",\n    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": []}]}\n}\n'
    (home / ".claude.json").write_bytes(user_json)
    (home / ".claude" / "settings.json").write_bytes(user_settings)
    before = snapshot(home)

    r = skill(home, "install", "--claude", "--mcp", "--hooks")
    assert r.rc == 0, r.err
    assert r.json()["clients"][0]["state"] == "installed"
    assert (home / ".claude" / "skills" / "kgo" / "SKILL.md").read_text() == SKILL
    cfg = json.loads((home / ".claude.json").read_text())
    assert cfg["numStartups"] == 7 and cfg["z"] == [1, 2] and cfg["mcpServers"]["other"] == {"command": "x", "args": []}
    assert cfg["mcpServers"]["kgo"] == {"type": "stdio", "command": EXE, "args": ["mcp"]}
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus"
    pre = settings["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Bash", "hooks": []} and "Edit" in pre[1]["matcher"]
    assert pre[1]["hooks"][0]["command"].endswith("skill hook pre-tool")
    assert "skill hook stop" in settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    manifest = home / ".claude" / "kgo-skill-manifest.json"
    assert manifest.is_file()

    # idempotent: a second identical install changes nothing
    after = snapshot(home)
    r = skill(home, "install", "--claude", "--mcp", "--hooks")
    assert r.rc == 0 and r.json()["clients"][0]["state"] == "unchanged"
    assert snapshot(home) == after

    r = skill(home, "uninstall", "--claude")
    assert r.rc == 0, r.err
    assert snapshot(home) == before
    assert not (home / ".claude" / "skills").exists()
    # nothing left to uninstall
    assert skill(home, "uninstall", "--claude").json()["clients"][0]["state"] == "not_installed"


def test_claude_config_rewritten_by_the_client_keeps_its_changes(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    assert skill(home, "install", "--claude", "--mcp").rc == 0
    cfg = json.loads((home / ".claude.json").read_text())
    cfg["numStartups"] = 3  # the client rewrites its file after install
    cfg["mcpServers"]["mine"] = {"command": "y"}
    (home / ".claude.json").write_text(json.dumps(cfg))
    r = skill(home, "uninstall")
    assert r.rc == 0, r.err
    assert json.loads((home / ".claude.json").read_text()) == {"mcpServers": {"mine": {"command": "y"}}, "numStartups": 3}
    assert not (home / ".claude").exists()  # created by install, empty again


def test_codex_install_toml_block_and_uninstall(tmp_path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    user_toml = b'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs"]'  # no final newline
    (home / ".codex" / "config.toml").write_bytes(user_toml)
    before = snapshot(home)
    r = skill(home, "install", "--codex", "--mcp", "--hooks")
    assert r.rc == 0, r.err
    assert (home / ".codex" / "skills" / "kgo" / "SKILL.md").read_text() == SKILL
    cfg = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert cfg["model"] == "gpt-5" and cfg["mcp_servers"]["docs"]["command"] == "npx"
    assert cfg["mcp_servers"]["kgo"] == {"command": EXE, "args": ["mcp"]}
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())
    assert "apply_patch" in hooks["hooks"]["PreToolUse"][0]["matcher"] and hooks["hooks"]["Stop"]
    assert skill(home, "uninstall", "--codex").rc == 0
    assert snapshot(home) == before


def test_refusals_write_nothing(tmp_path):
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text('[mcp_servers.kgo]\ncommand = "/old/kgo"\n')
    before = snapshot(home)
    r = skill(home, "install", "--codex", "--mcp")
    assert r.rc == 25 and "already configures an MCP server named kgo" in r.json()["error"]
    assert snapshot(home) == before and not (home / ".codex" / "skills").exists()
    (home / ".claude.json").write_text("{not json")
    r = skill(home, "install", "--claude", "--mcp")
    assert r.rc == 25 and ".claude.json" in r.json()["error"]
    assert not (home / ".claude").exists()
    r = skill(home, "install")
    assert r.rc == 3 and "--claude or --codex" in r.json()["error"]
    r = skill(tmp_path / "missing", "install", "--claude")
    assert r.rc == 7


def hook(event, payload, *extra):
    return subprocess.run([KGO_BIN, "skill", "hook", event, *extra], input=json.dumps(payload), capture_output=True,
                          text=True, env={**os.environ, "KGO_DATA_DIR": str(SOURCE_DIR)})


def test_hooks_refuse_protected_edits_and_early_stops(workspace, tmp_path):
    ws = str(workspace)
    for target in ["memory/v0.json", "specs.json", ".kgo/stamp.key"]:
        r = hook("pre-tool", {"cwd": ws, "tool_name": "Write", "tool_input": {"file_path": f"{ws}/{target}"}})
        assert r.returncode == 2 and "written by kgo only" in r.stderr, target
    r = hook("pre-tool", {"cwd": ws, "tool_name": "Edit", "tool_input": {"file_path": "memory/../memory/v1.json"}})
    assert r.returncode == 2
    r = hook("pre-tool", {"cwd": ws, "tool_name": "Bash", "tool_input": {"command": "echo {} > memory/v1.json"}})
    assert r.returncode == 2
    r = hook("pre-tool", {"cwd": ws, "tool_name": "Bash", "tool_input": {"command": "kgo spec auto && cp x specs.json"}})
    assert r.returncode == 2
    # the kernel, and kgo itself, are allowed
    assert hook("pre-tool", {"cwd": ws, "tool_name": "Write", "tool_input": {"file_path": f"{ws}/kernel.py"}}).returncode == 0
    assert hook("pre-tool", {"cwd": ws, "tool_name": "Bash", "tool_input": {"command": "kgo memory read v0"}}).returncode == 0
    # outside a workspace, memory/ is nobody's business
    assert hook("pre-tool", {"cwd": str(tmp_path), "tool_input": {"file_path": str(tmp_path / "memory" / "x")}}).returncode == 0

    state = tmp_path / "stop.json"
    payload = {"cwd": ws, "session_id": "s1"}
    r = hook("stop", payload, "--state", str(state), "--max-refusals", "2")
    assert r.returncode == 2 and "kgo spec auto" in r.stderr  # what `kgo next` names
    assert hook("stop", payload, "--state", str(state), "--max-refusals", "2").returncode == 2
    assert hook("stop", payload, "--state", str(state), "--max-refusals", "2").returncode == 0  # budget spent
    assert hook("stop", {"cwd": str(tmp_path), "session_id": "s2"}).returncode == 0  # no workspace
