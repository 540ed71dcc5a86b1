"""Copies of a launch's inputs that keep their layout."""
import torch


def copy_input(x):
    """A copy of a launch input with its strides: clone() makes a view with gaps (every other row
    of a matrix) contiguous, and the stride the launch passes would then step past the copy. A
    view whose elements overlap (an expanded tensor) cannot be written into: clone() then."""
    if not torch.is_tensor(x):
        return x
    x = x.detach()
    if x.is_contiguous():
        return x.clone()
    y = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
    try:
        y.copy_(x)
    except RuntimeError:
        return x.clone()
    return y
