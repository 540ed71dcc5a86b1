#!/usr/bin/env python3
"""Scaffold a new ladder rule or rewrite recipe (clang-tidy's add_new_check.py, for tritondx).

Longer than 500 lines because it holds the template of every file a new rule or recipe needs
(source, header, doc page, fixtures) beside the code that writes and registers them.

Usage (from the repository root, or with --root):

    python3 tools/scaffold.py rule l2 narrow-thing --description "One sentence: what it finds."
    python3 tools/scaffold.py recipe my-recipe --description "One sentence: what it rewrites."
    python3 tools/scaffold.py ... --dry-run     # print the files and the edits, write nothing

`rule LEVEL NAME` (LEVEL is l0, l1, l2 or l3; NAME is kebab-case, the id is LEVEL-NAME) writes,
as docs/design.md section 4 ("Where things go") lays them out:

    src/tritondx/ladder/<level folder>/<name_snake>.cpp   the rule class and make_<name>_rule()
    <level folder>/rules.h                               + the factory declaration (sorted)
    <level folder>/module.cpp                            + registry.add(...) // <id> (sorted by id)
    docs/rules/<level>/<name>.md                          the doc page, titled `# <id>`
    tests/rules/<level>/<id>/silent.py                    a fixture where the rule reports nothing
    tests/rules/<level>/<id>/fires.py                     a fixture with one `# CHECK: <id>` line
    (l1 only) silent.gpu/, fires.gpu/                     links to the recordings in tests/fixtures

`recipe NAME` (the id is NAME) writes:

    src/tritondx/rewrite/recipes/<name_snake>.cpp         the Recipe class and make_<name>_recipe()
    rewrite/recipes/recipes.h                            + the factory declaration (appended)
    rewrite/recipes/module.cpp                           + registry.add(...) // <id> (appended)
    ladder/recipe_id.h                                   + "<id>" in kRecipeIds (appended)
    docs/recipes/<name>.md                                the doc page, titled `# <id>`
    tests/recipes/<id>/refuses.py                         no finding proposes the recipe: passes
    tests/recipes/<id>/applies.py, applies.expected.py    the case to make work (expected = a copy)

What compiles and what is red on purpose:
  * The rule's check() reads the context the way the level's rules do and builds a complete
    Finding (symptom, evidence, cause, confidence), but only for what `matches()` accepts, and
    `matches()` returns false: the rule is registered and reports nothing until you write it.
    The silent fixture passes. The fires fixture fails in ctest `Rules.EveryFixture` until the
    rule reports on its `# CHECK:` line (the rule runner has no expected-failure marker); that
    red test is the first thing to turn green. `RuleCatalogue.EveryRuleHasDocAndFixtures` passes.
  * The recipe's edits() finds the calls on the finding's line and builds TextEdits from what
    `rewrite()` returns, and `rewrite()` returns nullopt: the recipe declines with a reason.
    refuses.py passes; applies.py fails in `Recipes.EveryFixture` until some rule proposes the
    recipe (design.md 4, "Add a recipe" step 2) and the rewrite gives applies.expected.py.
  * Placeholders in docs and fixtures are marked SCAFFOLD: `grep -rn SCAFFOLD <printed paths>`.

Refusals (exit status 2, nothing written): an unknown level, a name that is not kebab-case (or,
for a rule, carries another level's prefix), or an id, source file, doc page, fixture folder or
factory that already exists. New .cpp files need no CMake edit (CONFIGURE_DEPENDS glob).

In-process use (tests): `import scaffold; scaffold.main(argv, root=path)` returns the exit status.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

LEVELS = {
    "l0": {"folder": "l0_triage", "title": "L0 pattern-triage"},
    "l1": {"folder": "l1_profile", "title": "L1 profiling-diagnosis"},
    "l2": {"folder": "l2_attribution", "title": "L2 IR-attribution"},
    "l3": {"folder": "l3_compiler", "title": "L3 compiler-grounded"},
}
KEBAB = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
LEVEL_PREFIX = re.compile(r"^l[0-9]+-")
RECIPES_DIR = Path("src/tritondx/rewrite/recipes")
RECIPE_IDS = Path("src/tritondx/ladder/recipe_id.h")
# L1 fixtures are verbatim example tasks with their GPU recordings (tests/rules/l1/README.md).
L1_RECORDINGS = {
    "vector_add": ["details.csv", "raw.csv", "run.json", "source.csv"],
    "softmax": ["details.csv", "raw.csv", "run.json", "source.csv"],
}


class ScaffoldError(Exception):
    """A refusal: printed as `scaffold: error: ...`, nothing is written."""


@dataclass
class Plan:
    """Everything one invocation would change: new files, new links, line insertions."""
    creates: dict[Path, str] = field(default_factory=dict)      # relative path -> text
    links: dict[Path, str] = field(default_factory=dict)        # relative path -> link target
    edits: dict[Path, tuple[str, str]] = field(default_factory=dict)  # path -> (old, new) text
    next_steps: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Names and text helpers


def snake(name: str) -> str:
    return name.replace("-", "_")


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("-"))


def cpp_string(text: str, indent: int, width: int = 116) -> str:
    """A C++ string literal for `text`, split into adjacent literals of at most `width` columns."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    words = escaped.split(" ")
    lines, current = [], ""
    room = width - indent - 2
    for w in words:
        candidate = w if not current else current + " " + w
        if current and len(candidate) + 1 > room:
            lines.append(current + " ")
            current = w
        else:
            current = candidate
    lines.append(current)
    pad = " " * indent
    return ("\n" + pad).join(f'"{line}"' for line in lines)


def sentence_case_after_colon(text: str) -> str:
    """'Loads that ...' -> 'loads that ...' (as `// l0-tiny-block: a program moves ...`), acronyms kept."""
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


def comment_lines(text: str, width: int = 100, prefix: str = "// ") -> str:
    return "\n".join(textwrap.wrap(text, width=width, initial_indent=prefix, subsequent_indent=prefix))


def md_wrap(text: str, width: int = 96) -> str:
    return "\n".join(textwrap.wrap(text, width=width))


def read(root: Path, rel: Path) -> str:
    path = root / rel
    if not path.is_file():
        raise ScaffoldError(f"{rel} not found under {root} (is --root the repository root?)")
    return path.read_text()


def comment_column(lines: list[str]) -> int:
    """The column most registry lines put their trailing `//` at."""
    columns = [line.index("  //") + 2 for line in lines if "  //" in line]
    if not columns:
        return 0
    return max(set(columns), key=lambda c: (columns.count(c), -c))


def with_comment(code: str, comment: str, column: int) -> str:
    gap = max(column - len(code), 2)
    return f"{code}{' ' * gap}// {comment}"


def insert_sorted(text: str, pattern: re.Pattern, new_line: str, new_key: str, *, sort: bool) -> str:
    """Inserts `new_line` among the lines matching `pattern` (group 1 = the sort key): before the
    first whose key is greater (sort=True), else after the last of them."""
    lines = text.split("\n")
    matches = [(i, m.group(1)) for i, line in enumerate(lines) if (m := pattern.match(line))]
    if not matches:
        raise ScaffoldError(f"found no line like {pattern.pattern!r} to insert next to")
    at = matches[-1][0] + 1
    if sort:
        for i, key in matches:
            if key > new_key:
                at = i
                break
    lines.insert(at, new_line)
    return "\n".join(lines)


def aligned_line(text: str, pattern: re.Pattern, code: str, comment: str) -> str:
    block = [line for line in text.split("\n") if pattern.match(line)]
    return with_comment(code, comment, comment_column(block))


# ---------------------------------------------------------------------------------------------
# Fixtures


VECTOR_ADD = '''\
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask){check}
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y):
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


def reference(x, y):
    return x + y


def make_inputs(device):
    n = 1 << 20
    return (torch.randn(n, device=device), torch.randn(n, device=device))


TOLERANCE = {{"rtol": 1e-6, "atol": 1e-6}}
'''


def vector_add_fixture(docstring: str, check: str = "") -> str:
    return f'"""{docstring}"""\n' + VECTOR_ADD.format(check=f"  # CHECK: {check}" if check else "")


def l1_fixture(root: Path, example: str, rule_id: str | None) -> str:
    """A verbatim example task (so its recording fits); `# CHECK:` appended to the kernel's def."""
    text = read(root, Path("examples") / f"{example}.py")
    if rule_id is None:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("def ") and i > 0 and lines[i - 1].startswith("@triton.jit"):
            lines[i] = f"{line}  # CHECK: {rule_id}"
            return "\n".join(lines)
    raise ScaffoldError(f"examples/{example}.py has no @triton.jit kernel")


def l1_links(plan: Plan, fixture_dir: Path, stem: str, example: str) -> None:
    for name in L1_RECORDINGS[example]:
        kind = "gpu" if name == "run.json" else "ncu"
        target_name = f"run_{example}.json" if kind == "gpu" else f"{example}.{name}"
        plan.links[fixture_dir / f"{stem}.gpu" / name] = f"../../../../fixtures/{kind}/{target_name}"


# ---------------------------------------------------------------------------------------------
# Rule sources, one skeleton per level: each reads the context the way that level's rules do.

RULE_BODIES = {
    "l0": dict(
        includes='#include "tritondx/ladder/l0_triage/l0_rule.h"',
        using="using namespace l0;",
        base="L0Rule",
        level_needs="",
        helpers='''\
// SCAFFOLD guard: true when the access shows the pattern. Returns false until the rule is
// written, so the rule is registered and reports nothing.
bool matches(const KernelView& view, const PyNode& access) { return false; }''',
        check='''\
  if (!has_l0_inputs(ctx)) return;
  KernelView view(ctx);
  for (const PyNode* access : view.calls({"tl.load", "tl.store"})) {
    if (!matches(view, *access)) continue;
    Finding f = finding_at(view, access->line);
    f.symptom = fmt::format("the access at line {} shows the pattern", access->line);
    f.evidence.push_back(view.source(access->line, "the access"));
    f.evidence.push_back(view.launch_evidence(fmt::format("{} programs", view.launch().programs())));
    f.cause = "why this pattern is slow, in terms of this kernel's values";
    f.confidence = 0.5;
    // To hand off to a recipe (an id in kRecipeIds, or kAdvice when none makes the change):
    // f.proposals.push_back({"recipe-id", "the change", {{"line", access->line}}});
    sink.report(std::move(f));
  }''',
    ),
    "l1": dict(
        includes='#include "tritondx/ladder/l1_profile/l1_common.h"\n#include "tritondx/ladder/l1_profile/rules.h"',
        using="using namespace l1;",
        base="Rule",
        level_needs='''\
  Level level() const override { return Level::L1; }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .measurement = true}; }
''',
        helpers='''\
// SCAFFOLD guard: true when the measurement shows the pattern. Returns false until the rule is
// written, so the rule is registered and reports nothing.
bool matches(const KernelContext& ctx, const Timing& timing) { return false; }''',
        check='''\
  if (!ctx.measurement || !ctx.measurement->timing) return;
  const Timing& t = *ctx.measurement->timing;
  if (!matches(ctx, t)) return;
  int line = kernel_line(ctx);  // kernel-wide findings sit on the `def` line
  Finding f = finding_at(ctx, line);
  f.symptom = fmt::format("median {:.3f} ms over {} repetitions", t.median_ms, t.reps);
  f.evidence.push_back(profile_evidence(ctx, line, fmt::format("median {:.3f} ms", t.median_ms), "the timing"));
  f.cause = "why the measurement shows this pattern, in terms of this kernel's values";
  f.confidence = 0.5;
  // To hand off to a recipe (an id in kRecipeIds, or kAdvice when none makes the change):
  // f.proposals.push_back({"recipe-id", "the change", {{"line", line}}});
  sink.report(std::move(f));''',
    ),
    "l2": dict(
        includes='#include "tritondx/ladder/l2_attribution/l2_rule.h"',
        using="using namespace l2;",
        base="L2Rule",
        level_needs="",
        helpers='''\
// SCAFFOLD guard: true when the TTGIR op shows the pattern. Returns false until the rule is
// written, so the rule is registered and reports nothing.
bool matches(const IrView& ir, const MlirOp& op) { return false; }''',
        check='''\
  IrView ir(ctx);
  if (!ir.ready()) return;
  for (const auto& op : ir.ttgir().ops) {
    if (!op.loc.known() || !matches(ir, op)) continue;
    Finding f = ir.finding_at(op.loc.line);
    f.symptom = fmt::format("{} at line {}", op.name, op.loc.line);
    f.evidence.push_back(ir.source(op.loc.line, "the source line"));
    f.evidence.push_back(ir.op(op, "the op it became"));
    f.cause = "why this op is slow, in terms of this kernel's IR";
    f.confidence = 0.5;
    // To hand off to a recipe (an id in kRecipeIds, or kAdvice when none makes the change):
    // f.proposals.push_back({"recipe-id", "the change", {{"line", op.loc.line}}});
    sink.report(std::move(f));
  }''',
    ),
    "l3": dict(
        includes='#include "tritondx/ladder/l3_compiler/l3_evidence.h"\n#include "tritondx/ladder/l3_compiler/rules.h"',
        using="using namespace l3;",
        base="Rule",
        level_needs='''\
  Level level() const override { return Level::L3; }
  RuleNeeds needs() const override { return RuleNeeds{.program = true, .pass_dumps = true}; }
''',
        helpers='''\
// SCAFFOLD guard: true when the compiled op shows the pattern. Returns false until the rule is
// written, so the rule is registered and reports nothing.
bool matches(const KernelContext& ctx, const MlirOp& op) { return false; }''',
        check='''\
  if (!ctx.program || !ctx.program->ttgir || !ctx.task) return;
  for (const auto& op : ctx.program->ttgir->ops) {
    int line = task_line(ctx, op);
    if (line <= 0 || !matches(ctx, op)) continue;
    Finding f;
    f.loc = SourceLoc{ctx.task->path, line, 0};
    f.symptom = fmt::format("{} at line {}", op.name, line);
    f.evidence.push_back(ctx.source_evidence(line, "the source line"));
    f.evidence.push_back(ctx.op_evidence(Stage::Ttgir, op, "the op the compiler produced"));
    f.cause = "what the compiler did and why, from its passes";
    f.confidence = 0.5;
    // To hand off to a recipe (an id in kRecipeIds, or kAdvice when none makes the change):
    // f.proposals.push_back({"recipe-id", "the change", {{"line", line}}});
    sink.report(std::move(f));
  }''',
    ),
}


def rule_source(level: str, rule_id: str, name: str, description: str, factory: str) -> str:
    b = RULE_BODIES[level]
    cls = f"{camel(name)}Rule"
    header = comment_lines(f"{rule_id}: {sentence_case_after_colon(description)}")
    return f'''{header}
#include <fmt/format.h>

{b["includes"]}

namespace tdx {{
namespace {{

{b["using"]}

{b["helpers"]}

class {cls} final : public {b["base"]} {{
 public:
  std::string_view id() const override {{ return "{rule_id}"; }}
{b["level_needs"]}  std::string_view description() const override {{
    return {cpp_string(description, 11)};
  }}
  void check(const KernelContext& ctx, FindingSink& sink) const override;
}};

void {cls}::check(const KernelContext& ctx, FindingSink& sink) const {{
{b["check"]}
}}

}}  // namespace

std::unique_ptr<Rule> {factory}() {{ return std::make_unique<{cls}>(); }}

}}  // namespace tdx
'''


def rule_doc(rule_id: str, description: str, level: str) -> str:
    fixtures = f"tests/rules/{level}/{rule_id}/"
    return f"""# {rule_id}

{md_wrap(description)}

## Why it is slow

SCAFFOLD: the mechanism (what the hardware or the compiler does with this pattern) and what it
costs.

## Example

{md_wrap(f"SCAFFOLD: the lines of `{fixtures}fires.py` the rule reports, the finding's symptom, and "
          "its proposals (recipe id and parameters), if any.")}

## Options

None.

## Limitations

- SCAFFOLD: what the rule does not see, and when it stays silent on purpose.
"""


def plan_rule(root: Path, level: str, name: str, description: str) -> Plan:
    if level not in LEVELS:
        raise ScaffoldError(f"unknown level {level!r}: use one of {', '.join(LEVELS)}")
    if name.startswith(f"{level}-"):
        name = name[len(level) + 1:]
    if not KEBAB.match(name):
        raise ScaffoldError(f"rule name {name!r} is not kebab-case (lower-case words joined by '-')")
    if LEVEL_PREFIX.match(name):
        raise ScaffoldError(f"rule name {name!r} carries a level prefix other than {level}-")
    rule_id = f"{level}-{name}"
    folder = Path("src/tritondx/ladder") / LEVELS[level]["folder"]
    source = folder / f"{snake(name)}.cpp"
    rules_h, module = folder / "rules.h", folder / "module.cpp"
    doc = Path("docs/rules") / level / f"{name}.md"
    fixtures = Path("tests/rules") / level / rule_id
    header_text, module_text = read(root, rules_h), read(root, module)

    if re.search(rf"//\s*{re.escape(rule_id)}\s*$", module_text, re.M) or re.search(
            rf'return "{re.escape(rule_id)}";', "\n".join(
                p.read_text() for p in (root / folder).glob("*.cpp"))):
        raise ScaffoldError(f"rule {rule_id} already exists (registered in {module})")
    for existing in (source, doc, fixtures):
        if (root / existing).exists():
            raise ScaffoldError(f"rule {rule_id}: {existing} already exists")

    # Factories live in one namespace: a name another level already uses gets the level prefix,
    # as make_l1_shared_bank_conflicts_rule does.
    declared = "\n".join((root / "src/tritondx/ladder" / info["folder"] / "rules.h").read_text()
                         for info in LEVELS.values()
                         if (root / "src/tritondx/ladder" / info["folder"] / "rules.h").is_file())
    factory = f"make_{snake(name)}_rule"
    if re.search(rf"\b{factory}\(", declared):
        factory = f"make_{level}_{snake(name)}_rule"
        if re.search(rf"\b{factory}\(", declared):
            raise ScaffoldError(f"rule {rule_id}: factory {factory} already exists")

    plan = Plan()
    plan.creates[source] = rule_source(level, rule_id, name, description, factory)
    decl = re.compile(r"^std::unique_ptr<Rule> (make_\w+_rule)\(\);")
    plan.edits[rules_h] = (header_text, insert_sorted(
        header_text, decl, f"std::unique_ptr<Rule> {factory}();", factory, sort=True))
    add = re.compile(r"^  registry\.add\(make_\w+\(\)\);\s*//\s*(\S+)\s*$")
    line = aligned_line(module_text, add, f"  registry.add({factory}());", rule_id)
    plan.edits[module] = (module_text, insert_sorted(module_text, add, line, rule_id, sort=True))
    plan.creates[doc] = rule_doc(rule_id, description, level)

    if level == "l1":
        plan.creates[fixtures / "silent.py"] = l1_fixture(root, "vector_add", None)
        l1_links(plan, fixtures, "silent", "vector_add")
        plan.creates[fixtures / "fires.py"] = l1_fixture(root, "softmax", rule_id)
        l1_links(plan, fixtures, "fires", "softmax")
        fires_note = ("fires.py is examples/softmax.py verbatim (its recording in fires.gpu/ fits it) with "
                      f"`# CHECK: {rule_id}` on the kernel's def line; move the marker to where the rule must "
                      "report, or use another example from tests/rules/l1/README.md")
    else:
        plan.creates[fixtures / "silent.py"] = vector_add_fixture(
            f"{rule_id} stays silent: the idiomatic vector add (1024-element blocks, one masked load per\n"
            "operand).")
        plan.creates[fixtures / "fires.py"] = vector_add_fixture(
            f"{rule_id} fires: SCAFFOLD: replace this kernel with one that shows the pattern, and end each\n"
            f"line the rule must report with `# CHECK: {rule_id}`. Until check() reports exactly there,\n"
            "ctest Rules.EveryFixture fails on this file.", rule_id)
        fires_note = f"replace the placeholder kernel in fires.py; the `# CHECK: {rule_id}` marker sits on a tl.load"

    plan.next_steps = [
        f"Write the rule in {source}: make matches() recognise the pattern (it returns false, so the "
        "rule reports nothing yet), then adjust the finding's symptom, evidence, cause and confidence.",
        f"Fixtures in {fixtures}/: {fires_note}. ctest Rules.EveryFixture fails on fires.py until the rule "
        "reports on exactly the marked lines; silent.py passes now.",
        f"Fill the SCAFFOLD parts of {doc} (grep -n SCAFFOLD {doc} {fixtures}/*.py).",
        f"Build and check: cmake --build build --target tritondx tritondx_rule_tests && build/tritondx rules "
        f"| grep {rule_id} && build/tests/tritondx_rule_tests "
        f"--gtest_filter='Rules/*{snake(rule_id)}_*:RuleCatalogue.*' (the fixtures need the bridge's .venv).",
    ]
    return plan


# ---------------------------------------------------------------------------------------------
# Recipes


def recipe_source(recipe_id: str, description: str) -> str:
    cls = f"{camel(recipe_id)}Recipe"
    header = comment_lines(f"{recipe_id}: {sentence_case_after_colon(description)}")
    return f'''{header}
#include <optional>
#include <string>

#include <fmt/format.h>

#include "tritondx/rewrite/recipes/recipe_util.h"
#include "tritondx/rewrite/recipes/recipes.h"

namespace tdx {{
namespace {{

// SCAFFOLD guard: the replacement text for one call on the finding's line, or nullopt when the
// call does not take the rewrite. Returns nullopt until the recipe is written, so the recipe
// declines with a reason.
std::optional<std::string> rewrite(const KernelContext& ctx, const RewriteProposal& proposal, const PyNode& call) {{
  return std::nullopt;
}}

class {cls} final : public Recipe {{
 public:
  std::string_view id() const override {{ return "{recipe_id}"; }}
  std::string_view description() const override {{
    return {cpp_string(description, 11)};
  }}
  Expected<std::vector<TextEdit>> edits(const RecipeInput& in) const override;
}};

Expected<std::vector<TextEdit>> {cls}::edits(const RecipeInput& in) const {{
  const auto& ctx = in.ctx;
  int line = in.finding.loc.line;
  std::vector<TextEdit> edits;
  for (const PyNode* call : recipe_util::kernel_calls_on_line(ctx, {{"tl.load", "tl.store"}}, line))
    if (auto replacement = rewrite(ctx, in.proposal, *call)) edits.push_back(TextEdit::replace(*call, *replacement));
  if (edits.empty())
    return fail(Stage::Rewrite, fmt::format("{recipe_id}: nothing to rewrite on line {{}}", line), line);
  return edits;
}}

}}  // namespace

std::unique_ptr<Recipe> make_{snake(recipe_id)}_recipe() {{ return std::make_unique<{cls}>(); }}

}}  // namespace tdx
'''


def recipe_doc(recipe_id: str, description: str) -> str:
    return f"""# {recipe_id}

{md_wrap(description)}

Proposed by SCAFFOLD: the rule(s) whose findings name `{recipe_id}`, linked as
`[lN-rule](../rules/lN/rule.md)`.

## What it does

SCAFFOLD: before and after, with the proposal's parameters that drive it.

## Why

SCAFFOLD: why the rewritten kernel is faster, and when the gain shows.

## When it refuses

- nothing on the finding's line takes the rewrite.

## Fixtures

`tests/recipes/{recipe_id}/`: `applies.py` (SCAFFOLD: the case it rewrites), `refuses.py` (no
finding proposes the recipe).
"""


def plan_recipe(root: Path, recipe_id: str, description: str) -> Plan:
    if not KEBAB.match(recipe_id):
        raise ScaffoldError(f"recipe name {recipe_id!r} is not kebab-case (lower-case words joined by '-')")
    if LEVEL_PREFIX.match(recipe_id):
        raise ScaffoldError(f"recipe name {recipe_id!r} starts with a level prefix: that is how rule ids start")
    source = RECIPES_DIR / f"{snake(recipe_id)}.cpp"
    recipes_h, module = RECIPES_DIR / "recipes.h", RECIPES_DIR / "module.cpp"
    ids_h = RECIPE_IDS
    doc = Path("docs/recipes") / f"{recipe_id}.md"
    fixtures = Path("tests/recipes") / recipe_id
    header_text, module_text = read(root, recipes_h), read(root, module)
    sources = "\n".join(p.read_text() for p in (root / RECIPES_DIR).glob("*.cpp"))
    if re.search(rf"//\s*{re.escape(recipe_id)}\s*$", module_text, re.M) or \
            f'return "{recipe_id}";' in sources:
        raise ScaffoldError(f"recipe {recipe_id} already exists (registered in {module})")
    for existing in (source, doc, fixtures):
        if (root / existing).exists():
            raise ScaffoldError(f"recipe {recipe_id}: {existing} already exists")
    factory = f"make_{snake(recipe_id)}_recipe"
    if re.search(rf"\b{factory}\(", header_text):
        raise ScaffoldError(f"recipe {recipe_id}: factory {factory} already exists")

    plan = Plan()
    plan.creates[source] = recipe_source(recipe_id, description)
    decl = re.compile(r"^std::unique_ptr<Recipe> (make_\w+_recipe)\(\);")
    plan.edits[recipes_h] = (header_text, insert_sorted(
        header_text, decl, f"std::unique_ptr<Recipe> {factory}();  // {source.name}", factory, sort=False))
    add = re.compile(r"^  registry\.add\(make_\w+\(\)\);\s*//\s*(\S+)\s*$")
    plan.edits[module] = (module_text, insert_sorted(
        module_text, add, f"  registry.add({factory}());  // {recipe_id}", recipe_id, sort=False))
    ids_text = read(root, ids_h)
    end = ids_text.find("\n});", ids_text.find("kRecipeIds"))
    if end < 0:
        raise ScaffoldError(f"{ids_h}: no kRecipeIds list ending in '}});' to add {recipe_id} to")
    plan.edits[ids_h] = (ids_text, ids_text[:end] + f'\n    "{recipe_id}",' + ids_text[end:])
    plan.creates[doc] = recipe_doc(recipe_id, description)
    applies = vector_add_fixture(
        f"{recipe_id} applies: SCAFFOLD: replace this kernel with one where a finding proposes\n"
        f"{recipe_id}, and edit applies.expected.py (a copy of this file for now) into the exact text the\n"
        "recipe must produce. Until then ctest Recipes.EveryFixture fails on this file.")
    plan.creates[fixtures / "applies.py"] = applies
    plan.creates[fixtures / "applies.expected.py"] = applies
    plan.creates[fixtures / "refuses.py"] = vector_add_fixture(
        f"{recipe_id} refuses: the idiomatic vector add; no finding proposes {recipe_id}. Keep this a\n"
        "case the recipe must leave alone once a rule proposes it.")
    plan.next_steps = [
        f"Write the rewrite in {source}: rewrite() returns nullopt, so the recipe declines with a reason.",
        f"Make a rule propose it: f.proposals.push_back({{\"{recipe_id}\", \"the change\", {{...params}}}}) "
        "(RecipeRewriter only applies recipes that findings name).",
        f"Fixtures in {fixtures}/: make applies.py a kernel where that finding fires and applies.expected.py "
        "the exact rewritten text; ctest Recipes.EveryFixture fails on applies.py until then. refuses.py "
        "passes now.",
        f"Fill the SCAFFOLD parts of {doc} (grep -n SCAFFOLD {doc} {fixtures}/*.py).",
        f"Build and check: cmake --build build --target tritondx tritondx_rewrite_tests && build/tritondx recipes "
        f"| grep {recipe_id} && build/tests/tritondx_rewrite_tests "
        f"--gtest_filter='Recipes/*{snake(recipe_id)}_*:RecipeCatalogue.*' (the fixtures need the bridge's .venv).",
    ]
    return plan


# ---------------------------------------------------------------------------------------------
# Output


def describe(plan: Plan) -> str:
    out = []
    for rel, text in plan.creates.items():
        out.append(f"=== create {rel} ({text.count(chr(10))} lines)")
        out.append(text.rstrip("\n"))
    for rel, target in plan.links.items():
        out.append(f"=== link {rel} -> {target}")
    for rel, (old, new) in plan.edits.items():
        out.append(f"=== edit {rel}")
        out.append("".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                f"a/{rel}", f"b/{rel}")).rstrip("\n"))
    return "\n".join(out)


def apply(root: Path, plan: Plan) -> None:
    for rel, text in plan.creates.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel, target in plan.links.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    for rel, (_, new) in plan.edits.items():
        (root / rel).write_text(new)


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="scaffold.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="kind", required=True)
    r = sub.add_parser("rule", help="a ladder rule: LEVEL (l0..l3) and NAME (kebab-case)")
    r.add_argument("level")
    r.add_argument("name")
    c = sub.add_parser("recipe", help="a rewrite recipe: NAME (kebab-case) is its id")
    c.add_argument("name")
    for s in (r, c):
        s.add_argument("--description", required=True, help="one paragraph; opens the doc page")
        s.add_argument("--dry-run", action="store_true", help="print the files and edits, write nothing")
        s.add_argument("--root", help="repository root (default: the parent of tools/)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None, root: Path | str | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    base = Path(root or args.root or Path(__file__).resolve().parents[1])
    description = " ".join(args.description.split())
    try:
        if not description:
            raise ScaffoldError("--description is empty")
        if args.kind == "rule":
            plan = plan_rule(base, args.level.lower(), args.name, description)
        else:
            plan = plan_recipe(base, args.name, description)
    except ScaffoldError as e:
        print(f"scaffold: error: {e}; nothing written", file=sys.stderr)
        return 2
    if args.dry_run:
        print(describe(plan))
        print("=== dry run: nothing written")
        return 0
    apply(base, plan)
    for rel in [*plan.creates, *plan.links]:
        print(f"created {rel}")
    for rel in plan.edits:
        print(f"edited  {rel}")
    print("\nNext steps:")
    for i, step in enumerate(plan.next_steps, 1):
        print(f"  {i}. {step}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
