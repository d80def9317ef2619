"""A kernel file with text edits, written under build/probe_variants/ and imported from there (Triton reads a jit
function's source from its file): how the GPU probes time variants of a template without copying it."""
import importlib.util
import pathlib

FOLDER = pathlib.Path(__file__).resolve().parents[1] / "build" / "probe_variants"


def load(path, edits=(), name=None):
    """The module of `path` with each (old, new) of `edits` applied; an edit that no longer applies is an error."""
    path = pathlib.Path(path)
    text = path.read_text()
    for old, new in edits:
        assert old in text, f"edit {old!r} no longer applies to {path}"
        text = text.replace(old, new)
    name = name or path.stem
    FOLDER.mkdir(parents=True, exist_ok=True)
    file = FOLDER / f"{name}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
