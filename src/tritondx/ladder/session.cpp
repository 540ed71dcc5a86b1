#include "tritondx/ladder/session.h"

#include <chrono>
#include <filesystem>
#include <set>

#include "tritondx/analysis/axis_info.h"
#include "tritondx/analysis/static_cost.h"
#include "tritondx/compile/capture_notes.h"
#include "tritondx/ladder/autotuned_proposals.h"
#include "tritondx/measure/profile.h"
#include "tritondx/pyast/constexpr_branches.h"
#include "tritondx/core/artifacts_dir.h"
#include "tritondx/core/file.h"

namespace tdx {

namespace fs = std::filesystem;

DiagnosisSession::~DiagnosisSession() = default;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

BridgeFailure task_failure(Diagnostic d) { return BridgeFailure{std::move(d), "task", {}}; }

}  // namespace

std::expected<std::unique_ptr<DiagnosisSession>, BridgeFailure> DiagnosisSession::open(const Bridge& bridge,
                                                                                      SessionOptions options) {
  std::error_code ec;
  auto path = fs::absolute(options.task_path, ec).lexically_normal().string();
  if (!fs::exists(path, ec)) return std::unexpected(task_failure(Diagnostic{Stage::Task, path, 0, 0, "task file not found"}));
  options.task_path = path;
  if (options.artifacts_dir.empty()) options.artifacts_dir = default_artifacts_dir(path);
  fs::create_directories(options.artifacts_dir, ec);
  if (ec)
    return std::unexpected(task_failure(
        Diagnostic{Stage::Task, options.artifacts_dir, 0, 0, "cannot create the artifacts folder: " + ec.message()}));

  auto start = std::chrono::steady_clock::now();
  nlohmann::json capture_request{{"task", path}};
  if (!options.autotune_config.is_null()) capture_request["autotune_config"] = options.autotune_config;
  auto reply = bridge.call("capture", capture_request);
  double seconds = seconds_since(start);
  if (!reply) return std::unexpected(reply.error());
  auto session = from_capture(*reply, options, &bridge);
  if (session) (*session)->open_seconds_ = (*session)->bridge_seconds_ = seconds;
  return session;
}

std::expected<std::unique_ptr<DiagnosisSession>, BridgeFailure> DiagnosisSession::from_capture(
    const nlohmann::json& capture, SessionOptions options, const Bridge* bridge) {
  std::unique_ptr<DiagnosisSession> s(new DiagnosisSession());
  s->bridge_ = bridge;
  auto target = load_target(options.target);
  if (!target) return std::unexpected(task_failure(target.error()));
  s->target_ = std::move(*target);
  const auto info = capture.value("task_info", nlohmann::json::object());
  s->task_ = task_from_json(info);
  if (options.task_path.empty()) options.task_path = s->task_.path;
  s->artifacts_dir_ = options.artifacts_dir.empty() ? default_artifacts_dir(options.task_path) : options.artifacts_dir;
  s->options_ = options;
  s->ast_ = PyModule::from_json(info.value("module", nlohmann::json::object()));
  s->min_bytes_ = capture.value("min_bytes", 0LL);
  s->min_bytes_source_ = capture.value("min_bytes_source", "");
  if (capture.contains("flops") && capture["flops"].is_number()) s->flops_ = capture["flops"].get<long long>();
  s->capture_notes_ = tdx::capture_notes(capture.value("cuda_emulation", nlohmann::json::object()));
  std::vector<std::string> seen;
  for (const auto& l : capture.value("launches", nlohmann::json::array())) {
    LaunchInfo launch = launch_from_json(l);
    if (!options.kernel.empty() && launch.kernel != options.kernel) continue;
    if (std::find(seen.begin(), seen.end(), launch.kernel) != seen.end()) continue;
    seen.push_back(launch.kernel);
    KernelState k;
    k.function = s->ast_.function(launch.kernel);
    k.launch = std::move(launch);
    s->kernels_.push_back(std::move(k));
  }
  if (!options.kernel.empty() && s->kernels_.empty())
    return std::unexpected(task_failure(Diagnostic{Stage::Task, s->task_.path, 0, 0,
                                                   fmt::format("launch() never launched a kernel named '{}'", options.kernel)}));
  return s;
}

const std::optional<BridgeFailure>& DiagnosisSession::compile(bool pass_dumps) {
  if (compiled_ && (pass_dumps_ || !pass_dumps)) return compile_error_;
  if (!bridge_) {
    compiled_ = true;
    compile_error_ = BridgeFailure{Diagnostic{Stage::Bridge, "", 0, 0, "no bridge: this session cannot compile"},
                                   "no-bridge", {}};
    return compile_error_;
  }
  CompileRequest request;
  request.task_path = task_.path;
  request.out_dir = artifacts_dir_;
  request.kernel = options_.kernel;
  request.pass_dumps = pass_dumps;
  request.autotune_config = options_.autotune_config;
  auto start = std::chrono::steady_clock::now();
  auto result = compile_task(*bridge_, request);
  bridge_seconds_ += seconds_since(start);
  compiled_ = true;
  pass_dumps_ = pass_dumps;
  if (!result) {
    compile_error_ = result.error();
    return compile_error_;
  }
  compile_error_.reset();
  for (auto& compiled : result->kernels) {
    for (auto& k : kernels_) {
      if (k.launch.kernel != compiled.name || k.program) continue;
      k.program = load_program(compiled);
      k.source_map = SourceMap::build(*k.program, task_.path);
      k.summary = summarize(*k.program, target_);
      k.axis_info.reset();
      k.compiled = std::move(compiled);
      break;
    }
  }
  return compile_error_;
}

WhatIfResult DiagnosisSession::run_what_if(const std::string& kernel, const nlohmann::json& change) const {
  for (const auto& w : what_ifs_)
    if (w.change == change) return w;
  WhatIfResult result;
  result.change = change;
  CompileRequest request;
  request.task_path = task_.path;
  request.out_dir = (fs::path(artifacts_dir_) / fmt::format("what-if-{}", what_ifs_.size())).string();
  request.kernel = kernel;
  request.what_if = change;
  request.autotune_config = options_.autotune_config;
  std::error_code ec;
  fs::create_directories(request.out_dir, ec);
  auto start = std::chrono::steady_clock::now();
  auto compiled = compile_task(*bridge_, request);
  bridge_seconds_ += seconds_since(start);
  if (!compiled) {
    result.error = compiled.error().diagnostic.to_string();
  } else if (compiled->kernels.empty()) {
    result.error = "the what-if compile produced no kernel";
  } else {
    result.program = load_program(compiled->kernels.front());
  }
  what_ifs_.push_back(result);
  return result;
}

std::vector<KernelContext> DiagnosisSession::contexts() const {
  std::vector<KernelContext> out;
  for (const auto& k : kernels_) {
    KernelContext c;
    c.task = &task_;
    c.ast = &ast_;
    c.function = k.function;
    c.launch = &k.launch;
    c.target = &target_;
    c.tolerance = task_.tolerance;
    c.min_bytes = min_bytes_;
    c.flops = flops_;
    if (k.program) {
      c.program = &*k.program;
      c.source_map = &*k.source_map;
      c.summary = &*k.summary;
      if (k.program->ttir) {
        const KernelState* state = &k;
        c.axis_info = [state]() -> const AxisInfoAnalysis& {
          if (!state->axis_info)
            state->axis_info = std::make_unique<AxisInfoAnalysis>(AxisInfoAnalysis::run(*state->program->ttir));
          return *state->axis_info;
        };
      }
    }
    if (measurement_) c.measurement = &*measurement_;
    if (roofline_) c.roofline = &*roofline_;
    if (k.profile) {
      c.profile = &*k.profile;
      c.hot_lines = &k.hot_lines;
    }
    if (options_.what_if && bridge_) {
      std::string name = k.launch.kernel;
      c.what_if = [this, name](const nlohmann::json& change) { return run_what_if(name, change); };
    }
    out.push_back(std::move(c));
  }
  return out;
}

void DiagnosisSession::attach_measurement(Measurement measurement) {
  std::string ceiling = "fp32_flops";
  for (const auto& k : kernels_)
    if (k.summary && !k.summary->dots.empty()) ceiling = compute_ceiling_key(*k.summary);
  // The diagnosis describes the card it measured: the target of another card is swapped for this
  // card's (its ceilings, L2 and limits); without a description of it, no roofline is computed.
  bool described = true;
  if (auto t = target_for_measurement(target_, measurement.device)) target_ = std::move(*t);
  else described = false;
  if (measurement.timing && described && target_.ceilings.contains("hbm_bytes_per_second")) {
    double bytes = measurement.min_bytes > 0 ? static_cast<double>(measurement.min_bytes) : static_cast<double>(min_bytes_);
    double flops = measurement.flops > 0 ? static_cast<double>(measurement.flops) : static_cast<double>(flops_);
    roofline_ = compute_roofline(target_, measurement.timing->median_ms / 1e3, bytes, flops, ceiling);
  }
  measurement_ = std::move(measurement);
}

void DiagnosisSession::attach_profile(const std::string& kernel, NcuProfile profile) {
  for (auto& k : kernels_) {
    if (k.launch.kernel != kernel) continue;
    if (k.program && k.program->sass) k.hot_lines = attribute_hot_lines(profile, *k.program->sass, task_.path);
    k.profile = std::move(profile);
    return;
  }
}

std::vector<std::string> DiagnosisSession::profile_kernels(const Bridge& bridge) {
  std::vector<std::string> kernels, problems;
  for (const auto& k : kernels_) kernels.push_back(k.launch.kernel);
  for (const auto& k : kernels) {
    auto profile = profile_kernel(bridge, task_.path, k, artifacts_dir_ + "/ncu");
    if (profile) attach_profile(k, std::move(*profile));
    else
      problems.push_back(fmt::format("no Nsight Compute profile of {}: {} (L1 keeps timing and roofline)", k,
                                     profile.error().diagnostic.to_string()));
  }
  return problems;
}

Expected<void> DiagnosisSession::load_recording(const std::string& dir) {
  fs::path root(dir);
  if (fs::exists(root / "run.json")) {
    auto text = read_file((root / "run.json").string(), Stage::Task);
    if (!text) return std::unexpected(text.error());
    try {
      attach_measurement(measurement_from_json(nlohmann::json::parse(*text)));
    } catch (const nlohmann::json::exception& e) {
      return fail(Stage::Task, fmt::format("run.json is not JSON: {}", e.what()), 0, (root / "run.json").string());
    }
  }
  NcuProfile profile;
  bool any = false;
  for (auto [file, parse] : {std::pair{"details.csv", &parse_ncu_details_csv}, std::pair{"raw.csv", &parse_ncu_raw_csv},
                             std::pair{"source.csv", &parse_ncu_source_csv}}) {
    if (!fs::exists(root / file)) continue;
    auto text = read_file((root / file).string(), Stage::Task);
    if (!text) return std::unexpected(text.error());
    auto parsed = parse(*text, profile);
    if (!parsed) {
      Diagnostic d = parsed.error();
      d.file = (root / file).string();
      return std::unexpected(d);
    }
    any = true;
  }
  if (any) {
    std::string kernel = profile.kernel.empty() && !kernels_.empty() ? kernels_.front().launch.kernel : profile.kernel;
    attach_profile(kernel, std::move(profile));
  }
  return {};
}

std::vector<Finding> DiagnosisSession::run_rule(const Rule& rule, const KernelContext& ctx,
                                                std::vector<RuleFailure>& failures) {
  FindingSink sink(std::string(rule.id()), rule.level(), ctx.kernel_name());
  try {
    rule.check(ctx, sink);
  } catch (const std::exception& e) {
    failures.push_back({std::string(rule.id()), ctx.kernel_name(), e.what()});
    return {};
  }
  std::vector<Finding> findings = std::move(sink.findings());
  // A finding on a branch the launch's constexprs fold away is about code that is never compiled.
  if (ctx.function && ctx.launch) {
    const std::set<int> dead = constexpr_dead_lines(*ctx.function, ctx.launch->constexprs);
    std::erase_if(findings, [&](const Finding& f) { return dead.contains(f.loc.line); });
  }
  drop_proposals_the_autotuner_tries(findings, ctx);
  return findings;
}

}  // namespace tdx
