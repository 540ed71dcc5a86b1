// TritonGPU layout encodings (#ttg.blocked, #ttg.nvidia_mma, shared, dot operand, slice)
// parsed from their MLIR attribute text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"

namespace tdx {

enum class LayoutKind {
  Blocked,        // #ttg.blocked
  NvidiaMma,      // #ttg.nvidia_mma (versionMajor 2 = mma.sync, 3 = wgmma)
  DotOperand,     // #ttg.dot_op
  Slice,          // #ttg.slice
  SwizzledShared, // #ttg.swizzled_shared
  NvmmaShared,    // #ttg.nvmma_shared
  Linear,         // #ttg.linear
  Other,          // anything else, kept as text
};

std::string_view layout_kind_name(LayoutKind kind);

struct Layout {
  LayoutKind kind = LayoutKind::Other;
  std::string alias;  // "#blocked1" when defined by an alias, else empty
  std::string text;   // the attribute text, e.g. "#ttg.blocked<{sizePerThread = [4], ...}>"

  // #ttg.blocked
  std::vector<int64_t> size_per_thread, threads_per_warp, warps_per_cta, order;
  // #ttg.nvidia_mma
  int version_major = 0, version_minor = 0;
  std::vector<int64_t> instr_shape;  // also uses warps_per_cta
  // #ttg.dot_op (op_idx 0 = A, 1 = B) and #ttg.slice (dim) refer to a parent layout
  int op_idx = -1;
  int k_width = 0;
  int slice_dim = -1;
  std::string parent;  // parent layout alias or text
  // shared layouts
  int vec = 0, per_phase = 0, max_phase = 0;
  int swizzling_byte_width = 0, element_bit_width = 0;
  bool transposed = false;
  // CTA layout (all kinds that print it). Triton 3.6 prints `CGALayout = [[0, 1]]` (one basis
  // per bit of the CTA id; a zero basis = broadcast): kept in cga_layout, and cta_split_num is
  // derived from it. Older `CTAsPerCGA`/`CTASplitNum`/`CTAOrder` fill the vectors directly.
  std::vector<int64_t> ctas_per_cga, cta_split_num, cta_order;
  std::vector<std::vector<int64_t>> cga_layout;
};

// Parses one layout attribute's text (with or without the leading '#alias = ').
Expected<Layout> parse_layout(std::string_view text);

}  // namespace tdx
