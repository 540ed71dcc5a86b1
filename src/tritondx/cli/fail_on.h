// `tritondx diagnose --fail-on L2 --fail-on l0-tiny-block`: the findings that make the command
// fail (exit 1), for CI. A level (L0..L3) selects every finding at that level, a rule id that
// rule's findings.
#pragma once

#include <string>
#include <vector>

#include "tritondx/ladder/ladder.h"

namespace tdx::cli {

// The values --fail-on accepts: the four levels and every registered rule id.
std::vector<std::string> fail_on_choices(const RuleRegistry& registry);

std::vector<const Finding*> findings_failing_on(const Diagnosis& d, const std::vector<std::string>& selectors);

}  // namespace tdx::cli
