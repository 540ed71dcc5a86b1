"""Loading and validating a kernel task file.

A task is a Python file with:
  - one or more @triton.jit kernels (optionally under @triton.autotune / @triton.heuristics),
  - launch(*inputs): allocates outputs, launches the kernel(s), returns the output(s),
  - reference(*inputs), optional: the same computation in PyTorch; without it the task is verified
    against its initial kernel (a frozen copy of the file as the run found it, verify.py),
  - make_inputs(device): returns the tuple of inputs at realistic sizes,
  - optionally TOLERANCE = {"rtol": float, "atol": float}, flops(*inputs), bytes_moved(*inputs),
    MUTATES = ("name", ...): the inputs launch() updates in place (in_place.py).
"""
import ast
import importlib.util
import os
import sys
import traceback

from . import in_place
from .errors import BridgeError

REQUIRED = (
    ("launch", "missing-launch", "launch(*inputs) function (it launches the kernel and returns the output)"),
    ("make_inputs", "missing-input-maker", "make_inputs(device) function (it returns the inputs)"),
)


class Task:
    def __init__(self, path, source, module, kernels):
        self.path = path
        self.source = source
        self.module = module
        self.kernels = kernels  # name -> KernelInfo

    def function(self, name):
        return getattr(self.module, name)


class KernelInfo:
    def __init__(self, name, jit_fn, wrapper, def_line, end_line):
        self.name = name
        self.jit_fn = jit_fn
        self.wrapper = wrapper  # the object bound in the module (Autotuner, Heuristics or the JITFunction)
        self.def_line = def_line
        self.end_line = end_line

    def to_json(self):
        params = []
        for p in self.jit_fn.params:
            params.append({"name": p.name, "constexpr": bool(p.is_constexpr),
                           "do_not_specialize": bool(p.do_not_specialize),
                           "do_not_specialize_on_alignment": bool(p.do_not_specialize_on_alignment)})
        wrappers = []
        w = self.wrapper
        while w is not self.jit_fn and hasattr(w, "fn"):
            kind = type(w).__name__
            entry = {"kind": kind}
            if hasattr(w, "configs"):
                entry["configs"] = [_config_json(c) for c in w.configs]
                entry["key"] = list(getattr(w, "keys", []) or [])
            if isinstance(getattr(w, "values", None), dict):
                entry["values"] = list(w.values)  # the names @triton.heuristics computes
            wrappers.append(entry)
            w = w.fn
        return {"name": self.name, "def_line": self.def_line, "end_line": self.end_line,
                "params": params, "wrappers": wrappers}


def _config_json(config):
    return {"kwargs": dict(config.kwargs), "num_warps": config.num_warps, "num_stages": config.num_stages,
            "num_ctas": getattr(config, "num_ctas", 1), "maxnreg": getattr(config, "maxnreg", None)}


def _unwrap_jit(obj):
    """The JITFunction (or, under TRITON_INTERPRET, the InterpretedFunction) inside a wrapper."""
    import triton
    from triton.runtime.interpreter import InterpretedFunction
    seen = 0
    while obj is not None and seen < 8:
        if isinstance(obj, (triton.runtime.jit.JITFunction, InterpretedFunction)):
            return obj
        obj = getattr(obj, "fn", None)
        seen += 1
    return None


def _function_spans(tree):
    spans = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans.setdefault(node.name, (node.lineno, node.end_lineno))
    return spans


def _error_line_in(path, tb):
    for frame in reversed(traceback.extract_tb(tb)):
        if os.path.abspath(frame.filename) == path:
            return frame.lineno
    return 0


def parse_task(path):
    """The task file's absolute path, text and Python AST, without importing it (nothing in it runs)."""
    if not path:
        raise BridgeError("bad-request", "no task path given")
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise BridgeError("file-missing", f"task file not found: {path}", file=path)
    if not os.path.isfile(path):
        raise BridgeError("file-missing", f"task path is not a file: {path}", file=path)
    if not path.endswith(".py"):
        raise BridgeError("not-python", "a task must be a Python file (.py) with @triton.jit kernels", file=path)
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BridgeError("unreadable", f"cannot read task file: {e}", file=path) from e
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as e:
        raise BridgeError("syntax-error", f"Python syntax error: {e.msg}", file=path,
                          line=e.lineno or 0, col=e.offset or 0) from e
    return path, source, tree


def import_file(path, prefix):
    """Imports the Python file at `path` as a module of its own (named from `prefix`, the path and
    how many modules exist, so two imports of one file are two modules), with its folder on
    sys.path while it runs (a task may import its neighbours). Raises what the file raises."""
    path = os.path.abspath(path)
    module_name = f"{prefix}_{abs(hash(path))}_{len(sys.modules)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    in_place.install(module)
    return module


def load_task(path):
    path, source, tree = parse_task(path)
    try:
        module = import_file(path, "tritondx_task")
    except BridgeError as e:  # a malformed MUTATES
        e.file, e.line = path, e.line or _assignment_line(tree, in_place.NAME)
        raise
    except Exception as e:  # noqa: BLE001 - any import-time failure is the task's problem
        line = _error_line_in(path, e.__traceback__)
        raise BridgeError("import-error", f"importing the task failed: {type(e).__name__}: {e}",
                          file=path, line=line, detail=traceback.format_exc()) from e
    module_name = module.__name__

    spans = _function_spans(tree)
    kernels = {}
    for attr, value in vars(module).items():
        jit_fn = _unwrap_jit(value)
        if jit_fn is None or getattr(jit_fn.fn, "__module__", None) != module_name:
            continue
        name = jit_fn.fn.__name__
        def_line, end_line = spans.get(name, (0, 0))
        kernels[name] = KernelInfo(name, jit_fn, value, def_line, end_line)
    if not kernels:
        raise BridgeError("no-jit-kernel", "the task defines no @triton.jit kernel", file=path)

    for attr, kind, what in REQUIRED:
        fn = getattr(module, attr, None)
        if fn is None or not callable(fn):
            raise BridgeError(kind, f"the task has no {what}", file=path)

    reference = getattr(module, "reference", None)
    if reference is not None and not callable(reference):
        raise BridgeError("missing-reference", "the task's `reference` is not a function (reference(*inputs) "
                          "computes the same result in PyTorch; leave it out to verify against the initial kernel)",
                          file=path, line=_assignment_line(tree, "reference"))

    tolerance = getattr(module, "TOLERANCE", None)
    if tolerance is not None:
        if not isinstance(tolerance, dict) or not set(tolerance) <= {"rtol", "atol"} or not all(
                isinstance(v, (int, float)) and v >= 0 for v in tolerance.values()):
            raise BridgeError("bad-tolerance", "TOLERANCE must be a dict with non-negative 'rtol' and/or 'atol'",
                              file=path, line=_assignment_line(tree, "TOLERANCE"))
    return Task(path, source, module, kernels)


def _assignment_line(tree, name):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.lineno
    return 0


def task_json(task):
    tolerance = getattr(task.module, "TOLERANCE", None)
    return {
        "path": task.path,
        "kernels": [k.to_json() for k in task.kernels.values()],
        "tolerance": tolerance,
        "has_flops": callable(getattr(task.module, "flops", None)),
        "has_bytes": callable(getattr(task.module, "bytes_moved", None)),
        "has_reference": callable(getattr(task.module, "reference", None)),
        "doc": (task.module.__doc__ or "").strip(),
    }


def load_verb(request):
    return {"task": task_json(load_task(request.get("task")))}
