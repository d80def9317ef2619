"""The harness is split by process role (tools/kgo_harness/PROTOCOL.md): `cell/` is the only code a kernel process
runs and imports nothing of the judge's; `formats/` is read by both roles and imports neither; the shared modules at
the top import no role. Read from the import statements of every module (nothing is imported)."""
# ctest-cost: 1
import ast
import pathlib

from conftest import TOOLS

PKG = TOOLS / "kgo_harness"
ROLES = ("cell", "judge", "formats")
# A package may not import these (the supervisor and the entry point are above every role).
FORBIDDEN = {"cell": {"judge", "supervisor"}, "formats": {"judge", "cell", "supervisor"}, "judge": {"supervisor"},
             None: {"judge", "cell", "formats", "supervisor"}}
ENTRY_POINTS = {"__main__.py", "supervisor.py"}


def imported(path):
    """The kgo_harness packages and modules a file imports: ('judge', 'check') for `from kgo_harness.judge import
    check`, ('protocol',) for `from kgo_harness import protocol`."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "kgo_harness":
            parts = node.module.split(".")[1:]
            found |= {tuple(parts) + (a.name,) for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {tuple(a.name.split(".")[1:]) for a in node.names if a.name.startswith("kgo_harness.")}
    return found


def role_of(path):
    rel = path.relative_to(PKG).parts
    return rel[0] if len(rel) > 1 else None


def violations():
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name in ENTRY_POINTS and role_of(path) is None:
            continue
        role = role_of(path)
        for target in imported(path):
            if target and target[0] in FORBIDDEN[role]:
                bad.append(f"{path.relative_to(PKG)} ({role or 'shared'}) imports kgo_harness.{'.'.join(target)}")
    return bad


def test_every_module_belongs_to_a_role_or_is_shared():
    assert {p.name for p in PKG.iterdir() if p.is_dir() and not p.name.startswith("__")} == set(ROLES)


def test_no_role_imports_past_its_boundary():
    assert violations() == []


def test_the_rule_sees_a_cell_module_that_imports_the_judge(tmp_path, monkeypatch):
    """The check itself: a planted cell module importing the judge is found."""
    import shutil
    fake = tmp_path / "kgo_harness"
    shutil.copytree(PKG, fake, ignore=shutil.ignore_patterns("__pycache__"))
    (fake / "cell" / "planted.py").write_text("from kgo_harness.judge import check\n")
    monkeypatch.setattr(__import__(__name__), "PKG", fake)
    assert violations() == ["cell/planted.py (cell) imports kgo_harness.judge.check"]
