// The rule interface (clang-tidy's shape): one rule, one file, one id, one description.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tritondx/ladder/finding.h"

namespace tdx {

struct KernelContext;

// What a rule reads; the ladder skips a rule whose inputs are missing and says so.
struct RuleNeeds {
  bool ast = false;         // the task's Python AST + captured launch (L0)
  bool program = false;     // parsed stages of the compiled kernel (L2/L3)
  bool pass_dumps = false;  // per-pass IR dumps (L3)
  bool what_if = false;     // may run what-if compiles (L3)
  bool measurement = false; // GPU timing and roofline (L1)
  bool profile = false;     // Nsight Compute metrics and hot lines (L1)
};

// Collects the findings of one rule; stamps the rule's id, level and the kernel name.
class FindingSink {
 public:
  FindingSink(std::string rule_id, Level level, std::string kernel)
      : rule_id_(std::move(rule_id)), level_(level), kernel_(std::move(kernel)) {}
  void report(Finding f) {
    f.rule_id = rule_id_;
    f.level = level_;
    f.kernel = kernel_;
    findings_.push_back(std::move(f));
  }
  std::vector<Finding>& findings() { return findings_; }

 private:
  std::string rule_id_;
  Level level_;
  std::string kernel_;
  std::vector<Finding> findings_;
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string_view id() const = 0;           // "l2-scalar-global-access"
  virtual Level level() const = 0;
  virtual std::string_view description() const = 0;  // one paragraph; opens its doc page
  virtual RuleNeeds needs() const = 0;
  // Examines one kernel and reports findings. May throw: the ladder records a rule failure
  // and keeps every other finding.
  virtual void check(const KernelContext& ctx, FindingSink& sink) const = 0;
  // Options with their current values (defaults unless configured); complete, so
  // `tritondx rules --dump-config` shows every knob.
  virtual nlohmann::json options() const { return nlohmann::json::object(); }
  virtual void configure(const nlohmann::json& /*options*/) {}
};

class RuleRegistry {
 public:
  void add(std::unique_ptr<Rule> rule);
  const std::vector<std::unique_ptr<Rule>>& rules() const { return rules_; }
  const Rule* find(std::string_view id) const;
  std::vector<const Rule*> at_level(Level level) const;

 private:
  std::vector<std::unique_ptr<Rule>> rules_;
};

// Registers every built-in rule (each level's module.cpp keeps a sorted list).
void register_all_rules(RuleRegistry& registry);
void register_l0_rules(RuleRegistry& registry);
void register_l1_rules(RuleRegistry& registry);
void register_l2_rules(RuleRegistry& registry);
void register_l3_rules(RuleRegistry& registry);

}  // namespace tdx
