#include "tritondx/source/kernel_view.h"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

namespace tdx::l0 {


bool is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }
long long unspecialized_divisor(long long v) {
  if (v == 0 || v % 16 == 0) return 0;
  long long d = 1;
  while (d < 8 && v % (d * 2) == 0) d *= 2;
  return d >= 2 ? d : 0;
}
long long next_pow2(long long v) {
  long long p = 1;
  while (p < v) p <<= 1;
  return p;
}
long long pow2_floor(long long v) {
  long long p = 1;
  while (p * 2 <= v) p <<= 1;
  return p;
}

int element_bytes(std::string_view t) {
  if (t.starts_with("*")) t.remove_prefix(1);
  if (t == "fp64" || t == "i64" || t == "u64") return 8;
  if (t == "fp32" || t == "i32" || t == "u32" || t == "f32") return 4;
  if (t == "fp16" || t == "bf16" || t == "i16" || t == "u16") return 2;
  if (t.starts_with("fp8") || t == "i8" || t == "u8" || t == "i1") return 1;
  return 0;
}

KernelView::KernelView(const KernelContext& ctx) : ctx_(&ctx) {
  if (ctx.task) kernel_info_ = ctx.task->kernel(ctx.kernel_name());
  if (!ctx.function) return;
  auto add = [&](const PyNode& target, const PyNode& stmt, const PyNode* value, int line, int col) {
    if (target.type != "Name") return;
    defs_[target.str_field("id")].push_back(Definition{&stmt, value, line, col});
  };
  PyModule::walk(*ctx.function, [&](const PyNode& n) {
    if (n.type == "Name" && n.fields.value("ctx", "") == "Load") uses_[n.str_field("id")].push_back(&n);
    if (n.type == "Assign") {
      const PyNode* value = n.child("value");
      for (const PyNode* t : n.children_in("targets")) {
        if (t->type == "Tuple" && value && value->type == "Tuple") {
          auto lhs = t->children_in("elts");
          auto rhs = value->children_in("elts");
          for (size_t i = 0; i < lhs.size(); ++i)
            add(*lhs[i], n, i < rhs.size() ? rhs[i] : nullptr, n.end_line, n.end_col);
        } else if (t->type == "Tuple") {
          for (const PyNode* e : t->children_in("elts")) add(*e, n, nullptr, n.end_line, n.end_col);
        } else {
          add(*t, n, value, n.end_line, n.end_col);
        }
      }
    } else if (n.type == "AnnAssign" || n.type == "AugAssign") {
      if (const PyNode* t = n.child("target")) add(*t, n, n.child("value"), n.end_line, n.end_col);
    } else if (n.type == "For") {
      if (const PyNode* t = n.child("target")) add(*t, n, n.child("iter"), t->end_line, t->end_col);
    }
  });
  for (auto& [name, list] : defs_)
    std::stable_sort(list.begin(), list.end(),
                     [](const Definition& a, const Definition& b) { return std::tie(a.line, a.col) < std::tie(b.line, b.col); });
}

std::string KernelView::text(const PyNode& node) const { return ctx_->task ? node_text(node, ctx_->task->lines) : std::string(); }

bool KernelView::binds(std::string_view name) const {
  return is_param(name) || !definitions(name).empty() || !uses(name).empty();
}

std::string KernelView::fresh_name(const std::string& base) const {
  std::string n = base;
  for (int k = 2; binds(n); ++k) n = base + "_" + std::to_string(k);
  return n;
}

std::vector<const PyNode*> KernelView::range_arguments(const PyNode& iter) {
  std::string fn = iter.type == "Call" ? normalize_triton_name(call_name(iter)) : "";
  if (fn != "range" && fn != "tl.range") return {};
  std::vector<const PyNode*> out;
  for (int i = 0; argument(iter, i); ++i) out.push_back(argument(iter, i));
  return out;
}

std::string KernelView::range_key(const PyNode& iter) const {
  auto args = range_arguments(iter);
  if (args.empty()) return squash_blanks(text(iter));
  std::string key = "range(";
  for (size_t i = 0; i < args.size(); ++i) key += (i ? "," : "") + squash_blanks(text(*args[i]));
  return key + ")";
}

std::string KernelView::squashed_text(const PyNode& node) const { return squash_blanks(text(node)); }

bool KernelView::is_param(std::string_view name) const {
  if (kernel_info_)
    for (const auto& p : kernel_info_->params)
      if (p.name == name) return true;
  return ctx_->launch && ctx_->launch->signature.contains(std::string(name));
}

const KernelParam* KernelView::param_info(std::string_view name) const {
  if (kernel_info_)
    for (const auto& p : kernel_info_->params)
      if (p.name == name) return &p;
  return nullptr;
}

std::string KernelView::signature(std::string_view name) const {
  if (!ctx_->launch) return {};
  auto it = ctx_->launch->signature.find(std::string(name));
  return it != ctx_->launch->signature.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string KernelView::pointee_type(std::string_view name) const {
  std::string s = signature(name);
  return s.starts_with("*") ? s.substr(1) : std::string();
}

bool KernelView::has_divisibility_16(std::string_view name) const {
  if (!ctx_->launch) return false;
  auto it = ctx_->launch->attrs.find(std::string(name));
  if (it == ctx_->launch->attrs.end()) return false;
  for (const auto& a : *it)
    if (a.is_array() && a.size() == 2 && a[0] == "tt.divisibility" && a[1].is_number_integer() && a[1].get<int>() % 16 == 0)
      return true;
  return false;
}

const Definition* KernelView::definition(const PyNode& use) const {
  if (use.type != "Name") return nullptr;
  return definition_at(use.str_field("id"), use.line, use.col);
}

const Definition* KernelView::definition_at(std::string_view name, int line, int col) const {
  auto it = defs_.find(name);
  if (it == defs_.end()) return nullptr;
  const Definition* best = nullptr;
  for (const auto& d : it->second)
    if (d.line < line || (d.line == line && d.col <= col)) best = &d;
  return best;
}

const std::vector<Definition>& KernelView::definitions(std::string_view name) const {
  static const std::vector<Definition> kNone;
  auto it = defs_.find(name);
  return it == defs_.end() ? kNone : it->second;
}

std::vector<const PyNode*> KernelView::uses(std::string_view name) const {
  auto it = uses_.find(name);
  return it == uses_.end() ? std::vector<const PyNode*>{} : it->second;
}

std::optional<long long> KernelView::global_constant(std::string_view name) const {
  if (!ctx_->ast) return std::nullopt;
  for (const auto& stmt : ctx_->ast->root().children) {
    if (stmt.type != "Assign" && stmt.type != "AnnAssign") continue;
    const PyNode* target = stmt.type == "Assign" ? stmt.child("targets", 0) : stmt.child("target");
    const PyNode* value = stmt.child("value");
    if (!target || !value || target->type != "Name" || target->str_field("id") != name) continue;
    if (value->type == "Call" && call_name(*value) == "tl.constexpr")
      if (const PyNode* a = argument(*value, 0)) value = a;
    return int_constant(*value);
  }
  return std::nullopt;
}


void KernelView::visit_flow(const PyNode& expr, const std::function<bool(const PyNode&)>& f) const {
  std::set<const PyNode*> seen;
  std::function<void(const PyNode&, int)> go = [&](const PyNode& n, int depth) {
    if (depth > kMaxExpressionDepth * 4 || !f(n)) return;
    if (n.type == "Name" && n.fields.value("ctx", "") == "Load") {
      if (const Definition* d = definition(n); d && seen.insert(d->stmt).second) {
        if (d->value) go(*d->value, depth + 1);
        // x += v also reads the previous x
        for (const Definition* prev = d; prev && prev->stmt->type == "AugAssign";) {
          prev = definition_at(n.str_field("id"), prev->stmt->line, prev->stmt->col);
          if (!prev || !seen.insert(prev->stmt).second) break;
          if (prev->value) go(*prev->value, depth + 1);
        }
      }
    }
    for (const auto& c : n.children) go(c, depth + 1);
  };
  go(expr, 0);
}

bool KernelView::flows_from(const PyNode& expr, const std::function<bool(const PyNode&)>& pred) const {
  bool found = false;
  visit_flow(expr, [&](const PyNode& n) {
    if (found) return false;
    if (pred(n)) found = true;
    return !found;
  });
  return found;
}

std::vector<const PyNode*> KernelView::calls(std::initializer_list<std::string_view> names) const {
  return ctx_->function ? PyModule::calls(*ctx_->function, names) : std::vector<const PyNode*>{};
}

const PyNode* KernelView::pointer_arg(const PyNode& memop) {
  if (const PyNode* a = argument(memop, 0)) return a;
  return keyword(memop, "pointer");
}

const PyNode* KernelView::mask_arg(const PyNode& memop) {
  bool store = call_name(memop) == "tl.store";
  if (const PyNode* a = argument(memop, store ? 2 : 1)) return a;
  const PyNode* m = keyword(memop, "mask");
  if (m && m->type == "Constant" && m->fields.value("value", nlohmann::json()).is_null()) return nullptr;
  return m;
}

const PyNode* KernelView::other_arg(const PyNode& memop) {
  if (call_name(memop) == "tl.store") return nullptr;
  if (const PyNode* a = argument(memop, 2)) return a;
  const PyNode* o = keyword(memop, "other");
  if (o && o->type == "Constant" && o->fields.value("value", nlohmann::json()).is_null()) return nullptr;
  return o;
}

std::optional<long long> KernelView::elements(const PyNode& memop) const {
  const PyNode* p = pointer_arg(memop);
  auto s = p ? shape(*p) : std::nullopt;
  if (!s) return std::nullopt;
  long long n = 1;
  for (long long d : *s) n *= d;
  return n;
}

const PyNode* KernelView::launch_call() const {
  if (!ctx_->ast) return nullptr;
  std::string kernel = ctx_->kernel_name();
  const PyNode* found = nullptr;
  PyModule::walk(ctx_->ast->root(), [&](const PyNode& n) {
    if (found || n.type != "Call") return;
    const PyNode* f = n.child("func");
    if (!f || f->type != "Subscript") return;
    const PyNode* v = f->child("value");
    std::string callee = v ? dotted_name(*v) : std::string();
    if (callee == kernel || callee.ends_with("." + kernel)) found = &n;
  });
  return found;
}

int KernelView::launch_line() const {
  if (const PyNode* c = launch_call()) return c->line;
  return ctx_->function ? ctx_->function->line : 0;
}

EvidenceLink KernelView::launch_evidence(std::string note) const {
  return ctx_->source_evidence(launch_line(), "captured launch: " + std::move(note));
}

std::string KernelView::launch_values(const PyNode& expr) const {
  std::vector<std::string> seen;
  std::string out;
  visit_flow(expr, [&](const PyNode& n) {
    if (n.type != "Name" || definition(n)) return true;
    std::string name = n.str_field("id");
    if (!is_param(name) || std::find(seen.begin(), seen.end(), name) != seen.end()) return true;
    seen.push_back(name);
    if (auto v = ctx_->launch ? ctx_->launch->int_arg(name) : std::nullopt)
      out += fmt::format("{}{}={}", out.empty() ? "" : ", ", name, *v);
    return true;
  });
  return out;
}

}  // namespace tdx::l0
