// What every L2 rule shares: level L2, needs the parsed program, and an IrView over it.
#pragma once

#include <fmt/format.h>

#include "tritondx/ladder/context.h"
#include "tritondx/ladder/l2_attribution/ir_view.h"
#include "tritondx/ladder/l2_attribution/rules.h"
#include "tritondx/ladder/rule.h"

namespace tdx::l2 {

class L2Rule : public Rule {
 public:
  Level level() const override { return Level::L2; }
  RuleNeeds needs() const override { return RuleNeeds{.program = true}; }
};

}  // namespace tdx::l2
