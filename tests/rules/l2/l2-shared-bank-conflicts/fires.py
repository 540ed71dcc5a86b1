"""fp32 matmul on the FMA path (input_precision="ieee") with B given transposed ([N, K], K
contiguous): B is staged in shared memory K-contiguous without swizzle (maxPhase = 1, 128-byte
rows) while the FMA operand layout walks N across lanes, so 16 lanes read the same bank."""
import torch
import triton
import triton.language as tl


@triton.jit
def mm_bt_kernel(a_ptr, bt_ptr, c_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    bt_ptrs = bt_ptr + offs_n[:, None] * stride_bn + offs_k[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        bt = tl.load(bt_ptrs)
        acc = tl.dot(a, tl.trans(bt), acc, input_precision="ieee")  # CHECK: l2-shared-bank-conflicts
        a_ptrs += BLOCK_K
        bt_ptrs += BLOCK_K
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc)


def launch(a, bt):
    M, K = a.shape
    N = bt.shape[0]
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    mm_bt_kernel[(M // 64, N // 64)](a, bt, c, M, N, K, a.stride(0), bt.stride(0), c.stride(0),
                                     BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, bt):
    return a @ bt.t()


def make_inputs(device):
    a = torch.randn(256, 256, device=device, dtype=torch.float32)
    bt = torch.randn(256, 256, device=device, dtype=torch.float32)
    return (a, bt)


TOLERANCE = {"rtol": 1e-3, "atol": 1e-3}
