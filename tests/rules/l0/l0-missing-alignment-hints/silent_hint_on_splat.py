"""l0-missing-alignment-hints is silent: n_padded is kept from specialization, but the kernel's
hint sits on the splatted bound (tl.multiple_of(tl.full(...), 16)), which Triton keeps, so the
accesses are 128-bit (tests/fixtures/axis_info/multiple_of_hint is this kernel compiled)."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n_padded"])
def padded_scale_kernel(x_ptr, out_ptr, n_padded, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    n = tl.multiple_of(tl.full([BLOCK], n_padded, tl.int32), 16)
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
