#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>

#include "tritondx/cli/commands.h"
#include "tritondx/cli/fail_on.h"
#include "tritondx/cli/failure.h"
#include "tritondx/ladder/ladder.h"
#include "tritondx/measure/measurement.h"
#include "tritondx/report/diagnosis_report.h"

namespace tdx::cli {

namespace {

// Measures the task on this machine's GPU and profiles each kernel with Nsight Compute.
// Returns what could not be done (L1 then reports what it has), empty if all went well.
std::string profile_session(const Bridge& bridge, DiagnosisSession& session) {
  std::string status;
  auto m = measure_task(bridge, session.task().path);
  if (!m) return "warning: no GPU measurement: " + m.error().diagnostic.to_string() + "\n";
  session.attach_measurement(std::move(*m));
  for (const auto& problem : session.profile_kernels(bridge)) status += "warning: " + problem + "\n";
  return status;
}

}  // namespace

Runner add_diagnose_command(CLI::App& app) {
  struct Options {
    SessionOptions session;
    LadderOptions ladder;
    std::string format = "text";
    std::string output;
    bool profile = false;
    std::string recording;
    std::string report_dir;
    std::vector<std::string> fail_on;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("diagnose", "Explain why a kernel is slow: L0 triage, L2 IR attribution, L3 compiler analysis");
  cmd->add_option("task", o->session.task_path, "Task file (see docs/task-format.md)")->required();
  cmd->add_option("--kernel", o->session.kernel, "Only this kernel");
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json", "markdown", "html"}));
  cmd->add_option("-o,--output", o->output, "Write the report here instead of stdout");
  cmd->add_option("--max-level", o->ladder.max_level, "Climb no higher than this level (0-3)")->check(CLI::Range(0, 3));
  cmd->add_flag("--all-levels", o->ladder.all_levels, "Run every level even when the findings explain the gap");
  cmd->add_flag("!--no-what-if", o->session.what_if, "Do not run what-if compiles at L3");
  cmd->add_option("--disable", o->ladder.disabled_rules, "Rule ids to skip");
  cmd->add_option("--artifacts", o->session.artifacts_dir, "Folder for the stage files (default: under the temp dir, where those of the last 4 finished runs are kept)");
  cmd->add_option("--target", o->session.target, "Target description under targets/");
  cmd->add_option("--report-dir", o->report_dir,
                  "Also write diagnosis.{txt,json,md,html} into this folder");
  cmd->add_flag("--profile", o->profile, "On a GPU: measure correctness and timing, run Nsight Compute (L1)");
  cmd->add_option("--recording", o->recording,
                  "Use L1 data recorded on a GPU: a folder with run.json and ncu's details/raw/source CSVs");
  // The rule ids are read only when --fail-on is given, not at every start of the command line.
  cmd->add_option("--fail-on", o->fail_on,
                  "Exit 1 when a finding at this level (L0-L3) or of this rule id is reported (repeatable; for CI)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            RuleRegistry registry;
            register_all_rules(registry);
            const auto choices = fail_on_choices(registry);
            return std::find(choices.begin(), choices.end(), v) != choices.end()
                       ? std::string()
                       : v + " is neither a level (L0-L3) nor a rule id (`tritondx rules` lists them)";
          },
          "LEVEL|RULE"));
  return [o]() -> int {
    Bridge bridge(BridgeConfig::from_environment());
    auto session = DiagnosisSession::open(bridge, o->session);
    if (!session) {
      std::cerr << format_failure(session.error());
      return 1;
    }
    if (o->profile || !o->recording.empty()) {
      // L1 data go with the compiled kernel (the roofline's ceiling follows its dot type; hot
      // lines need its SASS), so compile first.
      if (const auto& error = (*session)->compile(o->ladder.max_level >= 3 || o->ladder.all_levels)) {
        std::cerr << format_failure(*error);
        return 1;
      }
      if (!o->recording.empty()) {
        if (auto loaded = (*session)->load_recording(o->recording); !loaded) {
          std::cerr << "error: " << loaded.error().to_string() << "\n";
          return 1;
        }
      } else if (auto status = profile_session(bridge, **session); !status.empty()) {
        std::cerr << status;
      }
    }
    RuleRegistry registry;
    register_all_rules(registry);
    Diagnosis d = run_ladder(**session, registry, o->ladder);
    std::string text;
    if (o->format == "json") text = diagnosis_to_json(d).dump(2) + "\n";
    else if (o->format == "markdown") text = render_diagnosis_markdown(d);
    else if (o->format == "html") text = render_diagnosis_html(d, **session);
    else text = render_diagnosis_text(d);
    if (!write_output(o->output, text)) return 1;
    if (!o->report_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o->report_dir, ec);
      const std::filesystem::path dir(o->report_dir);
      bool ok = write_output((dir / "diagnosis.txt").string(), render_diagnosis_text(d)) &&
                write_output((dir / "diagnosis.json").string(), diagnosis_to_json(d).dump(2) + "\n") &&
                write_output((dir / "diagnosis.md").string(), render_diagnosis_markdown(d)) &&
                write_output((dir / "diagnosis.html").string(), render_diagnosis_html(d, **session));
      if (!ok) return 1;
    }
    if (d.compile_error) {
      // The report is written (L0 findings kept); the compile error is also on stderr.
      std::cerr << format_failure(*d.compile_error);
      return kExitFailed;
    }
    if (const auto failing = findings_failing_on(d, o->fail_on); !failing.empty()) {
      std::cerr << "tritondx: --fail-on: " << failing.size() << " finding(s) selected:\n";
      for (const Finding* f : failing)
        std::cerr << "  " << level_name(f->level) << " " << f->rule_id << " at line " << f->loc.line << ": "
                  << f->symptom << "\n";
      return kExitFailed;
    }
    return kExitOk;
  };
}

}  // namespace tdx::cli
