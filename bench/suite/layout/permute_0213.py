"""Permute [B, S, H, D] -> [B, H, S, D] (contiguous) of fp16 attention activations, B=8, S=4096, H=32, D=128.

Provenance: the generic "elementwise with index math" draft (how an LLM or a newcomer writes a
permute, and how a naive codegen lowers one): a 1-D grid over the output's elements in chunks of
1024, each element's output index decomposed into (b, h, s, d) with integer division and modulo,
then the input offset rebuilt from the input's strides.

Weaknesses: four integer divisions/modulos by run-time values per element (each a multi-instruction
sequence, since the divisors are not compile-time constants) in what should be a pure copy; a
fixed BLOCK of 1024 with the default num_warps and no autotuning; no 2-D (s, d) tile that keeps the
contiguous D axis explicit and computes the (b, h, s) part once per row instead of per element;
one-shot programs of 2 KB each rather than a persistent loop.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def permute_0213_kernel(x_ptr, out_ptr, n_elements, S, H, D,
                        stride_xb, stride_xs, stride_xh, stride_xd, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    # output is contiguous [B, H, S, D]
    d = offs % D
    s = (offs // D) % S
    h = (offs // (D * S)) % H
    b = offs // (D * S * H)
    src = b * stride_xb + s * stride_xs + h * stride_xh + d * stride_xd
    x = tl.load(x_ptr + src, mask=mask)
    tl.store(out_ptr + offs, x, mask=mask)


def launch(x):
    B, S, H, D = x.shape
    out = torch.empty((B, H, S, D), device=x.device, dtype=x.dtype)
    n = out.numel()
    permute_0213_kernel[(triton.cdiv(n, 1024),)](x, out, n, S, H, D,
                                                 x.stride(0), x.stride(1), x.stride(2), x.stride(3),
                                                 BLOCK=1024)
    return out


def reference(x):
    return x.permute(0, 2, 1, 3).contiguous()


def make_inputs(device):
    # 8 sequences of 4096 tokens, 32 heads of 128: 268 MB in, 268 MB out
    return (torch.randn(8, 4096, 32, 128, device=device, dtype=torch.float16),)


def make_small_inputs(device):
    return (torch.randn(2, 37, 3, 24, device=device, dtype=torch.float16),)  # 5328 elements


def make_test_inputs(device):
    # the shapes every candidate is also verified at: odd, prime-sized and single-element tensors
    return [
        make_small_inputs(device),  # 2 x 37 x 3 x 24: 5328 elements, 6 programs, the last with 208 lanes
        # every dimension odd and D = 13 not a multiple of any vector width: 11895 elements, the 12th
        # program with 631 lanes, rows of the output start at unaligned offsets
        (torch.randn(3, 61, 5, 13, device=device, dtype=torch.float16),),
        (torch.randn(1, 1, 1, 1, device=device, dtype=torch.float16),),  # one element: 1023 of 1024 lanes masked
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 0.0, "atol": 0.0}  # a copy: exact
