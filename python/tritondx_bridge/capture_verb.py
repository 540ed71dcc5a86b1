"""The `capture` verb: what the task launches, without compiling (L0 triage needs only this).

Reply: {"launches": [...], "inputs": [{"kind": "tensor", "shape", "dtype", "stride", "bytes"} | {"kind": "scalar",
        "value"}], "min_bytes": int|None, "flops": int|None, "task": {...},
        "outputs": [described like the inputs: launch()'s return value, tensors of tuples/lists/dicts flattened],
        "cuda_emulation": {"emulated": [CUDA calls the task made and the emulation answered],
                           "host_reads": [{"file", "line", "code", "method", "kernel"}]}}
The task is imported, its inputs made and launch() run inside cuda_emulation.emulated_cuda().
"""
import ast

from .capture import capture_launches
from .cuda_emulation import emulated_cuda
from .source_ast import node_json
from .errors import BridgeError
from .task import load_task, task_json


def describe_input(x):
    if hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "element_size"):
        return {"kind": "tensor", "shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", ""),
                "stride": list(x.stride()), "bytes": int(x.numel() * x.element_size())}
    if isinstance(x, (int, float, bool)):
        return {"kind": "scalar", "value": x}
    return {"kind": type(x).__name__}


def describe_outputs(result):
    """launch()'s return value, one described value per tensor (tuples, lists and dicts flattened)."""
    if result is None:
        return []
    if isinstance(result, dict):
        result = list(result.values())
    if isinstance(result, (tuple, list)):
        return [d for item in result for d in describe_outputs(item)]
    return [describe_input(result)]


def launch_args(launch):
    """Each bound argument: tensors by shape/dtype, scalars by value (for trip counts and masks)."""
    out = {}
    for name, value in launch.bound_args.items():
        out[name] = describe_input(value)
    return out


def _optional_count(task, name, inputs):
    fn = getattr(task.module, name, None)
    if fn is None:
        return None
    try:
        return int(fn(*inputs))
    except Exception as e:  # noqa: BLE001
        raise BridgeError("task-function-error", f"{name}(*inputs) failed: {type(e).__name__}: {e}",
                          file=task.path) from e


def capture_verb(request):
    with emulated_cuda() as emulation:
        task = load_task(request.get("task"))
        launches, inputs = capture_launches(task, emulation, what_if=request.get("what_if"),
                                            autotune_config=request.get("autotune_config"))
        min_bytes = _optional_count(task, "bytes_moved", inputs)
        flops = _optional_count(task, "flops", inputs)
    described = [describe_input(x) for x in inputs]
    if min_bytes is None:
        # Inputs read once; outputs are not known without running: count inputs only and say so.
        min_bytes_source = "inputs only (the task declares no bytes_moved)"
        min_bytes = sum(d.get("bytes", 0) for d in described)
    else:
        min_bytes_source = "task bytes_moved()"
    out = []
    for launch in launches:
        entry = launch.to_json()
        entry["args"] = launch_args(launch)
        out.append(entry)
    return {"launches": out, "inputs": described, "min_bytes": min_bytes, "min_bytes_source": min_bytes_source,
            "flops": flops, "task": task_json(task),
            "outputs": describe_outputs(getattr(task, "launch_result", None)), "cuda_emulation": emulation.to_json(),
            "task_info": {"path": task.path, "source": task.source,
                          "kernels": [k.to_json() for k in task.kernels.values()], "task": task_json(task),
                          "module": node_json(ast.parse(task.source, filename=task.path))}}
