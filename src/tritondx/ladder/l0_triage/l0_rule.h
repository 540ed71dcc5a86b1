// What every L0 rule shares: level L0, needs only the AST and the captured launch.
#pragma once

#include <fmt/format.h>

#include "tritondx/ladder/context.h"
#include "tritondx/source/block_index.h"
#include "tritondx/source/kernel_view.h"
#include "tritondx/ladder/l0_triage/rules.h"
#include "tritondx/ladder/rule.h"

namespace tdx::l0 {

class L0Rule : public Rule {
 public:
  Level level() const override { return Level::L0; }
  RuleNeeds needs() const override { return RuleNeeds{.ast = true}; }
};

// A finding about `line` of the task's source.
inline Finding finding_at(const KernelView& view, int line) {
  Finding f;
  f.loc = SourceLoc{view.ctx().task ? view.ctx().task->path : std::string(), line, 0};
  return f;
}

// True when the context has what every L0 rule reads.
inline bool has_l0_inputs(const KernelContext& ctx) { return ctx.function && ctx.launch && ctx.task; }

}  // namespace tdx::l0
