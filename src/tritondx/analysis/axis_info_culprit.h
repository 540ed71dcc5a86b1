// The culprit search of the vectorization analysis (axis_info_vectorize.cpp): on the def chain
// of a memory op's pointer or mask, the op where the property that limits its vector width
// (contiguity, divisibility, constancy) was lost, and the kernel argument at the root. Internal
// to analysis/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tritondx/analysis/axis_info_internal.h"

namespace tdx::axis {

enum class Prop { Contig, Div, Const };

std::string_view prop_name(Prop p);
int64_t prop_of(const AxisInfo& a, Prop p, int d);
std::string num(int64_t v);  // "2^62" for kMaxDivisor

struct Trace {
  int op = -1;            // the op where the property was lost (-1: an argument, or none)
  std::string value;      // its result
  Prop prop = Prop::Contig;
  std::string rule;       // why that op loses it
  std::string root_arg;   // kernel argument at the root (no '%')
  std::string root_note;  // why the root is weak
};

class CulpritTracer {
 public:
  explicit CulpritTracer(const AxisInfoAnalysis& a);
  ~CulpritTracer();
  // Where value `v` lost property `p` along dimension `d`, needed at least `need`; an empty
  // Trace (op -1, no root) when it has it.
  Trace trace(int v, Prop p, int d, int64_t need);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tdx::axis
