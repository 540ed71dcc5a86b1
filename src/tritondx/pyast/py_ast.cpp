#include "tritondx/pyast/py_ast.h"

namespace tdx {

const PyNode* PyNode::child(std::string_view field_name, int list_index) const {
  for (const auto& c : children)
    if (c.field == field_name && (list_index < 0 || c.index == list_index || (list_index == 0 && c.index < 0)))
      return &c;
  return nullptr;
}

std::vector<const PyNode*> PyNode::children_in(std::string_view field_name) const {
  std::vector<const PyNode*> out;
  for (const auto& c : children)
    if (c.field == field_name) out.push_back(&c);
  return out;
}

std::string PyNode::str_field(std::string_view name) const {
  auto it = fields.find(std::string(name));
  return (it != fields.end() && it->is_string()) ? it->get<std::string>() : std::string();
}

namespace {

void build(PyNode& node, const nlohmann::json& j, const PyNode* parent) {
  node.type = j.value("type", "");
  node.field = j.value("field", "");
  node.index = j.value("index", -1);
  node.parent = parent;
  if (auto it = j.find("span"); it != j.end() && it->is_array() && it->size() == 4) {
    node.line = (*it)[0].get<int>();
    node.col = (*it)[1].get<int>();
    node.end_line = (*it)[2].get<int>();
    node.end_col = (*it)[3].get<int>();
  }
  node.fields = j.value("fields", nlohmann::json::object());
  if (auto it = j.find("children"); it != j.end()) {
    node.children.resize(it->size());
    for (size_t i = 0; i < it->size(); ++i) build(node.children[i], (*it)[i], &node);
  }
}

}  // namespace

PyModule PyModule::from_json(const nlohmann::json& module) {
  PyModule m;
  m.root_ = std::make_shared<PyNode>();
  build(*m.root_, module, nullptr);
  return m;
}

const PyNode* PyModule::function(std::string_view name) const {
  for (const auto& c : root_->children)
    if (c.type == "FunctionDef" && c.str_field("name") == name) return &c;
  return nullptr;
}

void PyModule::walk(const PyNode& from, const std::function<void(const PyNode&)>& visit) {
  visit(from);
  for (const auto& c : from.children) walk(c, visit);
}

std::string normalize_triton_name(std::string_view dotted) {
  constexpr std::string_view kLong = "triton.language.";
  if (dotted.substr(0, kLong.size()) == kLong) return "tl." + std::string(dotted.substr(kLong.size()));
  return std::string(dotted);
}

std::string dotted_name(const PyNode& node) {
  if (node.type == "Name") return node.str_field("id");
  if (node.type == "Attribute") {
    const PyNode* value = node.child("value");
    if (!value) return {};
    std::string base = dotted_name(*value);
    if (base.empty()) return {};
    return base + "." + node.str_field("attr");
  }
  return {};
}

std::string call_name(const PyNode& call) {
  if (call.type != "Call") return {};
  const PyNode* func = call.child("func");
  return func ? normalize_triton_name(dotted_name(*func)) : std::string();
}

std::vector<const PyNode*> PyModule::calls(const PyNode& from, std::initializer_list<std::string_view> names) {
  std::vector<const PyNode*> out;
  walk(from, [&](const PyNode& n) {
    if (n.type != "Call") return;
    std::string name = call_name(n);
    for (auto want : names)
      if (name == want) {
        out.push_back(&n);
        break;
      }
  });
  return out;
}

const PyNode* PyModule::enclosing_loop(const PyNode& node) {
  for (const PyNode* p = node.parent; p; p = p->parent) {
    if (p->type == "For" || p->type == "While") return p;
    if (p->type == "FunctionDef") return nullptr;
  }
  return nullptr;
}

const PyNode* PyModule::enclosing_statement(const PyNode& node) {
  const PyNode* stmt = &node;
  while (stmt && stmt->field != "body" && stmt->field != "orelse") stmt = stmt->parent;
  return stmt;
}

bool PyModule::inside(const PyNode& node, const PyNode& ancestor) {
  for (const PyNode* p = &node; p; p = p->parent)
    if (p == &ancestor) return true;
  return false;
}

namespace {

std::set<std::string> names_in(const PyNode& node, std::string_view context) {
  std::set<std::string> out;
  PyModule::walk(node, [&](const PyNode& n) {
    if (n.type == "Name" && n.str_field("ctx") == context) out.insert(n.str_field("id"));
  });
  if (node.type == "Name" && node.str_field("ctx") == context) out.insert(node.str_field("id"));
  return out;
}

}  // namespace

std::set<std::string> PyModule::names_read(const PyNode& node) { return names_in(node, "Load"); }
std::set<std::string> PyModule::names_written(const PyNode& node) { return names_in(node, "Store"); }

const PyNode* keyword(const PyNode& call, std::string_view name) {
  for (const auto* kw : call.children_in("keywords"))
    if (kw->str_field("arg") == name) return kw->child("value");
  return nullptr;
}

const PyNode* argument(const PyNode& call, int i) {
  for (const auto& c : call.children)
    if (c.field == "args" && c.index == i) return &c;
  return nullptr;
}

const PyNode* last_argument(const PyNode& call) {
  const PyNode* last = nullptr;
  for (const auto& c : call.children)
    if ((c.field == "args" || c.field == "keywords") &&
        (!last || std::pair(c.end_line, c.end_col) > std::pair(last->end_line, last->end_col)))
      last = &c;
  return last;
}

std::vector<std::string> parameter_names(const PyNode& function_def) {
  std::vector<std::string> out;
  if (const PyNode* args = function_def.child("args"))
    for (const PyNode* a : args->children_in("args")) out.push_back(a->str_field("arg"));
  return out;
}

const PyNode* bound_argument(const PyNode& call, const PyNode* function_def, std::string_view param) {
  if (const PyNode* k = keyword(call, param)) return k;
  if (!function_def) return nullptr;
  auto params = parameter_names(*function_def);
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i] == param) return argument(call, static_cast<int>(i));
  return nullptr;
}

const PyNode* single_assignment(const PyNode& function, const std::string& name) {
  const PyNode* found = nullptr;
  int count = 0;
  PyModule::walk(function, [&](const PyNode& n) {
    if (n.type == "Name" && n.str_field("id") == name && n.fields.value("ctx", "") == "Store") {
      ++count;
      const PyNode* p = n.parent;
      if (p && p->type == "Assign" && n.field == "targets" && p->children_in("targets").size() == 1) found = p;
    }
    if ((n.type == "AugAssign" || n.type == "AnnAssign" || n.type == "For") && n.child("target") &&
        n.child("target")->type == "Name" && n.child("target")->str_field("id") == name)
      count += 100;  // never a single plain assignment
  });
  return count == 1 ? found : nullptr;
}

std::optional<long long> int_constant(const PyNode& node) {
  if (node.type == "Constant") {
    auto it = node.fields.find("value");
    if (it != node.fields.end() && it->is_number_integer()) return it->get<long long>();
    return std::nullopt;
  }
  if (node.type == "UnaryOp" && node.fields.value("op", "") == "USub") {
    const PyNode* operand = node.child("operand");
    if (operand)
      if (auto v = int_constant(*operand)) return -*v;
  }
  return std::nullopt;
}

std::optional<double> number_constant(const PyNode& node) {
  if (node.type == "Constant") {
    auto it = node.fields.find("value");
    if (it != node.fields.end() && it->is_number()) return it->get<double>();
    return std::nullopt;
  }
  if (node.type == "UnaryOp" && node.fields.value("op", "") == "USub") {
    const PyNode* operand = node.child("operand");
    if (operand)
      if (auto v = number_constant(*operand)) return -*v;
  }
  return std::nullopt;
}

std::string squash_blanks(std::string s) {
  std::erase_if(s, [](char c) { return c == ' ' || c == '\n' || c == '\t'; });
  return s;
}

std::string node_text(const PyNode& node, const std::vector<std::string>& lines) {
  if (node.line < 1 || node.end_line > static_cast<int>(lines.size())) return {};
  if (node.line == node.end_line) {
    const auto& l = lines[static_cast<size_t>(node.line - 1)];
    size_t b = static_cast<size_t>(std::max(node.col - 1, 0));
    size_t e = static_cast<size_t>(std::max(node.end_col - 1, 0));
    return b <= l.size() && e <= l.size() && b <= e ? l.substr(b, e - b) : std::string();
  }
  std::string out = lines[static_cast<size_t>(node.line - 1)].substr(static_cast<size_t>(std::max(node.col - 1, 0)));
  for (int i = node.line + 1; i < node.end_line; ++i) out += "\n" + lines[static_cast<size_t>(i - 1)];
  out += "\n" + lines[static_cast<size_t>(node.end_line - 1)].substr(0, static_cast<size_t>(std::max(node.end_col - 1, 0)));
  return out;
}

}  // namespace tdx
