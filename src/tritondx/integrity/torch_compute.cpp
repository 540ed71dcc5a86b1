// integrity-torch-compute: host code that computes with PyTorch (torch.* functions beyond
// allocation, views and metadata; tensor compute methods; the @ operator), unless the
// original's host code already did the same (a function and the tensor method of the same name
// count as one). Allowed torch names are a list of prefixes.
#include <set>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

// torch names host code may use freely: allocation, views, metadata, dtypes, device queries,
// and the classes a launch is wrapped in (autograd.Function, nn.Module: their bodies are
// host code, checked like any other).
constexpr std::string_view kAllowedTorch[] = {
    "torch.Size", "torch.Tensor", "torch.arange", "torch.as_strided", "torch.autograd.Function",
    "torch.autograd.function.Function", "torch.autograd.function.FunctionCtx",
    "torch.autograd.function.once_differentiable", "torch.bfloat16", "torch.bool",
    "torch.broadcast_shapes", "torch.broadcast_to", "torch.cdouble", "torch.cfloat", "torch.channels_last",
    "torch.chunk", "torch.complex", "torch.contiguous_format", "torch.cuda.current_device",
    "torch.cuda.current_stream", "torch.cuda.default_stream", "torch.cuda.device", "torch.cuda.device_count",
    "torch.cuda.get_device_capability", "torch.cuda.get_device_name", "torch.cuda.get_device_properties",
    "torch.cuda.is_available", "torch.cuda.set_device", "torch.cuda.synchronize", "torch.device", "torch.double",
    "torch.dtype", "torch.empty", "torch.empty_like", "torch.empty_strided", "torch.finfo", "torch.flatten",
    "torch.float", "torch.full", "torch.full_like", "torch.get_default_dtype", "torch.half", "torch.iinfo",
    "torch.inference_mode", "torch.int", "torch.is_floating_point", "torch.is_tensor", "torch.library.wrap_triton",
    "torch.long", "torch.movedim", "torch.narrow", "torch.nn.Module", "torch.no_grad", "torch.numel", "torch.ones",
    "torch.ones_like",
    "torch.permute", "torch.preserve_format", "torch.promote_types", "torch.reshape", "torch.result_type",
    "torch.short", "torch.split", "torch.squeeze", "torch.strided", "torch.t", "torch.tensor", "torch.transpose",
    "torch.uint", "torch.unbind", "torch.unsqueeze", "torch.version", "torch.__version__", "torch.zeros",
    "torch.zeros_like",
};

// Handled by other checks (streams/graphs, native extensions, timers).
constexpr std::string_view kElsewhere[] = {
    "torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.graph", "torch.cuda.CUDAGraph",
    "torch.cuda.make_graphed_callables", "torch.cuda.graphs", "torch.cuda.Event", "torch.cuda.ExternalStream",
    "torch.utils.cpp_extension", "torch._inductor", "torch.Stream", "torch.cuda.streams",
};

// Tensor methods that compute (x.softmax(-1), a.matmul(b), ...).
constexpr std::string_view kComputeMethods[] = {
    "abs", "addcdiv", "addcmul", "addmm", "amax", "amin", "argmax", "argmin", "baddbmm", "bmm", "clamp",
    "conv1d", "conv2d", "conv3d", "cos", "cumprod", "cumsum", "div", "div_", "einsum", "exp", "exp2",
    "gelu", "layer_norm", "lerp", "linear", "log", "log_softmax", "logsumexp", "matmul", "mean", "mm",
    "mul", "mul_", "neg", "norm", "pow", "prod", "reciprocal", "relu", "rsqrt", "sigmoid", "silu", "sin",
    "softmax", "sqrt", "std", "sub", "sub_", "sum", "tanh", "topk", "var",
};

bool has_prefix_in(std::string_view name, std::span<const std::string_view> list) {
  for (auto p : list)
    if (name == p || (name.starts_with(p) && name.size() > p.size() && name[p.size()] == '.')) return true;
  return false;
}

bool is_dtype_name(std::string_view name) {
  // torch.float16, torch.int8, torch.float8_e4m3fn, torch.uint8, torch.complex64, ...
  for (std::string_view base : {"torch.float", "torch.int", "torch.uint", "torch.complex", "torch.bfloat"})
    if (name.starts_with(base) && name.size() > base.size() && std::isdigit(static_cast<unsigned char>(name[base.size()])))
      return true;
  return false;
}

struct TorchUse {
  std::string name;  // "torch.matmul", ".softmax" (a method), "@"
  int line;
};

std::vector<TorchUse> torch_uses(const ModuleFacts& facts) {
  std::vector<TorchUse> out;
  facts.walk_host([&](const PyNode& n) {
    if (n.type == "BinOp" && n.fields.value("op", "") == "MatMult") out.push_back({"@", n.line});
    if (n.type == "Call") {
      const PyNode* func = n.child("func");
      if (func && func->type == "Attribute") {
        const PyNode* value = func->child("value");
        std::string base = value ? dotted_name(*value) : std::string();
        std::string attr = func->str_field("attr");
        bool on_module = !base.empty() && facts.is_import_alias(base.substr(0, base.find('.')));
        if (!on_module && std::ranges::find(kComputeMethods, attr) != std::end(kComputeMethods))
          out.push_back({"." + attr, n.line});
      }
    }
    if (!ModuleFacts::is_chain_top(n) || n.fields.value("ctx", "Load") != "Load") return;
    std::string name = facts.resolve(n);
    if (name.starts_with("torch.")) out.push_back({name, n.line});
  });
  return out;
}

// The other spelling of the same computation: `torch.sum` for the method `.sum` and the other way
// round (`torch.sum(loss)` in the original allows `partials.sum()`); "" for names with none.
std::string same_computation(const std::string& name) {
  if (name.starts_with(".")) return "torch" + name;
  std::string_view rest = std::string_view(name).substr(std::min(name.size(), std::string_view("torch.").size()));
  if (name.starts_with("torch.") && std::ranges::find(kComputeMethods, rest) != std::end(kComputeMethods))
    return "." + std::string(rest);
  return "";
}

}  // namespace

void check_torch_compute(const CheckContext& ctx, Sink& sink) {
  std::set<std::string> original_uses;
  for (const auto& u : torch_uses(ctx.original)) {
    original_uses.insert(u.name);
    if (std::string other = same_computation(u.name); !other.empty()) original_uses.insert(other);
  }
  for (const auto& u : torch_uses(ctx.candidate)) {
    if (original_uses.contains(u.name)) continue;
    if (u.name == "@") {
      sink.report("integrity-torch-compute", u.line, "host code multiplies matrices with the @ operator (PyTorch)");
    } else if (u.name.starts_with(".")) {
      sink.report("integrity-torch-compute", u.line,
                  fmt::format("host code computes with the tensor method `{}` (PyTorch), which the original "
                              "launch does not use",
                              u.name));
    } else if (!has_prefix_in(u.name, kAllowedTorch) && !has_prefix_in(u.name, kElsewhere) &&
               !is_dtype_name(u.name)) {
      sink.report("integrity-torch-compute", u.line,
                  fmt::format("host code uses `{}`: only allocation, view and metadata torch calls (and those the "
                              "original launch uses) are allowed",
                              u.name));
    }
  }
}

}  // namespace tdx::integrity
