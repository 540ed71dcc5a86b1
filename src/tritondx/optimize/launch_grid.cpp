#include "tritondx/optimize/launch_grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "tritondx/source/kernel_view.h"
#include "tritondx/ladder/session.h"
#include "tritondx/rewrite/recipe.h"
#include "tritondx/rewrite/recipe_rewriter.h"
#include "tritondx/rewrite/program_tile_names.h"

namespace tdx {
namespace {

namespace fs = std::filesystem;

constexpr int kWarps[] = {2, 4, 8};
constexpr int kStages[] = {2, 3, 4};

// A program over a wide tile without an MMA (a norm's or a reduction's whole row) also gets 16
// warps, at the launch's num_stages: 8 warps leave each thread 16 or more elements of a
// 4096-element tile. torch.compile's autotuner kept 16 warps for rms_norm_fwd's 8192-wide rows
// and add_layer_norm's 4096-wide rows on the H200 (tools/experiments/inductor_kernels.py).
constexpr int kWideTileWarps = 16;
constexpr long long kWideTileElements = 4096;

// A program that reduces a tile of at most 1024 elements without an MMA also gets 1 warp, at the
// launch's num_stages: its reductions then stay within the warp (shuffles, no shared memory and
// no barriers). On the H200 topk_rows_k8's 1024-wide rows ran fastest at 1 warp, in both of its
// forms: 0.2456 against 0.2906 ms at 2 warps for the fused max/argmax rounds, 0.2805 against
// 0.3321 ms for tl.topk (bench/results/logs/2026-12-05-h200-recipe-variants.txt).
constexpr int kNarrowTileWarps = 1;
constexpr long long kNarrowTileElements = 1024;

// A tile without an MMA that leaves each thread more than this many elements spills to local
// memory, and its compilation takes tens of seconds: such num_warps are not tried. On the H100,
// Liger's JSD with a 32768-element block took 47 to 52 s to compile and check at 2 warps (512
// elements a thread) and ran 10.3 ms, against 9.1 ms at 4 warps, 8.2 ms at 8 and 3.9 ms at 16
// (results/gpu/corpus-2026-12-07-s27/call2-bench.log).
constexpr long long kMaxElementsPerThread = 256;

// A 1-D block this wide is also tried at a quarter and an eighth of its size: one halving at the
// launch's num_warps often still spills, and the grid's later stages only start from a block that
// beat the kernel as given. On the H100, Liger's group norm ran 1.24 ms with its 65536-element
// block at 4 warps, 0.62 ms at 16 warps, and 0.14 ms with a 16384-element block at 16 warps
// (results/gpu/corpus-2026-12-07-s27/probes-call4.txt).
constexpr long long kWideBlock = 16384;

long long tile_elements(const KernelContext& ctx) {
  long long elements = 1;
  for (const auto& b : ctx.launch->block_constexprs()) elements *= std::max(1LL, b.second);
  return elements;
}

bool wide_tile_without_dot(const KernelContext& ctx) {
  return tile_elements(ctx) >= kWideTileElements && l0::KernelView(ctx).calls({"tl.dot"}).empty();
}

bool narrow_reduction_without_dot(const KernelContext& ctx) {
  l0::KernelView view(ctx);
  return tile_elements(ctx) <= kNarrowTileElements && view.calls({"tl.dot"}).empty() &&
         !view.calls({"tl.max", "tl.min", "tl.sum", "tl.argmax", "tl.argmin", "tl.reduce", "tl.topk", "tl.sort",
                      "tl.cumsum", "tl.cumprod", "tl.associative_scan"})
              .empty();
}

struct GridPoint {
  std::string recipe;
  nlohmann::json params;
  std::string description;
  double area_ratio = 1;  // a 2-D tile's new area over its old
};

// A grown tile at the launch's num_warps holds proportionally more of the accumulator per
// thread: also try it with the warps scaled by the area (at most 8), as the Triton tutorials
// pair 128x128 or 128x256 tiles with 8 warps. On the H200, matmul_fp16_square's grid measured
// 128x256 at 4 warps 6x slower than 128x128, and attention's 128x64 at 4 warps
// slower than 64x64; the blocks stage measured no tile with more warps.
constexpr int kMaxScaledWarps = 8;

constexpr std::pair<double, double> kTileReshapes[] = {
    {2.0, 0.5}, {4.0, 0.25}, {8.0, 0.125}, {4.0, 0.125}, {4.0, 1.0 / 32}, {8.0, 1.0 / 16}};
constexpr long long kMinReshapedColumns = 256;
constexpr long long kMaxReshapedRows = 64;
constexpr long long kMaxReshapedElements = 16384;

char last_upper(const std::string& name) {
  return name.empty() ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(name.back())));
}

// Block-size points: the output tile of a 2-D kernel (constexprs ending in M and N) doubled
// and halved, together and one side at a time; every other block constexpr halved, doubled and
// quadrupled.
std::vector<GridPoint> block_points(const LaunchInfo& launch) {
  auto blocks = launch.block_constexprs();
  std::vector<GridPoint> out;
  const std::pair<std::string, long long>*m = nullptr, *n = nullptr;
  for (const auto& b : blocks) {
    if (last_upper(b.first) == 'M' && !m) m = &b;
    if (last_upper(b.first) == 'N' && !n) n = &b;
  }
  if (m && n) {
    // Halving one side too: from a tile the search already grew (grow-tile's 128x128), the
    // autotune-only grid reaches 128x64 by growing one side of 64x64; this grid must reach it too.
    for (auto [fm, fn] : {std::pair{2.0, 2.0}, {2.0, 1.0}, {1.0, 2.0}, {0.5, 0.5}, {1.0, 0.5}, {0.5, 1.0}}) {
      long long tm = static_cast<long long>(m->second * fm), tn = static_cast<long long>(n->second * fn);
      if (tm < 16 || tn < 16 || tm > 256 || tn > 256) continue;
      out.push_back({"grow-tile",
                     {{"from", {m->second, n->second}}, {"tile", {tm, tn}}, {"constexprs", {m->first, n->first}}},
                     fmt::format("{}x{} tile ({} {} -> {}, {} {} -> {})", tm, tn, m->first, m->second, tm, n->first,
                                 n->second, tn),
                     fm * fn});
    }
  }
  // The [TILE_ROWS, BLOCK] tile reorder-tile builds for a transpose also gets reshaped: its rows
  // are one 32-byte sector, so the transposed access still moves 32-byte runs; taller tiles of
  // the same or a smaller area (inductor's transpose is 32 x 32) move 128-byte ones.
  std::optional<std::pair<std::string, long long>> rows;
  const std::pair<std::string, long long>* cols = blocks.size() == 1 ? &blocks[0] : nullptr;
  if (auto r = launch.int_arg(program_tile::kTileRows); r && *r > 0) rows = {{program_tile::kTileRows, *r}};
  if (rows && cols && cols->second >= kMinReshapedColumns) {
    for (auto [fm, fn] : kTileReshapes) {
      long long tm = static_cast<long long>(rows->second * fm), tn = static_cast<long long>(cols->second * fn);
      if (tm > kMaxReshapedRows || tn < 16 || tm * tn > kMaxReshapedElements) continue;
      out.push_back({"grow-tile",
                     {{"from", {rows->second, cols->second}},
                      {"tile", {tm, tn}},
                      {"constexprs", {rows->first, cols->first}}},
                     fmt::format("{}x{} tile ({} {} -> {}, {} {} -> {})", tm, tn, rows->first, rows->second, tm,
                                 cols->first, cols->second, tn),
                     fm * fn});
    }
  }
  for (const auto& b : blocks) {
    if (m && n && (&b == m || &b == n)) continue;
    std::vector<double> factors{0.5, 2.0, 4.0};
    if (blocks.size() == 1 && b.second >= kWideBlock) factors.insert(factors.end(), {0.25, 0.125});
    for (double f : factors) {
      long long to = static_cast<long long>(b.second * f);
      if (to < 16 || to > 65536) continue;
      out.push_back({f < 1 ? "resize-block" : "grow-block",
                     {{"constexpr", b.first}, {"from", b.second}, {"block", to}},
                     fmt::format("{} {} -> {}", b.first, b.second, to)});
    }
  }
  return out;
}

Finding grid_finding(const KernelContext& ctx) {
  Finding f;
  f.rule_id = "autotune-grid";
  f.kernel = ctx.kernel_name();
  f.loc = {ctx.task ? ctx.task->path : "", ctx.function ? ctx.function->line : 0, 0};
  return f;
}

struct Opened {
  std::unique_ptr<DiagnosisSession> session;
  const KernelContext* ctx = nullptr;
  std::vector<KernelContext> contexts;
};

// The first launched kernel of the task at `path` (captured, not compiled).
Expected<Opened> open_kernel(const Bridge& bridge, const std::string& path, const std::string& artifacts) {
  SessionOptions so;
  so.task_path = path;
  so.artifacts_dir = artifacts;
  so.what_if = false;
  auto s = DiagnosisSession::open(bridge, so);
  if (!s) return fail(Stage::Bridge, fmt::format("cannot capture {}: {}", path, s.error().diagnostic.to_string()));
  Opened o;
  o.session = std::move(*s);
  o.contexts = o.session->contexts();
  for (const auto& c : o.contexts)
    if (c.launch && c.function && c.task) {
      o.ctx = &c;
      break;
    }
  if (!o.ctx) return fail(Stage::Task, fmt::format("{}: no launched kernel with a source to vary", path));
  return o;
}

Expected<std::string> apply_point(const RecipeRegistry& recipes, const KernelContext& ctx, const GridPoint& p) {
  const Recipe* r = recipes.find(p.recipe);
  if (!r) return fail(Stage::Rewrite, "no recipe " + p.recipe);
  Finding f = grid_finding(ctx);
  auto id = RecipeId::parse(p.recipe);
  if (!id) return fail(Stage::Rewrite, "no recipe " + p.recipe);
  RewriteProposal proposal{*id, p.description, p.params};
  auto c = apply_recipe(*r, ctx, f, proposal);
  if (!c) return std::unexpected(c.error());
  return c->source;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// Runs `run` on every variant not measured yet, in as few processes as the sweep allows.
void measure(const Bridge& bridge, std::vector<GridVariant>& variants, size_t first, LaunchGrid& out,
             const std::string& initial_task) {
  std::vector<size_t> todo;
  for (size_t i = first; i < variants.size(); ++i) todo.push_back(i);
  while (!todo.empty()) {
    nlohmann::json tasks = nlohmann::json::array();
    for (size_t i : todo) tasks.push_back(variants[i].path);
    nlohmann::json request{{"tasks", tasks}};
    if (!initial_task.empty()) request["initial_task"] = initial_task;
    auto reply = bridge.call("sweep", request);
    if (!reply) {
      for (size_t i : todo) variants[i].error = "the sweep failed: " + reply.error().diagnostic.to_string();
      return;
    }
    const auto& results = (*reply)["results"];
    size_t done = 0;
    for (; done < results.size() && done < todo.size(); ++done) {
      GridVariant& v = variants[todo[done]];
      const auto& r = results[done];
      ++out.gpu_evaluations;
      v.wall_s = r.value("wall_s", 0.0);
      if (!r.value("ok", false)) {
        v.error = r["error"].value("message", std::string("failed"));
        continue;
      }
      v.measurement = measurement_from_json(r["reply"]);
      if (!v.measurement->correct) {
        v.error = v.measurement->failures.empty() ? "incorrect" : "incorrect: " + v.measurement->failures.front().message;
      } else if (!v.measurement->recheck_passed) {
        v.error = "incorrect after the timing loop";
      } else if (!v.measurement->timing) {
        v.error = "not timed";
      }
    }
    todo.erase(todo.begin(), todo.begin() + static_cast<long>(done));
    if (done == 0) {  // nothing came back: do not loop forever
      for (size_t i : todo) variants[i].error = "the sweep returned no result";
      return;
    }
  }
}

std::optional<size_t> fastest(const std::vector<GridVariant>& variants, double base_ms) {
  std::optional<size_t> best;
  double best_ms = base_ms > 0 ? base_ms : 1e300;
  for (size_t i = 0; i < variants.size(); ++i)
    if (variants[i].verified() && variants[i].median_ms() < best_ms) {
      best = i;
      best_ms = variants[i].median_ms();
    }
  return best;
}

}  // namespace

Expected<LaunchGrid> launch_grid(const Bridge& bridge, const std::string& task_path, const std::string& work_dir,
                                 double base_ms, bool gpu, const std::string& initial_task) {
  LaunchGrid out;
  out.measured = gpu;
  RecipeRegistry recipes;
  register_builtin_recipes(recipes);
  fs::path dir(work_dir);
  std::string artifacts = (dir / "artifacts").string();
  auto given = TDX_TRY(open_kernel(bridge, task_path, artifacts));
  std::string stem = fs::path(task_path).stem().string();
  auto add = [&](const std::string& stage, const std::string& description, const std::string& source) {
    fs::path p = dir / fmt::format("{}.grid{}.py", stem, out.variants.size() + 1);
    write_file(p, source);
    out.variants.push_back({stage, description, p.string(), std::nullopt, ""});
  };
  // A point's source becomes a variant; a recipe's refusal is recorded with the point's name.
  auto offer = [&](const std::string& stage, const std::string& description, const Expected<std::string>& source) {
    if (source) add(stage, description, *source);
    else out.refused.push_back(fmt::format("{}: {}", description, source.error().message));
    return source.has_value();
  };

  // Stage 1: block sizes on the source as given.
  const int given_warps = given.ctx->launch->num_warps();
  for (const auto& p : block_points(*given.ctx->launch)) {
    auto src = apply_point(recipes, *given.ctx, p);
    if (!offer("blocks", p.description, src)) continue;
    int scaled = std::min(kMaxScaledWarps, static_cast<int>(given_warps * p.area_ratio));
    if (p.area_ratio <= 1 || scaled <= given_warps) continue;
    std::string desc = fmt::format("{}, num_warps {}", p.description, scaled);
    fs::path tiled = dir / fmt::format("{}.tile{}.py", stem, out.variants.size());
    write_file(tiled, *src);
    auto o = open_kernel(bridge, tiled.string(), artifacts);
    auto warped = o ? apply_point(recipes, *o->ctx, {"set-num-warps", {{"num_warps", scaled}}, desc})
                    : Expected<std::string>(std::unexpected(o.error()));
    offer("blocks", desc, warped);
  }
  if (gpu) measure(bridge, out.variants, 0, out, initial_task);
  auto best_block = gpu ? fastest(out.variants, base_ms) : std::nullopt;

  // Stage 2: num_warps x num_stages on the best block size.
  std::string base_path = best_block ? out.variants[*best_block].path : task_path;
  std::string base_desc = best_block ? out.variants[*best_block].description : "";
  // Stage 2 sets num_warps itself: a scaled tile's ", num_warps N" would read twice.
  if (auto k = base_desc.find(", num_warps "); k != std::string::npos) base_desc.erase(k);
  if (!base_desc.empty()) base_desc += ", ";
  auto base = TDX_TRY(open_kernel(bridge, base_path, artifacts));
  int warps0 = base.ctx->launch->num_warps(), stages0 = base.ctx->launch->num_stages();
  size_t first_stage2 = out.variants.size();
  std::vector<int> warps(std::begin(kWarps), std::end(kWarps));
  if (wide_tile_without_dot(*base.ctx)) warps.push_back(kWideTileWarps);
  if (narrow_reduction_without_dot(*base.ctx)) warps.insert(warps.begin(), kNarrowTileWarps);
  const bool spills_below = l0::KernelView(*base.ctx).calls({"tl.dot"}).empty();
  const long long base_tile = tile_elements(*base.ctx);
  for (int w : warps) {
    if (spills_below && base_tile > kMaxElementsPerThread * 32 * w) {
      out.refused.push_back(fmt::format("num_warps {}: a thread would hold {} elements of the {}-element tile (more "
                                        "than {}: it spills)",
                                        w, base_tile / (32 * w), base_tile, kMaxElementsPerThread));
      continue;
    }
    std::string warps_source = base.ctx->task->source;
    std::optional<Opened> warped;
    const KernelContext* ctx = base.ctx;
    if (w != warps0) {
      auto src = apply_point(recipes, *base.ctx, {"set-num-warps", {{"num_warps", w}}, fmt::format("num_warps {}", w)});
      if (!src) {
        out.refused.push_back(fmt::format("num_warps {}: {}", w, src.error().message));
        continue;
      }
      fs::path p = dir / fmt::format("{}.warps{}.py", stem, w);
      write_file(p, *src);
      auto o = open_kernel(bridge, p.string(), artifacts);
      if (!o) {
        out.refused.push_back(fmt::format("num_warps {}: {}", w, o.error().message));
        continue;
      }
      warped = std::move(*o);
      ctx = warped->ctx;
      warps_source = *src;
    }
    for (int s : kStages) {
      if (w == warps0 && s == stages0) continue;
      if ((w == kWideTileWarps || w == kNarrowTileWarps) && s != stages0) continue;
      std::string desc = fmt::format("{}num_warps {}, num_stages {}", base_desc, w, s);
      if (s == stages0) {
        add("warps-stages", desc, warps_source);
        continue;
      }
      offer("warps-stages", desc,
            apply_point(recipes, *ctx, {"set-num-stages", {{"num_stages", s}}, fmt::format("num_stages {}", s)}));
    }
  }
  if (gpu) {
    measure(bridge, out.variants, first_stage2, out, initial_task);
    out.best = fastest(out.variants, base_ms);
  }

  // Stage 3: the 1-D blocks (BLOCK_K) once more, on the winner so far when stage 1 changed the
  // blocks: the K step that suited a 128x128 tile at 4 warps need not suit 128x256 at 8
  // (matmul_batched on the H200 kept the given kernel's BLOCK_K 32 under a 128x256 tile).
  if (gpu && out.best && best_block) {
    const GridVariant winner = out.variants[*out.best];
    auto again = open_kernel(bridge, winner.path, artifacts);
    size_t first_stage3 = out.variants.size();
    if (again)
      for (const auto& p : block_points(*again->ctx->launch)) {
        if (p.recipe != "grow-tile")
          offer("blocks-again", fmt::format("{}, {}", winner.description, p.description),
                apply_point(recipes, *again->ctx, p));
      }
    measure(bridge, out.variants, first_stage3, out, initial_task);
    out.best = fastest(out.variants, base_ms);
  }
  if (out.variants.empty())
    out.note = "no grid point applies to this source (an autotuned kernel keeps its own configs)";
  else if (!gpu)
    out.note = fmt::format("{} variants built; none measured (no GPU)", out.variants.size());
  fs::remove_all(artifacts);
  return out;
}

nlohmann::json launch_grid_to_json(const LaunchGrid& a, double base_ms) {
  nlohmann::json variants = nlohmann::json::array();
  int verified = 0;
  double wall_s = 0;
  for (const auto& v : a.variants) {
    nlohmann::json j{{"stage", v.stage}, {"config", v.description}, {"file", fs::path(v.path).filename().string()}};
    if (v.verified()) {
      j["median_ms"] = v.median_ms();
      ++verified;
    }
    if (!v.error.empty()) j["error"] = v.error;
    if (v.wall_s > 0) {
      j["wall_s"] = v.wall_s;
      wall_s += v.wall_s;
    }
    if (v.measurement && !v.measurement->phases_s.empty()) j["phases_s"] = v.measurement->phases_s;
    variants.push_back(std::move(j));
  }
  nlohmann::json j{{"measured", a.measured},   {"gpu_evaluations", a.gpu_evaluations}, {"variants", variants},
                   {"verified", verified},     {"refused", a.refused},                 {"note", a.note},
                   {"wall_s", wall_s}};
  if (a.measured && base_ms > 0) {
    double best = a.best ? a.variants[*a.best].median_ms() : base_ms;
    j["median_ms"] = best;
    j["config"] = a.best ? a.variants[*a.best].description : "the launch parameters as given";
    j["speedup"] = base_ms / best;
  }
  return j;
}

}  // namespace tdx
