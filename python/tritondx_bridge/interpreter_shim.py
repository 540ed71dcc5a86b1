"""What Triton 3.6's CPU interpreter (TRITON_INTERPRET=1) gets wrong, patched so that a kernel
run on the CPU computes what the compiled kernel computes on the GPU: scalar tensors as indices,
bf16 dot and arithmetic, a single-rounding FMA, float scalar arguments, `and`/`or` of tensors,
@triton.autotune (its first config), and libdevice's functions (interpreter_libdevice.py). The
bridge's CPU paths install it before loading a task: the `verify` verb on "cpu", the CPU runtime
integrity checks, and the tests' entry checks.
"""


def install_interpreter_shim():
    """Triton 3.6's interpreter turns scalar tensors into Python ints with int(ndarray of shape
    (1,)), which numpy >= 2.4 refuses ("only 0-dimensional arrays ..."), so `range(0, n, BLOCK)`
    with a scalar argument fails under TRITON_INTERPRET=1. Takes the single element instead.
    Returns a function that undoes the patch."""
    from triton.runtime import interpreter
    patch_tensor = getattr(interpreter, "_patch_lang_tensor", None)
    if patch_tensor is None:
        return lambda: None

    def patched(tensor, scope):
        patch_tensor(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))

    interpreter._patch_lang_tensor = patched

    # The interpreter holds bf16 as uint16 bit patterns and its tl.dot multiplies those as
    # integers (triton-lang/triton#11584: "not supported yet"): widen bf16 operands to the fp32
    # values they encode, which is exact, before the dot.
    import numpy as np
    import triton.language as tl
    builder = interpreter.InterpreterBuilder
    create_dot = builder.create_dot

    def widen(handle):
        if handle.dtype == tl.bfloat16:
            return interpreter.TensorHandle((handle.data.astype(np.uint32) << 16).view(np.float32), tl.float32)
        return handle

    def patched_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return create_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    builder.create_dot = patched_dot

    # The interpreter's tl.fma is a multiply and an add, rounded twice; the GPU's FFMA rounds once,
    # and code that relies on it (an exact remainder a - q*s, reciprocal-division) computes other
    # values. Use an FMA that rounds once.
    from tritondx_bridge.exact_fma import fma as exact_fma
    create_fma = builder.create_fma

    def patched_fma(self, x, y, z):
        return interpreter.TensorHandle(exact_fma(x.data, y.data, z.data), z.dtype.scalar)

    builder.create_fma = patched_fma

    # bf16 elementwise arithmetic runs on the uint16 bit patterns (Triton's debugging guide: the
    # interpreter does not support bfloat16 operations): compute in fp32 and round back to bf16
    # (round to nearest even), as the GPU's bf16 instructions do.
    def narrow(f):
        u = f.astype(np.float32).view(np.uint32)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)

    binary_op, unary_op = builder.binary_op, builder.unary_op

    def bf16_binary_op(self, lhs, rhs, op):
        if lhs.dtype.scalar == tl.bfloat16 and rhs.dtype.scalar == tl.bfloat16:
            wide_l, wide_r = widen(lhs), widen(rhs)
            out = op(wide_l.data, wide_r.data)
            if out.dtype == np.float32:
                return interpreter.TensorHandle(narrow(out), tl.bfloat16)
            return binary_op(self, wide_l, wide_r, op)  # a comparison: its bool result as computed
        return binary_op(self, lhs, rhs, op)

    def bf16_unary_op(self, arg, op):
        if arg.dtype.scalar == tl.bfloat16:
            return interpreter.TensorHandle(narrow(op(widen(arg).data)), tl.bfloat16)
        return unary_op(self, arg, op)

    builder.binary_op, builder.unary_op = bf16_binary_op, bf16_unary_op

    # A float argument reaches a compiled kernel as an fp32 scalar (`eps.to(tl.float32)` works); the
    # interpreter's _implicit_cvt wraps ints only and passes a Python float, which has no .to().
    implicit_cvt = interpreter._implicit_cvt

    def float_as_fp32(arg):
        if isinstance(arg, float):
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return implicit_cvt(arg)

    interpreter._implicit_cvt = float_as_fp32

    # @triton.autotune benchmarks its configs through the GPU driver even under the interpreter
    # ("0 active drivers"); on the CPU there is nothing to time, so it runs its first config (the
    # one tritondx compiles a task with when no GPU is there).
    from triton.runtime.autotuner import Autotuner
    autotune_run = Autotuner.run

    def first_config_run(self, *args, **kwargs):
        if len(self.configs) > 1:
            self.configs = self.configs[:1]
            self.cache.clear()
        return autotune_run(self, *args, **kwargs)

    Autotuner.run = first_config_run

    # `a and b` / `a or b` on tensors: compiled Triton applies logical_and / logical_or to both
    # sides (CodeGenerator.visit_BoolOp); the interpreter runs the kernel as Python, whose `and`
    # returns one operand whole, so `rows_mask and cols_mask` lost the row mask and a masked store
    # wrote past its tensor. Rewrite both operators, keeping Python's meaning for non-tensors.
    import ast
    transformer_class = interpreter.FunctionRewriter.ast_transformer.__class__

    class BoolOpAsTriton(transformer_class):
        def visit_Assign(self, node):  # the interpreter's own visit_Assign visits only the targets
            node.value = self.visit(node.value)
            return super().visit_Assign(node)

        def visit_BoolOp(self, node):
            self.generic_visit(node)
            helper = "_tritondx_bool_and" if isinstance(node.op, ast.And) else "_tritondx_bool_or"
            value = node.values[0]
            for right in node.values[1:]:
                thunk = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                                   body=right)
                value = ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=[value, thunk], keywords=[])
            return value

    def bool_and(left, right):
        if isinstance(left, tl.tensor):
            return left.logical_and(right())
        return left and right()

    def bool_or(left, right):
        if isinstance(left, tl.tensor):
            return left.logical_or(right())
        return left or right()

    interpreter._tritondx_bool_and, interpreter._tritondx_bool_or = bool_and, bool_or
    ast_transformer = interpreter.FunctionRewriter.ast_transformer
    interpreter.FunctionRewriter.ast_transformer = BoolOpAsTriton()

    # libdevice's extern functions return None under the interpreter: numpy computes them.
    from .interpreter_libdevice import install_libdevice
    undo_libdevice = install_libdevice()

    def undo():
        undo_libdevice()
        interpreter.FunctionRewriter.ast_transformer = ast_transformer
        interpreter._patch_lang_tensor = patch_tensor
        builder.create_dot = create_dot
        builder.create_fma = create_fma
        Autotuner.run = autotune_run
        interpreter._implicit_cvt = implicit_cvt
        builder.binary_op, builder.unary_op = binary_op, unary_op
    return undo
