"""What `kernel.warmup(...)` returns during a capture (no GPU). Triton's tutorial softmax, and the
wrappers that copied it, pre-compile the kernel to read its register and shared-memory use, size
a persistent grid from them, then launch the compiled kernel: `kernel = fn.warmup(...);
kernel._init_handles(); kernel.n_regs; kernel.metadata.shared; kernel[grid](*args)`.

Here the kernel is compiled for the capture's target on the CPU; its registers come from the
cubin (cuobjdump -res-usage), its shared memory from the compiler's metadata. `_init_handles()`
loads nothing, and `kernel[grid](...)` goes back through the JIT function, so the capture records
that launch like any other."""
import tempfile

import triton

from . import disasm
from .errors import BridgeError

# Keywords of a launch that are options, not kernel arguments.
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_cooperative_grid",
                  "launch_pdl")


class WarmupKernel:
    def __init__(self, fn, compiled, resources, options):
        self.fn = fn
        self.name = compiled.name
        self.metadata = compiled.metadata
        self.asm = compiled.asm
        self.n_regs = resources["registers"]
        self.n_max_threads = compiled.metadata.num_warps * 32
        self._options = options

    def _init_handles(self):
        return None

    def __getitem__(self, grid):
        def launcher(*args, **kwargs):
            # Every argument by name, as the warmup call passed its constexprs: a parameter named
            # like a launch option (the tutorial's num_stages) then sets that option too, as it
            # did when the kernel was compiled.
            named = dict(zip((p.name for p in self.fn.params), args))
            named.update(kwargs)
            return self.fn.run(grid=grid, warmup=False, **{**self._options, **named})
        return launcher


def warmup_kernel(fn, src, target, options, call_kwargs):
    """Compiles `src` (an ASTSource of `fn`) with `options` for `target`; `call_kwargs`: the
    warmup call's keywords, whose launch options the later `kernel[grid](...)` keeps."""
    compiled = triton.compile(src, target=target, options=options.__dict__)
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(compiled.asm["cubin"])
        cubin.flush()
        resources = disasm.resource_usage(cubin.name)
    if "registers" not in resources:
        raise BridgeError("launch-error", f"{fn.fn.__name__}.warmup(): cuobjdump reported no register count for "
                          "the compiled kernel, which the wrapper reads (n_regs)")
    params = {p.name for p in fn.params}
    kept = {k: v for k, v in call_kwargs.items() if k in LAUNCH_OPTIONS and k not in params}
    return WarmupKernel(fn, compiled, resources, kept)
