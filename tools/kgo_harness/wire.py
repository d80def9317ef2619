"""Tensors between the judge and the kernel's process as bytes: one file per message in a private folder
(under /dev/shm where it exists), described by JSON. A value that is not a plain torch.Tensor crosses as a
description, never as an object; the receiver checks every size against the file before viewing it."""
import ctypes
import itertools
import os
import pathlib
import stat

import torch

_serial = itertools.count()
DTYPES = {str(d).replace("torch.", ""): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool, getattr(torch, "float8_e4m3fn", None), getattr(torch, "float8_e5m2", None))
    if d is not None}


class WireError(Exception):
    """A message from the other process is malformed (the kernel's side is not trusted)."""


class IpcUnavailable(Exception):
    """CUDA IPC handles could not be opened here; ask for bytes instead."""


_held = {}  # message file name -> tensors exported through CUDA IPC, kept alive until the next release()
_isolated = []   # device allocations of isolated() copies, freed at the next release()
PAGE = 2 << 20   # a CUDA allocation's page: isolated() allocations are whole pages


def release():
    _held.clear()
    if _isolated:
        torch.cuda.synchronize()
        while _isolated:
            _cu()["free"](ctypes.c_uint64(_isolated.pop()))


def isolated(t):
    """A copy of the CUDA tensor `t` in a device allocation of its own, whole pages zeroed first, for export through
    CUDA IPC (freed at the next release()). A handle maps its whole allocation in the process that opens it: a copy
    the caching allocator placed in a segment beside other tensors of this process (the float64 reference made
    just before) would show them all. Raises IpcUnavailable when the driver refuses the allocation."""
    cu = _cu()
    nbytes = t.numel() * t.element_size()
    size = max(-(-nbytes // PAGE), 1) * PAGE
    ptr = ctypes.c_uint64(0)
    if cu["alloc"](ctypes.byref(ptr), ctypes.c_size_t(size)) != 0:
        raise IpcUnavailable("cuMemAlloc failed")
    _isolated.append(ptr.value)
    if cu["memset"](ctypes.c_uint64(ptr.value), ctypes.c_ubyte(0), ctypes.c_size_t(size)) != 0:
        raise IpcUnavailable("cuMemsetD8 failed")
    torch.cuda.synchronize()   # the memset (the driver's null stream) is done before torch's copy on its own stream
    out = torch.as_tensor(_Span(ptr.value, size), device=t.device)[:nbytes].view(t.dtype).view(t.shape)
    out.copy_(t)
    return out


def send(folder, tensors, ipc=False):
    """Writes `tensors` (a list of (name, value)) to one file; returns its JSON description. With `ipc`,
    CUDA tensors cross as CUDA IPC handles of this process's memory instead (no copy); the file keeps
    the rest, and resend() writes them as bytes if the receiver cannot open the handles."""
    path = pathlib.Path(folder) / f"t{os.getpid()}-{next(_serial)}"
    items, offset = [], 0
    if ipc:
        _held[path.name] = [(n, v.detach().contiguous() if type(v) is torch.Tensor else v) for n, v in tensors]
        tensors = _held[path.name]
        if any(type(v) is torch.Tensor and v.is_cuda for _, v in tensors):
            torch.cuda.synchronize()   # once: the producers' work is finished before any handle is read
    with open(path, "wb") as f:
        for name, value in tensors:
            if type(value) is not torch.Tensor:
                items.append({"name": name, "rejected": f"is {type(value).__name__}, not a plain torch.Tensor "
                                                        "(tensor subclasses and deferred results are rejected)"})
                continue
            if ipc and value.is_cuda and value.numel():
                try:
                    items.append({"name": name, "ipc": _export(value)})
                    continue
                except (IpcUnavailable, OSError):
                    pass   # this one crosses as bytes

            t = value.detach()
            host = t.contiguous().cpu() if t.dim() else t.reshape(1).cpu()
            raw = host.reshape(-1).view(torch.uint8).numpy() if host.numel() else b""
            nbytes = host.numel() * host.element_size()
            f.write(memoryview(raw) if nbytes else b"")
            items.append({"name": name, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
                          "offset": offset, "nbytes": nbytes})
            offset += nbytes
    return {"file": path.name, "items": items}


def resend(folder, name):
    """The tensors of an IPC message `name`, as bytes."""
    return send(folder, _held.get(name, []))


class _Handle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]


_CU = {}


def _cu():
    """The CUDA driver, for raw IPC handles: unlike torch's own sharing they need no file in /dev/shm, which a
    kernel's cell may not create (cell/confine.py)."""
    if "lib" not in _CU:
        lib = ctypes.CDLL("libcuda.so.1")
        _CU["lib"] = lib
        _CU["open"] = getattr(lib, "cuIpcOpenMemHandle_v2", None) or lib.cuIpcOpenMemHandle
        _CU["range"] = getattr(lib, "cuMemGetAddressRange_v2", None) or lib.cuMemGetAddressRange
        _CU["alloc"] = getattr(lib, "cuMemAlloc_v2", None) or lib.cuMemAlloc
        _CU["free"] = getattr(lib, "cuMemFree_v2", None) or lib.cuMemFree
        _CU["memset"] = getattr(lib, "cuMemsetD8_v2", None) or lib.cuMemsetD8
    return _CU


def _export(t):
    """A contiguous CUDA tensor (send synchronized its producers) as a driver IPC handle of its allocation, the offset
    into it and its layout; the tensor stays alive (in _held) until the next release()."""
    cu = _cu()
    base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
    handle = _Handle()
    if cu["range"](ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(t.data_ptr())) != 0 or \
            cu["lib"].cuIpcGetMemHandle(ctypes.byref(handle), base) != 0:
        raise IpcUnavailable("cuIpcGetMemHandle failed")
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "handle": bytes(handle).hex(),
            "offset": t.data_ptr() - base.value, "nbytes": t.numel() * t.element_size(), "device": t.device.index}


def _import(d):
    """A copy (in this process's memory) of a tensor exported by _export in another process; every size is checked
    against the allocation the handle maps."""
    dtype = DTYPES.get(d.get("dtype"))
    shape = d.get("shape")
    if dtype is None or not isinstance(shape, list) or not all(isinstance(x, int) and x >= 0 for x in shape) or \
            not isinstance(d.get("offset"), int) or d["offset"] < 0 or not isinstance(d.get("handle"), str):
        raise WireError("malformed CUDA IPC description")
    numel = 1
    for x in shape:
        numel *= x
    nbytes = numel * dtype.itemsize
    if d.get("nbytes") != nbytes:
        raise WireError("malformed CUDA IPC description")
    cu = _cu()
    try:
        handle = _Handle.from_buffer_copy(bytes.fromhex(d["handle"]))
    except ValueError as e:
        raise WireError("malformed CUDA IPC handle") from e
    ptr = ctypes.c_uint64(0)
    if cu["open"](ctypes.byref(ptr), handle, ctypes.c_uint(1)) != 0:
        raise IpcUnavailable("cuIpcOpenMemHandle failed")
    try:
        base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
        cu["range"](ctypes.byref(base), ctypes.byref(size), ptr)
        if d["offset"] + nbytes > size.value:
            raise WireError("a CUDA IPC tensor reaches past its allocation")
        if not nbytes:
            return torch.empty(shape, dtype=dtype, device="cuda")
        view = torch.as_tensor(_Span(ptr.value + d["offset"], nbytes), device="cuda")
        out = view.clone().view(dtype).reshape(shape)
        torch.cuda.synchronize()
        return out
    finally:
        cu["lib"].cuIpcCloseMemHandle(ptr)


class _Span:
    """`nbytes` bytes of device memory at `ptr`, as __cuda_array_interface__ describes them (for torch.as_tensor)."""

    def __init__(self, ptr, nbytes):
        self.__cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False), "version": 2}


def _read_own(path, name):
    """The bytes of a tensor file the other process wrote in its folder, as a uint8 tensor (None when empty), and its
    size. Read through one descriptor that refuses a link: a kernel's process that put a symbolic or hard link there
    would have the judge read, with the judge's rights, a file the cell cannot (another cell's reply in flight)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        raise WireError(f"tensor file {name!r} is not one the harness writes ({e.strerror})") from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise WireError(f"tensor file {name!r} is not one the harness writes (a link or not a plain file)")
        if not st.st_size:
            return None, 0
        buf = bytearray(st.st_size)
        with os.fdopen(os.dup(fd), "rb") as f:
            if f.readinto(buf) != st.st_size:
                raise WireError(f"tensor file {name!r} changed while it was read")
        return torch.frombuffer(buf, dtype=torch.uint8), st.st_size
    finally:
        os.close(fd)


def receive(folder, message, device):
    """The tensors of a `send` description, on `device`; rejected values come back as their description (a
    string). The file is removed."""
    if not isinstance(message, dict) or not isinstance(message.get("items"), list):
        raise WireError("malformed tensor message")
    name = str(message.get("file", ""))
    if "/" in name or not name.startswith("t"):
        raise WireError(f"tensor file name {name!r} is not one the harness writes")
    path = pathlib.Path(folder) / name
    try:
        blob, size = _read_own(path, name)
    finally:
        path.unlink(missing_ok=True)
    out = []
    for it in message["items"]:
        if "rejected" in it:
            out.append((str(it.get("name")), str(it["rejected"])[:300]))
            continue
        if "ipc" in it:
            try:
                out.append((str(it.get("name")), _import(it["ipc"])))
            except WireError:
                raise
            except Exception as e:
                raise IpcUnavailable(f"{type(e).__name__}: {e}") from e
            continue
        dtype = DTYPES.get(it.get("dtype"))
        shape = it.get("shape")
        if dtype is None or not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise WireError(f"tensor {it.get('name')!r} has an unknown dtype or shape")
        numel = 1
        for d in shape:
            numel *= d
        nbytes, offset = numel * dtype.itemsize, it.get("offset")
        if it.get("nbytes") != nbytes or not isinstance(offset, int) or offset < 0 or offset + nbytes > size:
            raise WireError(f"tensor {it.get('name')!r}: sizes do not match its file")
        if numel == 0:
            t = torch.empty(shape, dtype=dtype)
        else:
            t = blob[offset:offset + nbytes].view(dtype).reshape(shape)
        out.append((str(it.get("name")), t.to(device) if device != "cpu" else t.clone()))
    return out
