"""CUDA as a wrapper sees it, on CPU tensors: the capture path's emulation.

Real wrappers check and use the GPU before they launch (`with torch.cuda.device(x.device):`,
`assert x.is_cuda`, `torch.empty(..., device="cuda")`, the SM count from
`torch.cuda.get_device_properties`). The capture path runs them on CPU tensors and launches
nothing, so inside `emulated_cuda()`:

- every tensor says it is on cuda:0 (`.is_cuda`, `.device`, `.get_device()`), and every torch
  call asked for a CUDA device (`device="cuda"`, `.cuda()`, `.to("cuda:0")`, a device index)
  gets the CPU instead;
- `torch.cuda` answers as one idle GPU of the target: `is_available`, `device_count`,
  `current_device`, `set_device`, `device`/`device_of` (no-op contexts), `synchronize`,
  `current_stream`/`default_stream`/`Stream`/`stream`, `Event`, `get_device_properties`,
  `get_device_capability`, `get_device_name`, `mem_get_info`, `is_current_stream_capturing`,
  `empty_cache`, `manual_seed(_all)`, `get_rng_state`/`set_rng_state(_all)`; and Triton's
  `driver.active` answers the same (`utils.get_device_properties`, `get_current_device`,
  `get_current_stream`, `get_current_target`, `get_device_interface`);
- the device's numbers come from the target description (targets/nvidia-h200.json).

What cannot be emulated: values. No kernel runs here, so a wrapper that reads a tensor a
kernel was given (`.item()`, `.tolist()`, `bool(t)`, `.cpu()`, `.numpy()`) after that launch
gets whatever the CPU tensor held. Each such read is recorded (`host_reads`, with the line)
for the report. Kernel launches themselves run with the emulation suspended.
"""
import contextlib
import json
import os
import traceback
import types

import torch
from torch.overrides import TorchFunctionMode

_TARGETS_DIR = os.environ.get("TRITONDX_TARGETS_DIR") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "targets")

# Methods that copy a tensor's values to the host.
_HOST_READS = frozenset(("item", "tolist", "cpu", "numpy", "__bool__", "__int__", "__float__", "__index__"))
_EMULATED_DEVICE = torch.device("cuda", 0)


def load_target(name="nvidia-h200"):
    path = os.path.join(_TARGETS_DIR, f"{name}.json")
    with open(path) as f:
        return json.load(f)


class DeviceProperties:
    """What torch.cuda.get_device_properties returns, for the target."""

    def __init__(self, target):
        self.name = target.get("card", target["name"])
        self.major, self.minor = divmod(int(target["arch"]), 10)
        self.multi_processor_count = int(target["sm_count"])
        self.total_memory = int(target.get("global_memory_bytes", 0))
        self.L2_cache_size = int(target["l2_bytes"])
        self.max_threads_per_multi_processor = int(target["max_threads_per_sm"])
        self.regs_per_multiprocessor = int(target["registers_per_sm"])
        self.warp_size = int(target["warp_size"])
        self.shared_memory_per_block = 48 * 1024
        self.shared_memory_per_block_optin = int(target["max_shared_memory_per_block"])
        self.shared_memory_per_multiprocessor = int(target["shared_memory_per_sm"])
        self.is_integrated = 0
        self.is_multi_gpu_board = 0
        self.gcnArchName = ""
        self.uuid = "emulated"

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1 << 20)}MB, multi_processor_count={self.multi_processor_count})")


class Stream:
    """torch.cuda.Stream / current_stream(): the one stream of an idle device."""

    def __init__(self, device=None, priority=0, **kwargs):
        self.device = _EMULATED_DEVICE
        self.cuda_stream = 0
        self.priority = priority

    def synchronize(self):
        pass

    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        return event or Event()

    def query(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Event:
    """torch.cuda.Event: recording and waiting are no-ops; no time passes on an emulated GPU."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing

    def record(self, stream=None):
        pass

    def wait(self, stream=None):
        pass

    def synchronize(self):
        pass

    def query(self):
        return True

    def elapsed_time(self, end):
        raise RuntimeError("tritondx capture: no kernel runs without a GPU, so no time can be measured")


class _NoOpContext:
    """torch.cuda.device(x), torch.cuda.device_of(t), torch.cuda.stream(s): nothing to switch."""

    def __init__(self, *args, **kwargs):
        self.idx = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class EmulatedDriver:
    """triton.runtime.driver.active for the target, without libcuda. `record` collects the
    names of what the task asked."""

    def __init__(self, target, properties, record):
        from triton.backends.compiler import GPUTarget
        self._target = GPUTarget("cuda", int(target["arch"]), int(target["warp_size"]))
        self._record = record
        props = {"max_shared_mem": properties.shared_memory_per_block_optin,
                 "max_num_regs": properties.regs_per_multiprocessor,
                 "multiprocessor_count": properties.multi_processor_count, "warpSize": properties.warp_size,
                 "sm_clock_rate": int(target.get("sm_clock_khz", 0)),
                 "mem_clock_rate": int(target.get("memory_clock_khz", 0)),
                 "mem_bus_width": int(target.get("memory_bus_width_bits", 0))}

        def get_device_properties(device=0):
            record.add("triton.runtime.driver.active.utils.get_device_properties")
            return dict(props)

        self.utils = types.SimpleNamespace(get_device_properties=get_device_properties)

    def _asked(self, name, value):
        self._record.add(f"triton.runtime.driver.active.{name}")
        return value

    def is_active(self):
        return True

    def get_current_device(self):
        return self._asked("get_current_device", 0)

    def set_current_device(self, device):
        self._asked("set_current_device", None)

    def get_current_stream(self, device=None):
        return self._asked("get_current_stream", 0)

    def get_current_target(self):
        return self._asked("get_current_target", self._target)

    def get_device_capability(self, device=None):
        return self._asked("get_device_capability", divmod(self._target.arch, 10))

    def get_active_torch_device(self):
        return self._asked("get_active_torch_device", _EMULATED_DEVICE)

    def get_device_interface(self):
        return self._asked("get_device_interface", torch.cuda)

    def get_empty_cache_for_benchmark(self):
        return torch.empty(1, dtype=torch.int8)

    def clear_cache(self, cache):
        pass

    def get_benchmarker(self):
        def no_benchmark(*args, **kwargs):
            raise RuntimeError("tritondx capture: nothing can be benchmarked without a GPU")
        return no_benchmark


def _is_cuda_device(d):
    if isinstance(d, torch.device):
        return d.type == "cuda"
    if isinstance(d, str):
        return d == "cuda" or d.startswith("cuda:")
    return isinstance(d, int) and not isinstance(d, bool)


def _caller_line(skip_files):
    """The innermost frame outside this package, torch and triton: where the user code read."""
    for frame in reversed(traceback.extract_stack()[:-2]):
        name = frame.filename
        if any(part in name for part in skip_files):
            continue
        return {"file": name, "line": frame.lineno, "code": (frame.line or "").strip()}
    return {"file": "", "line": 0, "code": ""}


class CudaEmulation(TorchFunctionMode):
    """The torch side: tensors say cuda:0, CUDA device requests get the CPU, host reads of
    kernel arguments after their launch are recorded."""

    def __init__(self):
        super().__init__()
        self.suspended = 0
        self.used = set()
        self.host_reads = []
        self._written = {}  # storage data_ptr -> the kernel that was given it

    def kernel_launched(self, kernel_name, bound_args):
        for value in bound_args.values():
            if torch.is_tensor(value) and _storage_of(value):
                self._written.setdefault(_storage_of(value), kernel_name)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.suspended:
            return func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if name == "__get__" and args and torch.is_tensor(args[0]):
            prop = _property_name(func)
            if prop == "is_cuda":
                self.used.add("Tensor.is_cuda")
                return True
            if prop == "device":
                self.used.add("Tensor.device")
                return _EMULATED_DEVICE
        if name == "get_device" and args and torch.is_tensor(args[0]):
            self.used.add("Tensor.get_device")
            return 0
        if name == "cuda" and args and torch.is_tensor(args[0]):
            self.used.add("Tensor.cuda")
            return args[0]
        if "device" in kwargs and _is_cuda_device(kwargs["device"]):
            self.used.add(f"{name}(device=cuda)")
            kwargs = dict(kwargs, device="cpu")
        if name in ("to", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"):
            if any(_is_cuda_device(a) and not isinstance(a, int) for a in args[1:]):
                self.used.add(f"Tensor.{name}(cuda)")
                args = tuple(a if not (_is_cuda_device(a) and not isinstance(a, int)) else "cpu" for a in args)
        if not self._written:
            return func(*args, **kwargs)
        kernel = self._kernel_behind(args, kwargs)
        if kernel and name in _HOST_READS:
            where = _caller_line(("tritondx_bridge", os.sep + "torch" + os.sep, os.sep + "triton" + os.sep))
            self.host_reads.append({**where, "method": name.strip("_"), "kernel": kernel})
        result = func(*args, **kwargs)
        if kernel:  # a value computed from a kernel's argument holds no kernel result either
            for out in (result if isinstance(result, (tuple, list)) else (result, )):
                if torch.is_tensor(out):
                    self._written.setdefault(_storage_of(out), kernel)
        return result

    def _kernel_behind(self, args, kwargs):
        for value in (*args, *kwargs.values()):
            if torch.is_tensor(value):
                kernel = self._written.get(_storage_of(value))
                if kernel:
                    return kernel
        return None


def _storage_of(tensor):
    try:
        return tensor.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):  # meta or sparse tensors have no storage
        return None


def _property_name(getter):
    """`device` for Tensor.device.__get__ (the getset descriptor's name)."""
    descriptor = getattr(getter, "__self__", None)
    return getattr(descriptor, "__name__", "")


def _cuda_patches(properties, record):
    def counted(name, fn):
        def wrapper(*args, **kwargs):
            record.add(f"torch.cuda.{name}")
            return fn(*args, **kwargs)
        return wrapper

    def device_class(name):
        class Device(_NoOpContext):
            def __init__(self, *args, **kwargs):
                record.add(f"torch.cuda.{name}")
                super().__init__()
        return Device

    current = Stream()
    return {
        "is_available": counted("is_available", lambda: True),
        "is_initialized": lambda: True,
        "device_count": counted("device_count", lambda: 1),
        "current_device": counted("current_device", lambda: 0),
        "set_device": counted("set_device", lambda device: None),
        "device": device_class("device"),
        "device_of": device_class("device_of"),
        "synchronize": counted("synchronize", lambda device=None: None),
        "current_stream": counted("current_stream", lambda device=None: current),
        "default_stream": counted("default_stream", lambda device=None: current),
        "Stream": Stream,
        "stream": device_class("stream"),
        "Event": Event,
        "get_device_properties": counted("get_device_properties", lambda device=None: properties),
        "get_device_capability": counted("get_device_capability",
                                         lambda device=None: (properties.major, properties.minor)),
        "get_device_name": counted("get_device_name", lambda device=None: properties.name),
        "mem_get_info": counted("mem_get_info", lambda device=None: (properties.total_memory, properties.total_memory)),
        "is_current_stream_capturing": lambda: False,
        "empty_cache": lambda: None,
        "manual_seed": lambda seed: None,
        "manual_seed_all": lambda seed: None,
        # torch.compile saves and restores the generator around tracing; an idle GPU's state
        "get_rng_state": lambda device="cuda": torch.zeros(16, dtype=torch.uint8),
        "set_rng_state": lambda new_state, device="cuda": None,
        "get_rng_state_all": lambda: [torch.zeros(16, dtype=torch.uint8)],
        "set_rng_state_all": lambda new_states: None,
    }


class Emulation:
    """What one emulated run used and saw (for the capture reply and the report)."""

    def __init__(self, mode, cuda_calls):
        self._mode = mode
        self._cuda_calls = cuda_calls

    @property
    def used(self):
        return sorted(self._mode.used | self._cuda_calls)

    @property
    def host_reads(self):
        return list(self._mode.host_reads)

    def kernel_launched(self, kernel_name, bound_args):
        self._mode.kernel_launched(kernel_name, bound_args)

    @contextlib.contextmanager
    def suspended(self):
        """Real torch (no emulation) inside, e.g. for Triton's own specialization of a launch."""
        self._mode.suspended += 1
        try:
            yield
        finally:
            self._mode.suspended -= 1

    @contextlib.contextmanager
    def off_the_mode_stack(self):
        """Inside: torch's function-mode stack without the emulation's mode, as torch.compile
        needs it (Dynamo traces the modes on the stack, and would trace this one's bookkeeping
        into every graph). The torch.cuda answers stay; tensors say where they really are."""
        from torch.overrides import _get_current_function_mode_stack, _pop_mode_temporarily
        stack = _get_current_function_mode_stack()
        if not stack or stack[-1] is not self._mode:
            yield
            return
        with _pop_mode_temporarily():
            yield

    def to_json(self):
        return {"emulated": self.used, "host_reads": self.host_reads}


@contextlib.contextmanager
def _interpreter_unemulated(emulation):
    """Under TRITON_INTERPRET the kernels run, on the CPU tensors as they are: the interpreter's
    own tensor handling runs without the emulation."""
    from triton.runtime import interpreter
    call = interpreter.GridExecutor.__call__

    def suspended_call(self, *args, **kwargs):
        with emulation.suspended():
            return call(self, *args, **kwargs)

    interpreter.GridExecutor.__call__ = suspended_call
    try:
        yield
    finally:
        interpreter.GridExecutor.__call__ = call


@contextlib.contextmanager
def emulated_cuda(target_name="nvidia-h200", interpreted=False):
    """Inside: CUDA as described above. With `interpreted`, kernels run under Triton's
    interpreter (their results are real, so host reads are not recorded). Everything is
    restored on exit, also on an exception."""
    from triton.runtime import driver as triton_driver
    properties = DeviceProperties(load_target(target_name))
    cuda_calls = set()
    patches = _cuda_patches(properties, cuda_calls)
    saved = {name: getattr(torch.cuda, name) for name in patches if hasattr(torch.cuda, name)}
    saved_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    saved_driver = triton_driver._active
    mode = CudaEmulation()
    for name, value in patches.items():
        setattr(torch.cuda, name, value)
    torch._C._cuda_getCurrentRawStream = lambda device=None: 0
    triton_driver.set_active(EmulatedDriver(load_target(target_name), properties, cuda_calls))
    emulation = Emulation(mode, cuda_calls)
    try:
        with mode, (_interpreter_unemulated(emulation) if interpreted else contextlib.nullcontext()):
            yield emulation
    finally:
        triton_driver._active = saved_driver
        for name in patches:
            if name in saved:
                setattr(torch.cuda, name, saved[name])
            else:
                delattr(torch.cuda, name)
        if saved_raw_stream is None:
            if hasattr(torch._C, "_cuda_getCurrentRawStream"):
                del torch._C._cuda_getCurrentRawStream
        else:
            torch._C._cuda_getCurrentRawStream = saved_raw_stream
