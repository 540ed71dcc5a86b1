"""Which pointer parameters a @triton.jit kernel writes through: the parameters a `tl.store` or
`tl.atomic_*` address is computed from, following the kernel's assignments (`p = out_ptr +
offs` then `tl.store(p, ...)`) and tl.make_block_ptr / tl.make_tensor_descriptor bases, and
the stores of the @triton.jit helpers it passes a parameter to. Capture uses it to tell the
tensors a launch writes (its outputs; data a later launch reads from them was never computed
here) from those it only reads. read_params does the same for `tl.load` and the atomics (a
read-modify-write): a parameter in both updates its tensor in place (the task's MUTATES)."""
import ast
import textwrap

from triton.runtime.jit import JITFunction

_ATOMICS = ("atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor", "atomic_xchg",
            "atomic_cas")
_WRITES = ("store",) + _ATOMICS
_READS = ("load",) + _ATOMICS


def _names(node):
    """Names in `node`, except inside tl.load(...) calls: a loaded value (an index) is data, not the
    address it was loaded from."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Call) and _call_name(node)[0] == "load":
        return set()
    return set().union(*(_names(c) for c in ast.iter_child_nodes(node)))


def _call_name(call):
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr, f.value
    if isinstance(f, ast.Name):
        return f.id, None
    return "", None


def written_params(fn):
    """Names of fn's parameters that its stores (or its helpers' stores) address."""
    return _addressed_params(fn, _WRITES)


def read_params(fn):
    """Names of fn's parameters that its loads and atomics (or its helpers') address."""
    return _addressed_params(fn, _READS)


def _addressed_params(fn, calls, _depth=0):
    tree = ast.parse(textwrap.dedent(fn.src))
    func = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    params = [a.arg for a in func.args.args]
    # Each local name's parameter roots, to a fixed point over the assignments.
    roots = {p: {p} for p in params}
    assigns = [n for n in ast.walk(func) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign))]
    changed = True
    while changed:
        changed = False
        for a in assigns:
            value = a.value
            if value is None:
                continue
            from_params = set().union(*(roots.get(n, set()) for n in _names(value)))
            targets = a.targets if isinstance(a, ast.Assign) else [a.target]
            for t in targets:
                for name in _names(t):
                    before = roots.setdefault(name, set())
                    if not from_params <= before:
                        before |= from_params
                        changed = True
    addressed = set()
    for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
        name, owner = _call_name(call)
        if name in calls and call.args:
            addressed |= set().union(*(roots.get(n, set()) for n in _names(call.args[0])))
        elif owner is None and _depth < 4:
            helper = fn.fn.__globals__.get(name)
            if isinstance(helper, JITFunction):
                inner = _addressed_params(helper, calls, _depth + 1)
                helper_params = [p.name for p in helper.params]
                for i, arg in enumerate(call.args):
                    if i < len(helper_params) and helper_params[i] in inner:
                        addressed |= set().union(*(roots.get(n, set()) for n in _names(arg)))
    return {p for p in addressed if p in params}
