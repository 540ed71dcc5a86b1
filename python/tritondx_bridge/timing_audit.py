"""The random-point audit of the timing loop: one call at a random iteration inside
timing.time_launch's loop (never among the first tenth) runs on fresh data, written in place into
the storage of the input set that iteration would have used, and its outputs are compared with
the references after the loop.

Correctness is otherwise checked before and after timing only, so a kernel that behaves while it
is verified and cheats while it is timed passes: one that detects the warm-up or counts calls,
or one that caches its outputs across calls keyed by its inputs' addresses (the rotated input
sets keep their addresses). The audited call looks like its neighbours: the fresh data and the
references are prepared before the loop, the copy into the inputs and the snapshot of the outputs
are device copies queued outside the timed events, and nothing synchronizes with the host until
the loop has ended.
"""
import random

import torch

from . import verify


class RandomPointAudit:
    def __init__(self, task, seed, initial=None, device="cuda", skip_after=()):
        """`skip_after`: the inputs the timed call updates in place (in_place.py): they are its
        outputs, so how it leaves them is compared as outputs, not with the inputs as they were."""
        self.task = task
        self.skip_after = set(skip_after)
        self.seed = seed
        self.initial = initial
        self.device = device
        self.iteration = -1
        self.reps = 0
        self.skipped = None
        self._fresh = None
        self._expected = []
        self._outputs = None
        self._after = None

    def plan(self, reps, input_sets):
        """Picks the audited iteration of a loop of `reps` calls over `input_sets` and prepares its
        fresh inputs and references; returns the iteration (-1: no audit, `skipped` says why)."""
        self.reps = reps
        if reps < 2:
            self.skipped = f"a loop of {reps} call(s) has no call inside it to audit"
            return -1
        rng = random.Random(self.seed)
        self.iteration = rng.randrange(max(1, reps // 10), reps)
        target = input_sets[self.iteration % len(input_sets)]
        fresh = verify.make_inputs(self.task, self.seed, self.device)
        if not _same_layout(fresh, target):
            self.skipped = "make_inputs gave tensors of other shapes or dtypes at another seed"
            self.iteration = -1
            return -1
        self._fresh = fresh
        if verify.has_reference(self.task):
            ref, _ = verify.reference_outputs(self.task, [_copy(x) for x in fresh])
            self._expected.append(("the reference", ref, None))
        if self.initial is not None:
            self._expected.append(("the initial kernel",
                                   *verify.run_on_copies(self.initial.function("launch"), fresh, self.device)))
        if not self._expected:
            self.skipped = "the task has neither a reference nor an initial kernel to compare the audited call with"
            self.iteration = -1
        return self.iteration

    def before_call(self, inputs):
        """Writes the fresh data into the storage of `inputs` (the set the audited call uses)."""
        for dst, src in zip(inputs, self._fresh):
            if torch.is_tensor(dst):
                dst.detach().copy_(src)

    def after_call(self, outputs, inputs):
        """Snapshots what the audited call returned and how it left its inputs (queued copies)."""
        self._outputs = [_copy(o) for o in verify.as_tuple(outputs)]
        self._after = [None if i in self.skip_after else _copy(x) for i, x in enumerate(inputs)]

    def result(self):
        """{"iteration", "reps", "passed", "failures"}, or {"skipped": why} when no call was audited."""
        if self.iteration < 0:
            return {"skipped": self.skipped or "no audit was planned"}
        if self._outputs is None:
            return {"iteration": self.iteration, "reps": self.reps, "passed": False,
                    "failures": [{"output": -1, "message": "the audited call never ran"}]}
        failures = []
        for against, ref_out, ref_after in self._expected:
            failures += verify._compare_all(self.task, self._outputs, ref_out, against)
            if ref_after is not None:
                ref_after = [None if i in self.skip_after else x for i, x in enumerate(ref_after)]
                failures += verify._compare_all(self.task, self._after, ref_after, against, what="input")
        where = f"the call audited at iteration {self.iteration} of {self.reps} in the timing loop (fresh inputs)"
        for f in failures:
            f["message"] = f"{where}: {f['message']}"
        return {"iteration": self.iteration, "reps": self.reps, "passed": not failures, "failures": failures}


def _copy(x):
    return x.detach().clone() if torch.is_tensor(x) else x


def _same_layout(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if torch.is_tensor(x) != torch.is_tensor(y):
            return False
        if torch.is_tensor(x) and (x.shape != y.shape or x.dtype != y.dtype or x.stride() != y.stride()):
            return False
    return True
