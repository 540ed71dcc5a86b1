// `tritondx axis-info FILE.ttir|.ttgir`: the AxisInfo lattice of every value (like Triton's
// test-print-alignment pass) and the vector width every global memory op gets, with what
// limits it and the op where the limiting property was lost.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/analysis/axis_info_internal.h"
#include "tritondx/cli/commands.h"
#include "tritondx/cli/failure.h"
#include "tritondx/ir/program.h"

namespace tdx::cli {

namespace {

Stage stage_for(const std::string& path, std::string_view text) {
  if (path.ends_with(".ttgir")) return Stage::Ttgir;
  if (path.ends_with(".ttir")) return Stage::Ttir;
  return text.find("#ttg.") != std::string_view::npos || text.find("\"ttg.num-warps\"") != std::string_view::npos
             ? Stage::Ttgir
             : Stage::Ttir;
}

nlohmann::json dims_json(const std::vector<int64_t>& v) { return nlohmann::json(v); }

int source_line(const MlirOp& op) { return op.loc.known() ? op.loc.line : op.call_site.line; }

std::string mem_to_text(const AxisInfoAnalysis& a, const MemoryVectorization& mv) {
  const MlirModule& m = a.module();
  const MlirOp& op = m.ops[static_cast<size_t>(mv.op_index)];
  std::string s = fmt::format("{} at IR line {} (source line {}): `{}`\n", mv.kind, op.line, source_line(op),
                              axis::op_summary(op));
  s += fmt::format("  vec = {} x {} bits = {} bits (max {} = {} bits); limited by: {}\n", mv.predicted_vec,
                   mv.element_bits, mv.predicted_vec * mv.element_bits, mv.max_vec, mv.max_vec * mv.element_bits,
                   mv.limited_by);
  s += fmt::format("  pointer contiguity = {}, alignment = {} element(s), mask constancy = {}, layout vec = {}, dim = {}\n",
                   mv.contiguity, mv.divisibility, mv.mask_constancy == 0 ? std::string("(no mask)") : std::to_string(mv.mask_constancy),
                   mv.layout_vec == 0 ? std::string("?") : std::to_string(mv.layout_vec), mv.order0);
  if (mv.culprit_op >= 0 && mv.limited_by != "none") {
    const MlirOp& c = m.ops[static_cast<size_t>(mv.culprit_op)];
    s += fmt::format("  culprit: `{}` at IR line {} (source line {}){}\n", axis::op_summary(c), c.line, source_line(c),
                     mv.root_argument.empty() ? std::string() : fmt::format("; root: argument {}", mv.root_argument));
  }
  s += "  " + mv.explanation + "\n";
  return s;
}

nlohmann::json mem_to_json(const AxisInfoAnalysis& a, const MemoryVectorization& mv) {
  const MlirModule& m = a.module();
  const MlirOp& op = m.ops[static_cast<size_t>(mv.op_index)];
  nlohmann::json j = {{"kind", mv.kind},
                      {"op", axis::op_summary(op)},
                      {"ir_line", op.line},
                      {"source_line", source_line(op)},
                      {"element_bits", mv.element_bits},
                      {"predicted_vec", mv.predicted_vec},
                      {"predicted_bits", mv.predicted_vec * mv.element_bits},
                      {"max_vec", mv.max_vec},
                      {"contiguity", mv.contiguity},
                      {"divisibility", mv.divisibility},
                      {"mask_constancy", mv.mask_constancy},
                      {"layout_vec", mv.layout_vec},
                      {"order0", mv.order0},
                      {"limited_by", mv.limited_by},
                      {"explanation", mv.explanation}};
  if (mv.culprit_op >= 0 && mv.limited_by != "none") {
    const MlirOp& c = m.ops[static_cast<size_t>(mv.culprit_op)];
    j["culprit"] = {{"op", axis::op_summary(c)},
                    {"ir_line", c.line},
                    {"source_line", source_line(c)},
                    {"value", mv.culprit_value},
                    {"property", mv.property},
                    {"root_argument", mv.root_argument},
                    {"root_note", mv.root_note}};
  }
  return j;
}

}  // namespace

Runner add_axis_info_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "axis-info", "Replay Triton's AxisInfo analysis on a TTIR/TTGIR file: per-value contiguity, divisibility, "
                   "constancy, and the vector width of every global load/store");
  cmd->add_option("file", *path, "A .ttir or .ttgir file")->required();
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-o,--output", *output, "Write the report here instead of stdout");
  return [path, format, output] {
    auto text = read_file(*path, Stage::Ttir);
    if (!text) {
      std::cerr << "tritondx axis-info: " << text.error().to_string() << "\n";
      return 1;
    }
    const Stage stage = stage_for(*path, *text);
    auto module = parse_mlir(*text, stage);
    if (!module) {
      Diagnostic d = module.error();
      if (d.file.empty()) d.file = *path;
      std::cerr << "tritondx axis-info: " << d.to_string() << "\n";
      return 1;
    }
    AxisInfoAnalysis a = AxisInfoAnalysis::run(*module);
    std::string out;
    if (*format == "json") {
      nlohmann::json j = {{"file", *path}, {"stage", std::string(stage_name(stage))}};
      nlohmann::json values = nlohmann::json::array();
      for (const AxisInfoAnalysis::Definition& d : a.definitions()) {
        const AxisInfo& info = d.info;
        nlohmann::json e = {{"value", d.name},
                            {"contiguity", dims_json(info.contiguity)},
                            {"divisibility", dims_json(info.divisibility)},
                            {"constancy", dims_json(info.constancy)},
                            {"constant_value", info.constant_value ? nlohmann::json(*info.constant_value) : nlohmann::json()}};
        int owner = d.op >= 0 ? d.op : d.region_owner;
        if (owner >= 0) e["ir_line"] = module->ops[static_cast<size_t>(owner)].line;
        values.push_back(std::move(e));
      }
      j["values"] = std::move(values);
      nlohmann::json mem = nlohmann::json::array();
      for (const MemoryVectorization& mv : a.memory_ops()) mem.push_back(mem_to_json(a, mv));
      j["memory_ops"] = std::move(mem);
      out = j.dump(2) + "\n";
    } else {
      out = fmt::format("== axis info: {} ({}, {} values)\n", *path, stage_name(stage), a.definitions().size());
      out += a.print();
      out += fmt::format("\n== memory ops ({})\n", a.memory_ops().size());
      for (const MemoryVectorization& mv : a.memory_ops()) out += mem_to_text(a, mv);
    }
    return write_output(*output, out) ? 0 : 1;
  };
}

}  // namespace tdx::cli
