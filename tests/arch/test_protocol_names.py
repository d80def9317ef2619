"""One declaration per shared name: schemas/harness/ is the only place that declares the protocol version, the
verdicts, the contract names and the request defaults. kgo's C++ includes core/harness_protocol.hpp, generated from
it at build time (cmake/harness_protocol.py); the Python harness reads it (tools/kgo_harness/protocol.py). These tests
fail when either side writes a verdict, a contract name, a request field or a protocol version the schema lacks."""
import ast
import json
import os
import pathlib
import re
import subprocess
import sys

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SCHEMAS = SOURCE_DIR / "schemas" / "harness"
REQUEST = json.loads((SCHEMAS / "request.schema.json").read_text())["properties"]
RESULT = json.loads((SCHEMAS / "result.schema.json").read_text())
CPP_FOLDERS = ["core", "experience", "gpu-wiki-index", "specs", "roofline", "iterate", "harness", "profiling",
               "report", "sweep", "cli"]
PYTHON_HARNESS = SOURCE_DIR / "tools" / "kgo_harness"
# Harness modules whose `req` is not a protocol request.
NOT_A_REQUEST = {"zygote.py": "its req is the judge's order to the template process to fork a kernel process"}


def schema_enums_with(schema, member):
    """Every enum in `schema` that lists `member`."""
    found = []
    if isinstance(schema, dict):
        if member in schema.get("enum", []):
            found.append(schema["enum"])
        for v in schema.values():
            found += schema_enums_with(v, member)
    elif isinstance(schema, list):
        for v in schema:
            found += schema_enums_with(v, member)
    return found


VERDICTS = set(RESULT["properties"]["verdict"]["enum"])
STATUSES = {name for enum in schema_enums_with(RESULT, "PASS") for name in enum}  # verdicts and case statuses
CONTRACTS = set(REQUEST["contract"]["enum"])
FIELDS = set(REQUEST)


def sources():
    """(path, text, language) of every C++ source of kgo and every module of the Python harness."""
    for folder in CPP_FOLDERS:
        for path in sorted((SOURCE_DIR / folder).rglob("*")):
            if path.suffix in (".cpp", ".hpp") and "wiki" not in path.relative_to(SOURCE_DIR / folder).parts[:1]:
                yield path, path.read_text(errors="replace"), "cpp"
    for path in sorted(PYTHON_HARNESS.glob("*.py")):
        yield path, path.read_text(errors="replace"), "py"


def code_lines(text, language):
    """Lines without their comments (a comment may name anything)."""
    marker = "//" if language == "cpp" else "#"
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', lambda m: m.group(0).replace(marker, "\0"), line)
        cut = code.find(marker)
        yield number, (line[:cut] if cut >= 0 else line)


STRING = r'["\']([^"\'\\]*)["\']'
# `verdict == "X"`, `r.verdict = "X"`, `["verdict"] in ("X", "Y")`, `"verdict": "X"`; in the harness also a
# case's `status != "X"` (kgo's own statuses, such as kgo ops' GAVE_UP, are not the harness's).
VERDICT_USE = re.compile(r'verdict\w*["\'\]]*\s*(?:==|!=|=|:|\s+(?:not\s+)?in)\s*[\(\[{]?\s*((?:' + STRING +
                         r'\s*,?\s*)+)', re.I)
STATUS_USE = re.compile(VERDICT_USE.pattern.replace("verdict", "(?:verdict|status)", 1), re.I)
CONTRACT_USE = re.compile(r'contract\w*["\'\]]*\s*(?:==|!=|=|:|\s+(?:not\s+)?in)\s*[\(\[{]?\s*((?:' + STRING +
                          r'\s*,?\s*)+)')
# A request field written by kgo (req["x"] = ..., request["x"] = ...) or read by the harness (req["x"], req.get("x")).
CPP_REQUEST_FIELD = re.compile(r'\b(?:req|request|call\.request)\[\s*"([^"]+)"\s*\]\s*=[^=]')
PY_REQUEST_FIELD = re.compile(r'\b(?:req|request|self\.req)(?:\[\s*["\']([^"\']+)["\']\s*\]|\.get\(\s*["\']([^"\']+)["\'])')
PROTOCOL_LITERAL = re.compile(r'(?:["\']protocol["\']\s*[\]:,]\s*=?\s*|\bPROTOCOL\s*=\s*|\bkVersion\s*=\s*)\d')


def literals(group):
    return re.findall(STRING, group)


def uses(pattern, predicate, python_pattern=None):
    """'path:line: name' for every name a use of `pattern` (in Python: `python_pattern`, if given) writes that
    `predicate` rejects."""
    bad = []
    for path, text, language in sources():
        for number, line in code_lines(text, language):
            for m in (python_pattern or pattern if language == "py" else pattern).finditer(line):
                bad += [f"{path.relative_to(SOURCE_DIR)}:{number}: {name}" for name in literals(m.group(1))
                        if not predicate(name)]
    return bad


def looks_like_verdict(name):
    return re.fullmatch(r"[A-Z][A-Z_]{2,}", name) is not None


def test_every_verdict_either_side_writes_is_in_the_result_schema():
    bad = uses(VERDICT_USE, lambda name: not looks_like_verdict(name) or name in STATUSES, STATUS_USE)
    assert not bad, ("verdicts the result schema lacks (add them to schemas/harness/result.schema.json's verdict "
                     "enum and x-kgo-meanings, or use an existing one):\n" + "\n".join(bad))


def test_every_contract_either_side_names_is_in_the_request_schema():
    bad = uses(CONTRACT_USE, lambda name: name in CONTRACTS or not re.fullmatch(r"[a-z][a-z0-9-]*", name))
    adapters = ast.parse((PYTHON_HARNESS / "formats" / "formats.py").read_text())
    for node in ast.walk(adapters):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ADAPTERS" for t in node.targets):
            bad += [f"tools/kgo_harness/formats/formats.py: ADAPTERS: {k.value}" for k in node.value.keys
                    if k.value not in CONTRACTS]
    assert not bad, ("contract names the request schema lacks (add them to schemas/harness/request.schema.json's "
                     "contract enum):\n" + "\n".join(bad))


def test_every_request_field_either_side_uses_is_in_the_request_schema():
    bad = []
    for path, text, language in sources():
        if path.name in NOT_A_REQUEST:
            continue
        pattern = CPP_REQUEST_FIELD if language == "cpp" else PY_REQUEST_FIELD
        for number, line in code_lines(text, language):
            for m in pattern.finditer(line):
                name = next(g for g in m.groups() if g)
                # "_x": the harness's own bookkeeping between its processes, never on the wire from kgo.
                if name not in FIELDS and not name.startswith("_"):
                    bad.append(f"{path.relative_to(SOURCE_DIR)}:{number}: {name}")
    assert not bad, ("request fields the request schema lacks (declare them, with their default, in "
                     "schemas/harness/request.schema.json):\n" + "\n".join(bad))


# `req.get("device", "cpu")`: a fallback that restates a default.
PY_FALLBACK = re.compile(r'\b(?:req|request|self\.req)\.get\(\s*["\']([^"\']+)["\']\s*,\s*([^()]+?)\s*\)')


def test_no_harness_fallback_contradicts_a_schema_default():
    bad = []
    for path, text, language in sources():
        if language != "py" or path.name in NOT_A_REQUEST:
            continue
        for number, line in code_lines(text, language):
            for m in PY_FALLBACK.finditer(line):
                key, fallback = m.group(1), m.group(2)
                if "default" not in REQUEST.get(key, {}):
                    continue
                try:
                    value = ast.literal_eval(fallback)
                except (ValueError, SyntaxError):
                    continue  # a name, not a literal
                if value != REQUEST[key]["default"]:
                    bad.append(f"{path.relative_to(SOURCE_DIR)}:{number}: {key} falls back to {value!r}, the schema "
                               f"says {REQUEST[key]['default']!r}")
    assert not bad, "harness fallbacks that contradict the request schema's defaults:\n" + "\n".join(bad)


def test_no_side_writes_the_protocol_version_as_a_number():
    bad = []
    for path, text, language in sources():
        for number, line in code_lines(text, language):
            if PROTOCOL_LITERAL.search(line):
                bad.append(f"{path.relative_to(SOURCE_DIR)}:{number}: {line.strip()}")
    assert not bad, ("the protocol version written as a literal (use protocol::kVersion in C++, protocol.PROTOCOL "
                     "in Python; both read schemas/harness/request.schema.json):\n" + "\n".join(bad))


def test_the_harness_fills_exactly_the_schema_defaults():
    """Python's normalized request: every default is the schema's (x-kgo-by-command where it applies), and it
    adds no field the schema lacks."""
    sys.path.insert(0, str(SOURCE_DIR / "tools"))
    try:
        from kgo_harness import protocol
    finally:
        sys.path.pop(0)
    for command in ("check", "bench", "run-once", "env"):
        req = protocol.normalize({"command": command} if command == "env" else
                                 {"command": command, "kernel": str(SOURCE_DIR / "examples" / "softmax" / "kernel.py")})
        assert set(req) <= FIELDS, f"{command}: fields the schema lacks: {sorted(set(req) - FIELDS)}"
        for key, prop in REQUEST.items():
            if "default" not in prop or prop.get("type") == "object" and "properties" in prop and key != "tools":
                continue
            if prop.get("x-kgo-drawn"):   # null in the schema: the harness draws one for each request
                assert prop["default"] is None and isinstance(req[key], int), (key, req[key])
                continue
            expected = prop.get("x-kgo-by-command", {}).get(command, prop["default"])
            assert req[key] == expected, f"{command}: {key} defaults to {req[key]!r}, the schema says {expected!r}"
        for group in ("bench", "run_once"):
            for key, prop in REQUEST[group]["properties"].items():
                assert req[group][key] == prop["default"], f"{group}.{key}: {req[group][key]!r} != {prop['default']!r}"
    assert list(protocol.VERDICTS) == RESULT["properties"]["verdict"]["enum"]
    assert protocol.PROTOCOL == REQUEST["protocol"]["const"] == RESULT["properties"]["protocol"]["const"]


def test_the_generated_header_declares_the_schema_names(tmp_path):
    header = tmp_path / "core" / "harness_protocol.hpp"
    subprocess.run([sys.executable, str(SOURCE_DIR / "cmake" / "harness_protocol.py"), str(SCHEMAS), str(header)],
                   check=True)
    text = header.read_text()
    assert f"kVersion = {REQUEST['protocol']['const']};" in text
    for array, names in (("kVerdicts", RESULT["properties"]["verdict"]["enum"]), ("kContracts", REQUEST["contract"]["enum"])):
        line = next(l for l in text.splitlines() if f" {array} = " in l)
        assert re.findall(r'"([^"]+)"', line) == names
    assert "case_timeout_s = 30.0;" in text and "total_timeout_s = 600.0;" in text


def test_the_scans_catch_a_name_the_schema_lacks():
    """The patterns above find what they must (an attack on each)."""
    assert [literals(m.group(1)) for m in VERDICT_USE.finditer('if (r.verdict == "BOGUS") {')] == [["BOGUS"]]
    assert [literals(m.group(1)) for m in VERDICT_USE.finditer('if res["verdict"] in ("CRASH", "HANG"):')] == \
        [["CRASH", "HANG"]]
    assert [literals(m.group(1)) for m in CONTRACT_USE.finditer('t.contract = "triton-new";')] == [["triton-new"]]
    assert CPP_REQUEST_FIELD.search('req["wall_limit_s"] = 5;').group(1) == "wall_limit_s"
    assert PY_REQUEST_FIELD.search('limit = req.get("wall_limit_s")').group(2) == "wall_limit_s"
    assert PROTOCOL_LITERAL.search('request["protocol"] = 2;') and PROTOCOL_LITERAL.search("PROTOCOL = 2")
    assert PROTOCOL_LITERAL.search('{"protocol", 1}') and not PROTOCOL_LITERAL.search('{"protocol", kVersion}')
    m = PY_FALLBACK.search('device = req.get("device", "cpu")')
    assert (m.group(1), ast.literal_eval(m.group(2))) == ("device", "cpu")
