"""Layering: an #include never points up a layer, and each test binary links only its own library.
The layers are the libraries' own `target_link_libraries` in <folder>/CMakeLists.txt (ARCHITECTURE.md
draws them); a folder may include its own headers and those of the libraries it links, transitively."""
import os
import pathlib
import re

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("KGO_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
LIBRARY_FOLDERS = ["core", "experience", "gpu-wiki-index", "specs", "roofline", "iterate", "harness", "profiling", "report", "sweep",
                   "mcp"]

_ADD_LIBRARY = re.compile(r"add_library\(\s*(kgo_\w+)")
_LINK = re.compile(r"target_link_libraries\(\s*(kgo_\w+)\s+([^)]*)\)", re.S)
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/', re.M)
_TEST_BINARY = re.compile(r"kgo_add_tests\(\s*(kgo_\w+)")


def library_graph(root):
    """{folder: set of folders it links directly} and {target: folder}, read from the CMake files."""
    target_of, links = {}, {}
    for folder in LIBRARY_FOLDERS:
        text = (root / folder / "CMakeLists.txt").read_text()
        m = _ADD_LIBRARY.search(text)
        assert m, f"{folder}/CMakeLists.txt declares no kgo_ library"
        target_of[m.group(1)] = folder
        links[folder] = text
    graph = {}
    for folder, text in links.items():
        deps = set()
        for m in _LINK.finditer(text):
            deps |= {target_of[w] for w in m.group(2).split() if w in target_of}
        graph[folder] = deps
    return graph, target_of


def closure(graph, folder, seen=()):
    """The folders `folder` may use: itself and everything it links, transitively; raises on a cycle."""
    if folder in seen:
        raise ValueError("library cycle: " + " -> ".join([*seen, folder]))
    out = {folder}
    for dep in graph[folder]:
        out |= closure(graph, dep, (*seen, folder))
    return out


def violations(root):
    """'file: includes X/ (allowed: ...)' for every include that points up (or sideways) a layer."""
    graph, _ = library_graph(root)
    found = []
    for folder in LIBRARY_FOLDERS:
        allowed = closure(graph, folder)
        for base in (root / folder, root / "tests" / folder):
            for path in sorted(base.rglob("*")):
                if path.suffix not in (".cpp", ".hpp", ".h", ".cu") or "wiki" in path.relative_to(base).parts[:1]:
                    continue
                for inc in _INCLUDE.findall(path.read_text(errors="replace")):
                    if inc in LIBRARY_FOLDERS and inc not in allowed:
                        found.append(f"{path.relative_to(root)}: includes {inc}/ "
                                     f"(allowed: {', '.join(sorted(allowed))})")
    return found


def test_no_include_points_up_a_layer():
    assert violations(SOURCE_DIR) == []


def test_each_test_binary_links_only_its_library_and_below():
    text = (SOURCE_DIR / "tests" / "CMakeLists.txt").read_text()
    # kgo_add_tests links the library named after the binary (kgo_x_tests -> kgo_x), nothing more.
    body = text[text.index("function(kgo_add_tests"):text.index("endfunction()", text.index("function(kgo_add_tests"))]
    assert "KGO_LIBRARIES" not in body, "kgo_add_tests links every library"
    _, target_of = library_graph(SOURCE_DIR)
    for folder in LIBRARY_FOLDERS:
        cmake = SOURCE_DIR / "tests" / folder / "CMakeLists.txt"
        if not cmake.exists():
            continue
        for binary in _TEST_BINARY.findall(cmake.read_text()):
            library = binary.removesuffix("_tests")
            assert target_of.get(library) == folder, f"{cmake}: {binary} does not test {folder}'s library"


def _copy_tree(root, tmp):
    for folder in LIBRARY_FOLDERS:
        (tmp / folder).mkdir(parents=True)
        (tmp / folder / "CMakeLists.txt").write_text((root / folder / "CMakeLists.txt").read_text())


def test_a_planted_upward_include_is_found(tmp_path):
    _copy_tree(SOURCE_DIR, tmp_path)
    (tmp_path / "core" / "bad.cpp").write_text('#include "core/files.hpp"\n#include "harness/client.hpp"\n')
    (tmp_path / "specs" / "ok.cpp").write_text('#include "gpu-wiki-index/index.hpp"\n#include "core/error.hpp"\n')
    (tmp_path / "tests" / "iterate").mkdir(parents=True)
    (tmp_path / "tests" / "iterate" / "bad_test.cpp").write_text('#include "roofline/catalog.hpp"\n')
    found = violations(tmp_path)
    assert len(found) == 2, found
    assert found[0].startswith("core/bad.cpp: includes harness/")
    assert found[1].startswith("tests/iterate/bad_test.cpp: includes roofline/")


def test_a_planted_cycle_is_found(tmp_path):
    _copy_tree(SOURCE_DIR, tmp_path)
    cmake = tmp_path / "core" / "CMakeLists.txt"
    cmake.write_text(cmake.read_text() + "\ntarget_link_libraries(kgo_core PRIVATE kgo_profiling)\n")
    with pytest.raises(ValueError, match="library cycle"):
        violations(tmp_path)
