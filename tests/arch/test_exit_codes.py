"""Exit codes are one table: every ExitCode in core/error.hpp is a row of README.md's table with the
same number and vice versa, and no source names an exit code by a bare number."""
import os
import pathlib
import re

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CODE_DIRS = ["cli", "mcp", "core", "experience", "gpu-wiki-index", "specs", "roofline", "iterate", "harness", "profiling",
             "report", "sweep"]


def declared():
    text = (SOURCE_DIR / "core" / "error.hpp").read_text()
    body = text[text.index("enum class ExitCode"):]
    body = body[:body.index("};")]
    return {int(n): name for name, n in re.findall(r"^\s*(\w+)\s*=\s*(\d+)\s*,", body, re.M)}


def documented():
    text = (SOURCE_DIR / "README.md").read_text()
    table = text[text.index("## Exit codes"):]
    return {int(n) for n in re.findall(r"^\| (\d+) \| .+\|$", table.split("\n\n", 2)[1], re.M)}


def test_every_exit_code_is_declared_and_documented():
    codes = declared()
    assert 24 in codes and codes[24] == "unsafe_path"
    assert set(codes) == documented(), (sorted(codes), sorted(documented()))


def test_no_exit_code_by_number():
    cast = re.compile(r"static_cast<(?:kgo::)?ExitCode>\(\s*\d+\s*\)")
    found = []
    for d in CODE_DIRS:
        for p in (SOURCE_DIR / d).rglob("*.[ch]pp"):
            for i, line in enumerate(p.read_text().splitlines(), 1):
                if cast.search(line):
                    found.append(f"{p.relative_to(SOURCE_DIR)}:{i}: {line.strip()}")
    assert not found, found
