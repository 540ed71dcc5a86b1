"""SwiGLU activation of an MLP: out = silu(gate) * up for gate, up of shape [4096, 14336] bf16 (Llama-3-8B / Mistral-7B intermediate size).

gate and up are the two projections' outputs, given as separate tensors; silu(g) = g / (1 + exp(-g)),
computed in fp32 and rounded once to bf16.

Provenance: the Triton vector-add tutorial's elementwise kernel (one program per 1024 flat
elements, a bounds mask) with the SwiGLU formula from the Llama MLP (`act_fn(gate_proj(x)) *
up_proj(x)`) written directly.

Weaknesses: a fixed block of 1024 elements and default num_warps (8 bf16 per thread: 128-bit
accesses, but 57,344 small programs), no autotuning; the mask is computed on every access although
the size is a multiple of the block; an exact exp and a full fp32 division per element for the
sigmoid (exp2-based or approximate reciprocal forms are cheaper, though the kernel stays
memory-bound); not fused with the projections that produce gate and up, which is where the real
saving lies (out of scope for this entry).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(gate_ptr, up_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    g = tl.load(gate_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = tl.load(up_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    silu = g / (1.0 + tl.exp(-g))
    tl.store(out_ptr + offs, (silu * u).to(out_ptr.dtype.element_ty), mask=mask)


def launch(gate, up):
    out = torch.empty_like(gate)
    n = gate.numel()
    BLOCK_SIZE = 1024
    swiglu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](gate, up, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out


def reference(gate, up):
    return (torch.nn.functional.silu(gate.float()) * up.float()).to(gate.dtype)


def make_inputs(device):
    tokens, inter = 4096, 14336  # gate, up in, out: 3 x 117 MB
    gate = torch.randn(tokens, inter, device=device, dtype=torch.bfloat16)
    up = torch.randn(tokens, inter, device=device, dtype=torch.bfloat16)
    return (gate, up)


def make_small_inputs(device):
    tokens, inter = 3, 1001  # 3003 elements: a partial last block
    gate = torch.randn(tokens, inter, device=device, dtype=torch.bfloat16) * 4
    up = torch.randn(tokens, inter, device=device, dtype=torch.bfloat16)
    return (gate, up)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small shape, a prime width, one element
    return [
        make_small_inputs(device),  # 3 x 1001 = 3003 elements: two full blocks and a partial third
        # 17 x 131 = 2227 elements (prime width): two full blocks and 179 in the third
        (torch.randn(17, 131, device=device, dtype=torch.bfloat16) * 4,
         torch.randn(17, 131, device=device, dtype=torch.bfloat16)),
        # one element: one program, 1023 lanes masked
        (torch.randn(1, 1, device=device, dtype=torch.bfloat16) * 4,
         torch.randn(1, 1, device=device, dtype=torch.bfloat16)),
    ]


def bytes_moved(gate, up):
    return 3 * gate.numel() * gate.element_size()


TOLERANCE = {"rtol": 1e-2, "atol": 1e-2}
