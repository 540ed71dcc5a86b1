"""split-interleaved-pairs applies: elementwise product of two complex vectors stored as interleaved
(re, im) float pairs; two load pairs share one arange, no masks, and the stored products are fp32
expressions that tl.join needs cast to the output's element type."""
import torch
import triton
import triton.language as tl


@triton.jit
def complex_mul_kernel(a_ptr, b_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    k = tl.arange(0, BLOCK)
    base = pid * 2 * BLOCK
    a_re = tl.load(a_ptr + base + 2 * k)
    a_im = tl.load(a_ptr + base + 2 * k + 1)
    b_re = tl.load(b_ptr + base + k * 2)
    b_im = tl.load(b_ptr + base + k * 2 + 1)
    tl.store(out_ptr + base + 2 * k, a_re * b_re - a_im * b_im)
    tl.store(out_ptr + base + 2 * k + 1, a_re * b_im + a_im * b_re)


def launch(a, b):
    out = torch.empty_like(a)
    BLOCK = 256
    complex_mul_kernel[(a.numel() // (2 * BLOCK),)](a, b, out, BLOCK=BLOCK)
    return out


def reference(a, b):
    return torch.view_as_real(torch.view_as_complex(a.view(-1, 2)) * torch.view_as_complex(b.view(-1, 2))).flatten()


def make_inputs(device):
    n = 1 << 20  # complex numbers; a multiple of BLOCK
    return (torch.randn(2 * n, device=device), torch.randn(2 * n, device=device))


def make_small_inputs(device):
    n = 3 * 256
    return (torch.randn(2 * n, device=device), torch.randn(2 * n, device=device))


TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
