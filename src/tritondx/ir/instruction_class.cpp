#include "tritondx/ir/instruction_class.h"

#include <array>

namespace tdx {

std::string_view instruction_class_name(InstructionClass c) {
  static constexpr std::array<std::string_view, kInstructionClassCount> kNames{
      "global-load", "global-store", "shared-load", "shared-store", "local-memory", "async-copy", "tma",
      "wgmma",       "mma-sync",     "atomic",      "barrier",      "float-math",   "integer-math",
      "special-function", "conversion", "shuffle",  "control",      "move",         "other"};
  return kNames[static_cast<size_t>(c)];
}

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool float_type(const PtxInstruction& i) {
  for (const auto& m : i.modifiers)
    if (m == "f32" || m == "f16" || m == "f64" || m == "bf16" || m == "f16x2" || m == "bf16x2") return true;
  return false;
}

}  // namespace

InstructionClass classify(const PtxInstruction& i) {
  const std::string_view op = i.opcode;
  const auto& space = i.state_space;
  if (op == "cp") {
    if (i.has_modifier("bulk") && i.has_modifier("tensor")) return InstructionClass::Tma;
    if (i.has_modifier("commit_group") || i.has_modifier("wait_group") || i.has_modifier("wait_all"))
      return InstructionClass::Barrier;
    if (i.has_modifier("async")) return InstructionClass::AsyncCopy;
    return InstructionClass::Other;
  }
  if (op == "ld" || op == "ldu" || op == "st") {
    bool load = op != "st";
    if (space == "global") return load ? InstructionClass::GlobalLoad : InstructionClass::GlobalStore;
    if (space == "shared" || i.has_modifier("shared::cta") || i.has_modifier("shared::cluster"))
      return load ? InstructionClass::SharedLoad : InstructionClass::SharedStore;
    if (space == "local") return InstructionClass::LocalMemory;
    return InstructionClass::Move;  // param / const
  }
  if (op == "ldmatrix") return InstructionClass::SharedLoad;
  if (op == "stmatrix") return InstructionClass::SharedStore;
  if (op == "wgmma") {
    if (i.has_modifier("mma_async")) return InstructionClass::Wgmma;
    return InstructionClass::Barrier;  // fence / commit_group / wait_group
  }
  if (op == "mma") return InstructionClass::MmaSync;
  if (op == "atom" || op == "red") return InstructionClass::Atomic;
  if (op == "bar" || op == "barrier" || op == "mbarrier" || op == "fence" || op == "membar")
    return InstructionClass::Barrier;
  if (op == "ex2" || op == "lg2" || op == "rcp" || op == "rsqrt" || op == "sqrt" || op == "sin" || op == "cos" ||
      op == "tanh")
    return InstructionClass::SpecialFunction;
  if (op == "cvt" || op == "cvta") return InstructionClass::Conversion;
  if (op == "shfl") return InstructionClass::Shuffle;
  if (op == "bra" || op == "ret" || op == "exit" || op == "setp" || op == "selp" || op == "call")
    return InstructionClass::Control;
  if (op == "mov") return InstructionClass::Move;
  if (op == "fma" || op == "add" || op == "sub" || op == "mul" || op == "div" || op == "max" || op == "min" ||
      op == "neg" || op == "abs" || op == "mad") {
    return float_type(i) ? InstructionClass::FloatMath : InstructionClass::IntegerMath;
  }
  if (op == "and" || op == "or" || op == "xor" || op == "not" || op == "shl" || op == "shr" || op == "rem" ||
      op == "lop3" || op == "prmt" || op == "bfe" || op == "bfi" || op == "popc" || op == "clz")
    return InstructionClass::IntegerMath;
  return InstructionClass::Other;
}

InstructionClass classify(const SassInstruction& i) {
  const std::string_view op = i.opcode;
  if (op == "LDG" || op == "LD") return InstructionClass::GlobalLoad;
  if (op == "STG" || op == "ST") return InstructionClass::GlobalStore;
  if (op == "LDS" || op == "LDSM") return InstructionClass::SharedLoad;
  if (op == "STS" || op == "STSM") return InstructionClass::SharedStore;
  if (op == "LDL" || op == "STL") return InstructionClass::LocalMemory;
  if (op == "LDGSTS" || op == "LDGDEPBAR" || op == "DEPBAR") return InstructionClass::AsyncCopy;
  if (starts_with(op, "UTMA") || starts_with(op, "UBLKCP")) return InstructionClass::Tma;
  if (op == "HGMMA" || op == "QGMMA" || op == "IGMMA" || op == "BGMMA" || op == "WARPGROUP")
    return InstructionClass::Wgmma;
  if (op == "HMMA" || op == "IMMA" || op == "DMMA") return InstructionClass::MmaSync;
  if (starts_with(op, "ATOM") || starts_with(op, "RED")) return InstructionClass::Atomic;
  if (op == "BAR" || op == "SYNCS" || op == "MEMBAR" || op == "FENCE" || op == "WARPSYNC" || op == "ERRBAR")
    return InstructionClass::Barrier;
  if (op == "MUFU") return InstructionClass::SpecialFunction;
  if (op == "F2F" || op == "F2I" || op == "I2F" || op == "F2FP" || op == "I2I" || op == "FRND" || op == "I2FP")
    return InstructionClass::Conversion;
  if (op == "SHFL") return InstructionClass::Shuffle;
  if (op == "BRA" || op == "EXIT" || op == "RET" || op == "CALL" || op == "BSSY" || op == "BSYNC" ||
      op == "ISETP" || op == "FSETP" || op == "PLOP3" || op == "SEL" || op == "FSEL" || op == "NOP" ||
      op == "YIELD")
    return InstructionClass::Control;
  if (op == "MOV" || op == "LDC" || op == "ULDC" || op == "S2R" || op == "S2UR" || op == "CS2R" || op == "UMOV" ||
      op == "R2UR")
    return InstructionClass::Move;
  if (op == "FFMA" || op == "FADD" || op == "FMUL" || op == "FMNMX" || op == "HFMA2" || op == "HADD2" ||
      op == "HMUL2" || op == "DFMA" || op == "DADD" || op == "DMUL" || op == "FCHK")
    return InstructionClass::FloatMath;
  if (starts_with(op, "I") || starts_with(op, "U") || op == "LOP3" || op == "SHF" || op == "LEA" || op == "PRMT" ||
      op == "VIADD" || op == "POPC" || op == "FLO" || op == "BMSK" || op == "SGXT")
    return InstructionClass::IntegerMath;
  return InstructionClass::Other;
}

}  // namespace tdx
