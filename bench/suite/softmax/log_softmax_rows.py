"""Log-softmax over the rows of an fp16 (65536, 3000) matrix, fp32 math, fp16 out (786 MB moved).

out = x - max(x) - log(sum(exp(x - max(x)))) per row, e.g. the log-probabilities of
65,536 frames over a 3000-symbol output vocabulary (a CTC speech head).

Provenance: the Triton tutorials' fused softmax (02-fused-softmax), first version: one
program per row, the whole row in one power-of-two block (BLOCK_SIZE =
next_power_of_2(n_cols)), loaded as fp16 and upcast to fp32, turned into log-softmax.

Weaknesses: BLOCK_SIZE = 4096 for 3000 columns: 27% of the lanes are masked off padding;
the block size follows the row length (a wider vocabulary makes one huge block that spills
registers; there is no chunked fallback); default num_warps=4 for a 4096-element row (32
fp32 values per thread, 80 registers, occupancy limited to 6 CTAs per SM), no autotuning of
num_warps; one program per row (65,536 programs, not persistent); the mask bound 3000 is
not a multiple of 16 (nor is the row stride 3000), so every fp16 load and store is a
scalar 16-bit access; exp and log via tl.exp and tl.log (ex2/lg2 with extra multiplies).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x_minus_max = x - tl.max(x, axis=0)
    log_denom = tl.log(tl.sum(tl.exp(x_minus_max), axis=0))
    out = x_minus_max - log_denom
    tl.store(out_ptr + row * out_row_stride + cols, out.to(out_ptr.dtype.element_ty), mask=mask)


def launch(x):
    assert x.dim() == 2 and x.stride(1) == 1
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    log_softmax_kernel[(n_rows,)](out, x, x.stride(0), out.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return out


def reference(x):
    return torch.log_softmax(x.float(), dim=-1).to(x.dtype)


def make_inputs(device):
    x = torch.randn(65536, 3000, device=device, dtype=torch.float16)  # 393 MB in, 393 MB out
    return (x,)


def make_small_inputs(device):
    x = torch.randn(4, 1000, device=device, dtype=torch.float16)  # 1000 columns in a 1024 block
    return (x,)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime width in a smaller block, and one element
    return [
        make_small_inputs(device),  # 4 x 1000: 1000 columns in a 1024 block
        (torch.randn(7, 257, device=device, dtype=torch.float16),),  # prime width: a 512 block, 255 lanes masked
        (torch.randn(1, 1, device=device, dtype=torch.float16),),  # one row of one element (output 0): a 1-wide block
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 5e-3, "atol": 5e-3}  # values ~ -8 +- 3: a few fp16 ulps
