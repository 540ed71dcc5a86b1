// Coarse classes of PTX and SASS instructions, for per-line counts and summaries.
#pragma once

#include <string_view>

#include "tritondx/ir/ptx.h"
#include "tritondx/ir/sass.h"

namespace tdx {

enum class InstructionClass {
  GlobalLoad,
  GlobalStore,
  SharedLoad,
  SharedStore,
  LocalMemory,   // ld.local/st.local, LDL/STL: spills and local arrays
  AsyncCopy,     // cp.async (LDGSTS)
  Tma,           // cp.async.bulk.tensor (UTMALDG/UTMASTG)
  Wgmma,         // wgmma.mma_async (HGMMA/QGMMA/IGMMA)
  MmaSync,       // mma.sync (HMMA/IMMA)
  Atomic,
  Barrier,       // bar.sync, barrier, mbarrier, fences
  FloatMath,     // fma, add, mul, ... on floats
  IntegerMath,
  SpecialFunction,  // ex2, lg2, rcp, rsqrt, sin, cos (MUFU)
  Conversion,       // cvt, F2F, I2F, ...
  Shuffle,          // shfl (SHFL)
  Control,          // bra, ret, exit, setp/ISETP selects
  Move,             // mov, ld.param, constant loads
  Other,
};

inline constexpr int kInstructionClassCount = static_cast<int>(InstructionClass::Other) + 1;

std::string_view instruction_class_name(InstructionClass c);
InstructionClass classify(const PtxInstruction& i);
InstructionClass classify(const SassInstruction& i);

}  // namespace tdx
