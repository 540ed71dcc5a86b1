"""tritondx bridge: the small Python side of tritondx.

The C++ engine runs `python -m tritondx_bridge <verb>` with one JSON request on
stdin and reads one JSON reply from stdout. Verbs: load, ast, compile.
"""

__version__ = "0.1.0"
