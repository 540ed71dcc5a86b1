"""Where the tritondx engine is, and how it is run from Python."""
import os
import pathlib
import subprocess
import sys

_PACKAGE = pathlib.Path(__file__).resolve().parent


def binary():
    """The tritondx executable: TRITONDX_BINARY, the one installed with this package, or the
    build of a source checkout this package sits in."""
    explicit = os.environ.get("TRITONDX_BINARY")
    if explicit:
        return pathlib.Path(explicit)
    for candidate in (_PACKAGE / "bin" / "tritondx", _PACKAGE.parent.parent / "build" / "tritondx"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError(
        "no tritondx executable: install the package (pip install .) or build the checkout (scripts/setup.sh), "
        "or set TRITONDX_BINARY")


def bridge_path():
    """The folder holding the tritondx_bridge package: TRITONDX_BRIDGE_PATH, the one installed
    with this package, or the python/ folder of the checkout this package sits in."""
    explicit = os.environ.get("TRITONDX_BRIDGE_PATH")
    if explicit:
        return pathlib.Path(explicit)
    for candidate in (_PACKAGE / "share" / "python", _PACKAGE.parent):
        if (candidate / "tritondx_bridge" / "__init__.py").is_file():
            return candidate
    raise FileNotFoundError("no tritondx_bridge next to this package: reinstall it (pip install .) or set "
                            "TRITONDX_BRIDGE_PATH")


def environment():
    """The engine's environment: its bridge runs on this Python (the one with triton and torch)
    unless TRITONDX_PYTHON says otherwise."""
    env = dict(os.environ)
    env.setdefault("TRITONDX_PYTHON", sys.executable)
    return env


def run(args, **kwargs):
    return subprocess.run([str(binary()), *args], env=environment(), **kwargs)
