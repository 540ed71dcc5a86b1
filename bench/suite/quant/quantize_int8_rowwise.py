"""Row-wise absmax int8 quantization of an fp16 [8192, 8192] matrix: int8 values plus one fp32 scale per row.

scale[r] = max(|x[r, :]|) / 127 and q[r, c] = round(x[r, c] / scale[r]), rounding half away from zero.
One program per row holds the whole row in registers (block = next power of two of the row length),
takes the absmax with tl.max, then divides and rounds. The divisions use tl.math.div_rn (IEEE
round-to-nearest) so the result matches the PyTorch reference bit for bit; Triton's plain `/` on
fp32 lowers to the approximate div.full.f32, which can flip values that sit on a .5 boundary. The
reference divides by a tensor: PyTorch on CUDA computes `tensor / 127.0` as `tensor * (1/127)`, which
was one ulp off for 306 of 8192 scales on the H200 (and then flipped 227 quantized values).

Provenance: the bitsandbytes Triton kernel `_quantize_rowwise` (one program per row, the whole row
as one block, absmax, scale, round), with an explicit per-row scale output as in LLM.int8()-style
row-wise quantization.

Weaknesses: one row per program with the whole row in one block (8192 elements over the default
4 warps: 64 values a thread, long reductions, no choice of num_warps); a fixed launch shape with no
autotuning; an IEEE division per element (div_rn expands to a sequence of instructions) where one
reciprocal per row and a multiply would do with a reference that allowed it; rounding through
where/floor/ceil plus a float-to-int conversion; no vectorization hints; rows are independent, so
nothing limits the kernel but memory bandwidth, which it may not reach with one 16 KB row per program.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def quantize_rowwise_kernel(x_ptr, q_ptr, scale_ptr, n_cols, stride_x, stride_q, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    absmax = tl.max(tl.abs(x), axis=0)
    absmax = tl.maximum(absmax, 1e-8)  # an all-zero row would divide by zero
    scale = tl.math.div_rn(absmax, 127.0)
    v = tl.math.div_rn(x, scale)
    v = tl.where(v >= 0, tl.floor(v + 0.5), tl.ceil(v - 0.5))
    tl.store(q_ptr + row * stride_q + cols, v.to(tl.int8), mask=mask)
    tl.store(scale_ptr + row, scale)


def launch(x):
    rows, cols = x.shape
    q = torch.empty((rows, cols), device=x.device, dtype=torch.int8)
    scale = torch.empty((rows,), device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(cols)
    quantize_rowwise_kernel[(rows,)](x, q, scale, cols, x.stride(0), q.stride(0), BLOCK=BLOCK)
    return q, scale


def reference(x):
    xf = x.float()
    absmax = xf.abs().amax(dim=1).clamp_min(1e-8)
    # A tensor divisor, not the Python float: CUDA torch turns `tensor / scalar` into a multiply by
    # the scalar's reciprocal, one ulp off the division the kernel (and the formula) performs.
    scale = absmax / torch.full_like(absmax, 127.0)
    v = xf / scale[:, None]
    q = torch.where(v >= 0, torch.floor(v + 0.5), torch.ceil(v - 0.5)).to(torch.int8)
    return q, scale


def make_inputs(device):
    x = torch.randn(8192, 8192, device=device, dtype=torch.float16)  # 134 MB in, 67 MB out
    return (x,)


def make_small_inputs(device):
    x = torch.randn(37, 100, device=device, dtype=torch.float16)
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width in a larger tile, a single column
    return [
        make_small_inputs(device),  # 37 x 100: a 128-wide tile, the last 28 columns masked
        (torch.randn(13, 521, device=device, dtype=torch.float16),),  # primes: a 1024-wide tile, 503 masked
        # one column: a 1-wide tile, each row's absmax its only element, so every nonzero value quantizes to +-127
        (torch.randn(97, 1, device=device, dtype=torch.float16),),
    ]


def bytes_moved(x):
    rows, cols = x.shape
    return rows * cols * (x.element_size() + 1) + rows * 4


TOLERANCE = {"rtol": 0.0, "atol": 0.0}
