// integrity-reference-changed: reference, make_inputs, flops, bytes_moved, TOLERANCE and
// MUTATES are the yardstick; a candidate must keep them (and the module constants they read) as the
// original wrote them, and must not rebind them. integrity-reads-reference: host code of the
// candidate that touches `reference`.
#include <set>

#include "tritondx/integrity/check_context.h"

namespace tdx::integrity {

namespace {

// Top-level statements binding `name` (def, assignment, import-as, del), also inside
// module-level blocks (`if ...: def reference(...)`).
std::vector<const PyNode*> bindings(const ModuleFacts& facts, std::string_view name) {
  std::vector<const PyNode*> out;
  for (const auto& stmt : facts.module().root().children) {
    if (stmt.field != "body") continue;
    if ((stmt.type == "FunctionDef" || stmt.type == "AsyncFunctionDef" || stmt.type == "ClassDef") &&
        stmt.str_field("name") == name) {
      out.push_back(&stmt);
      continue;
    }
    if (stmt.type == "FunctionDef" || stmt.type == "AsyncFunctionDef" || stmt.type == "ClassDef") continue;
    bool binds = false;
    PyModule::walk(stmt, [&](const PyNode& n) {
      if ((n.type == "FunctionDef" || n.type == "AsyncFunctionDef" || n.type == "ClassDef") &&
          n.str_field("name") == name)
        binds = true;
      if (n.type == "Name" && n.str_field("id") == name && n.fields.value("ctx", "") != "Load" &&
          (n.field == "targets" || n.field == "target" || n.field == "elts")) binds = true;
      if (n.type == "alias" && (n.str_field("asname") == name || (n.str_field("asname").empty() &&
                                                                  n.str_field("name") == name))) binds = true;
    });
    if (binds) out.push_back(&stmt);
  }
  return out;
}

// Module-level names a fixed part reads (constants such as N = 4096 used by make_inputs).
std::set<std::string> globals_read(const ModuleFacts& facts, const PyNode& part) {
  std::set<std::string> out;
  PyModule::walk(part, [&](const PyNode& n) {
    if (n.type == "Name" && n.fields.value("ctx", "") == "Load" && facts.globals().contains(n.str_field("id")))
      out.insert(n.str_field("id"));
  });
  return out;
}

std::string dump_all(const std::vector<const PyNode*>& nodes) {
  std::string out;
  for (const auto* n : nodes) out += canonical(*n) + "\n";
  return out;
}

}  // namespace

void check_fixed_parts(const CheckContext& ctx, Sink& sink) {
  std::vector<std::string> parts(std::begin(kFixedFunctions), std::end(kFixedFunctions));
  parts.emplace_back(kToleranceName);
  parts.emplace_back(kMutatesName);
  std::set<std::string> constants;
  for (const auto& name : parts) {
    auto orig = bindings(ctx.original, name);
    auto cand = bindings(ctx.candidate, name);
    for (const auto* n : orig)
      for (const auto& g : globals_read(ctx.original, *n)) constants.insert(g);
    if (dump_all(orig) == dump_all(cand)) continue;
    int line = cand.empty() ? 1 : cand.back()->line;
    std::string what = orig.empty()  ? fmt::format("the candidate adds `{}`, which the original does not define", name)
                       : cand.empty() ? fmt::format("the candidate drops `{}`", name)
                       : cand.size() > 1 ? fmt::format("the candidate binds `{}` more than once", name)
                                         : fmt::format("the candidate changes `{}`", name);
    sink.report("integrity-reference-changed", line,
                what + " (reference, make_inputs, flops, bytes_moved, TOLERANCE and MUTATES must stay as in the "
                       "original)");
  }
  for (const auto& name : constants) {
    auto orig = bindings(ctx.original, name);
    auto cand = bindings(ctx.candidate, name);
    if (dump_all(orig) != dump_all(cand))
      sink.report("integrity-reference-changed", cand.empty() ? 1 : cand.back()->line,
                  fmt::format("the candidate changes `{}`, which the original's reference/make_inputs/flops/"
                              "bytes_moved/TOLERANCE/MUTATES read",
                              name));
  }

  // Host code that names `reference` (calls it, stores it, passes it on).
  ctx.candidate.walk_host([&](const PyNode& n) {
    if (n.type == "Name" && n.str_field("id") == "reference" && n.fields.value("ctx", "") == "Load")
      sink.report("integrity-reads-reference", n.line,
                  "host code uses `reference`: the candidate must compute its output with its own kernels");
    if (n.type == "Constant" && n.fields.value("value", nlohmann::json()).is_string() &&
        n.fields["value"].get<std::string>() == "reference" && n.parent && n.parent->type == "Call")
      sink.report("integrity-reads-reference", n.line, "host code looks `reference` up by name");
  });
}

}  // namespace tdx::integrity
