"""Issue 29, item 3, end to end: `kgo init` stores the baseline's problem definition (problem.py) for formats
whose kernel file carries setup(); `kgo check` judges every candidate on inputs that file's setup() makes,
stamps it, and refuses it when it differs from its committed version, as ref.py. A workspace made before
problem.py uses its init commit's kernel, never the candidate."""
# ctest-cost: 1
import json
import shutil

from conftest import SOURCE_DIR, attack_kernels, git, run_kgo, validate

KERNELS = attack_kernels()


def init(tmp_path, kernel=KERNELS / "seed_add.py", ref=KERNELS / "seed_ref.py", name="add"):
    parent = tmp_path / "ws"
    parent.mkdir(exist_ok=True)
    r = run_kgo("init", name, kernel, "--reference", ref, "--platform", "H100", "--dir", parent)
    assert r.rc == 0, r.err
    return parent / f"kernel_opt_{name}"


def check(ws, *extra):
    return run_kgo("check", "--workspace", ws, "--device", "cpu", "--trials", "2", "--shape", "16x64",
                   "--no-edge-shapes", "--json", "--detail", *extra)


def test_init_stores_and_commits_the_baseline_as_the_problem(tmp_path):
    ws = init(tmp_path)
    cfg = json.loads((ws / "kgo.json").read_text())
    validate(cfg, "workspace.schema.json")
    assert cfg["problem"] == "problem.py"
    text = (ws / "problem.py").read_text()
    assert text.startswith("# kgo:") and text.endswith((KERNELS / "seed_add.py").read_text())
    assert "problem.py" in git("ls-files", cwd=ws).stdout.split()
    op = init(tmp_path, SOURCE_DIR / "templates" / "ops" / "softmax" / "v1_baseline.py",
              SOURCE_DIR / "templates" / "ops" / "softmax" / "ref.py", name="op")
    assert "problem" not in json.loads((op / "kgo.json").read_text())
    assert not (op / "problem.py").exists()


def test_the_candidates_setup_does_not_make_the_inputs(tmp_path):
    ws = init(tmp_path)
    r = check(ws)
    assert r.rc == 0, r.err
    stamp = json.loads((ws / "memory" / "v0.json").read_text())["correctness"]["stamp"]
    assert "problem.py" in [s["path"] for s in stamp["sources"]], stamp
    for attack in ("hack_setup_answer.py", "hack_setup_rows8.py", "hack_setup_rank1.py"):
        shutil.copy(KERNELS / attack, ws / "kernel.py")
        r = check(ws, "--no-record")
        assert r.rc == 1, (attack, r.out[-2000:], r.err[-2000:])
        assert r.json()["harness"]["verdict"] == "FAIL", attack


def test_a_changed_problem_file_is_refused_like_the_reference(tmp_path):
    ws = init(tmp_path)
    (ws / "problem.py").write_text((ws / "problem.py").read_text().replace("torch.randn(shape", "torch.zeros(shape"))
    r = check(ws)
    assert r.rc == 5 and "problem.py differs from its committed version" in r.out + r.err, (r.out, r.err)
    (ws / "problem.py").unlink()
    r = check(ws)
    assert r.rc == 5 and "git checkout -- problem.py" in r.out + r.err, (r.out, r.err)


def test_a_workspace_without_problem_py_uses_its_init_commit_kernel(tmp_path):
    ws = init(tmp_path)
    cfg = json.loads((ws / "kgo.json").read_text())
    del cfg["problem"]
    (ws / "kgo.json").write_text(json.dumps(cfg, indent=2) + "\n")
    git("rm", "-q", "problem.py", cwd=ws)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "as made before problem.py", cwd=ws)
    shutil.copy(KERNELS / "hack_setup_answer.py", ws / "kernel.py")
    r = check(ws, "--no-record")
    assert r.rc == 1 and r.json()["harness"]["verdict"] == "FAIL", r.err[-2000:]
    baseline = (ws / ".kgo" / "problem-baseline.py").read_text()
    assert baseline.endswith((KERNELS / "seed_add.py").read_text())
