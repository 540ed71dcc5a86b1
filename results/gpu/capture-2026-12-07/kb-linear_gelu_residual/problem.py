# SPDX-License-Identifier: MIT
# A KernelBench-format problem (class Model, get_inputs, get_init_inputs): LayerNorm, a linear
# layer, GELU and a residual add. The matmul is an external (cuBLAS) call in torch.compile's
# default mode; the normalization and the epilogue are Triton kernels Inductor generates.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.nn.functional.gelu(self.proj(self.norm(x))) + x


def get_inputs():
    return [torch.randn(8192, 1024)]


def get_init_inputs():
    return [1024]
