"""wgmma-tile refuses: a 16-row activation times a weight, x[16, K] @ w[K, N], where the dot's M is
the whole batch of ROWS = 16 rows: no program id steps by ROWS (the grid splits N only) and the
loads of x are unmasked. M = 16 keeps the dot on mma.sync, but a larger ROWS would read rows past
the data, so the recipe declines ("no program id steps by it and unmasked accesses index with
it") instead of padding the batch."""
# DECLINES: ROWS sizes the dot's M but no program id steps by it and unmasked
import torch
import triton
import triton.language as tl


@triton.jit
def small_batch_kernel(x_ptr, w_ptr, out_ptr, N, K,
                       ROWS: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.arange(0, ROWS)
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rows[:, None] * K + (k + ks)[None, :])
        w = tl.load(w_ptr + (k + ks)[:, None] * N + cols[None, :])
        acc += tl.dot(x, w)
    tl.store(out_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))


def launch(x, w):
    K, N = w.shape
    out = torch.empty((x.shape[0], N), device=x.device, dtype=torch.float16)
    small_batch_kernel[(N // 64,)](x, w, out, N, K, ROWS=16, BLOCK_N=64, BLOCK_K=64)
    return out


def reference(x, w):
    return (x.float() @ w.float()).to(torch.float16)


def make_inputs(device):
    x = torch.randn(16, 1024, device=device, dtype=torch.float16)
    w = torch.randn(1024, 1024, device=device, dtype=torch.float16)
    return (x, w)


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
