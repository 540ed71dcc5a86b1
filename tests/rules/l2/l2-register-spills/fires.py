"""fp32 matmul on the FMA path (input_precision="ieee") with 128 x 128 tiles on 4 warps: the
accumulator alone is 128 registers per thread, the operands of the FMA chains need more, and
ptxas spills at its 255-register limit (SASS STL/LDL)."""
import torch
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PREC: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):  # CHECK: l2-register-spills
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc, input_precision=PREC)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (M // 128, N // 128)
    mm_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                    BLOCK_M=128, BLOCK_N=128, BLOCK_K=16, PREC="ieee")
    return c


def reference(a, b):
    return a @ b


def make_inputs(device):
    a = torch.randn(512, 512, device=device, dtype=torch.float32)
    b = torch.randn(512, 512, device=device, dtype=torch.float32)
    return (a, b)


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
