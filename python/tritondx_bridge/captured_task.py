"""A task file from a captured kernel (program_capture.KernelRecord): the kernel's source and its
helpers (kernel_source.py), a `launch` that repeats the recorded launch (the grid as a formula of
the arguments where one fits every recorded launch, so block-size rewrites keep working), a
`make_inputs` that recreates the most frequent configuration's tensors (dtype, shape, strides,
storage offset, and data drawn in the recorded range) and a `make_test_inputs` with every other
configuration launched with the same constexprs. No `reference`: the original kernel is the
reference (the frozen initial kernel verifies every candidate).
"""
import ast
import importlib.metadata
import inspect
import json
import os
import textwrap

import triton.language as tl

from .kernel_source import _dtype_source, kernel_source, render


def constexpr_json(v):
    if isinstance(v, tl.constexpr):
        v = v.value
    if isinstance(v, tl.dtype):
        return {"dtype": _dtype_source(v)}
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return {"repr": repr(v)}


def _constexpr_source(v):
    if isinstance(v, dict):
        return v.get("dtype") or v["repr"]
    return repr(v)


def _origin(fn, generated_by=None):
    """(file, line, package, version) of the function's definition. A kernel torch.compile
    generated is torch's: its file is the module Inductor wrote."""
    try:
        path = inspect.getsourcefile(fn.fn) or ""
    except TypeError:
        path = ""
    if path and os.path.abspath(path).startswith(os.getcwd() + os.sep):
        path = os.path.relpath(path)
    line = getattr(fn, "starting_line_number", 0) or fn.fn.__code__.co_firstlineno
    if generated_by:
        return path, line, "torch", generated_by["torch"]
    module = fn.fn.__module__ or ""
    package = version = None
    top = module.split(".")[0]
    if top and top != "__main__":
        dists = importlib.metadata.packages_distributions().get(top) or []
        if dists:
            package = dists[0]
            try:
                version = importlib.metadata.version(package)
            except importlib.metadata.PackageNotFoundError:
                version = None
    return path, line, package, version


def kernel_json(record):
    path, line, package, version = _origin(record.fn, record.generated_by)
    configs = [record.configs[k] for k in record.order]
    main = record.main_config()
    generated = {"generated_by": record.generated_by["generator"]} if record.generated_by else {}
    return {**generated, "kernel": record.fn.fn.__name__,
            "qualname": f"{record.fn.fn.__module__}.{record.fn.fn.__qualname__}",
            "file": path, "line": line, "package": package, "version": version,
            "configs": len(configs), "autotune": main["autotune"],
            "shapes": [{"count": c["count"], "args": {n: d.get("shape", d.get("value")) for n, d in c["args"]}}
                       for c in [main] + [c for c in configs if c is not main]][:12]}


def file_name(fn, taken):
    base = fn.fn.__name__
    name, i = f"{base}.py", 2
    while name in taken:
        name, i = f"{base}_{i}.py", i + 1
    taken.add(name)
    return name


def _license_lines(path):
    """The leading comment block of the kernel's file when it states a license or copyright."""
    try:
        with open(path) as f:
            head = f.read(4000).splitlines()
    except OSError:
        return []
    block = []
    for line in head:
        if line.startswith("#!"):
            continue
        if not line.startswith("#"):
            break
        block.append(line)
    text = "\n".join(block).lower()
    return block if any(w in text for w in ("license", "copyright", "spdx")) else []


def _int_terms(config):
    """Integer expressions a grid dimension may be made of: scalar arguments, tensors' numel and
    dims; name -> value in this configuration."""
    terms = {}
    for name, d in config["args"]:
        if d["kind"] == "scalar" and isinstance(d["value"], int) and not isinstance(d["value"], bool):
            terms[name] = d["value"]
    for name, d in config["args"]:
        if d["kind"] == "tensor":
            numel = 1
            for s in d["shape"]:
                numel *= s
            terms[f"{name}.numel()"] = numel
            for i, s in enumerate(d["shape"]):
                terms.setdefault(f"{name}.shape[{i}]", s)
    return terms


def _cdiv(a, b):
    return -(-a // b)


def block_constexprs(fn):
    """The constexpr parameters a program's index is scaled by (`tl.program_id(0) * BLOCK`, or
    through a variable holding the program id): the only ones a grid can be a cdiv by. A kernel
    whose program id is a row index has none, and its grid is not taken for cdiv(numel, BLOCK)
    because the numbers happen to agree."""
    tree = ast.parse(textwrap.dedent(fn.src))
    constexprs = {p.name for p in fn.params if p.is_constexpr}
    pid_vars = set()

    def from_pid(node):
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and _call_attr(n) == "program_id":
                return True
            if isinstance(n, ast.Name) and n.id in pid_vars:
                return True
        return False

    for _ in range(3):
        for a in (n for n in ast.walk(tree) if isinstance(n, ast.Assign)):
            if from_pid(a.value):
                pid_vars |= {t.id for t in a.targets if isinstance(t, ast.Name)}
    scaled = set()
    for b in (n for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)):
        for side, other in ((b.left, b.right), (b.right, b.left)):
            if from_pid(side):
                scaled |= {n.id for n in ast.walk(other) if isinstance(n, ast.Name) and n.id in constexprs}
    return scaled


def _call_attr(call):
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def grid_source(configs, constexprs, blocks=None):
    """The grid as source: `lambda meta: (triton.cdiv(n, meta["BLOCK"]), ...)` where a formula over
    the arguments and an integer constexpr of `blocks` (block_constexprs) fits every
    configuration, else the recorded numbers; None when neither fits them all."""
    # A block of 1 divides too when the program id is known to be scaled by it (Inductor's XBLOCK=1
    # for one row per program): then the grid still follows a rewrite that grows it.
    divisors = [(f'meta["{k}"]', v) for k, v in constexprs.items()
                if isinstance(v, int) and not isinstance(v, bool) and (v > 1 or (v == 1 and blocks is not None))
                and (blocks is None or k in blocks)]
    divisors.sort(key=lambda kv: "BLOCK" not in kv[0])
    terms = [_int_terms(c) for c in configs]
    dims, uses_meta = [], False
    for d in range(len(configs[0]["grid"])):
        values = [c["grid"][d] if d < len(c["grid"]) else 1 for c in configs]
        if set(values) == {1}:
            dims.append("1")
            continue
        found = None
        for name in terms[0]:
            if not all(name in t for t in terms):
                continue
            for div_src, div in divisors + [(None, 1)]:
                if all(_cdiv(t[name], div) == v for t, v in zip(terms, values)):
                    found = f"triton.cdiv({name}, {div_src})" if div_src else name
                    uses_meta |= div_src is not None
                    break
            if found:
                break
        if found is None and len(set(values)) == 1:
            found = str(values[0])
        if found is None:
            return None
        dims.append(found)
    body = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    return f"lambda meta: {body}" if uses_meta else body


def _same_launch(a, b):
    return (a["constexprs"] == b["constexprs"] and a["options"] == b["options"]
            and [n for n, _ in a["args"]] == [n for n, _ in b["args"]]
            and [d["kind"] == "scalar" and d["value"] is None for _, d in a["args"]]
            == [d["kind"] == "scalar" and d["value"] is None for _, d in b["args"]])


_HELPERS = '''

def _draw(spec, device):
    """A tensor as the program passed it: dtype, shape, strides and storage offset, its storage
    filled with data in the recorded range."""
    dtype = getattr(torch, spec["dtype"])
    n = max(spec["storage"], 1)
    data = spec["data"] or {"kind": "bool" if dtype == torch.bool else
                                    "float" if dtype.is_floating_point else "int", "mean": 0.0, "std": 1.0,
                            "min": 0, "max": 1, "p": 0.5}
    if data["kind"] == "bool":
        flat = torch.rand(n, device=device) < data["p"]
    elif data["kind"] == "int" and "values" in data:  # exactly the values the program passed
        values = torch.tensor(data["values"], dtype=torch.int64, device=device)
        flat = values[torch.randint(0, len(data["values"]), (n,), device=device)].to(dtype)
    elif data["kind"] == "int":
        flat = torch.randint(data["min"], data["max"] + 1, (n,), device=device, dtype=torch.int64)
        if data.get("sentinels"):  # e.g. -100 for an ignored label, at its recorded share
            sentinels = torch.tensor(data["sentinels"], dtype=torch.int64, device=device)
            pick = sentinels[torch.randint(0, len(data["sentinels"]), (n,), device=device)]
            flat = torch.where(torch.rand(n, device=device) < data["sentinel_share"], pick, flat)
        flat = flat.to(dtype)
    elif data.get("min") is not None and data["min"] == data["max"] != 0:  # constant: the ones of a .sum()'s
        flat = torch.full((n,), data["min"], device=device, dtype=dtype)  # backward (zeros would hide bugs)
    else:
        flat = torch.randn(n, device=device, dtype=torch.float32) * (data["std"] or 1.0) + data["mean"]
        if "min" in data and data["min"] < data["max"]:  # all zeros (a fresh bias) is drawn N(0, 1): zeros
            flat = flat.clamp(data["min"], data["max"])  # hide bugs, and any bias is as valid
        flat = flat.to(dtype)
    return flat.as_strided(spec["shape"], spec["stride"], spec["offset"])


def _inputs(config, device):
    return tuple(_draw(spec, device) if spec["kind"] == "tensor" else spec["value"] for spec in config)
'''


def write_task(record, path, program, gpu=False):
    """Writes the task; returns {"task": path, "test_shapes": n, "notes": [...]} or
    {"task": None, "skipped": why}."""
    fn = record.fn
    ks = kernel_source(fn)
    if ks.unresolved:
        return {"skipped": "the kernel reads what cannot be copied as source: " + "; ".join(ks.unresolved)}
    configs = [record.configs[k] for k in record.order]
    main = record.main_config()
    if any(d["kind"] == "other" for _, d in main["args"]):
        return {"skipped": "an argument is neither a tensor nor a number: "
                + ", ".join(f"{n} ({d['type']})" for n, d in main["args"] if d["kind"] == "other")}
    same = [main] + [c for c in configs if c is not main and _same_launch(c, main)]
    blocks = block_constexprs(fn)
    grid = grid_source(same, main["constexprs"], blocks)
    if grid is None:  # no formula fits them all: the recorded grid, for the configurations that have it
        same = [c for c in same if c["grid"] == main["grid"]]
        grid = grid_source(same, main["constexprs"], blocks) or repr(tuple(main["grid"]))
    notes = []
    others = len(configs) - len(same)
    if others:
        notes.append(f"{others} other configuration(s) launched with other constexprs, options or grids "
                     "are not among the test shapes")
    params = [n for n, d in main["args"] if not (d["kind"] == "scalar" and d["value"] is None)]
    # In the kernel's parameter order: positional up to its first constexpr, by name after it.
    described = dict(main["args"])
    call_args, by_name = [], False
    for p in fn.params:
        if p.is_constexpr:
            by_name = True
            if p.name in main["constexprs"]:
                call_args.append(f"{p.name}={_constexpr_source(main['constexprs'][p.name])}")
            continue
        d = described[p.name]
        value = "None" if d["kind"] == "scalar" and d["value"] is None else p.name
        call_args.append(f"{p.name}={value}" if by_name else value)
    kwargs = [f"{k}={v}" for k, v in main["options"].items() if k in ("num_warps", "num_stages")]
    tensors = [n for n, d in main["args"] if d["kind"] == "tensor"]
    outputs = [n for n in tensors if n in record.writes] or tensors
    drawn = sorted({f"{n} ({d['data_from'].split(',')[0]})" for c in same for n, d in c["args"] if d.get("data_from")})
    if drawn:
        notes.append("the data of " + ", ".join(drawn) + " was never computed here: drawn from N(0, 1)")
    src_path, line, package, version = _origin(fn, record.generated_by)
    where = f"{src_path}:{line}" + (f" (package {package} {version})" if package else "")
    if record.generated_by:
        where = f"generated by torch.compile (Inductor, torch {version}) for the program, in {src_path}:{line}"
    autotune = ""
    if main["autotune"]:
        a = main["autotune"]
        tuner = "Inductor" if a.get("by") == "inductor" else "the autotuner"
        chosen = f"{tuner} chose" if gpu else "captured without a GPU, so its first config was used"
        had = (f"Inductor generated {len(a['configs'])} config(s) for it" if a.get("by") == "inductor"
               else f"The kernel is autotuned ({len(a['configs'])} configs)")
        autotune = f"\n{had}; {chosen}: {a['configs'][a['used']]}."
    how = "on the GPU" if gpu else "without a GPU (--gpu off)"
    header = [f'"""`{fn.fn.__name__}`, captured by `tritondx capture` {how} from `{" ".join(program)}`.',
              "", f"Provenance: {where}. Copied from that file: the kernel and the @triton.jit helpers and",
              "constants it reads; the launch, make_inputs and make_test_inputs below repeat what the program did",
              f"({record.calls} launch(es) in {len(configs)} configuration(s)). The original kernel is the reference.{autotune}",
              '"""']
    lic = _license_lines(src_path)
    body = ("\n".join(lic) + "\n" if lic else "") + "\n".join(header) + "\nimport json\n\nimport torch\n" + render(ks)
    specs = [[{k: v for k, v in d.items() if k != "bytes"} for n, d in c["args"]
              if not (d["kind"] == "scalar" and d["value"] is None)] for c in same]
    body += "\n\n# ---- the captured launch (tritondx capture)\n"
    body += ("# make_inputs draws CONFIGS[0], the most frequent configuration; make_test_inputs the others\n"
             "CONFIGS = json.loads(\"\"\"[\n" + ",\n".join(json.dumps(c) for c in specs) + "\n]\"\"\")\n")
    # Tensors the kernel reads and writes (an update in place, an atomic accumulation): every
    # check and timed call starts from the same data (docs/task-format.md).
    mutates = [n for n in tensors if n in record.writes and n in record.reads]
    if mutates:
        body += ("\n# The kernel reads and writes these in place: each call starts from the drawn data\n"
                 f"MUTATES = ({', '.join(repr(n) for n in mutates)},)\n")
    body += "\n\ndef launch(" + ", ".join(params) + "):\n"
    body += f"    grid = {grid}\n"
    body += f"    {fn.fn.__name__}[grid](" + ", ".join(call_args + kwargs) + ")\n"
    what = ("the tensors the kernel writes" if any(n in record.writes for n in tensors)
            else "the tensors the kernel was given")
    body += f"    return {', '.join(outputs) + (',' if len(outputs) == 1 else '')}  # {what}\n"
    body += _HELPERS
    body += "\n\ndef make_inputs(device):\n    return _inputs(CONFIGS[0], device)\n"
    if len(same) > 1:
        body += "\n\ndef make_test_inputs(device):\n    return [_inputs(c, device) for c in CONFIGS[1:]]\n"
    else:
        notes.append("one configuration was launched: the kernel is checked at that shape only")
    with open(path, "w") as f:
        f.write(body)
    return {"task": os.path.abspath(path), "test_shapes": len(same) - 1, "notes": notes}
