// Element strides of TTGIR index and pointer tensors: value[i0, i1, ...] = base + sum_d s_d * i_d,
// with s_d evaluated from constants and the launch's argument values. It answers "which
// dimension of this pointer tensor is contiguous in memory" and "how far apart in memory are
// the elements a warp touches" for the access-pattern rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tritondx/ladder/l2_attribution/ir_view.h"

namespace tdx::l2 {

inline constexpr int64_t kUnknownStride = INT64_MIN;

struct Strides {
  std::vector<int64_t> per_dim;  // kUnknownStride where not affine or not evaluable
  bool known(size_t d) const { return d < per_dim.size() && per_dim[d] != kUnknownStride; }
  bool all_known() const;
  bool uniform() const;  // every stride known and 0
};

class StrideAnalysis {
 public:
  explicit StrideAnalysis(const IrView& ir);
  // Strides of a tensor value in elements (pointer tensors: in elements of the pointee).
  Strides of(const std::string& value);
  // The kernel argument a pointer tensor derives from ("%x_ptr"), empty if not found.
  std::string root_pointer(const std::string& value) const;

 private:
  Strides compute(const std::string& value, int depth);
  std::optional<int64_t> uniform_value(const std::string& value, int depth);
  const IrView& ir_;
  std::unordered_map<std::string, std::string> iter_init_;  // scf.for iter_arg -> init value
  std::unordered_map<std::string, Strides> cache_;
};

// The lanes of warp 0 for the first register of a blocked layout: per lane, its coordinate.
std::vector<std::vector<int64_t>> warp_lane_coordinates(const Layout& blocked, const std::vector<int64_t>& shape);

// Global-memory sectors (32 bytes) that one warp touches for the first register group of a
// blocked layout (each lane's sizePerThread elements along the fastest dimension), and the
// bytes it uses.
struct SectorUse {
  int sectors = 0;
  int64_t useful_bytes = 0;
  double efficiency() const { return sectors > 0 ? static_cast<double>(useful_bytes) / (32.0 * sectors) : 1.0; }
};
SectorUse warp_sectors(const Layout& blocked, const std::vector<int64_t>& shape, const Strides& strides,
                       int elem_bytes);

}  // namespace tdx::l2
