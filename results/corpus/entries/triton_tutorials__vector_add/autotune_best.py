"""Vector addition z = x + y over 2**26 fp32 elements (805 MB moved), Triton tutorial 01.

Provenance: triton-lang/triton@545699290b851e70231ee3017481851170f1583d:python/tutorials/01-vector-add.py,
MIT (SPDX: MIT), "Copyright 2018-2020 Philippe Tillet, Copyright 2020-2022 OpenAI" (the repository's
LICENSE; the tutorial file itself has no header). Copied verbatim: the `DEVICE` line, `add_kernel`
and the tutorial's host function `add` (with its `x.device == DEVICE` assertion). Left out: the
tutorial's unit test and benchmark code at module level. Nothing in the kernel or the wrapper changed.
"""
import torch

import triton
import triton.language as tl

# ---- copied from python/tutorials/01-vector-add.py (MIT, Copyright 2018-2020 Philippe Tillet, 2020-2022 OpenAI)

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr,  # *Pointer* to first input vector.
               y_ptr,  # *Pointer* to second input vector.
               output_ptr,  # *Pointer* to output vector.
               n_elements,  # Size of the vector.
               BLOCK_SIZE: tl.constexpr,  # Number of elements each program should process.
               # NOTE: `constexpr` so it can be used as a shape value.
               ):
    # There are multiple 'programs' processing different data. We identify which program
    # we are here:
    pid = tl.program_id(axis=0)  # We use a 1D launch grid so axis is 0.
    # This program will process inputs that are offset from the initial data.
    # For instance, if you had a vector of length 256 and block_size of 64, the programs
    # would each access the elements [0:64, 64:128, 128:192, 192:256].
    # Note that offsets is a list of pointers:
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # Create a mask to guard memory operations against out-of-bounds accesses.
    mask = offsets < n_elements
    # Load x and y from DRAM, masking out any extra elements in case the input is not a
    # multiple of the block size.
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    # Write x + y back to DRAM.
    tl.store(output_ptr + offsets, output, mask=mask)


# %%
# Let's also declare a helper function to (1) allocate the `z` tensor
# and (2) enqueue the above kernel with appropriate grid/block sizes:


def add(x: torch.Tensor, y: torch.Tensor):
    # We need to preallocate the output.
    output = torch.empty_like(x)
    assert x.device == DEVICE and y.device == DEVICE and output.device == DEVICE
    n_elements = output.numel()
    # The SPMD launch grid denotes the number of kernel instances that run in parallel.
    # It is analogous to CUDA launch grids. It can be either Tuple[int], or Callable(metaparameters) -> Tuple[int].
    # In this case, we use a 1D grid where the size is the number of blocks:
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    # NOTE:
    #  - Each torch.tensor object is implicitly converted into a pointer to its first element.
    #  - `triton.jit`'ed functions can be indexed with a launch grid to obtain a callable GPU kernel.
    #  - Don't forget to pass meta-parameters as keywords arguments.
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=512, num_warps=8, num_stages=4)
    # We return a handle to z but, since `torch.cuda.synchronize()` hasn't been called, the kernel is still
    # running asynchronously at this point.
    return output


# ---- end of the copied code; what follows is this project's task interface


def launch(x, y):
    return add(x, y)


def reference(x, y):
    return x + y


def make_inputs(device):
    size = 2**26  # the top of the tutorial's benchmark range (2**12 .. 2**27)
    return (torch.rand(size, device=device, dtype=torch.float32), torch.rand(size, device=device, dtype=torch.float32))


def make_small_inputs(device):
    size = 4099  # 5 blocks of 1024, the last one masked
    return (torch.rand(size, device=device, dtype=torch.float32), torch.rand(size, device=device, dtype=torch.float32))


def make_test_inputs(device):
    # the shapes every candidate is also verified at: the small odd length, a prime length, a single element
    return [
        make_small_inputs(device),  # 4099: 5 blocks of 1024, the last one 3 wide
        (torch.rand(9973, device=device, dtype=torch.float32),  # 9973 (prime): 10 blocks, the last one 757 wide
         torch.rand(9973, device=device, dtype=torch.float32)),
        (torch.rand(1, device=device, dtype=torch.float32),  # a single element: one program, 1023 lanes masked
         torch.rand(1, device=device, dtype=torch.float32)),
    ]


def bytes_moved(x, y):
    return 3 * x.numel() * x.element_size()


def flops(x, y):
    return x.numel()


# the reference runs in float64: an fp32 sum is within half an fp32 ulp of it (2**-24 relative)
TOLERANCE = {"rtol": 2.0**-23, "atol": 0.0}
