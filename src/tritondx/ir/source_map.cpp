#include "tritondx/ir/source_map.h"

#include <filesystem>
#include <set>

namespace tdx {

bool same_source_file(const std::string& loc_file, const std::string& source_file) {
  if (loc_file == source_file) return true;
  if (loc_file.empty() || source_file.empty()) return false;
  return std::filesystem::path(loc_file).filename() == std::filesystem::path(source_file).filename();
}

namespace {

template <class Item>
void index_items(const std::vector<Item>& items, const std::string& source_file, auto&& loc_of, auto& out) {
  out.locs.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    SourceLoc loc = loc_of(items[i]);
    if (!loc.known() || !same_source_file(loc.file, source_file)) {
      out.locs.push_back({});
      ++out.unmapped;
      continue;
    }
    out.by_line[loc.line].push_back(static_cast<int>(i));
    out.locs.push_back(std::move(loc));
  }
}

}  // namespace

SourceMap SourceMap::build(const Program& program, const std::string& source_file) {
  SourceMap map;
  auto loc = [](const auto& item) { return item.loc; };
  if (program.ttir) index_items(program.ttir->ops, source_file, loc, map.stages_[Stage::Ttir]);
  if (program.ttgir) index_items(program.ttgir->ops, source_file, loc, map.stages_[Stage::Ttgir]);
  if (program.llir) index_items(program.llir->instructions, source_file, loc, map.stages_[Stage::Llir]);
  if (program.ptx) index_items(program.ptx->instructions, source_file, loc, map.stages_[Stage::Ptx]);
  if (program.sass) index_items(program.sass->instructions, source_file, loc, map.stages_[Stage::Sass]);
  return map;
}

const SourceMap::StageIndex* SourceMap::index(Stage stage) const {
  auto it = stages_.find(stage);
  return it == stages_.end() ? nullptr : &it->second;
}

const std::vector<int>& SourceMap::at(Stage stage, int line) const {
  static const std::vector<int> kEmpty;
  const auto* s = index(stage);
  if (!s) return kEmpty;
  auto it = s->by_line.find(line);
  return it == s->by_line.end() ? kEmpty : it->second;
}

std::vector<int> SourceMap::lines() const {
  std::set<int> all;
  for (const auto& [stage, s] : stages_)
    for (const auto& [line, _] : s.by_line) all.insert(line);
  return {all.begin(), all.end()};
}

std::optional<SourceLoc> SourceMap::loc_of(Stage stage, int index_) const {
  const auto* s = index(stage);
  if (!s || index_ < 0 || index_ >= static_cast<int>(s->locs.size())) return std::nullopt;
  const auto& loc = s->locs[static_cast<size_t>(index_)];
  if (!loc.known()) return std::nullopt;
  return loc;
}

int SourceMap::unmapped(Stage stage) const {
  const auto* s = index(stage);
  return s ? s->unmapped : 0;
}

}  // namespace tdx
