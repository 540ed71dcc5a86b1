"""Tasks whose kernel updates some of its inputs in place (RoPE on q and k, a KV-cache write).

Such a task names those inputs, by launch()'s parameter names:

    MUTATES = ("q", "k")

and its launch() may update them and return nothing (the updated inputs, in MUTATES' order, are
then its outputs) or return what it computes. Everywhere a launch() is verified, checked or
profiled, it runs as `install` leaves it in the module: on copies of the named inputs, so that
it leaves its inputs alone like any other task. Only the timing runs the kernel on the inputs
themselves (`timed`), and puts the named inputs back between calls, outside the timed events,
so the copies are not timed: a kernel that works in place is timed for the traffic it moves.
"""
import inspect

import torch

from .errors import BridgeError
from .tensor_copy import copy_input

NAME = "MUTATES"


class InPlace:
    """The mutated inputs of one task's launch(): their indices, and launch() itself."""

    def __init__(self, launch, indices):
        self.launch = launch
        self.indices = indices

    def outputs(self, returned, inputs):
        """launch()'s outputs: what it returned, or the updated inputs when it returned None."""
        if returned is not None:
            return returned
        updated = tuple(inputs[i] for i in self.indices)
        return updated[0] if len(updated) == 1 else updated

    def on_copies(self, *inputs):
        args = list(inputs)
        for i in self.indices:
            args[i] = copy_input(args[i])
        return self.outputs(self.launch(*args), args)

    def in_place(self, *inputs):
        return self.outputs(self.launch(*inputs), inputs)


def indices(module):
    """The positions of launch()'s parameters named in the module's MUTATES (None: not declared).
    Raises BridgeError("bad-mutates") for a value that is not a tuple of launch()'s parameter
    names."""
    names = getattr(module, NAME, None)
    if names is None:
        return None
    launch = getattr(module, "launch", None)
    if not callable(launch):
        return None  # load_task reports the missing launch()
    if isinstance(names, str) or not isinstance(names, (tuple, list)) or not names or \
            not all(isinstance(n, str) for n in names):
        raise BridgeError("bad-mutates", f"{NAME} must be a tuple of launch()'s parameter names (the inputs its "
                          f"kernel updates in place), not {names!r}")
    params = [p.name for p in inspect.signature(launch).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    unknown = [n for n in names if n not in params]
    if unknown:
        raise BridgeError("bad-mutates", f"{NAME} names {', '.join(map(repr, unknown))}, which launch("
                          f"{', '.join(params)}) does not take")
    if len(set(names)) != len(names):
        raise BridgeError("bad-mutates", f"{NAME} names an input twice: {names!r}")
    return [params.index(n) for n in names]


def install(module):
    """Makes module.launch run on copies of the inputs the module's MUTATES names; its in-place
    form stays reachable as `module.launch.in_place` (for `timed`). No MUTATES: nothing changes."""
    where = indices(module)
    if where is None:
        return
    state = InPlace(module.launch, where)

    def launch(*inputs):
        return state.on_copies(*inputs)

    launch.in_place = state
    launch.__doc__ = module.launch.__doc__
    module.launch = launch


def mutated(launch):
    """The InPlace of an installed launch(), else None."""
    return getattr(launch, "in_place", None)


class Restorer:
    """Puts the mutated inputs of each timed input set back as they were before the first call."""

    def __init__(self, state, input_sets):
        self.indices = state.indices
        self._pristine = {id(s): [(i, s[i].detach().clone()) for i in state.indices if torch.is_tensor(s[i])]
                          for s in input_sets}

    def __call__(self, inputs):
        for i, saved in self._pristine.get(id(inputs), ()):
            inputs[i].detach().copy_(saved)


def timed(launch, input_sets):
    """(what the timing calls, reset or None): for an installed in-place launch(), the kernel on
    the inputs themselves and a Restorer to run before each call, outside the timed events; else
    launch() as it is and no reset."""
    state = mutated(launch)
    if state is None:
        return launch, None
    return state.in_place, Restorer(state, input_sets)
