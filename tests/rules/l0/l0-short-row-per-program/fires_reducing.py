"""l0-short-row-per-program fires on a reducing kernel too (one 64-element head row per program,
normalized by its sum), but no recipe retiles a kernel that reduces: its proposal is advice that
says why (FindingDetails.RetilingProposalsOfAReducingKernelAreAdvice)."""
import torch
import triton
import triton.language as tl


@triton.jit
def normalize_heads_kernel(q_ptr, out_ptr, stride_q, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + row * stride_q + offs).to(tl.float32)  # CHECK: l0-short-row-per-program
    total = tl.sum(q, axis=0)
    tl.store(out_ptr + row * stride_q + offs, (q / total).to(tl.float16))


def launch(q):
    rows, D = q.shape
    out = torch.empty_like(q)
    normalize_heads_kernel[(rows,)](q, out, q.stride(0), BLOCK=D)
    return out


def reference(q):
    x = q.float()
    return (x / x.sum(dim=-1, keepdim=True)).to(torch.float16)


def make_inputs(device):
    return (torch.rand(16384, 64, device=device, dtype=torch.float16) + 0.5,)
