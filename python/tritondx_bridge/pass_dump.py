"""The MLIR pass dumps of one compile, cut out of the stream Triton keeps for the whole process.

Triton 3.6.0 opens MLIR_DUMP_PATH once per process, at the first compile that dumps, as a static
buffered raw_fd_ostream, and writes every later dump to it whatever MLIR_DUMP_PATH says then. The
buffer is flushed only when it fills or the process exits (measured: a compile's file stopped
4 KiB-aligned, mid-op, and the missing tail opened the next compile's share). So:

- the bridge keeps one file per process; once Triton holds it open, its name is removed and the
  bridge reads it through a handle of its own, so the file goes with the process however the
  process ends (a killed bridge used to leave hundreds of MB in /tmp per process);
- after each compile, marker dumps of an empty module push the compile's last bytes out of the
  buffer: a compile's share runs from where it started to the first marker, and the markers
  still in the buffer open the next share, where they are dropped.
"""
import atexit
import os
import re
import tempfile

MARKER = "tdx.pass_dump_flush"
_HEADER = re.compile(r"^// -----// IR Dump ", re.MULTILINE)
_MARKER_PADDING = "x" * 1024
_MAX_MARKER_RUNS = 256


class ProcessDump:
    def __init__(self):
        fd, self.path = tempfile.mkstemp(prefix="tritondx-passes-", suffix=".txt")
        os.close(fd)
        self._reader = None
        self._flushes = 0
        atexit.register(self._remove_name)

    def size(self):
        if self._reader is not None:
            return os.fstat(self._reader.fileno()).st_size
        return os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def finish_compile(self, offset, dest):
        """Writes the dumps since `offset` to `dest` (None: drops them, as after a failed compile);
        False when nothing was written. Call while MLIR_ENABLE_DUMP and MLIR_DUMP_PATH are still
        set for the compile."""
        self._hold_open()
        token = self._flush_through_markers(offset)
        self._hold_open()
        text = self._read_from(offset)
        share = _without_markers(text[:_section_start(text, text.index(token))])
        if dest is None or not share:
            return False
        with open(dest, "w") as out:
            out.write(share)
        return True

    def _read_from(self, offset):
        if self._reader is None:
            if not os.path.exists(self.path):
                return ""
            with open(self.path, "rb") as f:
                f.seek(offset)
                return f.read().decode("utf-8", errors="replace")
        self._reader.seek(offset)
        return self._reader.read().decode("utf-8", errors="replace")

    def _flush_through_markers(self, offset):
        """Dumps marker modules until one is on disk; returns the text that names this flush."""
        from triton._C.libtriton import ir, passes

        self._flushes += 1
        token = f"{MARKER}.{self._flushes}"
        context = ir.context()
        ir.load_dialects(context)
        fd, marker_file = tempfile.mkstemp(prefix="tritondx-flush-", suffix=".mlir")
        try:
            with os.fdopen(fd, "w") as f:
                f.write('module attributes {"%s" = "%s"} {\n}\n' % (token, _MARKER_PADDING))
            module = ir.parse_mlir_module(marker_file, context)
        finally:
            os.remove(marker_file)
        seen = offset
        for _ in range(_MAX_MARKER_RUNS):
            # All of the compile's bytes are on disk once a marker written after them is.
            if token in self._read_from(seen):
                return token
            seen = max(offset, self.size() - 2 * len(_MARKER_PADDING))
            manager = ir.pass_manager(context)
            manager.enable_debug()
            passes.common.add_canonicalizer(manager)
            manager.run(module, "tritondx_pass_dump_flush")
        raise RuntimeError(f"Triton's pass dump stream never reached {self.path}: is MLIR_DUMP_PATH set?")

    def _hold_open(self):
        """Takes a handle and removes the name once Triton's stream holds the file."""
        if self._reader is not None or not _open_in_this_process(self.path):
            return
        self._reader = open(self.path, "rb")
        os.remove(self.path)

    def _remove_name(self):
        if self._reader is None and os.path.exists(self.path):
            os.remove(self.path)


def _open_in_this_process(path):
    """Whether a descriptor of this process names `path` (Linux's /proc; elsewhere the name stays
    until the process exits normally)."""
    if not os.path.isdir("/proc/self/fd"):
        return False
    real = os.path.realpath(path)
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") == real:
                return True
        except OSError:
            continue
    return False


def _section_start(text, position):
    """Where the dump section holding `position` starts."""
    starts = [m.start() for m in _HEADER.finditer(text, 0, position)]
    return starts[-1] if starts else 0


def _without_markers(text):
    """The sections of `text` that are not marker dumps; text before the first header is the
    rest of a marker the previous share cut through."""
    starts = [m.start() for m in _HEADER.finditer(text)]
    sections = [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]
    return "".join(s for s in sections if MARKER not in s)


_PROCESS_DUMP = []


def process_dump():
    if not _PROCESS_DUMP:
        _PROCESS_DUMP.append(ProcessDump())
    return _PROCESS_DUMP[0]
