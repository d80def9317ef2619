"""Request defaults, validation and the result skeleton of the harness protocol (PROTOCOL.md).
Standard library only: the supervisor imports this without torch."""
import json
import os
import pathlib

SCHEMA_DIR = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "harness"


def _load_schema(name):
    path = SCHEMA_DIR / name
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"kgo harness: cannot read {path} ({e}); the harness reads its protocol's names and "
                         "defaults from schemas/harness/, which must sit beside tools/ (reinstall kgo)")


# Every name and default shared with kgo is declared once, in schemas/harness/ (kgo's C++ gets
# core/harness_protocol.hpp generated from the same files); nothing here restates one.
_REQUEST = _load_schema("request.schema.json")["properties"]
_VERDICT = _load_schema("result.schema.json")["properties"]["verdict"]
PROTOCOL = _REQUEST["protocol"]["const"]
COMMANDS = tuple(_REQUEST["command"]["enum"])
CONTRACTS = tuple(_REQUEST["contract"]["enum"])
NEEDS_KERNEL = ("check", "bench", "run-once")

DEFAULTS = {k: v["default"] for k, v in _REQUEST.items() if "default" in v and k not in ("bench", "run_once")}
BENCH_DEFAULTS = {k: v["default"] for k, v in _REQUEST["bench"]["properties"].items()}
RUN_ONCE_DEFAULTS = {k: v["default"] for k, v in _REQUEST["run_once"]["properties"].items()}
# The defaults of one command where they differ from DEFAULTS ("x-kgo-by-command"; bench: the seed's sizes).
BY_COMMAND = {}
for _key, _prop in _REQUEST.items():
    for _cmd, _value in _prop.get("x-kgo-by-command", {}).items():
        BY_COMMAND.setdefault(_cmd, {})[_key] = _value
BENCH_SHAPES = BY_COMMAND["bench"]["shapes"]

class RequestError(Exception):
    """The request is invalid; the message names the field and the fix."""


def _schema_errors(request):
    try:
        import jsonschema
    except ImportError:
        return []
    schema = _load_schema("request.schema.json")
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator.iter_errors(request)]


def _basic_checks(request):
    """The checks that matter most, also where jsonschema is not installed."""
    enums = {key: tuple(_REQUEST[key]["enum"]) for key in ("contract", "device", "determinism", "isolate")}
    for key, allowed in enums.items():
        if key in request and request[key] not in allowed:
            raise RequestError(f"{key}: '{request[key]}' is not one of {', '.join(allowed)}")
    for key in ("trials", "case_timeout_s", "total_timeout_s", "load_timeout_s"):
        if key in request and request[key] is not None and (
                not isinstance(request[key], (int, float)) or request[key] <= 0):
            raise RequestError(f"{key}: must be a positive number, got {request[key]!r}")
    shapes = request.get("shapes", [])
    if not isinstance(shapes, list) or not all(
            isinstance(s, list) and s and all(isinstance(d, int) and d >= 1 for d in s) for s in shapes):
        raise RequestError("shapes: must be a list of non-empty lists of positive integers, e.g. [[4096, 4096]]")


def normalize(request, command=None):
    """Validates `request` and returns it with every default filled in. Raises RequestError."""
    if not isinstance(request, dict):
        raise RequestError("the request must be one JSON object")
    errors = _schema_errors(request)
    if errors:
        raise RequestError("invalid request: " + "; ".join(errors[:5]) +
                           " (see schemas/harness/request.schema.json)")
    _basic_checks(request)
    cmd = command or request.get("command")
    req = json.loads(json.dumps(DEFAULTS))  # a deep copy: no request shares a default's list or dict
    req.update(json.loads(json.dumps(BY_COMMAND.get(cmd, {}))))
    req.update(request)
    req["bench"] = {**BENCH_DEFAULTS, **request.get("bench", {})}
    req["run_once"] = {**RUN_ONCE_DEFAULTS, **request.get("run_once", {})}
    if request.get("command") and command and request["command"] != command:
        raise RequestError(f"request says command '{request['command']}' but the harness was run as "
                           f"'{command}'; drop the field or make them agree")
    if cmd not in COMMANDS:
        raise RequestError(f"unknown command '{cmd}'; use one of {', '.join(COMMANDS)}")
    req["command"] = cmd
    if req.get("protocol") != PROTOCOL:
        raise RequestError(f"protocol {req.get('protocol')} is not supported; this harness speaks {PROTOCOL}")
    if cmd in NEEDS_KERNEL:
        if not req.get("kernel"):
            raise RequestError(f"'{cmd}' needs \"kernel\": the path of kernel.py or kernel.cu")
        kernel = pathlib.Path(req["kernel"]).expanduser()
        if not kernel.is_file():
            raise RequestError(f"kernel file {kernel} does not exist; pass an existing kernel.py/kernel.cu")
        req["kernel"] = str(kernel.resolve())
        if req.get("reference"):
            ref = pathlib.Path(req["reference"]).expanduser()
            if not ref.is_file():
                raise RequestError(f"reference file {ref} does not exist; pass ref.py or null")
            req["reference"] = str(ref.resolve())
        if req.get("problem"):
            prob = pathlib.Path(req["problem"]).expanduser()
            if not prob.is_file():
                raise RequestError(f"problem file {prob} does not exist; pass the workspace's problem.py or null")
            req["problem"] = str(prob.resolve())
    if req["seed"] is None:
        # Drawn per request: a kernel that knew the inputs' seeds could prepare their answers before it is observed.
        import secrets
        req["seed"] = secrets.randbelow(2 ** 31 - 1)
    req["dtype_given"] = bool(request.get("dtype_given", "dtype" in request))
    req["shapes_given"] = bool(request.get("shapes_given", bool(request.get("shapes"))))
    if not req["shapes"]:  # an explicit [] means the command's default too
        req["shapes"] = json.loads(json.dumps(BY_COMMAND.get(cmd, {}).get("shapes", [])))
    req["args"] = {k: str(v) for k, v in req["args"].items()}
    return req


def parse_value(text):
    """'3' -> 3, '1e-5' -> 1e-5, 'true' -> True, anything else stays a string."""
    if not isinstance(text, str):
        return text
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def skeleton(command, req=None):
    req = req or {}
    return {"protocol": PROTOCOL, "command": command, "verdict": "ERROR", "message": "", "error": None,
            "kernel_sha256": None, "contract": None, "op": req.get("op"), "entry": req.get("entry"),
            "dtype": req.get("dtype"), "device": req.get("device"), "warnings": [],
            "worker": {"warm": False, "pid": None, "restarts": 0}, "timing": {}}


def error_result(command, message, req=None):
    res = skeleton(command if command in COMMANDS else "check", req)
    res["error"] = message
    res["message"] = message
    return res


# The verdicts, strongest first, with what each means: result.schema.json's "verdict" (enum, x-kgo-meanings).
VERDICTS = {v: _VERDICT["x-kgo-meanings"][v] for v in _VERDICT["enum"]}


def merge_verdicts(statuses):
    """The strongest verdict of VERDICTS among `statuses` (SKIPPED is ignored); PASS when none."""
    for v in VERDICTS:
        if v != "PASS" and v in statuses:
            return v
    return "PASS"


def cache_dir(req=None):
    """kgo's cache: the request's `cache_dir`, else $KGO_CACHE_DIR, else ~/.cache/kgo."""
    base = (req or {}).get("cache_dir") or os.environ.get("KGO_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "kgo")
    return pathlib.Path(base)


FATAL_MARKERS = ("illegal memory access", "illegal address", "misaligned address", "device-side assert",
                 "unspecified launch failure", "illegal instruction", "cuda error", "triton error [cuda]",
                 "cublas_status_execution_failed", "an illegal", "hardware stack error")


def is_cuda_fatal(exc):
    text = f"{type(exc).__name__}: {exc}".lower()
    return any(m in text for m in FATAL_MARKERS)


def case_seed(base, shape_index, trial):
    return (base * 1000003 + shape_index * 1009 + trial * 7919) % (2 ** 31 - 1)
