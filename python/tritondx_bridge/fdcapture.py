"""Capturing what native code writes to the process's stdout/stderr file descriptors."""
import contextlib
import os
import sys
import tempfile


@contextlib.contextmanager
def captured_fds(*fds):
    """Redirects the given file descriptors to one temporary file; yields a dict whose
    'text' key holds what was written once the block exits."""
    result = {"text": ""}
    sys.stdout.flush()
    sys.stderr.flush()
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        saved = {fd: os.dup(fd) for fd in fds}
        try:
            for fd in fds:
                os.dup2(tmp.fileno(), fd)
            yield result
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in saved.items():
                os.dup2(copy, fd)
                os.close(copy)
            tmp.seek(0)
            result["text"] = tmp.read().decode("utf-8", errors="replace")
