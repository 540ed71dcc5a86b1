"""Row-wise softmax of an (8192, 8192) fp32 matrix with a persistent, occupancy-sized grid (537 MB moved), Triton tutorial 02.

Provenance: triton-lang/triton@fd237c7cf9a7262f32fedbaa5027ab2736ead134:python/tutorials/02-fused-softmax.py,
MIT (SPDX: MIT), "Copyright 2018-2020 Philippe Tillet, Copyright 2020-2022 OpenAI" (the repository's
LICENSE; the tutorial file itself has no header). Copied verbatim: the imports, `DEVICE`, `is_hip`,
`is_cdna`, `softmax_kernel`, the module-level device queries (`properties`, `NUM_SM`, `NUM_REGS`,
`SIZE_SMEM`, `WARP_SIZE`, `target`, `kernels`) and the host function `softmax`, which pre-compiles
the kernel with `softmax_kernel.warmup(...)`, reads its register and shared-memory use
(`kernel._init_handles()`, `kernel.n_regs`, `kernel.metadata.shared`) to size a persistent grid
of NUM_SM * occupancy programs, and launches the compiled kernel directly. Left out: `naive_softmax`
and the tutorial's unit test and benchmark. Nothing in the kernel or the wrapper changed.

Under Triton's interpreter `JITFunction.warmup` returns None (nothing is compiled), so the
wrapper's `kernel._init_handles()` cannot run there: INTERPRETER_XFAIL below.
"""
import torch

import triton
import triton.language as tl
from triton.runtime import driver

# ---- copied from python/tutorials/02-fused-softmax.py (MIT, Copyright 2018-2020 Philippe Tillet, 2020-2022 OpenAI)

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


def is_cdna():
    return is_hip() and triton.runtime.driver.active.get_current_target().arch in ('gfx940', 'gfx941', 'gfx942',
                                                                                   'gfx90a', 'gfx908')


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols, BLOCK_SIZE: tl.constexpr,
                   num_stages: tl.constexpr):
    # starting row of the program
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        # The stride represents how much we need to increase the pointer to advance 1 row
        row_start_ptr = input_ptr + row_idx * input_row_stride
        # The block size is the next power of two greater than n_cols, so we can fit each
        # row in a single block
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        # Load the row into SRAM, using a mask since BLOCK_SIZE may be > than n_cols
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float('inf'))
        # Subtract maximum for numerical stability
        row_minus_max = row - tl.max(row, axis=0)
        # Note that exponentiation in Triton is fast but approximate (i.e., think __expf in CUDA)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        # Write back output to DRAM
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


# %%
# We can create a helper function that enqueues the kernel and its (meta-)arguments for any given input tensor.

properties = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = properties["multiprocessor_count"]
NUM_REGS = properties["max_num_regs"]
SIZE_SMEM = properties["max_shared_mem"]
WARP_SIZE = properties["warpSize"]
target = triton.runtime.driver.active.get_current_target()
kernels = {}


def softmax(x):
    n_rows, n_cols = x.shape

    # The block size of each loop iteration is the smallest power of two greater than the number of columns in `x`
    BLOCK_SIZE = triton.next_power_of_2(n_cols)

    # Another trick we can use is to ask the compiler to use more threads per row by
    # increasing the number of warps (`num_warps`) over which each row is distributed.
    # You will see in the next tutorial how to auto-tune this value in a more natural
    # way so you don't have to come up with manual heuristics yourself.
    num_warps = 8

    # Number of software pipelining stages.
    num_stages = 4 if SIZE_SMEM > 200000 else 2

    # Allocate output
    y = torch.empty_like(x)

    # pre-compile kernel to get register usage and compute thread occupancy.
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                   num_stages=num_stages, num_warps=num_warps, grid=(1, ))
    kernel._init_handles()
    n_regs = kernel.n_regs
    size_smem = kernel.metadata.shared
    if is_hip():
        # NUM_REGS represents the number of regular purpose registers. On CDNA architectures this is half of all registers available.
        # However, this is not always the case. In most cases all registers can be used as regular purpose registers.
        # ISA SECTION (3.6.4 for CDNA3)
        # VGPRs are allocated out of two pools: regular VGPRs and accumulation VGPRs. Accumulation VGPRs are used
        # with matrix VALU instructions, and can also be loaded directly from memory. A wave may have up to 512 total
        # VGPRs, 256 of each type. When a wave has fewer than 512 total VGPRs, the number of each type is flexible - it is
        # not required to be equal numbers of both types.
        if is_cdna():
            NUM_GPRS = NUM_REGS * 2

        # MAX_NUM_THREADS represents maximum number of resident threads per multi-processor.
        # When we divide this number with WARP_SIZE we get maximum number of waves that can
        # execute on a CU (multi-processor)  in parallel.
        MAX_NUM_THREADS = properties["max_threads_per_sm"]
        max_num_waves = MAX_NUM_THREADS // WARP_SIZE
        occupancy = min(NUM_GPRS // WARP_SIZE // n_regs, max_num_waves) // num_warps
    else:
        occupancy = NUM_REGS // (n_regs * WARP_SIZE * num_warps)
    occupancy = min(occupancy, SIZE_SMEM // size_smem)
    num_programs = NUM_SM * occupancy

    num_programs = min(num_programs, n_rows)

    # Create a number of persistent programs.
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages)
    return y


# ---- end of the copied code; what follows is this project's task interface

INTERPRETER_XFAIL = ("the wrapper calls softmax_kernel.warmup(...)._init_handles() to read n_regs; under "
                     "TRITON_INTERPRET=1 JITFunction.warmup returns None (the upstream tutorial cannot run "
                     "under the interpreter either)")


def launch(x):
    return softmax(x)


def reference(x):
    return torch.softmax(x.double(), dim=1).to(x.dtype)


def make_inputs(device):
    return (torch.randn(8192, 8192, device=device, dtype=torch.float32), )


def make_small_inputs(device):
    return (torch.randn(37, 781, device=device, dtype=torch.float32), )  # the tutorial's 781 columns: a 1024 tile, masked


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small odd matrix, 2**8 + 1 columns, a single element
    return [
        make_small_inputs(device),  # (37, 781): a 1024 tile per row, 243 columns masked
        (torch.randn(61, 257, device=device, dtype=torch.float32), ),  # (61, 257): a 512 tile, all but 257 columns masked (one past a power of two)
        (torch.randn(1, 1, device=device, dtype=torch.float32), ),  # (1, 1): one row of one column, BLOCK_SIZE 1, a grid of one program
    ]


def bytes_moved(x):
    return 2 * x.numel() * x.element_size()


def flops(x):
    return 5 * x.numel()  # max, subtract, exp, sum, divide


TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
