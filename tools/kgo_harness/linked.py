"""The vendor math library symbols that shared objects loaded into this process after a point call: each object
newly mapped executable (/proc/self/maps) has its ELF dynamic symbol table read for undefined symbols named like a
vendor library's (a compiled extension or CUDA solve() linking cuBLAS calls cublasSgemm_v2 from it). Installed
software is not read (the interpreter's prefixes and package folders, the system's library folders, where the
vendor libraries live): a kernel cannot write there, and what it reaches there is its ops or its bindings' (torch's
ops show as aten ops; cupy's own cuBLAS bindings are left open). Standard library only."""
import ctypes
import mmap
import os
import re
import struct

# The vendor math libraries, as their symbols start and --allow-op names them (launches.VENDOR_SYMBOLS adds libc's
# dlsym; not here: the CUDA runtime that nvcc links into every object calls it to find the driver).
LIBRARIES = ("cublasLt", "cublas", "cudnn", "cufft", "cusparse", "cusolver", "curand", "cutensor", "nvblas")
VENDOR = re.compile(rf"^({'|'.join(LIBRARIES)})")
_SHT_DYNSYM, _SHN_UNDEF = 11, 0


def installed(packages=("torch", "triton", "nvidia", "cupy", "numba")):
    """The folders of installed software: the interpreter's prefixes and package folders, the system's, and those of
    `packages` wherever they are installed (a namespace package's every folder)."""
    import importlib.util
    import site
    import sys
    import sysconfig
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, "/usr", "/lib", "/lib64", "/opt"}
    dirs |= {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    try:
        dirs |= set(site.getsitepackages()) | {site.getusersitepackages()}
    except AttributeError:   # a virtual environment's older site module
        pass
    for name in packages:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        dirs |= set(spec.submodule_search_locations or []) if spec else set()
    return sorted(d for d in dirs if d)


def mapped():
    """{path: the /proc/self/map_files entry of one of its mappings} of the files mapped executable here."""
    found = {}
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and "x" in parts[1] and parts[5].startswith("/"):
                    found.setdefault(parts[5].rstrip("\n"), f"/proc/self/map_files/{parts[0]}")
    except OSError:
        pass
    return found


def undefined_symbols(path):
    """The undefined symbols of an ELF64 little-endian shared object's dynamic symbol table (empty for anything
    else). An object stripped of its section headers, which the loader does not need, gives every name of its
    dynamic string table instead (found through its program headers: what the loader reads)."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            if m[:4] != b"\x7fELF" or m[4] != 2 or m[5] != 1:
                return set()
            return _undefined(m) if struct.unpack_from("<H", m, 0x3C)[0] else _dynamic_strings(m)
    except (OSError, ValueError, struct.error, IndexError):
        return set()


def _undefined(m):
    shoff, = struct.unpack_from("<Q", m, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", m, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", m, shoff + i * shentsize) for i in range(shnum)]
    names = set()
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != _SHT_DYNSYM or not entsize or link >= len(sections):
            continue
        strings = sections[link][4]
        for at in range(offset + entsize, offset + size, entsize):   # entry 0 is the null symbol
            name, _, _, shndx = struct.unpack_from("<IBBH", m, at)
            if shndx == _SHN_UNDEF and name:
                end = m.find(b"\0", strings + name)
                names.add(m[strings + name:end].decode("ascii", "replace"))
    return names


def _dynamic_strings(m):
    phoff, = struct.unpack_from("<Q", m, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", m, 0x36)
    headers = [struct.unpack_from("<IIQQQQQQ", m, phoff + i * phentsize) for i in range(phnum)]
    loads = [(vaddr, filesz, offset) for kind, _, offset, vaddr, _, filesz, _, _ in headers if kind == 1]

    def at(vaddr):
        return next(vaddr - base + offset for base, size, offset in loads if base <= vaddr < base + size)
    table = size = None
    for kind, _, offset, _, _, filesz, _, _ in headers:
        if kind != 2:   # PT_DYNAMIC
            continue
        for entry in range(offset, offset + filesz, 16):
            tag, value = struct.unpack_from("<qQ", m, entry)
            if tag == 0:
                break
            table, size = (at(value), size) if tag == 5 else (table, value if tag == 10 else size)
    if table is None or size is None:
        return set()
    return {name.decode("ascii", "replace") for name in m[table:table + size].split(b"\0") if name}


class _PhdrInfo(ctypes.Structure):   # the head of glibc's struct dl_phdr_info (64-bit)
    _fields_ = [("addr", ctypes.c_uint64), ("name", ctypes.c_char_p), ("phdr", ctypes.c_void_p),
                ("phnum", ctypes.c_uint16), ("adds", ctypes.c_ulonglong), ("subs", ctypes.c_ulonglong)]


def loads_counter():
    """A function giving how many objects the dynamic loader has loaded so far (dl_iterate_phdr's dlpi_adds, read
    from its first object only: microseconds, where reading /proc/self/maps takes about a millisecond), or None."""
    try:
        iterate = ctypes.CDLL(None).dl_iterate_phdr
    except (OSError, AttributeError):
        return None
    seen = [None]

    @ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(_PhdrInfo), ctypes.c_size_t, ctypes.c_void_p)
    def first(info, size, data):
        seen[0] = info.contents.adds
        return 1   # stops the iteration

    def count():
        iterate(first, None)
        return seen[0]
    count.callback = first   # kept alive with the function
    return count


class Linked:
    """Objects mapped after this point (construction: before the kernel is imported) and the vendor symbols they
    call; each object is read once. `trusted`: folders whose objects are not read (installed software)."""

    def __init__(self, trusted=()):
        self.before = set(mapped())
        self.trusted = tuple(os.path.join(os.path.realpath(t), "") for t in trusted if t)
        self.read = {}   # path -> the vendor symbols it calls
        self.loads = loads_counter()
        self.last = None   # (the loader's count of loads, the symbols found then)

    def vendor_symbols(self):
        """{vendor symbol: how many objects loaded since construction call it}; the mappings are read again only
        after the dynamic loader has loaded another object."""
        adds = self.loads() if self.loads is not None else None
        if adds is not None and self.last is not None and self.last[0] == adds:
            return dict(self.last[1])
        counts = self._scan()
        self.last = (adds, counts)
        return dict(counts)

    def _scan(self):
        counts = {}
        for path, entry in mapped().items():
            if path in self.before:
                continue
            if path not in self.read:
                real = os.path.realpath(path)
                if self.trusted and real.startswith(self.trusted):
                    self.read[path] = set()
                else:   # a deleted file is read through its mapping
                    self.read[path] = {s for s in undefined_symbols(path if os.path.exists(path) else entry)
                                       if VENDOR.match(s)}
            for symbol in self.read[path]:
                counts[symbol] = counts.get(symbol, 0) + 1
        return counts
