// Program-id reads as kernels write them: `tl.program_id(k)`, `tl.program_id(axis=k)`, a helper
// called `program_id` (FlagGems' `tle.program_id(axis=0)`, which returns the id as int64), any of
// those with `.to(...)`, and a local name bound to one of them. Shared by the rules and recipes
// that reason about which axis of the grid an index follows.
#pragma once

#include "tritondx/source/kernel_view.h"

namespace tdx::l0 {

struct ProgramIdRead {
  int axis = -1;         // -1: not a program-id read
  bool widened = false;  // not tl.program_id's own int32: a helper or a .to(...)
};

// The read `expr` is (through one local name), or axis -1.
ProgramIdRead program_id_read(const KernelView& view, const PyNode& expr);

// Is `callee` a helper called `program_id` around tl.program_id (FlagGems' `tle.program_id`),
// not tl.program_id itself?
bool is_program_id_helper(const std::string& callee);

}  // namespace tdx::l0
