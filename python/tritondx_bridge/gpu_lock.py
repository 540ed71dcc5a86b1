"""Sharing one GPU between bridge processes (several bench workers pinned to the same GPU).

Timed sections (the flushed CUDA-event loops, a kernel under Nsight Compute) hold the GPU
alone; other GPU work (the first launch, which compiles; correctness; integrity checks) may
overlap other such work but never a timed section. So workers overlap their CPU-heavy parts
(Python start-up, compiles, torch.compile) and every number is still measured on an idle GPU.

TRITONDX_GPU_LOCK names the GPU's lock file; unset, every call here does nothing.
It is a readers-writer lock on flock(2). SHARED holders overlap; EXCLUSIVE waits until none is
left. Every request first passes a turnstile (the lock file + ".turn"). A waiting EXCLUSIVE
request holds the turnstile, so new SHARED requests queue behind it and a stream of
overlapping ones cannot starve it. A process never waits at the turnstile while holding the
main lock, so there is no deadlock (see _set).
"""
import contextlib
import fcntl
import os
import sys
import time

ENV = "TRITONDX_GPU_LOCK"
SHARED, EXCLUSIVE = "shared", "exclusive"

_fds = {}
_mode = [None]
_waited = [0.0]  # seconds this process spent blocked waiting for the lock


def _open(path):
    if path not in _fds:
        main = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        turn = os.open(path + ".turn", os.O_RDWR | os.O_CREAT, 0o644)
        _fds[path] = (main, turn)
    return _fds[path]


def _drain_gpu():
    """Work queued asynchronously belongs to the section that queued it."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _set(mode):
    path = os.environ.get(ENV)
    if not path or mode == _mode[0]:
        return
    main, turn = _open(path)
    if _mode[0] is not None:
        _drain_gpu()
        # flock converts a lock by dropping it first anyway; dropping it before the turnstile
        # keeps "holds main, waits for turn" from ever happening.
        fcntl.flock(main, fcntl.LOCK_UN)
        _mode[0] = None
    if mode is None:
        return
    started = time.monotonic()
    fcntl.flock(turn, fcntl.LOCK_EX)
    try:
        fcntl.flock(main, fcntl.LOCK_SH if mode == SHARED else fcntl.LOCK_EX)
    finally:
        fcntl.flock(turn, fcntl.LOCK_UN)
        _waited[0] += time.monotonic() - started
    _mode[0] = mode


@contextlib.contextmanager
def hold(mode):
    """Holds the GPU in `mode` (SHARED or EXCLUSIVE) for the block; nests (SHARED inside
    EXCLUSIVE stays EXCLUSIVE) and restores the outer mode after."""
    if mode not in (SHARED, EXCLUSIVE):
        raise ValueError(f"gpu_lock.hold: mode must be {SHARED!r} or {EXCLUSIVE!r}, not {mode!r}")
    outer = _mode[0]
    inner = EXCLUSIVE if outer == EXCLUSIVE else mode
    _set(inner)
    try:
        yield
    finally:
        _set(outer)


def current():
    """The mode held now (None when none, or when TRITONDX_GPU_LOCK is unset)."""
    return _mode[0]


def waited_seconds():
    """Seconds this process has spent waiting for the lock (for a timed section of another
    process, mostly). A search's time budget leaves them out: they are other workers' time."""
    return _waited[0]
