"""The judge's side of a cell's files. Each kernel process gets a folder under one per-judge root in memory:
`src/` (the judge's read-only copies of the kernel's files: the cell never sees the workspace) and `rw/` (its only
writable place: the tensors it hands back, its temporary files, its home). Compiled artefacts persist per set of
sources (remote.compile_key: the kernel's, the reference's and its imports' bytes, not the workspace) under
`<cache>/cells/<key>/`, which only a cell of those sources may write, so no kernel can plant a compiled object for
another. Standard library and the harness protocol only."""
import filecmp
import json
import os
import pathlib
import shutil
import tempfile

from kgo_harness.cell import confine
from kgo_harness import protocol

PREFIX = "kgo-cells-"   # then the judge's pid: the supervisor removes a killed judge's folders (remove_of)
SKIP_DIRS = {"memory", "plans", "profiles", "report", "__pycache__", "node_modules"}
MAX_FILES, MAX_FILE_BYTES, MAX_BYTES = 2000, 64 << 20, 256 << 20
_ROOT = {}


def root():
    """This judge's root of cell folders (made on first use, removed by `cleanup`; the roots of judges that died
    without removing theirs are removed then too)."""
    if "path" not in _ROOT:
        base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        remove_orphans(base or tempfile.gettempdir())
        path = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base)
        os.chmod(path, 0o755)
        _ROOT["path"] = path
        _ROOT["serial"] = 0
    return _ROOT["path"]


def cache_root():
    """Where the cells' compile caches live: $KGO_CACHE_DIR/cells, else ~/.cache/kgo/cells."""
    path = os.path.join(protocol.cache_dir(), "cells")
    os.makedirs(path, exist_ok=True)
    _give(path, 0o755)
    return path


def identity_cache(identity):
    path = os.path.join(cache_root(), identity[:32])
    os.makedirs(path, exist_ok=True)
    _give(path, 0o700)
    return path


def triton_key_file():
    """Triton's cache key as a GPU template made it (kernel_worker.triton_key): beside the cells' caches, where no
    cell reads or writes, so a kernel can neither plant a key nor learn more than Triton's own hash. Its folder is
    cache_root's parent, made before any template or kernel process starts."""
    return os.path.join(protocol.cache_dir(), "triton-key.json")


def stored_triton_key():
    """The stored key ({"fingerprint", "key"}) or None; a spawned kernel process uses it only where its fingerprint
    is that process's Triton."""
    try:
        with open(triton_key_file()) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def new_folder():
    """A fresh cell folder: (folder, rw) with rw owned by the cell's user."""
    base = root()
    _ROOT["serial"] += 1
    folder = os.path.join(base, f"c{os.getpid()}-{_ROOT['serial']}")
    os.mkdir(folder, 0o755)
    os.mkdir(os.path.join(folder, "src"), 0o755)
    rw = os.path.join(folder, "rw")
    os.mkdir(rw, 0o700)
    _give(rw, 0o700)
    return folder, rw


def _give(path, mode):
    """The cell's user owns `path` where the judge is root (the cell runs as that user); else the judge's own."""
    if os.geteuid() == 0:
        os.chown(path, confine.CELL_UID, confine.CELL_UID)
    os.chmod(path, mode)


def copy_in(folder, kernel, extra=()):
    """Copies the kernel's folder (its sources, headers, data and compiled objects; not the workspace's records,
    plans, profiles, reports, git or .kgo) into `folder`/src, read-only, and returns the new kernel path. Files in
    `extra` (a reference outside the kernel's folder) are copied too, under `src/_extra/`."""
    kernel = pathlib.Path(kernel).resolve()
    top = kernel.parent
    dest = pathlib.Path(folder) / "src"
    count = total = 0
    for base, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
        for name in sorted(files):
            src = pathlib.Path(base) / name
            if name.startswith(".") or src.is_symlink() or not src.is_file():
                continue
            size = src.stat().st_size
            if src != kernel and (size > MAX_FILE_BYTES or count >= MAX_FILES or total + size > MAX_BYTES):
                continue
            _place(src, inside_path(folder, kernel, src))
            count, total = count + 1, total + size
    for path in extra:
        src = pathlib.Path(path).resolve()
        if src.is_file() and top not in src.parents:
            _place(src, inside_path(folder, kernel, src))
    return dest / kernel.name


def _place(src, target):
    """`src` copied to `target`, read-only, unless an identical copy is there. A changed file is a new file renamed
    over the old, never rewritten in place: a cell serves its identity request after request, and rewriting a shared
    object that its kernel had loaded crashed the kernel's next call (SIGSEGV, every second request)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and filecmp.cmp(src, target, shallow=False):
        return
    fresh = target.with_name(f".{target.name}.kgo-new")
    shutil.copyfile(src, fresh)
    os.chmod(fresh, 0o644)
    os.replace(fresh, target)


def inside_path(folder, kernel, path):
    """Where copy_in puts `path`: beside the kernel's copy as in the kernel's folder, or under `src/_extra/` when
    it lies outside that folder."""
    path, top = pathlib.Path(path).resolve(), pathlib.Path(kernel).resolve().parent
    dest = pathlib.Path(folder) / "src"
    return dest / path.relative_to(top) if path == top or top in path.parents else dest / "_extra" / path.name


def outside_path(folder, kernel, inner):
    """The workspace path of a file the cell names by its copy's path (None when it is not one of the copies)."""
    src = os.path.join(folder, "src") + os.sep
    if not inner.startswith(src):
        return None
    return str(pathlib.Path(kernel).resolve().parent / inner[len(src):])


def remove(folder):
    shutil.rmtree(folder, ignore_errors=True)


def cleanup():
    path = _ROOT.pop("path", None)
    if path:
        shutil.rmtree(path, ignore_errors=True)


def remove_orphans(base):
    """Removes this user's cell roots in `base` whose judge (the pid in the name) no longer runs: a judge killed
    before its cleanup (by kgo's outer limit, a signal, the machine) leaves its root behind, and /dev/shm is memory."""
    import glob
    for path in glob.glob(os.path.join(base, f"{PREFIX}*-*")):
        try:
            pid = int(os.path.basename(path)[len(PREFIX):].split("-", 1)[0])
            if os.stat(path).st_uid != os.geteuid() or pid == os.getpid():
                continue
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except (ValueError, OSError):
            continue


def remove_of(judge_pid):
    """Removes the cell folders a judge left behind when it was killed (its root is named by its pid)."""
    import glob
    for base in ("/dev/shm", tempfile.gettempdir()):
        for path in glob.glob(os.path.join(base, f"{PREFIX}{int(judge_pid)}-*")):
            shutil.rmtree(path, ignore_errors=True)
