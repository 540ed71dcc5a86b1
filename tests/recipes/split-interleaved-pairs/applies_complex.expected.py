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
    k_pairs = tl.arange(0, 2 * BLOCK)
    base = pid * 2 * BLOCK
    a_pairs = tl.reshape(tl.load(a_ptr + base + k_pairs), (BLOCK, 2))
    a_even, a_odd = tl.split(a_pairs)
    a_re = a_even
    a_im = a_odd
    b_pairs = tl.reshape(tl.load(b_ptr + base + k_pairs), (BLOCK, 2))
    b_even, b_odd = tl.split(b_pairs)
    b_re = b_even
    b_im = b_odd
    tl.store(out_ptr + base + k_pairs, tl.reshape(tl.join((a_re * b_re - a_im * b_im).to(out_ptr.dtype.element_ty), (a_re * b_im + a_im * b_re).to(out_ptr.dtype.element_ty)), (2 * BLOCK,)))


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
