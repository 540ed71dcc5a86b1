#include <iostream>
#include <memory>

#include "tritondx/cli/commands.h"
#include "tritondx/cli/failure.h"
#include "tritondx/ladder/ladder.h"
#include "tritondx/report/diagnosis_report.h"

namespace tdx::cli {

Runner add_diagnose_command(CLI::App& app) {
  struct Options {
    SessionOptions session;
    LadderOptions ladder;
    std::string format = "text";
    std::string output;
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
  cmd->add_option("--artifacts", o->session.artifacts_dir, "Folder for the stage files");
  cmd->add_option("--target", o->session.target, "Target description under targets/");
  return [o] {
    Bridge bridge(BridgeConfig::from_environment());
    auto session = DiagnosisSession::open(bridge, o->session);
    if (!session) {
      std::cerr << format_failure(session.error());
      return 1;
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
    if (d.compile_error) {
      // The report is written (L0 findings kept); the compile error is also on stderr.
      std::cerr << format_failure(*d.compile_error);
      return 1;
    }
    return 0;
  };
}

}  // namespace tdx::cli
