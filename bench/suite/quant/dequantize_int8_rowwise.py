"""Row-wise int8 dequantization to fp16: out[r, c] = q[r, c] * scale[r] for an int8 [8192, 8192] matrix.

The inverse of quantize_int8_rowwise: int8 values and one fp32 scale per row in, fp16 out. The
product is taken in fp32 and rounded once to fp16, as the PyTorch reference does.

Provenance: the bitsandbytes Triton kernel `_dequantize_rowwise` structure, written the way the
vector-add tutorial tiles a 2-D array: a grid of (rows, column blocks of 1024), each program loads
its row's scale and one block of the row.

Weaknesses: a fixed block of 1024 columns and default num_warps, no autotuning; each program
reloads the row's scale (a scalar load per program); int8 loads of 1024 bytes per program are
narrow (8 bytes a thread with 4 warps, 64-bit loads where 128-bit ones are possible), and there are
many small programs (65,536 here) with little work each; row-major program order with a 2-D grid; no use of the fact that the row length is
a multiple of the block (the column mask is always computed).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def dequantize_rowwise_kernel(q_ptr, scale_ptr, out_ptr, n_cols, stride_q, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    scale = tl.load(scale_ptr + row)
    q = tl.load(q_ptr + row * stride_q + cols, mask=mask, other=0)
    out = q.to(tl.float32) * scale
    tl.store(out_ptr + row * stride_out + cols, out.to(tl.float16), mask=mask)


def launch(q, scale):
    rows, cols = q.shape
    out = torch.empty((rows, cols), device=q.device, dtype=torch.float16)
    BLOCK = 1024
    grid = (rows, triton.cdiv(cols, BLOCK))
    dequantize_rowwise_kernel[grid](q, scale, out, cols, q.stride(0), out.stride(0), BLOCK=BLOCK)
    return out


def reference(q, scale):
    return (q.float() * scale[:, None]).to(torch.float16)


def make_inputs(device):
    rows, cols = 8192, 8192  # 67 MB in, 134 MB out
    q = torch.randint(-127, 128, (rows, cols), device=device, dtype=torch.int8)
    scale = torch.rand(rows, device=device, dtype=torch.float32) * 0.04 + 0.01
    return (q, scale)


def make_small_inputs(device):
    rows, cols = 5, 1500
    q = torch.randint(-127, 128, (rows, cols), device=device, dtype=torch.int8)
    scale = torch.rand(rows, device=device, dtype=torch.float32) * 0.04 + 0.01
    return (q, scale)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a short tail block, a single column
    def inputs(rows, cols):  # drawn as make_small_inputs draws them
        q = torch.randint(-127, 128, (rows, cols), device=device, dtype=torch.int8)
        scale = torch.rand(rows, device=device, dtype=torch.float32) * 0.04 + 0.01
        return (q, scale)

    return [
        make_small_inputs(device),  # 5 x 1500: two column blocks per row, the second with 476 columns
        inputs(13, 1031),  # primes: two column blocks per row, the second with 7 columns; odd row stride
        inputs(131, 1),  # one column: 131 rows of one element, each its own scale, 1023 lanes masked
    ]


def bytes_moved(q, scale):
    rows, cols = q.shape
    return rows * cols * (1 + 2) + rows * 4


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
