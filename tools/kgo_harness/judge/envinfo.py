"""Environment facts (GPU, driver, CUDA, torch, triton, nvcc, ncu) and GPU clocks with throttle reasons,
read through pynvml when installed, else nvidia-smi. Stdlib at import; torch only inside functions."""
import functools
import os
import platform
import re
import shutil
import subprocess

# NVML clocks-event (throttle) reason bits, as named by nvml.h.
THROTTLE_BITS = {0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap",
                 0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
                 0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting"}


def throttle_names(mask):
    if mask is None:
        return []
    return [name for bit, name in THROTTLE_BITS.items() if mask & bit]


def _gpu_index():
    try:
        import torch
        idx = torch.cuda.current_device()
    except Exception:
        idx = 0
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        parts = [p.strip() for p in visible.split(",") if p.strip()]
        if idx < len(parts) and parts[idx].isdigit():
            return int(parts[idx])
    return idx


CONTEXT_SLACK_MB = 1024   # per process (the judge, the kernel's): its CUDA context and memory outside torch's allocator


def memory_held_by_others(limit_mb):
    """Why a kernel's process that ran out of GPU memory is not to blame, read by this process (the kernel's word is
    not taken): more of the device's memory is in use than this process holds, the kernel's process may hold under
    its cap (`limit_mb`, else the default share) and both processes' context slack. None where nothing says so. A
    kernel that holds memory outside its cap itself reads as another process: its verdict is UNTRUSTED, still no
    pass and nothing recorded."""
    import torch
    from kgo_harness.cell.kernel_worker import gpu_cap_fraction
    if not torch.cuda.is_available():
        return None
    free, total = torch.cuda.mem_get_info()
    cap = gpu_cap_fraction(limit_mb, total) * total
    ours = torch.cuda.memory_reserved() + cap + 2 * CONTEXT_SLACK_MB * 2 ** 20
    held = total - free
    if held <= ours:
        return None
    mib = 2 ** 20
    return (f"the kernel's process ran out of GPU memory while other processes held the device's: {held / mib:.0f} "
            f"of {total / mib:.0f} MiB in use, {(held - ours) / mib:.0f} MiB more than the judge holds and the "
            f"kernel's process may hold under its cap ({cap / mib:.0f} MiB); the crash is not the kernel's to "
            "answer for: rerun with the GPU to itself (nvidia-smi lists the processes using it)")


def _run(cmd, timeout=20):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout).stdout
    except Exception:
        return ""


_MAX_SM_MHZ = {}


def clocks():
    """{"source", "sm_mhz", "mem_mhz", "sm_max_mhz", "power_w", "temp_c", "throttle_reasons",
    "throttle_names"} or None when neither pynvml nor nvidia-smi answers."""
    idx = _gpu_index()
    try:
        import pynvml
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(idx)
        if idx not in _MAX_SM_MHZ:   # a property of the device (about 1.5 ms a read on the H200)
            _MAX_SM_MHZ[idx] = pynvml.nvmlDeviceGetMaxClockInfo(h, pynvml.NVML_CLOCK_SM)
        get = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            pynvml.nvmlDeviceGetCurrentClocksThrottleReasons
        mask = int(get(h))
        return {"source": "pynvml",
                "sm_mhz": pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
                "mem_mhz": pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
                "sm_max_mhz": _MAX_SM_MHZ[idx],
                "power_w": pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
                "temp_c": pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU),
                "throttle_reasons": mask, "throttle_names": throttle_names(mask)}
    except Exception:
        pass
    if not shutil.which("nvidia-smi"):
        return None
    for reason in ("clocks_event_reasons.active", "clocks_throttle_reasons.active"):
        out = _run(["nvidia-smi", "-i", str(idx), "--format=csv,noheader,nounits", "--query-gpu=clocks.sm,"
                    f"clocks.mem,clocks.max.sm,power.draw,temperature.gpu,{reason}"])
        fields = [f.strip() for f in out.strip().split(",")]
        if len(fields) == 6 and "Field" not in out:
            def num(x):
                try:
                    return float(x)
                except ValueError:
                    return None
            try:
                mask = int(fields[5], 16)
            except ValueError:
                mask = None
            return {"source": "nvidia-smi", "sm_mhz": num(fields[0]), "mem_mhz": num(fields[1]),
                    "sm_max_mhz": num(fields[2]), "power_w": num(fields[3]), "temp_c": num(fields[4]),
                    "throttle_reasons": mask, "throttle_names": throttle_names(mask)}
    return None


def tool_version(path, pattern):
    """{path, version} of a CUDA program at `path` (kgo resolved it; None: kgo found none)."""
    if not path:
        return {"path": None, "version": None}
    m = re.search(pattern, _run([path, "--version"]))
    return {"path": path, "version": m.group(1) if m else None}


@functools.lru_cache(maxsize=None)
def driver_version():
    """The NVIDIA driver's version (one process sees one driver: asked once)."""
    try:
        import pynvml
        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else v
    except Exception:
        pass
    out = _run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]) if shutil.which(
        "nvidia-smi") else ""
    return out.strip().splitlines()[0] if out.strip() else None


def gpu_uuid(torch):
    """The UUID of the GPU this process computes on, spelled as nvidia-smi does ('GPU-...'); None if unknown."""
    try:
        u = torch.cuda.get_device_properties(torch.cuda.current_device()).uuid
    except Exception:
        return None
    text = str(u)
    return text if text.startswith("GPU-") else "GPU-" + text


def environment(device):
    """The short environment block every result carries."""
    env = {"gpu": None, "gpu_uuid": None, "driver": None, "cuda": None, "torch": None, "triton": None,
           "python": platform.python_version(), "interpreter": os.environ.get("TRITON_INTERPRET") == "1"}
    try:
        import torch
        env["torch"] = torch.__version__
        env["cuda"] = torch.version.cuda
        if device == "cuda" and torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name()
            env["gpu_uuid"] = gpu_uuid(torch)
    except Exception:
        pass
    env["triton"] = triton_version()
    if device == "cuda":
        env["driver"] = driver_version()
    return env


def triton_version():
    """The version of the Triton that `import triton` loads here, or None. Read from its installed metadata when
    that describes the very files the import would load (an import of Triton is about 0.15 s of CPU that a judge
    otherwise never needs); else from the module itself."""
    import importlib.metadata
    import importlib.util
    import sys
    if "triton" not in sys.modules:
        try:
            spec = importlib.util.find_spec("triton")
            dist = importlib.metadata.distribution("triton")
            if spec and spec.origin and os.path.samefile(dist.locate_file("triton/__init__.py"), spec.origin):
                return dist.version
        except Exception:
            pass
    try:
        import triton
        return triton.__version__
    except Exception:
        return None


def env_report(device, tools=None):
    """The `env` command's fields: everything kgo's env_check.md needs, with `ready` and `missing`. `tools`: the
    request's paths of nvcc and ncu, which kgo resolved (core/tools.hpp)."""
    tools = tools or {}
    res = {"environment": environment(device), "gpu": None, "missing": []}
    missing = res["missing"]
    try:
        import torch
        res["torch"] = torch.__version__
        res["cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(torch.cuda.current_device())
            res["gpu"] = {"name": p.name, "capability": f"{p.major}.{p.minor}", "sms": p.multi_processor_count,
                          "memory_bytes": p.total_memory, "l2_bytes": getattr(p, "L2_cache_size", 0)}
        elif device == "cuda":
            missing.append("gpu: torch sees no CUDA device (check the driver / CUDA_VISIBLE_DEVICES, or use "
                           "--device cpu for the interpreter path)")
    except Exception as e:
        res["torch"] = None
        missing.append(f"torch: not importable ({e}); pip install -r tools/requirements.txt")
    try:
        import triton
        res["triton"] = triton.__version__
    except Exception as e:
        res["triton"] = None
        missing.append(f"triton: not importable ({e}); pip install -r tools/requirements.txt")
    try:
        import numpy
        res["numpy"] = numpy.__version__
    except Exception:
        res["numpy"] = None
    res["python"] = platform.python_version()
    res["driver"] = driver_version() if device == "cuda" else None
    res["nvcc"] = tool_version(tools.get("nvcc"), r"release\s+[0-9.]+,\s*V([0-9.]+)")
    res["ncu"] = tool_version(tools.get("ncu"), r"Version\s+([0-9.]+)")
    try:
        import pynvml  # noqa: F401
        res["pynvml"] = True
    except Exception:
        res["pynvml"] = False
    res["clocks"] = clocks() if device == "cuda" else None
    res["interpreter"] = os.environ.get("TRITON_INTERPRET") == "1"
    if device == "cuda":
        if not res["nvcc"]["path"]:
            missing.append("nvcc: not found; install the CUDA toolkit (needed for kernel.cu)")
        if not res["ncu"]["path"]:
            missing.append("ncu: not found; install Nsight Compute (needed for kgo profile)")
    res["ready"] = not missing
    return res
