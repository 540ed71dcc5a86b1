"""divisibility-by-construction applies: log-softmax over fp16 rows of 1000 columns. 1000 = 8 x 125 is
not a multiple of 16, so the JIT marks neither the row stride nor the bound and every access is a
scalar 16-bit load or store; rebuilt as multiples of 8 under launch-time flags, they are 128-bit."""
import torch
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr,
                       IN_ROW_STRIDE_MULTIPLE_OF_8: tl.constexpr,
                       N_COLS_MULTIPLE_OF_8: tl.constexpr,
                       OUT_ROW_STRIDE_MULTIPLE_OF_8: tl.constexpr):
    if IN_ROW_STRIDE_MULTIPLE_OF_8:  # the JIT marks only multiples of 16
        in_row_stride = in_row_stride // 8 * 8
    if N_COLS_MULTIPLE_OF_8:  # the JIT marks only multiples of 16
        n_cols = n_cols // 8 * 8
    if OUT_ROW_STRIDE_MULTIPLE_OF_8:  # the JIT marks only multiples of 16
        out_row_stride = out_row_stride // 8 * 8
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    shifted = x - tl.max(x, axis=0)
    out = shifted - tl.log(tl.sum(tl.exp(shifted), axis=0))
    tl.store(out_ptr + row * out_row_stride + cols, out.to(tl.float16), mask=mask)


def launch(x):
    out = torch.empty_like(x)
    log_softmax_kernel[(x.shape[0],)](out, x, x.stride(0), out.stride(0), x.shape[1],
                                      BLOCK=triton.next_power_of_2(x.shape[1]),
                                      IN_ROW_STRIDE_MULTIPLE_OF_8=x.stride(0) % 8 == 0,
                                      N_COLS_MULTIPLE_OF_8=x.shape[1] % 8 == 0,
                                      OUT_ROW_STRIDE_MULTIPLE_OF_8=out.stride(0) % 8 == 0)
    return out


def reference(x):
    return torch.log_softmax(x.float(), dim=-1).to(x.dtype)


def make_inputs(device):
    return (torch.randn(16384, 1000, device=device, dtype=torch.float16),)


def make_small_inputs(device):
    return (torch.randn(5, 1000, device=device, dtype=torch.float16),)


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
