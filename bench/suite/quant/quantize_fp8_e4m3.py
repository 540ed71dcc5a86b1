"""Per-tensor scaled fp8 quantization: fp16 [8192, 8192] -> torch.float8_e4m3fn, out = clamp(x / scale, -448, 448).

The scale is a 1-element fp32 tensor (as produced by a calibration or amax-history step); the
kernel divides every element by it in fp32, clamps to the e4m3 range (448 is its largest finite
value) and converts to e4m3 with round-to-nearest-even.

INTERPRETER NOTE: the CPU interpreter check fails for this entry because of a bug in Triton
3.6's interpreter, not in the kernel: its float -> fp8 emulation (`_convert_float` in
triton/runtime/interpreter.py) ORs the rounding carry into the exponent field instead of adding
it, so values that round up across a power of two (127.02 -> 128) come out as 64, and it rounds
ties up instead of to even. With that one conversion replaced by torch's float8_e4m3fn cast, the
kernel matches the reference bit for bit on the small inputs. The entry compiles for sm_90 at its
realistic size; the reference is PyTorch's own cast (round-to-nearest-even, after the clamp).

Provenance: the elementwise pattern of the Triton vector-add tutorial applied to the
`scaled_fp8_quant` formula used by vLLM / Transformer Engine (x / scale, clamp to +-448, cast).

Weaknesses: a fixed block of 1024 elements and default num_warps, no autotuning; one scalar load
of the scale per program (65,536 programs); a full fp32 division per element where a multiply by
one reciprocal would do; the mask is computed on every access although the size is a multiple of
the block; fp16 loads of 8 elements a thread (128-bit) but fp8 stores of only 8 bytes a thread; no
packed fp16x2 -> e4m3x2 conversion is arranged explicitly (left to the compiler).
"""
import torch
import triton
import triton.language as tl


@triton.jit
def quantize_fp8_kernel(x_ptr, scale_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    scale = tl.load(scale_ptr)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x / scale
    y = tl.minimum(tl.maximum(y, -448.0), 448.0)
    tl.store(out_ptr + offs, y.to(tl.float8e4nv), mask=mask)


def launch(x, scale):
    out = torch.empty(x.shape, device=x.device, dtype=torch.float8_e4m3fn)
    n = x.numel()
    BLOCK = 1024
    quantize_fp8_kernel[(triton.cdiv(n, BLOCK),)](x, scale, out, n, BLOCK=BLOCK)
    return out


def reference(x, scale):
    return (x.float() / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)


def make_inputs(device):
    x = torch.randn(8192, 8192, device=device, dtype=torch.float16)  # 134 MB in, 67 MB out
    scale = torch.full((1,), 6.0 / 448.0, device=device, dtype=torch.float32)  # |x| > 6 saturates
    return (x, scale)


def make_small_inputs(device):
    x = torch.randn(37, 101, device=device, dtype=torch.float16) * 3.0  # some values saturate
    scale = torch.full((1,), 6.0 / 448.0, device=device, dtype=torch.float32)
    return (x, scale)


def make_test_inputs(device):
    # the shapes every candidate is also verified at: a prime element count, a single element
    def inputs(*shape):  # drawn as make_small_inputs draws them: some values saturate
        x = torch.randn(*shape, device=device, dtype=torch.float16) * 3.0
        scale = torch.full((1,), 6.0 / 448.0, device=device, dtype=torch.float32)
        return (x, scale)

    return [
        make_small_inputs(device),  # 37 x 101 = 3737 elements: 4 blocks, the last with 665
        inputs(61, 131),  # 7991 elements (primes): 8 blocks, the last with 823
        inputs(1, 1),  # one element: one block, 1023 lanes masked
    ]


def bytes_moved(x, scale):
    return x.numel() * (x.element_size() + 1) + 4


# Compared after decoding to fp32: at most one e4m3 ulp (a relative 2^-3), subnormal step 2^-9.
TOLERANCE = {"rtol": 0.125, "atol": 2.0 ** -9}

# Triton 3.6's interpreter converts float -> fp8 wrongly (see the INTERPRETER NOTE above), so the
# CPU check of tests/python/test_bench_suite.py cannot judge this entry; the GPU run does.
INTERPRETER_XFAIL = "Triton 3.6 interpreter: float -> fp8e4m3 conversion adds the rounding carry wrongly"
