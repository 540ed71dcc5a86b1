#include "tritondx/ir/program.h"

#include <fstream>
#include <sstream>

namespace tdx {

namespace {

template <class Module, class Parse>
void load_stage(const CompiledKernel& kernel, const char* key, Stage stage, std::optional<Module>& slot,
                std::vector<Diagnostic>& problems, Parse parse) {
  auto it = kernel.files.find(key);
  if (it == kernel.files.end()) return;
  auto text = read_file(it->second, stage);
  if (!text) {
    problems.push_back(text.error());
    return;
  }
  auto parsed = parse(*text);
  if (!parsed) {
    Diagnostic d = parsed.error();
    if (d.file.empty()) d.file = it->second;
    problems.push_back(std::move(d));
    return;
  }
  slot = std::move(*parsed);
}

int json_int(const nlohmann::json& j, const char* key, int fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_number()) ? it->get<int>() : fallback;
}

}  // namespace

Program load_program(const CompiledKernel& kernel) {
  Program p;
  p.kernel = kernel.name;
  p.launch = kernel.launch;
  p.metadata = kernel.metadata;
  load_stage(kernel, "ttir", Stage::Ttir, p.ttir, p.problems,
             [](std::string_view t) { return parse_mlir(t, Stage::Ttir); });
  load_stage(kernel, "ttgir", Stage::Ttgir, p.ttgir, p.problems,
             [](std::string_view t) { return parse_mlir(t, Stage::Ttgir); });
  load_stage(kernel, "llir", Stage::Llir, p.llir, p.problems, parse_llvm_ir);
  load_stage(kernel, "ptx", Stage::Ptx, p.ptx, p.problems, parse_ptx);
  load_stage(kernel, "sass", Stage::Sass, p.sass, p.problems, parse_sass);
  load_stage(kernel, "passes", Stage::PassDump, p.passes, p.problems, split_pass_dump);
  for (const auto& note : kernel.notes) p.problems.push_back(Diagnostic{Stage::Bridge, "", 0, 0, note});

  for (const auto& r : kernel.remarks) {
    Remark remark;
    remark.loc = SourceLoc{r.value("file", ""), r.value("line", 0), r.value("col", 0)};
    remark.severity = r.value("severity", "remark");
    remark.message = r.value("message", "");
    // A note is {"file", "line", "col", "message"}; older recordings give its text alone.
    for (const auto& n : r.value("notes", nlohmann::json::array()))
      remark.notes.push_back(n.is_string() ? RemarkNote{SourceLoc{}, n.get<std::string>()}
                                           : RemarkNote{SourceLoc{n.value("file", ""), n.value("line", 0), n.value("col", 0)},
                                                        n.value("message", "")});
    p.remarks.push_back(std::move(remark));
  }

  const auto& res = kernel.resources;
  auto& out = p.resources;
  out.registers = json_int(res, "registers", 0);
  out.spill_stores = json_int(res, "spill_stores", 0);
  out.spill_loads = json_int(res, "spill_loads", 0);
  out.stack_frame = json_int(res, "stack_frame", json_int(res, "stack", 0));
  out.local_bytes = json_int(res, "local", 0);
  out.shared_bytes = json_int(kernel.metadata, "shared", 0);
  out.num_warps = json_int(kernel.metadata, "num_warps", 4);
  out.num_stages = json_int(kernel.metadata, "num_stages", 3);
  out.num_ctas = json_int(kernel.metadata, "num_ctas", 1);
  return p;
}

}  // namespace tdx
