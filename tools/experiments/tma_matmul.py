"""Does a Hopper TMA rewrite pay on the bench's fp16/bf16 matmuls? (decides whether tritondx
gets a tensor-descriptor recipe)

Times, side by side in one run on one card, C = A @ B (row-major A [M, K], B [K, N], fp32
accumulation) written several ways, against torch (cuBLAS):
  ptr          the bench's optimized matmul_fp16_square: pointer blocks, 128x256x32, 8 warps, 4 stages
  ptr_grouped  the same in grouped program order (GROUP_M 8), as matmul_bf16_square's optimized kernel
  ptr_pers     ptr_grouped persistent: one program per SM looping over the tiles (tl.range, flatten=True)
  tma          device-side tensor descriptors (tl.make_tensor_descriptor), grouped program order
  tma_pers     the same, persistent: one program per SM walking the tiles with tl.range(flatten=True)
  tma_pers_ws  the same with tl.range(warp_specialize=True)
Each variant is checked against torch first. Run on the GPU:
    python3 tools/experiments/tma_matmul.py   (prints a table; --quick for one size)
"""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _tile(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    group = tile_id // (GROUP_M * num_pid_n)
    first_m = group * GROUP_M
    size_m = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile_id % size_m)
    pid_n = (tile_id % (GROUP_M * num_pid_n)) // size_m
    return pid_m, pid_n


@triton.jit
def matmul_ptr(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    if GROUP_M == 1:
        pid_m = pid // num_pid_n
        pid_n = pid % num_pid_n
    else:
        pid_m, pid_n = _tile(pid, tl.cdiv(M, BLOCK_M), num_pid_n, GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_ptr_persistent(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                          stride_cn, num_tiles, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # matmul_ptr (grouped) with its body inside a loop over the tiles: the grid is one program per SM
    for pid in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0), flatten=True):
        pid_m, pid_n = _tile(pid, tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] + k < K), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] + k < K) & (offs_n[None, :] < N), other=0.0)
            acc += tl.dot(a, b)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
               GROUP_M: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m, pid_n = _tile(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


@triton.jit
def matmul_tma_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
                          WARP_SPECIALIZE: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile(tile_id, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([ki * BLOCK_K, pid_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))


def run_ptr(a, b, c, bk, stages, group=1):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 256),)
    matmul_ptr[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                     BLOCK_M=128, BLOCK_N=256, BLOCK_K=bk, GROUP_M=group, num_warps=8, num_stages=stages)


def run_ptr_persistent(a, b, c, bk, stages, step_sms=True):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, 128) * triton.cdiv(N, 256)
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    matmul_ptr_persistent[(min(sms, tiles),)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                              c.stride(0), c.stride(1), tiles, BLOCK_M=128, BLOCK_N=256, BLOCK_K=bk,
                                              GROUP_M=8, num_warps=8, num_stages=stages)


def run_tma(a, b, c, bm, bn, bk, warps, stages):
    M, K = a.shape
    N = b.shape[1]
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    matmul_tma[grid](a, b, c, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps,
                     num_stages=stages)


def run_tma_persistent(a, b, c, bm, bn, bk, warps, stages, ws=False):
    M, K = a.shape
    N = b.shape[1]
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    grid = (min(sms, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
    matmul_tma_persistent[grid](a, b, c, M, N, K, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, NUM_SMS=sms,
                                WARP_SPECIALIZE=ws, num_warps=warps, num_stages=stages)


def variants():
    yield "ptr 128x256x32 w8 s4", lambda a, b, c: run_ptr(a, b, c, 32, 4)
    yield "ptr_grouped 128x256x32 w8 s4", lambda a, b, c: run_ptr(a, b, c, 32, 4, group=8)
    yield "ptr_grouped 128x256x64 w8 s3", lambda a, b, c: run_ptr(a, b, c, 64, 3, group=8)
    yield "ptr_pers 128x256x32 w8 s4", lambda a, b, c: run_ptr_persistent(a, b, c, 32, 4)
    yield "ptr_pers 128x256x64 w8 s3", lambda a, b, c: run_ptr_persistent(a, b, c, 64, 3)
    yield "tma 128x256x64 w8 s3", lambda a, b, c: run_tma(a, b, c, 128, 256, 64, 8, 3)
    yield "tma 128x256x32 w8 s4", lambda a, b, c: run_tma(a, b, c, 128, 256, 32, 8, 4)
    yield "tma_pers 128x256x64 w8 s3", lambda a, b, c: run_tma_persistent(a, b, c, 128, 256, 64, 8, 3)
    yield "tma_pers 128x128x64 w4 s4", lambda a, b, c: run_tma_persistent(a, b, c, 128, 128, 64, 4, 4)
    yield "tma_pers_ws 128x256x64 w8 s3", lambda a, b, c: run_tma_persistent(a, b, c, 128, 256, 64, 8, 3, ws=True)
    yield "tma_pers_ws 128x128x64 w4 s4", lambda a, b, c: run_tma_persistent(a, b, c, 128, 128, 64, 4, 4, ws=True)


def main():
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    sizes = [(4096, 4096, 4096, torch.float16), (8192, 8192, 8192, torch.bfloat16)]
    if "--quick" in sys.argv:
        sizes = sizes[:1]
    rows = []
    for M, N, K, dtype in sizes:
        a = torch.randn(M, K, device="cuda", dtype=dtype)
        b = torch.randn(K, N, device="cuda", dtype=dtype)
        ref = (a.float() @ b.float()).to(dtype)
        t_torch = triton.testing.do_bench(lambda: a @ b, warmup=100, rep=500)
        rows.append((f"{M}x{N}x{K} {dtype}", "torch a @ b", t_torch, 1.0))
        for name, fn in variants():
            c = torch.empty(M, N, device="cuda", dtype=dtype)
            try:
                fn(a, b, c)
                torch.cuda.synchronize()
                if not torch.allclose(c.float(), ref.float(), rtol=1e-2, atol=1e-1):
                    rows.append((f"{M}x{N}x{K} {dtype}", name, float("nan"), float("nan")))
                    print(f"{name}: WRONG max err {(c.float() - ref.float()).abs().max().item()}", flush=True)
                    continue
                t = triton.testing.do_bench(lambda: fn(a, b, c), warmup=100, rep=500)
            except Exception as e:  # a variant that does not compile on this card is reported, not fatal
                print(f"{name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
                continue
            rows.append((f"{M}x{N}x{K} {dtype}", name, t, t_torch / t))
    print(f"card: {torch.cuda.get_device_name()}  triton {triton.__version__}  torch {torch.__version__}")
    print(f"{'shape':28} {'variant':26} {'ms':>8} {'torch/variant':>14}")
    for shape, name, t, r in rows:
        print(f"{shape:28} {name:26} {t:8.4f} {r:14.3f}")


if __name__ == "__main__":
    main()
