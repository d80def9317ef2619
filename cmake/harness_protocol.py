"""Writes core/harness_protocol.hpp from schemas/harness/{request,result}.schema.json, the one declaration of the
names kgo and the Python harness share: the protocol version, the commands, the verdicts (strongest first), the
contracts, every request default with a scalar value, and the per-command defaults (the seed's bench sizes).
Run by CMake at build time: python3 harness_protocol.py SCHEMA_DIR OUTPUT."""
import json
import pathlib
import re
import sys


def cpp_name(key):
    name = re.sub(r"[^0-9A-Za-z_]", "_", key)
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise SystemExit(f"harness_protocol.py: '{key}' cannot be a C++ name")
    return name


def literal(value):
    """(C++ type, C++ literal) of a scalar JSON value, or None for null, arrays and objects."""
    if isinstance(value, bool):
        return "bool", "true" if value else "false"
    if isinstance(value, int):
        return "long long", str(value)
    if isinstance(value, float):
        return "double", repr(value)
    if isinstance(value, str):
        return "std::string_view", json.dumps(value)
    return None


def names(array_name, values):
    quoted = ", ".join(json.dumps(v) for v in values)
    return f"inline constexpr std::array<std::string_view, {len(values)}> {array_name} = {{{quoted}}};"


def shapes(array_name, value):
    rank = {len(s) for s in value}
    if len(rank) != 1:
        raise SystemExit(f"harness_protocol.py: {array_name}: shapes of mixed rank {sorted(rank)}")
    rows = ", ".join("{" + ", ".join(str(d) for d in s) + "}" for s in value)
    return (f"inline constexpr std::array<std::array<long long, {rank.pop()}>, {len(value)}> {array_name} = {{{{{rows}}}}};\n"
            f'inline constexpr std::string_view {array_name}_text = "{" ".join("x".join(map(str, s)) for s in value)}";')


def defaults(lines, properties):
    """The scalar defaults of `properties`; an object property with properties of its own (bench, run_once)
    becomes a nested namespace."""
    for key, prop in properties.items():
        if "default" in prop and literal(prop["default"]):
            ctype, lit = literal(prop["default"])
            lines.append(f"inline constexpr {ctype} {cpp_name(key)} = {lit};")
        elif prop.get("type") == "object" and "properties" in prop and key != "tools":
            lines.append(f"namespace {cpp_name(key)} {{")
            defaults(lines, prop["properties"])
            lines.append(f"}}  // namespace {cpp_name(key)}")


def render(request, result):
    props = request["properties"]
    verdict = result["properties"]["verdict"]
    if set(verdict["enum"]) != set(verdict.get("x-kgo-meanings", {})):
        raise SystemExit("harness_protocol.py: result verdict enum and x-kgo-meanings name different verdicts")
    lines = ["#pragma once",
             "// Generated at build time by cmake/harness_protocol.py from schemas/harness/: do not edit. The names and",
             "// defaults kgo shares with the Python harness (tools/kgo_harness/protocol.py reads the same schemas).",
             "#include <array>", "#include <string_view>", "", "namespace kgo::protocol {", "",
             f"inline constexpr int kVersion = {props['protocol']['const']};",
             names("kCommands", props["command"]["enum"]),
             "// Strongest first.", names("kVerdicts", verdict["enum"]),
             "// What a request's \"contract\" may name (\"auto\": the harness detects it).",
             names("kContracts", props["contract"]["enum"]), "",
             "// Every request default with a scalar value (request.schema.json's \"default\").",
             "namespace request_default {"]
    defaults(lines, props)
    lines += ["}  // namespace request_default", ""]
    by_command = {}
    for key, prop in props.items():
        for command, value in prop.get("x-kgo-by-command", {}).items():
            by_command.setdefault(command, []).append((key, value))
    for command, items in sorted(by_command.items()):
        lines.append(f"// The defaults of \"{command}\" requests where they differ (x-kgo-by-command).")
        lines.append(f"namespace command_default::{cpp_name(command)} {{")
        for key, value in items:
            if key == "shapes":
                lines.append(shapes("shapes", value))
            elif literal(value):
                ctype, lit = literal(value)
                lines.append(f"inline constexpr {ctype} {cpp_name(key)} = {lit};")
            else:
                raise SystemExit(f"harness_protocol.py: {command}.{key}: no C++ form for {value!r}")
        lines.append(f"}}  // namespace command_default::{cpp_name(command)}")
        lines.append("")
    lines += ["}  // namespace kgo::protocol", ""]
    return "\n".join(lines)


def main():
    schema_dir, output = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    request = json.loads((schema_dir / "request.schema.json").read_text())
    result = json.loads((schema_dir / "result.schema.json").read_text())
    if request["properties"]["protocol"]["const"] != result["properties"]["protocol"]["const"]:
        raise SystemExit("harness_protocol.py: request and result schemas name different protocol versions")
    text = render(request, result)
    output.parent.mkdir(parents=True, exist_ok=True)
    if not output.exists() or output.read_text() != text:  # unchanged: no rebuild of its includers
        output.write_text(text)


if __name__ == "__main__":
    main()
