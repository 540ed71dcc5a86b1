#include "tritondx/inspect/line_view.h"

#include "tritondx/analysis/kernel_summary.h"
#include "tritondx/ir/instruction_class.h"

namespace tdx {

std::vector<LineView> build_line_views(const Program& program, const SourceMap& map,
                                       const std::vector<std::string>& source_lines) {
  std::vector<LineView> views;
  for (int line : map.lines()) {
    LineView v;
    v.line = line;
    if (line >= 1 && line <= static_cast<int>(source_lines.size())) v.source = source_lines[static_cast<size_t>(line - 1)];
    if (program.ttir)
      for (int i : map.at(Stage::Ttir, line)) v.ttir_ops.push_back(program.ttir->ops[static_cast<size_t>(i)].name);
    if (program.ttgir) {
      for (int i : map.at(Stage::Ttgir, line)) {
        const auto& op = program.ttgir->ops[static_cast<size_t>(i)];
        std::string entry = op.name;
        if (!op.result_types.empty() && !op.result_types.front().encoding.empty())
          entry += " : " + describe_layout(*program.ttgir, op.result_types.front().encoding);
        v.ttgir_ops.push_back(std::move(entry));
      }
    }
    if (program.llir)
      for (int i : map.at(Stage::Llir, line)) ++v.llir_opcodes[program.llir->instructions[static_cast<size_t>(i)].opcode];
    if (program.ptx) {
      for (int i : map.at(Stage::Ptx, line)) {
        ++v.ptx_classes[std::string(instruction_class_name(classify(program.ptx->instructions[static_cast<size_t>(i)])))];
        ++v.ptx_total;
      }
    }
    if (program.sass) {
      for (int i : map.at(Stage::Sass, line)) {
        ++v.sass_classes[std::string(instruction_class_name(classify(program.sass->instructions[static_cast<size_t>(i)])))];
        ++v.sass_total;
      }
    }
    views.push_back(std::move(v));
  }
  return views;
}

void to_json(nlohmann::json& j, const LineView& v) {
  j = {{"line", v.line},           {"source", v.source},           {"ttir", v.ttir_ops},
       {"ttgir", v.ttgir_ops},     {"llir", v.llir_opcodes},       {"ptx", v.ptx_classes},
       {"sass", v.sass_classes},   {"ptx_total", v.ptx_total},     {"sass_total", v.sass_total}};
}

}  // namespace tdx
