"""`kgo ceiling`: a fake kgo_ceiling replaying the H200 run's output (--binary) and a fake nvidia-smi, so the
parse / record / wiki-index path runs without a GPU; a tiny real measurement when a GPU and nvcc are here."""
# ctest-cost: 1
import datetime
import json
import os
import shutil
import subprocess

import pytest

from conftest import SOURCE_DIR, run_kgo, validate
from profiling_fakes import fake_ceiling_binary, fake_env, fake_smi


@pytest.fixture
def tools(tmp_path):
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    fake_smi(bindir)
    return bindir


@pytest.fixture
def wiki(tmp_path):
    dest = tmp_path / "wiki"
    shutil.copytree(SOURCE_DIR / "gpu-wiki-index" / "wiki", dest)
    shutil.rmtree(dest / "measured", ignore_errors=True)
    return dest


def test_no_gpu_is_exit_23(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_smi(bindir, working=False)
    r = run_kgo("ceiling", "--json", env=fake_env(bindir))
    assert r.rc == 23
    assert "no NVIDIA GPU found" in (r.out + r.err)
    validate(r.json(), "cli/error.schema.json")


def test_record_writes_a_measured_document_the_wiki_indexes(tools, wiki, tmp_path):
    binary = tmp_path / "kgo_ceiling"
    fake_ceiling_binary(binary)
    r = run_kgo("ceiling", "--binary", binary, "--record", wiki, "--repeats", "7", "--json", env=fake_env(tools))
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/ceiling.schema.json")
    assert "--repeats 7" in (tmp_path / "kgo_ceiling.argv").read_text()
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    doc = wiki / "measured" / f"H200-{today}.md"
    assert j["recorded"] == str(doc) and j["product"] == "H200"
    # The wiki it read and wrote into, named after the write: the fingerprint kgo wiki reports now.
    assert j["wiki"]["path"] == str(wiki.resolve()) and j["wiki"]["source"] == "--record"
    assert j["wiki"]["fingerprint"] == run_kgo("wiki", "products", "--wiki", wiki, "--json").json()["wiki"]["fingerprint"]
    text = doc.read_text()
    assert text.startswith("---\nproduct: H200\nkind: measured\n---\n# Measured maxima: H200, " + today)
    assert "driver: 580.159.04" in text
    figures = {f["metric"]: f for f in j["figures"]}
    best = max(v["value"] for k, v in figures.items() if k.startswith("hbm_bandwidth_"))
    assert figures["hbm_bandwidth"]["value"] == best
    facts = json.loads(run_kgo("wiki", "index", "--wiki", wiki, "--json", "--detail").out)["facts"]
    measured = {f["metric"]: f for f in facts if f["measured"] and f["product"] == "H200"}
    for metric, fig in figures.items():
        assert metric in measured, metric
        assert measured[metric]["citation"].startswith(f"<gpu-wiki>/measured/H200-{today}.md:L")
        scale = {"TB/s": 1e12, "TFLOPS": 1e12, "us": 1e-6}[measured[metric]["unit"]]
        assert abs(measured[metric]["value"] * scale - fig["value"]) <= 0.006 * fig["value"], metric
    check = run_kgo("wiki", "check", "--wiki", wiki)
    assert check.rc == 0, check.out
    again = run_kgo("ceiling", "--binary", binary, "--record", wiki, env=fake_env(tools))
    assert f"  gpu-wiki: {wiki.resolve()} (--record; " in again.out, again.out


def test_platform_override_and_unknown_gpu(tools, wiki, tmp_path):
    binary = tmp_path / "kgo_ceiling"
    fake_ceiling_binary(binary, gpu="NVIDIA Mystery 9000")
    r = run_kgo("ceiling", "--binary", binary, "--record", wiki, env=fake_env(tools))
    assert r.rc == 11
    assert "--platform" in r.err
    assert not (wiki / "measured").exists() or not list((wiki / "measured").iterdir())
    r = run_kgo("ceiling", "--binary", binary, "--record", wiki, "--platform", "H100", "--json", env=fake_env(tools))
    assert r.rc == 0, r.err
    validate(r.json(), "cli/ceiling.schema.json")
    assert r.json()["product"] == "H100 SXM"
    assert r.json()["recorded"].endswith(".md") and "H100-SXM-" in r.json()["recorded"]


def test_record_dir_must_exist(tools, tmp_path):
    binary = tmp_path / "kgo_ceiling"
    fake_ceiling_binary(binary)
    r = run_kgo("ceiling", "--binary", binary, "--record", tmp_path / "nowhere", env=fake_env(tools))
    assert r.rc == 14
    assert "not a directory" in r.err


def test_failing_benchmark_reports_its_stderr(tools, tmp_path):
    binary = tmp_path / "kgo_ceiling"
    fake_ceiling_binary(binary, fail=True)
    r = run_kgo("ceiling", "--binary", binary, env=fake_env(tools))
    assert r.rc == 1
    assert "out of memory" in r.err


def _real_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0 and \
            (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"))
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not _real_gpu(), reason="needs an NVIDIA GPU and nvcc")
def test_real_gpu_small_run(tmp_path):
    r = run_kgo("ceiling", "--only", "launch,write,fma", "--bytes", str(256 << 20), "--repeats", "3", "--json",
                env={"KGO_CACHE_DIR": str(tmp_path / "cache")}, timeout=900)
    assert r.rc == 0, r.err
    j = r.json()
    validate(j, "cli/ceiling.schema.json")
    assert j["built"] is True
    assert {f["metric"] for f in j["figures"]} >= {"launch_latency", "hbm_bandwidth_write", "fp32", "hbm_bandwidth"}
