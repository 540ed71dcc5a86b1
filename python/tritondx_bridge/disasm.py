"""SASS disassembly and resource usage from the cubin, with the tools Triton's wheel carries."""
import re
import subprocess

from triton import knobs

_RES_RE = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)\s+LOCAL:(\d+)")
_SPILL_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS_RE = re.compile(r"Used (\d+) registers")


def _tool(name):
    return getattr(knobs.nvidia, name).path


def disassemble(cubin_path, timeout=120):
    """nvdisasm -c -g: code sections only, with source line info comments."""
    proc = subprocess.run([_tool("nvdisasm"), "-c", "-g", cubin_path], capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"nvdisasm failed: {proc.stderr.strip()}")
    return proc.stdout


def resource_usage(cubin_path, timeout=60):
    proc = subprocess.run([_tool("cuobjdump"), "-res-usage", cubin_path], capture_output=True, text=True,
                          timeout=timeout)
    out = {}
    m = _RES_RE.search(proc.stdout)
    if m:
        out = {"registers": int(m.group(1)), "stack": int(m.group(2)), "shared_static": int(m.group(3)),
               "local": int(m.group(4))}
    return out


def parse_ptxas_log(text):
    out = {}
    m = _REGS_RE.search(text)
    if m:
        out["registers"] = int(m.group(1))
    m = _SPILL_RE.search(text)
    if m:
        out.update(stack_frame=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
    return out
