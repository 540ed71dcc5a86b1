"""What the experiment scripts share: the repository root, the bench's timing
(python/tritondx_bridge/timing.py) and loading a task file as a module."""
import importlib.util
import pathlib
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
