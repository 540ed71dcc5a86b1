"""Elementwise: out = relu(x + y) over two fp32 (16384, 4096) activations, flattened (805 MB moved).

Provenance: the Triton tutorials' vector-add kernel (01-vector-add) with a ReLU fused
into the store, the way a first draft fuses a bias-free residual add and activation.

Weaknesses: fixed BLOCK_SIZE=1024 and default num_warps=4 (no autotuning); one program
per 1024 elements (65,536 programs, each a single load/compute/store round with no
grid-stride loop or persistence, so each CTA has only 8 elements per thread in flight);
a bounds mask on every access even though every block is full at this size (vectorized
here only because n is a multiple of 16; an odd n would drop to 32-bit accesses); no
cache/eviction hints for data that is streamed once.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_relu_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    out = tl.maximum(x + y, 0.0)
    tl.store(out_ptr + offsets, out, mask=mask)


def launch(x, y):
    assert x.shape == y.shape and x.is_contiguous() and y.is_contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    add_relu_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out


def reference(x, y):
    return torch.relu(x + y)


def make_inputs(device):
    shape = (16384, 4096)  # 16K tokens x 4096 features: 268 MB per tensor, 805 MB moved
    x = torch.randn(shape, device=device, dtype=torch.float32)
    y = torch.randn(shape, device=device, dtype=torch.float32)
    return (x, y)


def make_small_inputs(device):
    shape = (5, 1001)  # 5005 elements, not a multiple of 1024: the last block is partial
    x = torch.randn(shape, device=device, dtype=torch.float32)
    y = torch.randn(shape, device=device, dtype=torch.float32)
    return (x, y)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime row length, one element
    return [
        make_small_inputs(device),  # 5 x 1001 = 5005 elements: four full blocks of 1024 and 909 in the fifth
        # 13 x 257 = 3341 elements (odd): three full blocks and a last one with only 269 in bounds
        (torch.randn(13, 257, device=device, dtype=torch.float32),
         torch.randn(13, 257, device=device, dtype=torch.float32)),
        # one element: one program, 1023 of its 1024 lanes masked
        (torch.randn(1, 1, device=device, dtype=torch.float32),
         torch.randn(1, 1, device=device, dtype=torch.float32)),
    ]


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}
