"""The kernels the harness tests judge, as one folder of files. Most are small attack or fixture kernels kept
together per test family in kernels/<family>.bundle (each file a section that starts with a line
`#### kernel: <path in the folder>`); the rest are plain files under kernels/ (those that tests outside
tools/tests name by path). The harness judges files, so folder() writes them all out once per content into a
folder of the temporary directory and returns it; bench scripts on a device call it the same way."""
import hashlib
import os
import pathlib
import shutil
import tempfile

SOURCE = pathlib.Path(__file__).resolve().parent / "kernels"
HEADER = "#### kernel: "


def unpack(bundle):
    """{path in the folder: text} of one bundle; a missing or repeated header is an error naming the bundle."""
    files, name, lines = {}, None, []
    for line in bundle.read_text().splitlines(keepends=True):
        if line.startswith(HEADER):
            if name is not None:
                files[name] = "".join(lines)
            name, lines = line[len(HEADER):].strip(), []
            if not name or name in files or name.startswith("/") or ".." in pathlib.PurePosixPath(name).parts:
                raise ValueError(f"{bundle}: bad or repeated kernel path {name!r} in a '{HEADER.strip()}' line")
        elif name is None:
            raise ValueError(f"{bundle}: text before the first '{HEADER.strip()}' line")
        else:
            lines.append(line)
    if name is not None:
        files[name] = "".join(lines)
    return files


def contents():
    """{path in the folder: text} of every kernel, bundled and plain; a path found twice is an error."""
    out = {}
    for path in sorted(SOURCE.rglob("*")):
        if not path.is_file() or path.suffix not in (".bundle", ".py", ".cu") or "__pycache__" in path.parts:
            continue
        found = unpack(path) if path.suffix == ".bundle" else {str(path.relative_to(SOURCE)): path.read_text()}
        for name, text in found.items():
            if name in out:
                raise ValueError(f"kernel {name} is written twice under {SOURCE}")
            out[name] = text
    return out


def folder():
    """The folder holding every kernel, written atomically (a rename) so that concurrent test processes share it."""
    files = contents()
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]
    target = pathlib.Path(tempfile.gettempdir()) / f"kgo-test-kernels-{os.getuid()}-{digest}"
    if target.is_dir():
        return target
    staging = pathlib.Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    for name, text in files.items():
        (staging / name).parent.mkdir(parents=True, exist_ok=True)
        (staging / name).write_text(text)
    try:
        staging.rename(target)
    except OSError:  # another process wrote the same folder first
        shutil.rmtree(staging, ignore_errors=True)
    return target
