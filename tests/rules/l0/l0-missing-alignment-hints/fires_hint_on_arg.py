"""l0-missing-alignment-hints fires although the kernel hints the bound: n_padded (a multiple of
16) is kept from specialization and `tl.multiple_of(n_padded, 16)` sits on the kernel argument,
which Triton 3.6 drops, so the mask has constancy 1 and the accesses stay 32-bit
(tests/fixtures/axis_info/multiple_of_scalar_arg is this kernel compiled)."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n_padded"])  # CHECK: l0-missing-alignment-hints
def padded_scale_kernel(x_ptr, out_ptr, n_padded, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    n = tl.multiple_of(n_padded, 16)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 3.0, mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n_padded = triton.cdiv(x.numel(), 16) * 16  # padded; the buffers have room for it
    padded_scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, n_padded, BLOCK=1024)
    return out


def reference(x):
    return x * 3.0


def make_inputs(device):
    return (torch.randn(100_016, device=device, dtype=torch.float32),)
