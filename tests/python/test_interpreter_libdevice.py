"""libdevice under Triton's CPU interpreter (interpreter_libdevice.py): a kernel calling
libdevice's tanh, erf, rsqrt, pow, isnan and llrint computes, under TRITON_INTERPRET=1 with the
bridge's shim, what torch computes; without the shim the same kernel fails. The compiled path
still compiles the kernel (the shim hands Triton's code generator the original functions)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNEL = '''
import json, sys
import torch, triton, triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.libdevice import rsqrt

@triton.jit
def many(x_ptr, y_ptr, out_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    v = libdevice.tanh(x) + libdevice.erf(x * 0.5) + rsqrt(y) + libdevice.pow(y, 1.5)
    tl.store(out_ptr + offs, v, mask=mask)
    tl.store(flags_ptr + offs, libdevice.isnan(tl.log(x)).to(tl.int32) + libdevice.llrint(x * 3.0).to(tl.int32), mask=mask)

def run():
    torch.manual_seed(0)
    x, y = torch.randn(300), torch.rand(300) + 0.1
    out, flags = torch.empty(300), torch.empty(300, dtype=torch.int32)
    many[(3,)](x, y, out, flags, 300, BLOCK=128)
    want = torch.tanh(x) + torch.erf(x * 0.5) + torch.rsqrt(y) + y.pow(1.5)
    want_flags = torch.isnan(torch.log(x)).int() + torch.round(x * 3.0).int()
    return float((out - want).abs().max()), bool(torch.equal(flags, want_flags))
'''


def run(tmp_path, code, interpret=True):
    script = tmp_path / "kernel.py"  # @triton.jit functions need a file
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)


def test_libdevice_functions_compute_under_the_interpreter_with_the_shim(tmp_path):
    done = run(tmp_path, "from tritondx_bridge.interpreter_shim import install_interpreter_shim\ninstall_interpreter_shim()\n"
               + KERNEL + "print(json.dumps(run()))")
    assert done.returncode == 0, done.stderr
    error, flags_equal = json.loads(done.stdout.strip().splitlines()[-1])
    assert error < 1e-5 and flags_equal, (error, flags_equal)


def test_without_the_shim_the_interpreter_cannot_run_libdevice(tmp_path):
    done = run(tmp_path, KERNEL + "run()")
    assert done.returncode != 0 and "NoneType" in done.stderr, done.stderr[-2000:]


def test_the_compiled_path_still_compiles_libdevice_with_the_shim_installed(tmp_path):
    done = run(tmp_path, "from tritondx_bridge.interpreter_shim import install_interpreter_shim\ninstall_interpreter_shim()\n"
               + KERNEL + '''
from triton.backends.compiler import GPUTarget
src = triton.compiler.ASTSource(many, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "flags_ptr": "*i32",
                                       "n": "i32", "BLOCK": "constexpr"}, {(5,): 128})
ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32)).asm["ptx"]
print("rsqrt.approx" in ptx, ".entry many" in ptx)
''', interpret=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["True", "True"], done.stdout
