#include "tritondx/core/diagnostic.h"

#include <array>
#include <utility>

#include <nlohmann/json.hpp>

namespace tdx {

namespace {
constexpr std::array<std::pair<Stage, std::string_view>, 16> kStageNames{{
    {Stage::Source, "source"},
    {Stage::Task, "task"},
    {Stage::Bridge, "bridge"},
    {Stage::Ttir, "ttir"},
    {Stage::Ttgir, "ttgir"},
    {Stage::Llir, "llir"},
    {Stage::Ptx, "ptx"},
    {Stage::Sass, "sass"},
    {Stage::PassDump, "pass-dump"},
    {Stage::Remark, "remark"},
    {Stage::WhatIf, "what-if"},
    {Stage::Store, "store"},
    {Stage::Profile, "profile"},
    {Stage::Rewrite, "rewrite"},
    {Stage::Llm, "llm"},
    {Stage::Verify, "verify"},
}};
}  // namespace

std::string_view stage_name(Stage stage) {
  for (const auto& [s, name] : kStageNames)
    if (s == stage) return name;
  return "unknown";
}

Stage stage_from_name(std::string_view name) {
  for (const auto& [s, n] : kStageNames)
    if (n == name) return s;
  return Stage::Source;
}

std::string Diagnostic::to_string() const {
  std::string where;
  if (!file.empty()) where = file;
  if (line > 0) where += fmt::format("{}{}", where.empty() ? "line " : ":", line);
  if (line > 0 && col > 0) where += fmt::format(":{}", col);
  if (!where.empty()) where += ": ";
  return fmt::format("{}{}: {}", where, stage_name(stage), message);
}

void to_json(nlohmann::json& j, const Diagnostic& d) {
  j = nlohmann::json{{"stage", stage_name(d.stage)}, {"file", d.file}, {"line", d.line},
                     {"col", d.col}, {"message", d.message}, {"text", d.to_string()}};
}

}  // namespace tdx
