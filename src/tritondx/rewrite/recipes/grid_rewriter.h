// The grid half of grow-block, resize-block and grow-tile (block_size.cpp): rewriting one grid
// element of a launch that counts blocks of a constexpr whose value changes (triton.cdiv(n, B),
// n // B, a literal, a product of block counts, the block's variable, a grid lambda's meta[...]),
// so the grid stays consistent with the new block.
#pragma once

#include <fmt/format.h>

#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tritondx/core/check.h"
#include "tritondx/core/text.h"
#include "tritondx/rewrite/recipes/launch_util.h"
#include "tritondx/rewrite/recipes/recipes.h"
#include "tritondx/source/block_index.h"

namespace tdx::block_grid {

// One constexpr to retune.
struct BlockChange {
  std::string name;
  long long from = 0, to = 0;
};

// Rewrites one grid element that counts blocks of `c` (old value `from`): the edits, or why not.
struct GridRewriter {
  const KernelContext& ctx;
  const PyNode& function;  // the launch function
  const BlockChange& c;
  long long programs;      // captured grid size on this axis
  const std::string& launch_var;  // launch-local variable holding the block ("" if a literal)
  std::string meta;               // the grid lambda's parameter ("" if not a lambda)
  std::vector<TextEdit>& edits;
  std::set<const PyNode*>& edited;
  int line;
  const PyNode* call = nullptr;   // the launch call, whose arguments name the grid's extents in the kernel
  // The other factors of a product grid dimension: they count blocks of other dimensions, so a
  // literal equal to the old value there is not a use of this block.
  std::set<const PyNode*>* other_factors = nullptr;

  bool mentions_block(const PyNode& e) const {
    bool found = false;
    PyModule::walk(e, [&](const PyNode& n) {
      if (n.type == "Name" && !launch_var.empty() && n.str_field("id") == launch_var) found = true;
      if (n.type == "Subscript" && !meta.empty() && n.child("value") && n.child("value")->type == "Name" &&
          n.child("value")->str_field("id") == meta)
        if (const PyNode* key = n.child("slice"); key && key->type == "Constant" && key->str_field("value") == c.name)
          found = true;
    });
    return found;
  }
  // Inside a product of block counts the share of `programs` that counts this block is unknown,
  // so neither is whether the new count is exact.
  bool in_product = false;
  bool exact() const { return !in_product && programs * c.from % c.to == 0; }

  // The suffix naming the block's dimension: "M" of BLOCK_M or BLOCK_SIZE_M ("" if none).
  std::string dimension_suffix() const {
    size_t at = c.name.rfind('_');
    std::string s = at == std::string::npos ? c.name.substr(c.name.empty() ? 0 : c.name.size() - 1) : c.name.substr(at + 1);
    for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  }

  // If `e` counts blocks of the old value (triton.cdiv(n, OLD), n // OLD, (n + OLD - 1) // OLD):
  // true, the name of what it counts (n, or "" when n is not a plain name) and n itself.
  bool counts_old_blocks(const PyNode& e, std::string& extent, const PyNode** extent_node = nullptr) const {
    const PyNode* n = nullptr;
    if (e.type == "Call" && (call_name(e) == "triton.cdiv" || call_name(e) == "cdiv")) {
      const PyNode* d = argument(e, 1);
      if (!d || int_constant(*d) != c.from) return false;
      n = argument(e, 0);
    } else if (e.type == "BinOp" && e.fields.value("op", "") == "FloorDiv") {
      const PyNode* d = e.child("right");
      if (!d || int_constant(*d) != c.from) return false;
      n = e.child("left");
      if (n && n->type == "BinOp" && n->fields.value("op", "") == "Add") n = n->child("left");
    } else {
      return false;
    }
    extent = n && n->type == "Name" ? n->str_field("id") : "";
    if (extent_node) *extent_node = n;
    return true;
  }

  // The block constexpr the kernel counts `extent` in, when the launch passes that expression as
  // a kernel parameter the kernel divides by one (num_pid_n = tl.cdiv(K, BLOCK_N) for a grid
  // factor triton.cdiv(K, 64)): "" when it passes none, or the kernel counts it in several.
  std::string kernel_counted_block(const PyNode* extent) const {
    if (!extent || !call || !ctx.function || !ctx.task) return "";
    const KernelInfo* info = ctx.task->kernel(ctx.kernel_name());
    if (!info) return "";
    std::string text = squash_blanks(node_text(*extent, ctx.task->lines));
    std::set<std::string> blocks;
    for (const auto& prm : info->params) {
      const PyNode* passed = launch_util::passed_argument(ctx, *call, prm.name);
      if (!passed || squash_blanks(node_text(*passed, ctx.task->lines)) != text) continue;
      for (const auto& b : kernel_blocks_counting(prm.name)) blocks.insert(b);
    }
    return blocks.size() == 1 ? *blocks.begin() : "";
  }

  // The names NAME of the kernel's tl.cdiv(param, NAME) and (param + NAME - 1) // NAME.
  std::set<std::string> kernel_blocks_counting(const std::string& param) const {
    std::set<std::string> out;
    auto is_param = [&](const PyNode* n) { return n && n->type == "Name" && n->str_field("id") == param; };
    PyModule::walk(*ctx.function, [&](const PyNode& n) {
      const PyNode* d = nullptr;
      if (n.type == "Call" && normalize_triton_name(call_name(n)) == "tl.cdiv" && is_param(argument(n, 0)))
        d = argument(n, 1);
      if (n.type == "BinOp" && n.str_field("op") == "FloorDiv") {
        const PyNode* l = n.child("left");
        if (l && l->type == "BinOp" && l->str_field("op") == "Add" && is_param(l->child("left"))) d = n.child("right");
      }
      if (d && d->type == "Name") out.insert(d->str_field("id"));
    });
    return out;
  }

  // A grid dimension that multiplies block counts (triton.cdiv(M, 64) * triton.cdiv(N, 64), a
  // program id split with pid // num_pid_n in the kernel): the factor counting blocks of this
  // constexpr follows it. That factor counts blocks of the old value and is not edited yet, and
  // its extent is not one the kernel divides by another block; of several, the one whose extent
  // the kernel divides by this block (tl.cdiv(K, BLOCK_N), K passed the factor's extent), else
  // the one whose extent is named like the block's dimension (M for BLOCK_M).
  Expected<bool> rewrite_product(const PyNode& e, int depth) {
    std::vector<const PyNode*> factors;
    std::function<void(const PyNode&)> flatten = [&](const PyNode& n) {
      if (n.type == "BinOp" && n.fields.value("op", "") == "Mult" && n.child("left") && n.child("right")) {
        flatten(*n.child("left"));
        flatten(*n.child("right"));
      } else {
        factors.push_back(&n);
      }
    };
    flatten(e);
    std::string suffix = dimension_suffix();
    std::vector<const PyNode*> candidates, named, kernel_named;
    for (const PyNode* f : factors) {
      const PyNode* value = f;
      if (f->type == "Name")
        if (const PyNode* def = launch_util::single_assignment(function, f->str_field("id")); def && def->child("value"))
          value = def->child("value");
      bool touched = false;
      PyModule::walk(*value, [&](const PyNode& n) { touched |= edited.count(&n) > 0; });
      std::string extent;
      const PyNode* extent_node = nullptr;
      if (touched || !counts_old_blocks(*value, extent, &extent_node)) continue;
      // The kernel divides this extent by another block: the factor counts that block's programs.
      std::string counted = kernel_counted_block(extent_node);
      if (!counted.empty() && counted != c.name) continue;
      if (counted == c.name) kernel_named.push_back(value);
      candidates.push_back(value);
      std::string upper = extent;
      for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      if (!suffix.empty() && upper == suffix) named.push_back(value);
    }
    std::string shown = node_text(e, ctx.task->lines);
    const PyNode* pick = kernel_named.size() == 1                   ? kernel_named[0]
                         : named.size() == 1                          ? named[0]
                         : named.empty() && candidates.size() == 1    ? candidates[0]
                                                                      : nullptr;
    if (!pick)
      return fail(Stage::Rewrite,
                  candidates.empty()
                      ? fmt::format("no factor of the grid `{}` counts blocks of {} ({}) that is not already retuned",
                                    shown, c.name, c.from)
                      : fmt::format("cannot tell which factor of the grid `{}` counts blocks of {}", shown, c.name),
                  e.line);
    in_product = true;
    if (other_factors)
      for (const PyNode* f : factors)
        if (f != pick) PyModule::walk(*f, [&](const PyNode& n) { other_factors->insert(&n); });
    return rewrite(*pick, depth + 1);
  }

  Expected<bool> rewrite(const PyNode& e, int depth) {
    if (mentions_block(e)) return true;
    std::string shown = node_text(e, ctx.task->lines);
    if (depth > 3) return fail(Stage::Rewrite, fmt::format("grid `{}` is too indirect to follow", shown), e.line);
    if (e.type == "Name") {
      const PyNode* def = launch_util::single_assignment(function, e.str_field("id"));
      if (def && def->child("value")) return rewrite(*def->child("value"), depth + 1);
      return fail(Stage::Rewrite, fmt::format("grid dimension `{}` is not assigned once in the launch", shown), e.line);
    }
    if (auto v = int_constant(e)) {
      if (*v != programs) return fail(Stage::Rewrite, fmt::format("literal grid `{}` is not the captured {}", *v, programs), e.line);
      if (!exact())
        return fail(Stage::Rewrite, fmt::format("literal grid {} x {} is not a multiple of {}", *v, c.from, c.to), e.line);
      edits.push_back(TextEdit::replace(e, std::to_string(programs * c.from / c.to)));
      edited.insert(&e);
      return true;
    }
    if (e.type == "Call" && (call_name(e) == "triton.cdiv" || call_name(e) == "cdiv")) {
      const PyNode* d = argument(e, 1);
      if (d && int_constant(*d) == c.from) {
        edits.push_back(TextEdit::replace(*d, std::to_string(c.to)));
        edited.insert(d);
        return true;
      }
    }
    if (e.type == "BinOp" && e.fields.value("op", "") == "FloorDiv") {
      const PyNode* l = e.child("left");
      const PyNode* d = e.child("right");
      if (d && int_constant(*d) == c.from) {
        // (n + OLD - 1) // OLD
        if (l->type == "BinOp" && l->fields.value("op", "") == "Add" && l->child("right") &&
            int_constant(*l->child("right")) == c.from - 1) {
          edits.push_back(TextEdit::replace(*l->child("right"), std::to_string(c.to - 1)));
          edits.push_back(TextEdit::replace(*d, std::to_string(c.to)));
          edited.insert(l->child("right"));
          edited.insert(d);
          return true;
        }
        if (!exact())
          return fail(Stage::Rewrite,
                      fmt::format("grid `{}` floors: {} blocks of {} are not a whole number of blocks of {}", shown,
                                  programs, c.from, c.to),
                      e.line);
        edits.push_back(TextEdit::replace(*d, std::to_string(c.to)));
        edited.insert(d);
        return true;
      }
    }
    if (e.type == "BinOp" && e.fields.value("op", "") == "Mult") return rewrite_product(e, depth);
    return fail(Stage::Rewrite,
                fmt::format("grid dimension `{}` does not follow {} (not triton.cdiv(n, {}), n // {}, a literal, "
                            "a product of such block counts or the block's variable)",
                            shown, c.name, c.from, c.from),
                e.line);
  }
};

}  // namespace tdx::block_grid
