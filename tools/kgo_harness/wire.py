"""Tensors between the judge and the kernel's process as bytes: one file per message in a private folder
(under /dev/shm where it exists), described by JSON. A value that is not a plain torch.Tensor crosses as a
description, never as an object; the receiver checks every size against the file before viewing it."""
import itertools
import os
import pathlib

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


def release():
    _held.clear()


def send(folder, tensors, ipc=False):
    """Writes `tensors` (a list of (name, value)) to one file; returns its JSON description. With `ipc`,
    CUDA tensors cross as CUDA IPC handles of this process's memory instead (no copy); the file keeps
    the rest, and resend() writes them as bytes if the receiver cannot open the handles."""
    path = pathlib.Path(folder) / f"t{os.getpid()}-{next(_serial)}"
    items, offset = [], 0
    if ipc:
        _held[path.name] = [(n, v.detach().contiguous() if type(v) is torch.Tensor else v) for n, v in tensors]
        tensors = _held[path.name]
    with open(path, "wb") as f:
        for name, value in tensors:
            if type(value) is not torch.Tensor:
                items.append({"name": name, "rejected": f"is {type(value).__name__}, not a plain torch.Tensor "
                                                        "(tensor subclasses and deferred results are rejected)"})
                continue
            if ipc and value.is_cuda and value.numel():
                items.append({"name": name, "ipc": _export(value)})
                continue
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


def _export(t):
    from torch.multiprocessing.reductions import reduce_tensor
    _, a = reduce_tensor(t)
    hexed = lambda b: b.hex() if isinstance(b, (bytes, bytearray)) else None
    return {"dtype": str(t.dtype).replace("torch.", ""), "size": list(a[1]), "stride": list(a[2]),
            "offset": int(a[3]), "storage": a[4].__name__ if isinstance(a[4], type) else type(a[4]).__name__, "device": int(a[6]), "handle": hexed(a[7]),
            "storage_bytes": int(a[8]), "storage_offset": int(a[9]), "ref_handle": hexed(a[11]),
            "ref_offset": int(a[12]), "event": hexed(a[13]), "event_sync": bool(a[14])}


def _import(d):
    """A copy (in this process's memory) of a tensor exported by _export in another process."""
    from torch.multiprocessing.reductions import rebuild_cuda_tensor
    dtype = DTYPES.get(d.get("dtype"))
    storage_cls = {"TypedStorage": torch.storage.TypedStorage, "UntypedStorage": torch.UntypedStorage}.get(d["storage"])
    size, stride = [int(x) for x in d["size"]], [int(x) for x in d["stride"]]
    numel = 1
    for x in size:
        numel *= x
    if dtype is None or storage_cls is None or min(size + [0]) < 0 or \
            (int(d["offset"]) + numel) * dtype.itemsize > int(d["storage_bytes"]):
        raise WireError("malformed CUDA IPC description")
    unhex = lambda h: bytes.fromhex(h) if h is not None else None
    t = rebuild_cuda_tensor(torch.Tensor, torch.Size(size), tuple(stride), int(d["offset"]), storage_cls, dtype,
                            int(d["device"]), unhex(d["handle"]), int(d["storage_bytes"]), int(d["storage_offset"]),
                            False, unhex(d["ref_handle"]), int(d["ref_offset"]), unhex(d["event"]),
                            bool(d["event_sync"]))
    return t.clone()


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
        size = path.stat().st_size
        blob = torch.from_file(str(path), shared=False, size=size, dtype=torch.uint8) if size else None
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
