// Parses TritonGPU layout attributes (#ttg.blocked<{...}>, #ttg.nvidia_mma<{...}>, ...).
#include "tritondx/ir/layout.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "tritondx/ir/mlir_syntax.h"

namespace tdx {

namespace {

using namespace mlir_syntax;

constexpr std::array<std::pair<LayoutKind, std::string_view>, 8> kKindNames{{
    {LayoutKind::Blocked, "blocked"},
    {LayoutKind::NvidiaMma, "nvidia_mma"},
    {LayoutKind::DotOperand, "dot_op"},
    {LayoutKind::Slice, "slice"},
    {LayoutKind::SwizzledShared, "swizzled_shared"},
    {LayoutKind::NvmmaShared, "nvmma_shared"},
    {LayoutKind::Linear, "linear"},
    {LayoutKind::Other, "other"},
}};

LayoutKind kind_from_mnemonic(std::string_view mnemonic) {
  for (const auto& [kind, name] : kKindNames)
    if (name == mnemonic && kind != LayoutKind::Other) return kind;
  return LayoutKind::Other;
}

// Fills one dictionary entry of a layout; returns an error message or empty.
std::string apply_entry(Layout& l, std::string_view key, std::string_view value) {
  auto ints = [&](std::vector<int64_t>& out) -> std::string {
    auto v = parse_int_list(value);
    if (!v) return fmt::format("'{}' is not a list of integers: '{}'", key, value);
    out = std::move(*v);
    return {};
  };
  auto integer = [&](int& out) -> std::string {
    auto v = leading_int(value);
    if (!v) return fmt::format("'{}' is not an integer: '{}'", key, value);
    out = static_cast<int>(*v);
    return {};
  };
  if (key == "sizePerThread") return ints(l.size_per_thread);
  if (key == "threadsPerWarp") return ints(l.threads_per_warp);
  if (key == "warpsPerCTA") return ints(l.warps_per_cta);
  if (key == "order") return ints(l.order);
  if (key == "instrShape") return ints(l.instr_shape);
  if (key == "CTAsPerCGA") return ints(l.ctas_per_cga);
  if (key == "CTASplitNum") return ints(l.cta_split_num);
  if (key == "CTAOrder") return ints(l.cta_order);
  if (key == "versionMajor") return integer(l.version_major);
  if (key == "versionMinor") return integer(l.version_minor);
  if (key == "opIdx") return integer(l.op_idx);
  if (key == "kWidth") return integer(l.k_width);
  if (key == "dim") return l.kind == LayoutKind::Slice ? integer(l.slice_dim) : std::string{};
  if (key == "vec") return integer(l.vec);
  if (key == "perPhase") return integer(l.per_phase);
  if (key == "maxPhase") return integer(l.max_phase);
  if (key == "swizzlingByteWidth") return integer(l.swizzling_byte_width);
  if (key == "elementBitWidth") return integer(l.element_bit_width);
  if (key == "transposed") {
    l.transposed = value == "true";
    return {};
  }
  if (key == "parent") {
    l.parent = std::string(value);
    return {};
  }
  if (key == "CGALayout") {
    // Triton 3.6 prints the CTA layout as bases: one vector per bit of the CTA id.
    std::string_view inside = trim(value);
    if (inside.size() < 2 || inside.front() != '[' || inside.back() != ']')
      return fmt::format("'CGALayout' is not a list of lists: '{}'", value);
    std::string err;
    for_each_top(inside.substr(1, inside.size() - 2), ',', [&](std::string_view basis) {
      auto v = parse_int_list(basis);
      if (!v) err = fmt::format("bad CGALayout basis '{}'", basis);
      else l.cga_layout.push_back(std::move(*v));
    });
    return err;
  }
  return {};  // other keys (register/lane/warp bases of #ttg.linear, fp4Padded, ...) stay in text
}

// Derives CTASplitNum from CGALayout bases: each non-zero basis doubles one dimension.
void derive_cta_split(Layout& l) {
  if (l.cga_layout.empty() || !l.cta_split_num.empty()) return;
  size_t rank = l.cga_layout.front().size();
  l.cta_split_num.assign(rank, 1);
  for (const auto& basis : l.cga_layout)
    for (size_t d = 0; d < basis.size() && d < rank; ++d)
      if (basis[d] != 0) {
        l.cta_split_num[d] *= 2;
        break;
      }
}

std::string check_required(const Layout& l) {
  auto need = [](bool ok, std::string_view what) {
    return ok ? std::string{} : fmt::format("missing '{}'", what);
  };
  std::string err;
  switch (l.kind) {
    case LayoutKind::Blocked:
      if (err = need(!l.size_per_thread.empty(), "sizePerThread"); !err.empty()) return err;
      if (err = need(!l.threads_per_warp.empty(), "threadsPerWarp"); !err.empty()) return err;
      if (err = need(!l.warps_per_cta.empty(), "warpsPerCTA"); !err.empty()) return err;
      if (err = need(!l.order.empty(), "order"); !err.empty()) return err;
      if (l.size_per_thread.size() != l.threads_per_warp.size() ||
          l.size_per_thread.size() != l.warps_per_cta.size() ||
          l.size_per_thread.size() != l.order.size())
        return "sizePerThread, threadsPerWarp, warpsPerCTA and order differ in rank";
      return {};
    case LayoutKind::NvidiaMma: return need(l.version_major > 0, "versionMajor");
    case LayoutKind::DotOperand:
      if (err = need(l.op_idx >= 0, "opIdx"); !err.empty()) return err;
      return need(!l.parent.empty(), "parent");
    case LayoutKind::Slice:
      if (err = need(l.slice_dim >= 0, "dim"); !err.empty()) return err;
      return need(!l.parent.empty(), "parent");
    default: return {};
  }
}

}  // namespace

std::string_view layout_kind_name(LayoutKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "other";
}

Expected<Layout> parse_layout(std::string_view text) {
  std::string_view s = trim(text);
  Layout l;
  // "#blocked = #ttg.blocked<{...}>": keep the alias.
  if (size_t eq = find_top(s, " = "); eq != npos && !s.empty() && s[0] == '#') {
    l.alias = std::string(trim(s.substr(0, eq)));
    s = trim(s.substr(eq + 3));
  }
  if (s.empty() || s[0] != '#')
    return fail(Stage::Ttgir, fmt::format("layout attribute must start with '#': '{}'", s));
  l.text = std::string(s);

  size_t lt = s.find('<');
  std::string_view name = s.substr(1, lt == npos ? npos : lt - 1);  // "ttg.blocked"
  size_t dot = name.rfind('.');
  std::string_view mnemonic = dot == npos ? name : name.substr(dot + 1);
  if (dot == npos || mnemonic.empty())
    return fail(Stage::Ttgir, fmt::format("not a dialect attribute: '{}'", s));
  l.kind = kind_from_mnemonic(mnemonic);
  if (lt == npos) {
    if (l.kind != LayoutKind::Other)
      return fail(Stage::Ttgir, fmt::format("layout '{}' has no parameters", s));
    return l;
  }
  size_t gt = match_close(s, lt);
  if (gt == npos || gt + 1 != s.size())
    return fail(Stage::Ttgir, fmt::format("unbalanced '<' in layout '{}'", s));
  std::string_view params = trim(s.substr(lt + 1, gt - lt - 1));
  if (params.empty() || params.front() != '{') return l;  // not a dictionary: keep text only
  size_t close = match_close(params, 0);
  if (close == npos || close + 1 != params.size())
    return fail(Stage::Ttgir, fmt::format("unbalanced '{{' in layout '{}'", s));

  std::string err;
  for_each_dict_entry(params.substr(1, close - 1), [&](std::string_view key, std::string_view value) {
    if (err.empty()) err = apply_entry(l, key, value);
  });
  if (err.empty()) err = check_required(l);
  if (!err.empty()) return fail(Stage::Ttgir, fmt::format("layout {}: {}", l.text, err));
  derive_cta_split(l);
  return l;
}

}  // namespace tdx
