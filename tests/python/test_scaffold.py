"""tools/scaffold.py (new rule / new recipe skeletons): run in-process on a copy of the files it
reads and edits, in the real directory layout under tmp_path. Checks the exact registry edits
(one line, in place), the generated files, the refusals (nothing written) and --dry-run. The
C++ it writes is compiled only by the one-off real-tree check described in the script."""
import ast
import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "scaffold.py"
LEVEL_FOLDERS = {"l0": "l0_triage", "l1": "l1_profile", "l2": "l2_attribution", "l3": "l3_compiler"}
RECIPES = Path("src/tritondx/rewrite/recipes")


def _load():
    name = "tritondx_scaffold"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, TOOL)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


sc = _load()

# The real files the script reads or edits (registries, the examples L1 fixtures copy).
COPIED = [Path("src/tritondx/ladder") / f / n for f in LEVEL_FOLDERS.values() for n in ("rules.h", "module.cpp")]
COPIED += [RECIPES / "recipes.h", RECIPES / "module.cpp", Path("src/tritondx/ladder/recipe_id.h"),
           Path("examples/vector_add.py"),
           Path("examples/softmax.py")]


@pytest.fixture
def tree(tmp_path):
    for rel in COPIED:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, tmp_path / rel)
    return tmp_path


def snapshot(root: Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            out[rel] = ("link", str(p.readlink()))
        elif p.is_file():
            out[rel] = p.read_bytes()
        else:
            out[rel] = "dir"
    return out


def run(root, *argv):
    return sc.main(list(argv), root=root)


def registry_lines(text: str, token: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if token in line]


def only_added(before: str, after: str, line: str):
    """`after` is `before` with exactly `line` inserted once."""
    a = after.split("\n")
    assert a.count(line) == 1, line
    a.remove(line)
    assert a == before.split("\n")


def test_rule_l2_files_and_sorted_registry(tree, capsys):
    level = tree / "src/tritondx/ladder/l2_attribution"
    header_before, module_before = (level / "rules.h").read_text(), (level / "module.cpp").read_text()
    assert run(tree, "rule", "l2", "narrow-thing", "--description", 'Loads that are "narrow".') == 0

    header = (level / "rules.h").read_text()
    decl = "std::unique_ptr<Rule> make_narrow_thing_rule();"
    only_added(header_before, header, decl)
    lines = header.split("\n")
    i = lines.index(decl)
    assert lines[i - 1] == "std::unique_ptr<Rule> make_narrow_pipe_bound_rule();"
    assert lines[i + 1] == "std::unique_ptr<Rule> make_register_limited_occupancy_rule();"

    module = (level / "module.cpp").read_text()
    add = "  registry.add(make_narrow_thing_rule());                // l2-narrow-thing"
    only_added(module_before, module, add)
    lines = module.split("\n")
    i = lines.index(add)
    assert lines[i - 1].endswith("// l2-narrow-pipe-bound")
    assert lines[i + 1].endswith("// l2-register-limited-occupancy")
    assert lines[i].index("//") == lines[i - 1].index("//")  # aligned with its neighbours

    src = (level / "narrow_thing.cpp").read_text()
    assert src.startswith('// l2-narrow-thing: loads that are "narrow".\n')
    assert 'return "l2-narrow-thing";' in src
    assert 'return "Loads that are \\"narrow\\".";' in src  # escaped for C++
    assert "class NarrowThingRule final : public L2Rule" in src
    assert "std::unique_ptr<Rule> make_narrow_thing_rule() { return std::make_unique<NarrowThingRule>(); }" in src
    assert '#include "tritondx/ladder/l2_attribution/l2_rule.h"' in src
    assert "return false; }" in src and "sink.report(std::move(f));" in src  # guarded, never fires
    assert "TODO" not in src
    assert src.count("{") == src.count("}")

    doc = (tree / "docs/rules/l2/narrow-thing.md").read_text()
    assert doc.split("\n")[0] == "# l2-narrow-thing"
    fixtures = tree / "tests/rules/l2/l2-narrow-thing"
    assert sorted(p.name for p in fixtures.iterdir()) == ["fires.py", "silent.py"]
    fires, silent = (fixtures / "fires.py").read_text(), (fixtures / "silent.py").read_text()
    ast.parse(fires), ast.parse(silent)
    # The rule runner's marker: exactly one line ends with `# CHECK: <id>`; none in silent.py.
    assert [line for line in fires.split("\n") if line.endswith("# CHECK: l2-narrow-thing")] == [
        "    x = tl.load(x_ptr + offs, mask=mask)  # CHECK: l2-narrow-thing"]
    assert "# CHECK:" not in silent
    out = capsys.readouterr().out
    assert "Next steps:" in out and "Rules.EveryFixture" in out and "matches()" in out
    assert "--gtest_filter='Rules/*l2_narrow_thing_*:RuleCatalogue.*'" in out


@pytest.mark.parametrize("level", sorted(LEVEL_FOLDERS))
def test_rule_every_level(tree, level):
    folder = tree / "src/tritondx/ladder" / LEVEL_FOLDERS[level]
    before = snapshot(tree)
    assert run(tree, "rule", level, "zz-probe", "--description", "A probe.") == 0
    rule_id = f"{level}-zz-probe"
    header, module = (folder / "rules.h").read_text(), (folder / "module.cpp").read_text()
    assert header.count("make_zz_probe_rule();") == 1
    assert module.count(f"registry.add(make_zz_probe_rule());") == 1
    # zz sorts last: right after the last existing registry line, before the closing brace.
    lines = module.split("\n")
    i = registry_lines(module, f"// {rule_id}")[0]
    assert lines[i + 1] == "}" and lines[i - 1].startswith("  registry.add(")
    src = (folder / "zz_probe.cpp").read_text()
    assert f'return "{rule_id}";' in src and "namespace tdx {" in src
    if level in ("l1", "l3"):
        assert f"Level::{level.upper()}" in src
    assert (tree / f"docs/rules/{level}/zz-probe.md").read_text().startswith(f"# {rule_id}\n")
    fixtures = tree / "tests/rules" / level / rule_id
    fires = (fixtures / "fires.py").read_text()
    assert sum(line.endswith(f"# CHECK: {rule_id}") for line in fires.split("\n")) == 1
    after = snapshot(tree)
    added = {p for p in set(after) - set(before) if after[p] != "dir"}
    expected = {f"src/tritondx/ladder/{LEVEL_FOLDERS[level]}/zz_probe.cpp", f"docs/rules/{level}/zz-probe.md",
                f"tests/rules/{level}/{rule_id}/fires.py", f"tests/rules/{level}/{rule_id}/silent.py"}
    if level == "l1":
        # Verbatim examples with their recordings (tests/rules/l1/README.md).
        assert (fixtures / "silent.py").read_text() == (tree / "examples/vector_add.py").read_text()
        assert fires.replace(f"  # CHECK: {rule_id}", "") == (tree / "examples/softmax.py").read_text()
        for stem, example in (("silent", "vector_add"), ("fires", "softmax")):
            gpu = fixtures / f"{stem}.gpu"
            assert str((gpu / "run.json").readlink()) == f"../../../../fixtures/gpu/run_{example}.json"
            for csv in ("details", "raw", "source"):
                assert str((gpu / f"{csv}.csv").readlink()) == f"../../../../fixtures/ncu/{example}.{csv}.csv"
            expected |= {f"tests/rules/l1/{rule_id}/{stem}.gpu/{n}"
                         for n in ("run.json", "details.csv", "raw.csv", "source.csv")}
    assert added == expected


def test_rule_sorts_first_and_accepts_prefixed_name(tree):
    assert run(tree, "rule", "l0", "l0-aaa-first", "--description", "First.") == 0
    module = (tree / "src/tritondx/ladder/l0_triage/module.cpp").read_text().split("\n")
    first = next(i for i, line in enumerate(module) if "registry.add(" in line)
    assert module[first].startswith("  registry.add(make_aaa_first_rule());") and module[first].endswith("// l0-aaa-first")
    assert (tree / "tests/rules/l0/l0-aaa-first/silent.py").exists()


def test_factory_name_clash_gets_level_prefix(tree):
    # make_shared_bank_conflicts_rule is L2's; L1's is make_l1_shared_bank_conflicts_rule.
    assert run(tree, "rule", "l3", "shared-bank-conflicts", "--description", "Clash.") == 0
    header = (tree / "src/tritondx/ladder/l3_compiler/rules.h").read_text()
    assert header.count("std::unique_ptr<Rule> make_l3_shared_bank_conflicts_rule();") == 1
    module = (tree / "src/tritondx/ladder/l3_compiler/module.cpp").read_text()
    assert module.count("registry.add(make_l3_shared_bank_conflicts_rule());") == 1


def test_recipe_files_and_appended_registry(tree, capsys):
    header_before = (tree / RECIPES / "recipes.h").read_text()
    module_before = (tree / RECIPES / "module.cpp").read_text()
    assert run(tree, "recipe", "my-recipe", "--description", "Rewrites a narrow thing into a wide one.") == 0
    header = (tree / RECIPES / "recipes.h").read_text()
    decl = "std::unique_ptr<Recipe> make_my_recipe_recipe();  // my_recipe.cpp"
    only_added(header_before, header, decl)
    lines = header.split("\n")
    i = lines.index(decl)
    # Appended after the last factory, as the registry's recent entries are.
    assert lines[i - 1].startswith("std::unique_ptr<Recipe> make_") and lines[i + 1] == ""
    module = (tree / RECIPES / "module.cpp").read_text()
    add = "  registry.add(make_my_recipe_recipe());  // my-recipe"
    only_added(module_before, module, add)
    lines = module.split("\n")
    assert lines[lines.index(add) + 1] == "}"
    # The id joins kRecipeIds, the list a rule's proposal is checked against when it compiles.
    ids_path = tree / "src/tritondx/ladder/recipe_id.h"
    ids = ids_path.read_text()
    assert '    "my-recipe",\n});' in ids
    assert ids.replace('\n    "my-recipe",', "", 1) == (ROOT / "src/tritondx/ladder/recipe_id.h").read_text()

    src = (tree / RECIPES / "my_recipe.cpp").read_text()
    assert src.startswith("// my-recipe: rewrites a narrow thing into a wide one.\n")
    assert 'return "my-recipe";' in src and "class MyRecipeRecipe final : public Recipe" in src
    assert "std::unique_ptr<Recipe> make_my_recipe_recipe()" in src
    assert "tritondx/ladder/" not in src  # layering rule3: recipes include no ladder header
    assert "TODO" not in src

    assert (tree / "docs/recipes/my-recipe.md").read_text().split("\n")[0] == "# my-recipe"
    fixtures = tree / "tests/recipes/my-recipe"
    assert sorted(p.name for p in fixtures.iterdir()) == ["applies.expected.py", "applies.py", "refuses.py"]
    applies = (fixtures / "applies.py").read_text()
    assert (fixtures / "applies.expected.py").read_text() == applies
    assert not applies.startswith("# TARGET-GONE")
    # Not picked up by tests/python/test_recipe_fixtures.py (interpreter runs).
    assert "def make_small_inputs" not in applies
    for p in fixtures.iterdir():
        ast.parse(p.read_text())
    out = capsys.readouterr().out
    assert "Next steps:" in out and "proposals.push_back" in out


@pytest.mark.parametrize("argv, message", [
    (["rule", "l0", "tiny-block"], "already exists"),
    (["rule", "l0", "l0-tiny-block"], "already exists"),
    (["rule", "l4", "new-thing"], "unknown level"),
    (["rule", "x", "new-thing"], "unknown level"),
    (["rule", "l2", "NarrowThing"], "not kebab-case"),
    (["rule", "l2", "narrow_thing"], "not kebab-case"),
    (["rule", "l2", "narrow--thing"], "not kebab-case"),
    (["rule", "l2", "narrow-thing-"], "not kebab-case"),
    (["rule", "l2", "9lives"], "not kebab-case"),
    (["rule", "l2", "l0-thing"], "level prefix"),
    (["recipe", "exp-to-exp2"], "already exists"),
    (["recipe", "grow-block"], "already exists"),
    (["recipe", "My-Recipe"], "not kebab-case"),
    (["recipe", "my recipe"], "not kebab-case"),
    (["recipe", "l1-recipe"], "level prefix"),
])
def test_refusals_write_nothing(tree, capsys, argv, message):
    before = snapshot(tree)
    assert run(tree, *argv, "--description", "Anything.") == 2
    err = capsys.readouterr().err
    assert "error" in err and message in err and "nothing written" in err
    assert snapshot(tree) == before


@pytest.mark.parametrize("kind, argv, existing", [
    ("doc page", ["rule", "l2", "narrow-thing"], "docs/rules/l2/narrow-thing.md"),
    ("fixtures", ["rule", "l2", "narrow-thing"], "tests/rules/l2/l2-narrow-thing/fires.py"),
    ("source", ["rule", "l2", "narrow-thing"], "src/tritondx/ladder/l2_attribution/narrow_thing.cpp"),
    ("doc page", ["recipe", "my-recipe"], "docs/recipes/my-recipe.md"),
    ("fixtures", ["recipe", "my-recipe"], "tests/recipes/my-recipe/refuses.py"),
    ("source", ["recipe", "my-recipe"], "src/tritondx/rewrite/recipes/my_recipe.cpp"),
])
def test_refuses_any_existing_piece(tree, capsys, kind, argv, existing):
    (tree / existing).parent.mkdir(parents=True, exist_ok=True)
    (tree / existing).write_text("already here\n")
    before = snapshot(tree)
    assert run(tree, *argv, "--description", "Anything.") == 2
    assert "already exists" in capsys.readouterr().err
    assert snapshot(tree) == before


def test_refuses_empty_description(tree, capsys):
    before = snapshot(tree)
    assert run(tree, "recipe", "my-recipe", "--description", "   ") == 2
    assert snapshot(tree) == before


@pytest.mark.parametrize("argv", [
    ["rule", "l1", "my-probe"],
    ["recipe", "my-recipe"],
])
def test_dry_run_writes_nothing(tree, capsys, argv):
    before = snapshot(tree)
    assert run(tree, *argv, "--description", "A probe.", "--dry-run") == 0
    assert snapshot(tree) == before
    out = capsys.readouterr().out
    assert "nothing written" in out
    assert re.search(r"^=== create \S+\.cpp", out, re.M) and re.search(r"^=== create \S+\.md", out, re.M)
    assert re.search(r"^\+  registry\.add\(make_my_\w+\(\)\);", out, re.M)  # the registry line, as a diff
    assert out.count("=== edit ") == (3 if argv[0] == "recipe" else 2)  # a recipe also joins kRecipeIds
    if argv[0] == "rule":
        assert "=== link tests/rules/l1/l1-my-probe/fires.gpu/run.json -> ../../../../fixtures/gpu/run_softmax.json" in out


def test_long_description_wraps_as_adjacent_literals(tree):
    words = " ".join(["word"] * 60)
    assert run(tree, "recipe", "long-one", "--description", words) == 0
    src = (tree / RECIPES / "long_one.cpp").read_text()
    assert all(len(line) <= 120 for line in src.split("\n"))
    body = re.search(r"description\(\) const override \{\n    return (.*?);\n  \}", src, re.S).group(1)
    joined = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body))
    assert joined == words
