"""The check registry (harness/checks.py): each entry's verdict from the cases, the `checks` summary, and
that one new entry is enough for a check to fail a run, name itself as the culprit and reach the result."""
from types import SimpleNamespace

import pytest
import torch

from conftest import SMALL, TEMPLATES, validate
from kgo_harness.judge import checks
from kgo_harness.judge.check import finish

TOL = {"atol": 1e-5, "rtol": 1e-5, "max_rel_err": 1e-3, "source": "default"}
PROBLEM = SimpleNamespace(device="cpu", dtype=torch.float32, reference_dtype="float64", kernel_info={})
NOT_RUN = {"checked": False, "delegated": None, "message": "disabled by the request"}


def case(**extra):
    return {"shape": [8, 256], "trial": 0, "status": "PASS", "message": "ok", "rel_err": 0.0, **extra}


def by_name(summary):
    return {c["name"]: c for c in summary}


def test_every_entry_is_summarized_in_order():
    details, summary = checks.run_all(checks.Evidence([case(deterministic=True, inputs_unchanged=True)],
                                                      NOT_RUN, "cpu"))
    assert [c["name"] for c in summary] == [c.name for c in checks.CHECKS]
    assert set(details) == {c.name for c in checks.CHECKS}
    s = by_name(summary)
    assert s["determinism"]["passed"] is True and s["inputs_intact"]["passed"] is True
    assert s["delegation"] == {"name": "delegation", "description": checks.CHECKS[1].description,
                               "checked": False, "passed": None, "message": "disabled by the request"}
    assert s["streams"]["checked"] is False  # GPU only


def test_failures_are_read_from_the_cases():
    cases = [case(), case(status="FAIL", deterministic=False, determinism_max_diff=0.5, inputs_unchanged=False)]
    details, summary = checks.run_all(checks.Evidence(cases, {"checked": True, "delegated": True,
                                                              "message": "torch did it"}, "cuda"))
    s = by_name(summary)
    assert s["determinism"]["passed"] is False and details["determinism"]["max_diff"] == 0.5
    assert s["inputs_intact"]["passed"] is False and "modified its inputs" in s["inputs_intact"]["message"]
    assert s["delegation"]["passed"] is False and s["delegation"]["message"] == "torch did it"
    assert s["streams"]["passed"] is True  # no case found unordered work


@pytest.fixture
def planted(monkeypatch):
    """A new check: one entry, failing whenever it sees a case."""
    entry = checks.Check("planted", "a check added by one registry entry",
                         lambda ev: {"checked": True, "passed": not ev.cases, "message": "planted failure"})
    monkeypatch.setattr(checks, "CHECKS", checks.CHECKS + [entry])


def test_one_entry_fails_the_run_and_names_itself(planted):
    out = finish([case(deterministic=True, inputs_unchanged=True)], TOL, NOT_RUN, PROBLEM)
    assert out["verdict"] == "FAIL" and out["culprit"] == "planted"
    assert out["message"] == "planted: planted failure"
    assert by_name(out["checks"])["planted"]["passed"] is False
    assert out["planted"]["message"] == "planted failure"


def test_a_passing_run_stays_pass_without_the_entry():
    out = finish([case(deterministic=True, inputs_unchanged=True)], TOL, NOT_RUN, PROBLEM)
    assert out["verdict"] == "PASS" and out["culprit"] is None and out["inputs_unchanged"] is True


def test_real_check_reports_the_registry(harness):
    res = harness(kernel=str(TEMPLATES / "gelu" / "v1_baseline.py"), op="gelu", device="cpu", trials=1,
                  shapes=SMALL, edge_shapes=False)
    validate(res)
    assert res["verdict"] == "PASS", res["message"]
    s = by_name(res["checks"])
    assert list(s) == [c.name for c in checks.CHECKS]
    assert s["determinism"]["passed"] and s["delegation"]["passed"] and s["inputs_intact"]["passed"]
    assert res["delegation"]["own_launches"] > 0  # the detail stays under the check's name
