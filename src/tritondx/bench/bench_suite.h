// The benchmark suite on disk (bench/suite/<category>/<name>.py) and the shards it is run in.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tritondx/core/diagnostic.h"

namespace tdx {

struct BenchEntry {
  std::string id;        // "matmul/matmul_fp16_square"
  std::string category;  // "matmul"
  std::string name;      // "matmul_fp16_square"
  std::string path;      // the task file
};

// Every entry under `suite_dir`, sorted by id. Files whose name starts with "_" are helpers.
Expected<std::vector<BenchEntry>> discover_entries(const std::string& suite_dir);

// Shard i of n (1-based, "--shard 2/4"): entries are dealt round-robin in id order, so each
// shard gets a mix of categories and the shards together are the whole suite.
struct Shard {
  int index = 1;
  int count = 1;
};
Expected<Shard> parse_shard(std::string_view text);

// The entries of `shard` whose id contains one of `filters` (all when `filters` is empty).
std::vector<BenchEntry> select_entries(const std::vector<BenchEntry>& all, const std::vector<std::string>& filters,
                                       Shard shard);

}  // namespace tdx
