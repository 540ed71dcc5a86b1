#include <iostream>
#include <memory>

#include "tritondx/analysis/static_cost.h"
#include "tritondx/cli/commands.h"
#include "tritondx/cli/failure.h"
#include "tritondx/ladder/session.h"
#include "tritondx/measure/measurement.h"

namespace tdx::cli {

namespace {

std::string timing_text(const char* label, const Timing& t) {
  return fmt::format("  {:<22} median {:.4f} ms  (p10 {:.4f}, p90 {:.4f}, cv {:.1f}%, {} reps)\n", label, t.median_ms,
                     t.p10_ms, t.p90_ms, t.cv * 100, t.reps);
}

}  // namespace

Runner add_run_command(CLI::App& app) {
  auto options = std::make_shared<SessionOptions>();
  auto format = std::make_shared<std::string>("text");
  auto output = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("run", "On a GPU: check correctness against the reference, then time the kernel and "
                                        "place it on the roofline");
  cmd->add_option("task", options->task_path, "Task file")->required();
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("-o,--output", *output, "Write the report here instead of stdout");
  cmd->add_option("--artifacts", options->artifacts_dir, "Folder for the stage files (default: under the temp dir, where those of the last 4 finished runs are kept)");
  cmd->add_option("--target", options->target, "Target description under targets/");
  return [options, format, output] {
    Bridge bridge(BridgeConfig::from_environment());
    options->what_if = false;
    auto session = DiagnosisSession::open(bridge, *options);
    if (!session) {
      std::cerr << format_failure(session.error());
      return 1;
    }
    // The compile tells which math ceiling applies (the dot's operand type).
    if (const auto& error = (*session)->compile(false)) {
      std::cerr << format_failure(*error);
      return 1;
    }
    auto m = measure_task(bridge, (*session)->task().path);
    if (!m) {
      std::cerr << format_failure(m.error());
      return 1;
    }
    std::string ceiling = "fp32_flops";
    for (const auto& k : (*session)->kernels())
      if (k.summary && !k.summary->dots.empty()) ceiling = compute_ceiling_key(*k.summary);
    // Against the description of the card that measured it (none: no roofline).
    std::optional<Roofline> roofline;
    auto card = target_for_measurement((*session)->target(), m->device);
    if (m->timing && card && card->ceilings.contains("hbm_bytes_per_second"))
      roofline = compute_roofline(*card, m->timing->median_ms / 1e3, static_cast<double>(m->min_bytes),
                                  static_cast<double>(m->flops), ceiling);
    std::string text;
    if (*format == "json") {
      nlohmann::json j = {{"schema", "tritondx.run/1"}, {"task", (*session)->task().path}, {"measurement", *m}};
      j["roofline"] = roofline ? nlohmann::json(*roofline) : nlohmann::json();
      text = j.dump(2) + "\n";
    } else {
      text = fmt::format("tritondx run {}\ndevice {}\n", (*session)->task().path, m->device);
      text += fmt::format("correctness: {} ({} draw{})\n", m->correct ? "passed" : "FAILED", m->draws,
                          m->draws == 1 ? "" : "s");
      for (const auto& f : m->failures) text += "  " + f.message + "\n";
      if (m->timing) text += timing_text("flushed, per call:", *m->timing);
      if (m->graph) text += timing_text("CUDA graph replay:", *m->graph);
      if (!m->graph_error.empty()) text += "  CUDA graph capture failed: " + m->graph_error + "\n";
      if (!m->recheck_passed) text += "  correctness FAILED when re-checked after timing\n";
      if (roofline)
        text += fmt::format(
            "roofline: floor {:.4f} ms, {:.1f}% of roofline; {:.0f} GB/s ({:.0f}% of HBM), {:.1f} TFLOP/s ({:.1f}% of "
            "{}); {}-bound: {}\n",
            roofline->floor_seconds * 1e3, roofline->fraction * 100, roofline->achieved_bytes_per_second / 1e9,
            roofline->bandwidth_fraction * 100, roofline->achieved_flops / 1e12, roofline->compute_fraction * 100,
            ceiling, roofline->bound, roofline->why);
    }
    if (!write_output(*output, text)) return 1;
    return m->correct && m->recheck_passed ? 0 : 1;
  };
}

}  // namespace tdx::cli
