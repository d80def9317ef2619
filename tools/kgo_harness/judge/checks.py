"""The checks a `check` run reports besides its per-case comparison: one entry each in CHECKS.

An entry turns what the run gathered (the finished cases, the delegation run, the device) into its detail
object, which the result carries under the entry's name, with at least `checked` (bool) and `message`, and
`passed` (True, False, or None when not checked). The result's `checks` list summarizes every entry as
{name, description, checked, passed, message}; a failed check makes the verdict FAIL and names itself as
the culprit when no case failed. kgo renders and records that list as it comes, so adding a check is one
entry here plus its tests (docs/howto/add-a-check.md)."""
from dataclasses import dataclass
from typing import Callable


@dataclass
class Evidence:
    cases: list        # the case reports of run_case (their per-case fields feed the checks)
    delegation: dict   # the delegation verdict from the observed calls (check.delegation), or its "not run" stand-in
    device: str        # "cuda" or "cpu"


@dataclass
class Check:
    name: str
    description: str                     # what it verifies, one line
    evaluate: Callable[[Evidence], dict]


CHECKS = []


def check(name, description):
    """Registers the decorated function as the check `name`."""
    def register(fn):
        CHECKS.append(Check(name, description, fn))
        return fn
    return register


@check("determinism", "two runs on the same inputs give bitwise-equal outputs")
def determinism(ev):
    nondet = [c for c in ev.cases if c.get("deterministic") is False]
    if nondet:
        return {"checked": True, "passed": False, "equal": False, "max_diff": nondet[0].get("determinism_max_diff"),
                "message": f"shape {nondet[0]['shape']} trial {nondet[0]['trial']}: two runs on the same inputs "
                           "differ (race or uninitialized read)"}
    if any(c.get("deterministic") for c in ev.cases):
        return {"checked": True, "passed": True, "equal": True, "max_diff": 0.0,
                "message": "two runs on the same inputs were bitwise equal"}
    return {"checked": False, "passed": None, "equal": None, "max_diff": None,
            "message": "not run (disabled or cases failed)"}


@check("delegation", "the kernel file's own GPU kernels do the work, not the torch op it replaces")
def delegation(ev):
    d = dict(ev.delegation)
    d["passed"] = None if not d.get("checked") else not d.get("delegated")
    return d


@check("streams", "the kernel's work is ordered on the caller's stream")
def streams(ev):
    if ev.device != "cuda":
        return {"checked": False, "passed": None, "ordered": None, "message": "GPU only"}
    unordered = [c for c in ev.cases if c.get("stream_ordered") is False]
    if unordered:
        return {"checked": True, "passed": False, "ordered": False, "message": unordered[0]["stream_message"]}
    return {"checked": True, "passed": True, "ordered": True,
            "message": "inputs published behind a delay on the caller's stream; outputs read in stream order"}


@check("inputs_intact", "the kernel leaves its input tensors unchanged")
def inputs_intact(ev):
    ran = [c for c in ev.cases if c.get("inputs_unchanged") is not None]
    changed = [c for c in ran if c["inputs_unchanged"] is False]
    if changed:
        return {"checked": True, "passed": False, "unchanged": False,
                "message": f"shape {changed[0]['shape']} trial {changed[0]['trial']}: the kernel modified its inputs"}
    if ran:
        return {"checked": True, "passed": True, "unchanged": True,
                "message": f"inputs compared after each of {len(ran)} case(s): unchanged"}
    return {"checked": False, "passed": None, "unchanged": None, "message": "not run (no case ran the kernel)"}


def run_all(ev):
    """({name: detail}, the `checks` summary list) of every registered check, in registration order."""
    details, summary = {}, []
    for c in CHECKS:
        d = c.evaluate(ev)
        details[c.name] = d
        summary.append({"name": c.name, "description": c.description, "checked": bool(d.get("checked")),
                        "passed": d.get("passed"), "message": d.get("message", "")})
    return details, summary
