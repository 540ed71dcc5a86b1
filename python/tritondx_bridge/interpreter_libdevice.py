"""libdevice under Triton 3.6's CPU interpreter.

The interpreter runs `tl` and `tl.math` on numpy, but `triton.language.extra.libdevice`'s
functions (the `tanh`, `erf`, `rsqrt`, `pow` of real kernels, and of most kernels torch.compile
generates) are extern calls it cannot make: each returns None, and the kernel fails on its next
operation. Here each one that has a numpy equivalent computes it on the handles' data, in the
argument's precision (libdevice takes fp32 and fp64). Compiled code is untouched: the code
generator maps a generic libdevice function to the backend's by its module and name (kept), and a
backend function called with `_semantic` hands the call to the original.
"""
import math

import numpy as np

_SQRT1_2 = 1 / math.sqrt(2)


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _vectorized(f):
    return lambda x: np.vectorize(f, otypes=[x.dtype])(x)


def _ieee_remainder(x, y):
    return x - np.round(x / y) * y  # np.round: half to even, as IEEE's remainder


_UNARY = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "sqrt_rn": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "rsqrt_rn": lambda x: 1 / np.sqrt(x),
    "rcp_rn": lambda x: 1 / x, "cbrt": np.cbrt, "rcbrt": lambda x: 1 / np.cbrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinpi": lambda x: np.sin(np.pi * x),
    "cospi": lambda x: np.cos(np.pi * x), "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "erf": _vectorized(math.erf), "erfc": _vectorized(math.erfc),
    "normcdf": lambda x: _vectorized(math.erfc)(-x * x.dtype.type(_SQRT1_2)) / 2,
    "lgamma": _vectorized(math.lgamma), "tgamma": _vectorized(math.gamma),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "round": _round_half_away, "abs": np.abs, "saturatef": lambda x: np.clip(x, 0, 1),
    "fast_expf": np.exp, "fast_exp10f": lambda x: np.power(x.dtype.type(10), x), "fast_logf": np.log,
    "fast_log2f": np.log2, "fast_log10f": np.log10, "fast_sinf": np.sin, "fast_cosf": np.cos,
    "fast_tanf": np.tan, "fast_tanhf": np.tanh,
}
_PREDICATE = {"isnan": np.isnan, "isinf": np.isinf, "finitef": np.isfinite, "isfinited": np.isfinite,
              "signbit": np.signbit}
_BINARY = {
    "pow": np.power, "fast_powf": np.power, "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod,
    "remainder": _ieee_remainder, "copysign": np.copysign, "fdim": lambda x, y: np.maximum(x - y, 0),
    "nextafter": np.nextafter, "div_rn": np.divide, "fast_dividef": np.divide, "add_rn": np.add,
    "sub_rn": np.subtract, "mul_rn": np.multiply, "rhypot": lambda x, y: 1 / np.hypot(x, y),
}
_TO_INT64 = {"llrint": np.rint, "llround": _round_half_away}


def _numpy_call(name, compute, result_dtype, args):
    """Runs `compute` on the interpreter tensors' (or Python numbers') data."""
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle, _get_np_dtype
    tensors = [a for a in args if isinstance(a, tl.tensor)]
    if not tensors:
        raise TypeError(f"libdevice.{name} under the interpreter: no tensor argument")
    like = tensors[0]
    np_dtype = _get_np_dtype(like.dtype)
    data = [a.handle.data if isinstance(a, tl.tensor) else np.asarray(a, dtype=np_dtype) for a in args]
    with np.errstate(all="ignore"):  # the GPU returns inf and nan without a word
        out = compute(*data)
    scalar = result_dtype or like.dtype
    out = np.asarray(out).astype(_get_np_dtype(scalar))
    block = next((t for t in tensors if t.type.is_block() and list(t.type.shape) == list(out.shape)), None)
    return tl.tensor(TensorHandle(out, scalar), block.type.with_element_ty(scalar) if block is not None else scalar)


def _function(name, original, compute, result_dtype=None):
    def libdevice_function(*args, _semantic=None):
        if _semantic is not None:  # compiled: Triton's own extern call
            return original(*args, _semantic=_semantic)
        return _numpy_call(name, compute, result_dtype, args)

    # What the code generator looks at: the generic module's functions are mapped by module and
    # name to the backend's; the backend's are builtins, passed _semantic.
    libdevice_function.__name__ = libdevice_function.__qualname__ = name
    libdevice_function.__module__ = original.__module__
    if getattr(original, "__triton_builtin__", False):
        libdevice_function.__triton_builtin__ = True
    return libdevice_function


def install_libdevice():
    """Patches the libdevice modules' functions; returns a function that undoes it."""
    import importlib
    import triton.language as tl
    functions = {**{n: (f, None) for n, f in _UNARY.items()}, **{n: (f, None) for n, f in _BINARY.items()},
                 **{n: (f, tl.int1) for n, f in _PREDICATE.items()}, "fma": (_fma, None), "fma_rn": (_fma, None),
                 **{n: ((lambda r: lambda x: r(x))(f), tl.int64) for n, f in _TO_INT64.items()}}
    saved = []
    for module_name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for name, (compute, result) in functions.items():
            original = getattr(module, name, None)
            if original is None:
                continue
            saved.append((module, name, original))
            setattr(module, name, _function(name, original, compute, result))

    def undo():
        for module, name, original in saved:
            setattr(module, name, original)
    return undo


def _fma(x, y, z):
    from .exact_fma import fma
    return fma(x, y, z)
