"""even-shape-heuristic applies to a loop whose bounds depend on the program: each program sums
its chunk, `for start in range(pid * CHUNK, min(pid * CHUNK + CHUNK, n), BLOCK)`. Evaluated at
every program of the launch, the loop's blocks start at multiples of BLOCK inside [0, n), so the
load's mask `offs < n` is always true when n % BLOCK == 0 and the recipe guards it with EVEN_N."""
import torch
import triton
import triton.language as tl


@triton.jit
def chunk_sum_kernel(x_ptr, out_ptr, n, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    chunk_start = pid * CHUNK
    chunk_end = min(chunk_start + CHUNK, n)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(chunk_start, chunk_end, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc))


def launch(x):
    n = x.numel()
    out = torch.empty(triton.cdiv(n, 4096), device=x.device)
    chunk_sum_kernel[(triton.cdiv(n, 4096),)](x, out, n, CHUNK=4096, BLOCK=1024)
    return out


def reference(x):
    n = x.numel()
    padded = torch.nn.functional.pad(x, (0, (-n) % 4096))
    return padded.view(-1, 4096).sum(1)


def make_inputs(device):
    return (torch.randn(10240, device=device),)


def make_small_inputs(device):
    return (torch.randn(5120, device=device),)


TOLERANCE = {"rtol": 1e-4, "atol": 1e-3}
