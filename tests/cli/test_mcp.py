"""`kgo mcp` driven by the official MCP Python SDK client (`mcp` from PyPI): handshake, tool
schemas, every answer validated by the client against its outputSchema, the full CPU loop,
progress notifications and cancellation."""
# ctest-cost: 11
import asyncio
import json
import os
import pathlib
import re
import subprocess
import time

import jsonschema
import pytest

from conftest import KGO_BIN, SOURCE_DIR, WARM, git
from planted import GOOD, REF, sleeper, wrong

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

CPU_CHECK = {"device": "cpu", "shape": ["8x33"], "no_edge_shapes": True, "trials": 1}


def server(workspace=None, cwd=None, mark=None, tmpdir=None):
    """`kgo mcp`. With `mark`: no warm daemon and no judges' template, so every process it starts is its
    descendant and inherits its environment, `mark` put there to find them. Without: its checks go through the
    suite's warm harness (as `run_kgo`'s do; a judge start is about 2 s of CPU), where one runs."""
    args = ["mcp"] + (["--workspace", str(workspace)] if workspace else [])
    env = {"KGO_DATA_DIR": str(SOURCE_DIR), "KGO_HARNESS_DAEMON": "0", "PATH": os.environ["PATH"],
           "HOME": os.environ.get("HOME", "/tmp")}
    if mark:
        env.update(KGO_TEST_MARK=mark, KGO_JUDGE_FORK="0")
    else:
        env.update(WARM.env(["check"]) or {})
    if tmpdir:
        env["TMPDIR"] = str(tmpdir)
    return StdioServerParameters(command=str(pathlib.Path(KGO_BIN).resolve()), args=args, env=env, cwd=str(cwd) if cwd else None)


async def call(client, name, args=None, **kw):
    """Calls a tool; the SDK client itself validates a non-error answer against outputSchema."""
    r = await client.call_tool(name, args or {}, **kw)
    assert r.content and r.content[0].type == "text"
    return r


def run(coro):
    return asyncio.run(coro)


def test_handshake_and_tool_schemas():
    async def go():
        async with Client(server()) as client:
            assert client.server_info.name == "kgo"
            assert client.protocol_version in ("2025-11-25", "2025-06-18")
            tools = (await client.list_tools()).tools
            names = {t.name for t in tools}
            for n in ["init", "status", "next", "wiki_lookup", "wiki_index", "spec_add", "spec_auto", "roofline", "check", "bench",
                      "profile", "baseline", "plan_new", "propose", "reject", "memory_read", "memory_list",
                      "memory_mask", "memory_unmask", "restart", "audit", "get_overview", "check_gpu_status",
                      "get_triton_syntax", "get_torch_op_info", "get_kernel_template",
                      "run_triton_kernel", "validate_correctness", "benchmark_kernel"]:
                assert n in names, n
            for t in tools:
                jsonschema.Draft202012Validator.check_schema(t.input_schema)
                jsonschema.Draft202012Validator.check_schema(t.output_schema)
                assert t.output_schema["type"] == "object" and t.input_schema["type"] == "object"
            # a refusal is a result with isError, naming the fix, not a protocol error
            r = await call(client, "status", {"workspace": "/nonexistent"})
            assert r.is_error and r.structured_content["exit_code"] == 8
            r = await call(client, "check", {"bogus": 1})
            assert r.is_error and "unknown argument 'bogus'" in r.structured_content["error"]
            n = await call(client, "next", {})
            assert n.structured_content["state"] == "init" and n.structured_content["tool"] == "init"
    run(go())


def test_full_cpu_loop(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "kernel.py").write_text(GOOD)
    (src / "wrong.py").write_text(wrong())
    ws = tmp_path / "kernel_opt_softmax"

    async def go():
        async with Client(server(cwd=tmp_path)) as client:
            r = await call(client, "init", {"name": "softmax", "kernel": str(src / "kernel.py"), "platform": "H100",
                                            "reference": str(REF), "shape": ["8x33"], "dir": str(tmp_path)})
            assert not r.is_error, r.structured_content
            w = {"workspace": str(ws)}
            assert (await call(client, "next", w)).structured_content["tool"] == "spec_auto"
            assert not (await call(client, "spec_auto", w)).is_error
            assert (await call(client, "next", w)).structured_content["tool"] == "roofline"
            dry = await call(client, "roofline", {**w, "op": "softmax", "dry_run": True})
            assert not dry.is_error and not (ws / "roofline.json").exists()
            assert not (await call(client, "roofline", {**w, "op": "softmax"})).is_error
            assert (await call(client, "next", w)).structured_content["tool"] == "baseline"
            b = await call(client, "baseline", {**w, "device": "cpu", "shape": ["8x33"], "trials": 1})
            assert not b.is_error, b.structured_content
            n = (await call(client, "next", w)).structured_content
            assert n["state"] == "correct_only" and n["terminal"] and n["tool"] == "report", n  # a CPU session's end
            p = await call(client, "plan_new", {**w, "description": "same kernel, proposed again"})
            assert not p.is_error and (ws / "memory" / "v1.json").exists(), p.structured_content
            fill_plan(ws, 1)
            assert (await call(client, "next", w)).structured_content["tool"] == "propose"
            good = await call(client, "propose", {**w, **CPU_CHECK})
            assert good.structured_content["verdict"] == "accepted", good.structured_content
            assert "same kernel, proposed again" in git("log", "-3", "--format=%B", cwd=ws).stdout
            await call(client, "plan_new", {**w, "description": "a wrong normalization"})
            fill_plan(ws, 2)
            bad = await call(client, "propose", {**w, **CPU_CHECK, "kernel": str(src / "wrong.py")})
            s = bad.structured_content
            assert s["verdict"] == "rejected" and s["check"] == "FAIL" and s["version"] == "v2"
            assert (ws / "kernel.py").read_text() == GOOD  # the accepted kernel is back
            assert not (await call(client, "memory_mask", {**w, "versions": ["v2"]})).is_error
            lst = await call(client, "memory_list", w)
            assert not lst.is_error
            audit = await call(client, "audit", w)
            assert not audit.is_error, audit.structured_content
        async with Client(server(workspace=ws)) as client:  # resources are the server's workspace's
            uris = [str(x.uri) for x in (await client.list_resources()).resources]
            assert "kgo://memory/v1" in uris and "kgo://readme/stop-conditions" in uris
            assert not [u for u in uris if " " in u]
            text = (await client.read_resource("kgo://memory/v2")).contents[0].text
            assert '"masked":true' in text
    run(go())


def raw_answer(*requests):
    """The server's JSON-RPC answers (by id) to `requests`, sent after the handshake, as the raw lines."""
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    msgs += [{"jsonrpc": "2.0", "id": i + 1, **r} for i, r in enumerate(requests)]
    env = {"KGO_DATA_DIR": str(SOURCE_DIR), "KGO_HARNESS_DAEMON": "0", "PATH": os.environ["PATH"]}
    p = subprocess.run([str(pathlib.Path(KGO_BIN).resolve()), "mcp"], input="".join(json.dumps(m) + "\n" for m in msgs),
                       capture_output=True, text=True, env=env, timeout=120)
    return {json.loads(line)["id"]: line for line in p.stdout.splitlines() if line.strip()}


def test_tools_list_is_bounded_and_every_answer_fits_its_schema(tmp_path):
    size = len(raw_answer({"method": "tools/list"})[1])
    assert size <= 40000, size

    async def go():
        async with Client(server(cwd=tmp_path)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for n in ["plan_check", "report", "iterate_verify", "memory_create"]:
                assert n in tools, n
            refusals = [("status", {"workspace": str(tmp_path / "none")}), ("check", {"bogus": 1}),
                        ("validate_correctness", {"kernel_code": "x = 1"}), ("plan_check", {"workspace": str(tmp_path)}),
                        ("get_kernel_template", {"pattern": "stencil"}), ("report", {"workspace": str(tmp_path)})]
            for name, args in refusals:
                r = await call(client, name, args)
                assert r.is_error, (name, r.structured_content)
                jsonschema.validate(r.structured_content, tools[name].output_schema)
            full = json.loads((await client.read_resource("kgo://schemas/cli/check.schema.json")).contents[0].text)
            assert "$defs" in full and full["properties"]["verdict"]
    run(go())


# Tools whose command is not their name with '_' read as ' '; the seed's own arguments are not kgo options.
TOOL_COMMANDS = {"reject": "iterate reject", "get_overview": "next", "get_triton_syntax": "guide triton",
                 "get_torch_op_info": "guide op", "get_kernel_template": "guide template", "check_gpu_status": "env",
                 "run_triton_kernel": "check", "validate_correctness": "check", "benchmark_kernel": "bench"}
SEED_ARGUMENTS = {"workspace", "code", "kernel_code", "test_input_code", "reference_code", "entry_function", "rtol",
                  "atol", "warmup", "rep", "op_name", "pattern"}


def help_lines(command):
    """`kgo COMMAND --help` as {flag or positional name: its line}."""
    r = subprocess.run([KGO_BIN, *command.split(), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = {}
    for line in r.stdout.splitlines():
        words = line.split()
        if line.startswith("  ") and words:
            lines[words[0].split(",")[-1]] = line
    return lines


def test_every_tool_argument_is_its_commands_option_as_help_shows_it():
    tools = json.loads(raw_answer({"method": "tools/list"})[1])["result"]["tools"]
    checked = 0
    for tool in tools:
        command = TOOL_COMMANDS.get(tool["name"], tool["name"].replace("_", " "))
        options = help_lines(command)
        schema = tool["inputSchema"]
        for name, prop in schema["properties"].items():
            if name in SEED_ARGUMENTS:
                continue
            flag = "--" + name.replace("_", "-")
            line = options.get(flag) or options.get(name)
            assert line, f"{tool['name']}: argument {name} is no option of `kgo {command}`"
            words = line.split()
            typed = len(words) > 1 and re.match(r"(TEXT|INT|UINT|FLOAT|NUMBER|BOOLEAN|PATH)\b", words[1])
            repeated = bool(typed) and len(words) > 2 and words[2] == "..."
            assert (prop["type"] == "boolean") == (not typed), (tool["name"], name, line)
            assert (prop["type"] == "array") == repeated, (tool["name"], name, line)
            kind = prop["items"]["type"] if prop["type"] == "array" else prop["type"]
            assert (kind == "number") == words[1].startswith("FLOAT"), (tool["name"], name, line)
            assert (name in schema.get("required", [])) <= ("REQUIRED" in line), (tool["name"], name, line)
            checked += 1
    assert checked >= 60, checked


def test_answers_name_mcp_arguments_and_resources_need_no_server_workspace(workspace, tmp_path):
    async def go():
        async with Client(server(cwd=tmp_path)) as client:  # no --workspace, started outside it
            w = {"workspace": str(workspace)}
            r = await call(client, "wiki_index", {"limit": 1})
            detail = r.structured_content["detail"]
            assert "limit=" in detail and "--limit" not in detail and "--detail" not in detail, detail
            r = await call(client, "plan_check", w)  # no plan yet: the fix names the tool
            assert r.is_error and "plan_new" in r.structured_content["error"], r.structured_content
            assert "kgo plan new" not in r.structured_content["error"]
            uris = [str(x.uri) for x in (await client.list_resources()).resources]
            assert "kgo://readme/stop-conditions" in uris and not [u for u in uris if " " in u], uris
            text = (await client.read_resource("kgo://readme/stop-conditions")).contents[0].text
            assert text.strip()
    run(go())


SEED_KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    tl.store(c_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


def solve(a, b):
    c = torch.empty_like(a)
    N = a.numel()
    add_kernel[(triton.cdiv(N, 256),)](a, b, c, N, BLOCK=256)
    return c
"""
SEED_INPUTS = "import torch\na = torch.randn(1000, device='cuda')\nb = torch.randn(1000, device='cuda')\nargs = [a, b]\nkwargs = {}\n"
SEED_REFERENCE = "import torch\n\n\ndef reference(a, b):\n    return a + b\n"


def test_the_seeds_tools_take_the_seeds_arguments(tmp_path):
    """The calls an agent prompted for opus24/mcp-for-triton-kernel makes, with that server's argument names."""
    async def go():
        async with Client(server(cwd=tmp_path, tmpdir=tmp_path)) as client:
            op = await call(client, "get_torch_op_info", {"op_name": "softmax"})
            assert not op.is_error and "softmax" in json.dumps(op.structured_content)
            for pattern in ["elementwise", "reduction", "matmul", "fused"]:
                t = await call(client, "get_kernel_template", {"pattern": pattern})
                assert not t.is_error, (pattern, t.structured_content)
            run_ = await call(client, "run_triton_kernel", {"code": SEED_KERNEL, "test_input_code": SEED_INPUTS})
            assert not run_.is_error and run_.structured_content["verdict"] == "PASS", run_.structured_content
            good = await call(client, "validate_correctness", {"kernel_code": SEED_KERNEL, "reference_code": SEED_REFERENCE,
                                                               "test_input_code": SEED_INPUTS, "rtol": 1e-5, "atol": 1e-8})
            assert good.structured_content["verdict"] == "PASS", good.structured_content
            wrong = SEED_KERNEL.replace("+ tl.load(b_ptr", "- tl.load(b_ptr")
            bad = await call(client, "validate_correctness", {"kernel_code": wrong, "reference_code": SEED_REFERENCE,
                                                              "test_input_code": SEED_INPUTS})
            assert bad.structured_content["verdict"] == "FAIL", bad.structured_content
            bench = await call(client, "benchmark_kernel", {"kernel_code": SEED_KERNEL, "test_input_code": SEED_INPUTS,
                                                            "reference_code": SEED_REFERENCE, "warmup": 2, "rep": 3})
            assert bench.structured_content.get("exit_code") in (None, 23), bench.structured_content
        assert not list(tmp_path.glob("kgo-mcp-*"))  # scratch workspaces are removed
    run(go())


def fill_plan(ws, n):
    """The agent's part: fill the plan kgo wrote (accept refuses an empty one)."""
    from iteration_helpers import write_plan
    write_plan(ws, n)


def descendants(pid):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout.split()
    pairs = list(zip(map(int, out[::2]), map(int, out[1::2])))
    tree, grew = {pid}, True
    while grew:
        grew = False
        for p, pp in pairs:
            if pp in tree and p not in tree:
                tree.add(p)
                grew = True
    return tree - {pid}


def test_progress_and_cancellation_leave_no_process(workspace):
    (workspace / "kernel.py").write_text(sleeper())
    w = {"workspace": str(workspace)}

    async def go():
        progress = []

        async def on_progress(p, total, message):
            progress.append((p, message))

        async with Client(server(mark=mark)) as client:
            import anyio
            with anyio.move_on_after(4):
                await client.call_tool("check", {**w, **CPU_CHECK}, progress_callback=on_progress)
            # move_on_after cancels the request: the SDK sends notifications/cancelled
            await anyio.sleep(1.5)
            return progress

    # The server's processes carry this mark in their environment, so tests running beside this one (their
    # own kgo and harness processes) are not counted.
    mark = f"mcp-cancel-{os.getpid()}-{time.time_ns()}"
    progress = run(go())
    assert progress and all("check:" in m for _, m in progress)
    assert [p for p, _ in progress] == sorted(p for p, _ in progress)
    time.sleep(0.5)
    leftovers = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            environ = pathlib.Path(f"/proc/{pid}/environ").read_bytes()
            cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if f"KGO_TEST_MARK={mark}".encode() in environ.split(b"\0"):
            leftovers.append(cmd)
    assert not leftovers, leftovers


def test_seed_reference_tools_answer_from_kgo_data():
    """get_triton_syntax, get_torch_op_info, get_kernel_template: kgo's catalog and templates, validated by the
    client against their outputSchema; bad input is an isError result naming the choices."""
    async def go():
        async with Client(server()) as client:
            r = await call(client, "get_torch_op_info", {"op": "layernorm"})
            assert not r.is_error
            info = r.structured_content
            assert info["op"] == "layer_norm" and "layernorm" in info["aliases"] and info["entry"] == "triton_layer_norm"
            assert info["reference"] == (SOURCE_DIR / "templates" / "ops" / "layer_norm" / "ref.py").read_text()
            assert info["harness"]["signature"] == "triton_layer_norm(x, weight, bias, eps)"
            # An op with generic templates has no ref.py of its own: the harness's table gives its arguments.
            r = await call(client, "get_torch_op_info", {"op_name": "mv"})
            info = r.structured_content
            assert info["op"] == "matvec" and info["templates"] == "generic" and info["reference"] is None, info
            h = info["harness"]
            assert h["signature"] == "triton_matvec(a, x)" and h["inputs"].startswith("a, x ~ N(0,1)"), info
            assert h["torch_reference"] == "torch.mv(a, x)" and "[M, K]" in h["shape_meaning"], info
            r = await call(client, "get_kernel_template", {"op": "softmax", "variant": "v3"})
            t = r.structured_content
            assert t["variant"] == "v3_coalesced" and not t["generic"]
            assert t["text"] == (SOURCE_DIR / "templates" / "ops" / "softmax" / "v3_coalesced.py").read_text()
            r = await call(client, "get_kernel_template", {"op": "gelu_tanh"})  # no templates of its own
            assert r.structured_content["generic"] and "triton_gelu_tanh" in r.structured_content["text"]
            assert "{{" not in r.structured_content["text"]
            r = await call(client, "get_triton_syntax", {})
            topics = r.structured_content["topics"]
            assert "load_store" in topics and r.structured_content["topic"] is None
            r = await call(client, "get_triton_syntax", {"topic": "masks"})
            assert "mask" in r.structured_content["text"] and r.structured_content["topic"] == "masks"
            r = await call(client, "get_triton_syntax", {"topic": "nope"})
            assert r.is_error and "load_store" in r.structured_content["error"]
            r = await call(client, "get_torch_op_info", {"op": "nope"})
            assert r.is_error and r.structured_content["exit_code"] == 3 and "softmax" in r.structured_content["error"]
            r = await call(client, "get_kernel_template", {"op": "softmax", "variant": "v9"})
            assert r.is_error and "v4_optimized" in r.structured_content["error"]
            r = await call(client, "get_torch_op_info", {})
            assert r.is_error and "argument 'op' (or the seed's op_name) is required" in r.structured_content["error"]
    run(go())


def test_bounded_tools_take_the_cli_bounds(workspace):
    """status, memory_list and wiki_index through MCP: the CLI's limits and filters, and the note saying
    what was left out; each answer validated by the client against its outputSchema."""
    for _ in range(4):
        assert subprocess.run([KGO_BIN, "memory", "create", "--workspace", str(workspace)], capture_output=True,
                              env={**os.environ, "KGO_DATA_DIR": str(SOURCE_DIR)}).returncode == 0

    async def go():
        async with Client(server(workspace=workspace)) as client:
            s = (await call(client, "status", {"limit": 2, "part": ["records"]})).structured_content
            assert [r["version"] for r in s["records"]] == ["v2", "v3"] and s["left_out"] == {"records": 2}
            assert "limit=N" in s["detail"] and "config" not in s
            full = (await call(client, "status", {"detail": True})).structured_content
            assert len(full["records"]) == 4 and "left_out" not in full
            lst = (await call(client, "memory_list", {"limit": 1})).structured_content
            assert [r["version"] for r in lst["records"]] == ["v3"] and lst["left_out"] == {"older records": 3}
            w = (await call(client, "wiki_index", {"platform": "H100", "metric": "hbm_bandwidth"})).structured_content
            assert w["matched"] == len(w["facts"]) >= 1
            assert all(f["product"] == "H100 SXM" and f["metric"] == "hbm_bandwidth" for f in w["facts"])
            some = (await call(client, "wiki_index", {"limit": 3})).structured_content
            assert len(some["facts"]) == 3 and some["left_out"] == {"facts": some["matched"] - 3}
            bad = await call(client, "wiki_index", {"kind": "rumour"})
            assert bad.is_error and "datasheet, measured or notes" in bad.structured_content["error"]
    run(go())
