"""The bridge protocol and its argument specialization, run as the C++ side runs it."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def call(verb, request):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", verb], input=json.dumps(request),
                          capture_output=True, text=True, env=env, timeout=300)
    return json.loads(proc.stdout)


def write_task(tmp_path, n, extra_launch_kwargs=""):
    path = tmp_path / "task.py"
    path.write_text(f'''
import torch, triton, triton.language as tl

@triton.jit
def k(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)

def launch(x):
    out = torch.empty_like(x)
    k[(triton.cdiv(x.numel(), 128),)](x, out, x.numel(), 1, BLOCK=128{extra_launch_kwargs})
    return out

def reference(x):
    return x

def make_inputs(device):
    return (torch.randn({n}, device=device),)
''')
    return str(path)


def test_unknown_verb_is_a_clean_error():
    reply = call("frobnicate", {})
    assert reply["ok"] is False
    assert reply["error"]["kind"] == "bad-request"


def test_request_that_is_not_json():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([sys.executable, "-m", "tritondx_bridge", "load"], input="{not json", capture_output=True,
                          text=True, env=env, timeout=120)
    reply = json.loads(proc.stdout)
    assert reply["error"]["kind"] == "bad-request"


def test_integer_divisible_by_16_is_specialized(tmp_path):
    reply = call("compile", {"task": write_task(tmp_path, 4096), "out_dir": str(tmp_path / "out")})
    launch = reply["kernels"][0]["launch"]
    assert launch["attrs"]["n"] == [["tt.divisibility", 16]]
    assert launch["attrs"]["x_ptr"] == [["tt.divisibility", 16]]
    # An integer equal to 1 becomes a constexpr, as the JIT does.
    assert launch["signature"]["scale"] == "constexpr"
    assert launch["constexprs"]["scale"] == 1
    ttir = open(reply["kernels"][0]["files"]["ttir"]).read()
    assert "%n: i32 {tt.divisibility = 16 : i32}" in ttir


def test_integer_not_divisible_by_16_is_not(tmp_path):
    reply = call("compile", {"task": write_task(tmp_path, 4099), "out_dir": str(tmp_path / "out")})
    assert reply["kernels"][0]["launch"]["attrs"]["n"] == []


def test_launch_options_reach_the_compile(tmp_path):
    reply = call("compile", {"task": write_task(tmp_path, 4096, ", num_warps=2, num_stages=1"),
                             "out_dir": str(tmp_path / "out")})
    md = reply["kernels"][0]["metadata"]
    assert md["num_warps"] == 2 and md["num_stages"] == 1
    assert '"ttg.num-warps" = 2' in open(reply["kernels"][0]["files"]["ttgir"]).read()


def test_what_if_assume_divisible(tmp_path):
    reply = call("compile", {"task": write_task(tmp_path, 4099), "out_dir": str(tmp_path / "out"),
                             "what_if": {"assume_divisible": ["n"]}})
    assert reply["kernels"][0]["launch"]["attrs"]["n"] == [["tt.divisibility", 16]]


def test_what_if_unknown_parameter(tmp_path):
    reply = call("compile", {"task": write_task(tmp_path, 4099), "out_dir": str(tmp_path / "out"),
                             "what_if": {"assume_divisible": ["nope"]}})
    assert reply["ok"] is False and "nope" in reply["error"]["message"]


def test_ast_has_spans_and_kernel_lines():
    reply = call("ast", {"task": os.path.join(ROOT, "examples", "vector_add.py")})
    kernel = reply["kernels"][0]
    assert kernel["name"] == "add_kernel" and kernel["def_line"] == 11
    funcs = [c for c in reply["module"]["children"] if c["type"] == "FunctionDef"]
    add = next(f for f in funcs if f["fields"]["name"] == "add_kernel")
    assert add["span"][0] == 11
    assert reply["task"]["has_bytes"] is True


def test_sweep_reports_each_task_and_goes_on(tmp_path):
    import torch
    good = os.path.join(ROOT, "examples", "vector_add.py")
    missing = str(tmp_path / "missing.py")
    reply = call("sweep", {"tasks": [good, missing]})
    assert reply["ok"], reply
    results = reply["results"]
    assert [r["task"] for r in results] == [good, missing]
    assert results[1]["ok"] is False and results[1]["error"]["kind"] == "file-missing", results[1]
    if not torch.cuda.is_available():
        assert results[0]["ok"] is False and results[0]["error"]["kind"] == "no-gpu", results[0]


def test_sweep_needs_a_list_of_paths():
    reply = call("sweep", {"tasks": "examples/vector_add.py"})
    assert not reply["ok"] and reply["error"]["kind"] == "bad-request", reply


def test_baselines_needs_a_gpu():
    import torch
    if torch.cuda.is_available():
        return
    reply = call("baselines", {"task": os.path.join(ROOT, "examples", "vector_add.py")})
    assert not reply["ok"] and reply["error"]["kind"] == "no-gpu", reply


def test_device_names_the_card_the_run_verb_records():
    import torch
    reply = call("device", {})
    assert reply["ok"], reply
    if torch.cuda.is_available():
        assert reply["device"] == torch.cuda.get_device_name() and len(reply["capability"]) == 2, reply
    else:
        assert reply["device"] == "" and reply["capability"] is None, reply


def test_compare_needs_two_versions_and_a_gpu():
    import torch
    path = os.path.join(ROOT, "examples", "vector_add.py")
    reply = call("compare", {"tasks": [path]})
    assert not reply["ok"] and reply["error"]["kind"] == "bad-request", reply
    reply = call("compare", {"tasks": [path, path], "rounds": 0})
    assert not reply["ok"] and reply["error"]["kind"] == "bad-request", reply
    if not torch.cuda.is_available():
        reply = call("compare", {"tasks": [path, path]})
        assert not reply["ok"] and reply["error"]["kind"] == "no-gpu", reply


def test_each_kernel_gets_its_own_pass_dumps_in_one_process(tmp_path):
    """Triton writes every MLIR dump of a process to the MLIR_DUMP_PATH of its first dumping
    compile; the bridge cuts each compile's share out, so no kernel's passes.txt is missing or
    holds another kernel's passes (three kernels, compiled one after another in one process)."""
    task = os.path.join(ROOT, "tests", "fixtures", "tasks", "cumsum_guarded_blocks.py")
    reply = call("compile", {"task": task, "out_dir": str(tmp_path), "pass_dumps": True})
    assert reply["ok"], reply
    kernels = reply["kernels"]
    names = [k["kernel"] for k in kernels]
    assert len(set(names)) == 3, names
    for k in kernels:
        with open(k["files"]["passes"]) as f:
            text = f.read()
        assert f"@{k['kernel']}" in text, k["kernel"]
        others = [n for n in names if n != k["kernel"] and f"@{n}(" in text]
        assert not others, (k["kernel"], others)


def write_autotuned_task(tmp_path):
    path = tmp_path / "autotuned.py"
    path.write_text('''
import torch, triton, triton.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 512}, num_warps=8)],
                 key=["n"])
@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

@triton.heuristics({"EVEN": lambda args: args["n"] % 64 == 0})
@triton.jit
def h(x_ptr, n, EVEN: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, 64), tl.load(x_ptr + tl.arange(0, 64)))

def launch(x):
    out = torch.empty_like(x)
    k[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel())
    h[(1,)](out, x.numel())
    return out

def reference(x):
    return 2 * x

def make_inputs(device):
    return (torch.randn(4096, device=device),)
''')
    return str(path)


def test_autotune_config_picks_a_config_per_kernel(tmp_path):
    # Without a GPU the capture compiles one config per autotuner: the first, or the one named for
    # the kernel (the autotuner's choice a GPU run reported).
    task = write_autotuned_task(tmp_path)
    first = call("capture", {"task": task})
    chosen = call("capture", {"task": task, "autotune_config": {"k": 1}})
    launch = {l["kernel"]: l for l in first["launches"]}["k"]
    assert launch["constexprs"]["BLOCK"] == 128 and launch["options"]["num_warps"] == 4
    launch = {l["kernel"]: l for l in chosen["launches"]}["k"]
    assert launch["constexprs"]["BLOCK"] == 512 and launch["options"]["num_warps"] == 8


def test_kernel_wrappers_list_configs_and_heuristic_values(tmp_path):
    reply = call("capture", {"task": write_autotuned_task(tmp_path)})
    kernels = {k["name"]: k for k in reply["task"]["kernels"]}
    tuner = kernels["k"]["wrappers"][0]
    assert [c["kwargs"] for c in tuner["configs"]] == [{"BLOCK": 128}, {"BLOCK": 512}]
    assert tuner["key"] == ["n"]
    assert kernels["h"]["wrappers"][0]["values"] == ["EVEN"]


def test_capture_follows_warmup_to_the_launch_it_sizes():
    # Triton's tutorial softmax compiles its kernel with .warmup() to read n_regs and the shared
    # memory, sizes a persistent grid from them (132 SMs x the occupancy), then launches the
    # compiled kernel: the capture compiles it on the CPU and records that launch.
    task = os.path.join(ROOT, "bench", "corpus", "triton_tutorials", "fused_softmax.py")
    reply = call("capture", {"task": task})
    assert reply["ok"], reply.get("error")
    [launch] = reply["launches"]
    assert launch["kernel"] == "softmax_kernel"
    programs = launch["grid"][0]
    assert programs > 0 and programs % 132 == 0, launch["grid"]
    # The tutorial passes num_stages both as a constexpr and as the warmup's option: the launch
    # keeps both, as the kernel the tutorial launches was compiled.
    assert launch["constexprs"]["num_stages"] == 4 and launch["options"]["num_stages"] == 4
    assert launch["options"]["num_warps"] == 8
