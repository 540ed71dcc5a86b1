"""What the experiment scripts share: the repository root, the bench's timing
(python/tritondx_bridge/timing.py) and loading a task file as a module."""
import importlib.util
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from tritondx_bridge import timing  # noqa: E402,F401 - re-exported for the scripts


def load(path, name):
    """The module at `path` (relative paths are from the repository root)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variant_path(path, changes):
    """The task file with each text `old` replaced by `new` (the file itself when there is nothing to
    change), written under /tmp."""
    if not changes:
        return path
    text = (ROOT / path).read_text()
    for old, new in changes.items():
        text = text.replace(old, new)
    out = pathlib.Path("/tmp") / f"variant_{pathlib.Path(path).name}"
    out.write_text(text)
    return out


def with_launch_keywords(spec):
    """`PATH` as it is, or `PATH@key=value,...` (e.g. `topk_rounds.py@num_warps=4`): the file with
    those launch keywords set to the values given, written under /tmp."""
    path, _, assignments = spec.partition("@")
    if not assignments:
        return path
    lines = (ROOT / path).read_text().split("\n")
    for assignment in assignments.split(","):
        key, value = assignment.split("=")
        found = 0
        for i, line in enumerate(lines):
            if not line.lstrip().startswith("#"):  # the call, not a comment that quotes it
                lines[i], n = re.subn(rf"\b{key}=\w+(?=\s*[,)])", f"{key}={value}", line)
                found += n
        if not found:
            raise ValueError(f"{path} sets no launch keyword {key}")
    text = "\n".join(lines)
    out = pathlib.Path("/tmp") / f"variant_{assignments.replace(',', '_').replace('=', '')}_{pathlib.Path(path).name}"
    out.write_text(text)
    return out
