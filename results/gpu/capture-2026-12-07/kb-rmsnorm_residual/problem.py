# SPDX-License-Identifier: MIT
# A KernelBench-format problem (class Model, get_inputs, get_init_inputs): RMSNorm of a residual
# sum, as a transformer layer computes it. `tritondx capture --kernelbench` compiles it.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))
        self.eps = eps

    def forward(self, x, residual):
        h = x + residual
        return h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def get_inputs():
    return [torch.randn(8192, 2048), torch.randn(8192, 2048)]


def get_init_inputs():
    return [2048]
