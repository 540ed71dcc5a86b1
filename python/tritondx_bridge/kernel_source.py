"""The source a captured kernel needs to stand alone: the @triton.jit function, every @triton.jit
helper it calls (transitively, in dependency order), and the module-level names they read
(modules, constexpr and number constants, Triton functions imported by name), resolved through
the functions' own globals, so a kernel of an installed library is copied as that library defines
it. What cannot be written as source (a non-Triton object the kernel reads) is reported, not
guessed."""
import ast
import inspect
import textwrap
import types

import triton.language as tl
from triton.runtime.jit import JITFunction


class KernelSource:
    def __init__(self):
        self.imports = {}      # name -> import line
        self.constants = {}    # name -> assignment line
        self.functions = []    # (JITFunction, source) in definition order: helpers first
        self.aliases = {}      # name -> `name = function` for a @triton.jit function read by another name
        self.unresolved = []   # "name: why" for what could not be written as source
        self._seen = set()


def _function_source(fn):
    """The function's source from `def` on, with its @triton.jit options kept."""
    src = textwrap.dedent(fn.src if hasattr(fn, "src") else inspect.getsource(fn.fn))
    options = []
    if getattr(fn, "do_not_specialize", None):
        names = [fn.arg_names[i] if isinstance(i, int) else i for i in fn.do_not_specialize]
        options.append(f"do_not_specialize={names!r}")
    if getattr(fn, "noinline", False):
        options.append("noinline=True")
    decorator = f"@triton.jit({', '.join(options)})" if options else "@triton.jit"
    return decorator + "\n" + src.rstrip() + "\n"


def _attributes_read(src, name):
    """The attributes the function reads of the global `name` (`tle.program_id` -> program_id)."""
    return sorted({n.attr for n in ast.walk(ast.parse(src))
                   if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name})


def _read_names(src):
    """Global names the function body reads (the roots of attribute chains included)."""
    tree = ast.parse(src)
    assigned = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    read = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in params and n.id not in assigned:
            if n.id not in read:
                read.append(n.id)
    return read


def _module_import(name, module):
    if module is tl:
        return "import triton.language as tl" if name == "tl" else f"import triton.language as {name}"
    full = module.__name__
    if "." in full and full.rsplit(".", 1)[1] == name:
        return f"from {full.rsplit('.', 1)[0]} import {name}"
    return f"import {full}" if full == name else f"import {full} as {name}"


def _dtype_source(dtype):
    for attr in dir(tl):
        if isinstance(getattr(tl, attr), tl.dtype) and getattr(tl, attr) == dtype:
            return f"tl.{attr}"
    return f"tl.dtype({dtype.name!r})"


def _resolve(ks, name, value, src):
    if isinstance(value, JITFunction):
        _add_function(ks, value)
        if value.fn.__name__ != name:
            ks.aliases[name] = f"{name} = {value.fn.__name__}"
    elif isinstance(value, types.ModuleType) and value.__spec__ is None:
        # A module object the program made itself (no file to import it from): the @triton.jit
        # functions the kernel reads of it are copied, and a module object of that name holds them.
        ks.imports["types"] = "import types"
        members = []
        for attr in _attributes_read(src, name):
            member = getattr(value, attr, None)
            if not isinstance(member, JITFunction):
                ks.unresolved.append(f"{name}.{attr}: not a @triton.jit function of the module object {name}")
                continue
            _add_function(ks, member)
            members.append(f"{name}.{attr} = {member.fn.__name__}")
        ks.aliases[name] = "\n".join([f"{name} = types.ModuleType({value.__name__!r})"] + members)
    elif isinstance(value, types.ModuleType):
        ks.imports[name] = _module_import(name, value)
    elif isinstance(value, tl.dtype):
        ks.constants[name] = f"{name} = {_dtype_source(value)}"
    elif isinstance(value, tl.constexpr):
        inner = _dtype_source(value.value) if isinstance(value.value, tl.dtype) else repr(value.value)
        ks.constants[name] = f"{name} = tl.constexpr({inner})"
    elif isinstance(value, (bool, int, float, str)) or value is None:
        ks.constants[name] = f"{name} = {value!r}"
    elif getattr(value, "__module__", "") and value.__module__.startswith("triton") and hasattr(value, "__name__"):
        # a Triton builtin or libdevice function imported by name (`from triton.language.math import rsqrt`)
        imported = value.__name__
        ks.imports[name] = f"from {value.__module__} import {imported}" + (f" as {name}" if imported != name else "")
    elif isinstance(value, type) and value.__module__ == "builtins":
        pass
    else:
        ks.unresolved.append(f"{name}: a {type(value).__name__} the kernel reads (not a Triton function or a constant)")


def _add_function(ks, fn):
    if id(fn) in ks._seen:
        return
    ks._seen.add(id(fn))
    src = _function_source(fn)
    for name in _read_names(src):
        glob = fn.fn.__globals__
        if name in glob:
            _resolve(ks, name, glob[name], src)
    ks.functions.append((fn, src))


def kernel_source(fn):
    """KernelSource of the @triton.jit function `fn`."""
    ks = KernelSource()
    ks.imports["triton"] = "import triton"
    ks.imports["tl"] = "import triton.language as tl"
    _add_function(ks, fn)
    return ks


def render(ks):
    """The import lines, the constants, then the functions (helpers before their callers)."""
    lines = sorted(set(ks.imports.values()), key=lambda l: (not l.startswith("import "), l))
    out = "\n".join(lines) + "\n"
    if ks.constants:
        out += "\n" + "\n".join(ks.constants.values()) + "\n"
    for _, src in ks.functions:
        out += "\n\n" + src
    if ks.aliases:
        out += "\n" + "\n".join(ks.aliases.values()) + "\n"
    return out
