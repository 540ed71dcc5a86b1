#include "tritondx/core/file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <zlib.h>

namespace tdx {

namespace {

Expected<std::string> read_gzip(const std::string& path, Stage stage) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) return fail(stage, "cannot read file", 0, path);
  std::string out;
  char buffer[1 << 16];
  int got = 0;
  while ((got = gzread(in, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<size_t>(got));
  int error = 0;
  std::string why = got < 0 ? gzerror(in, &error) : "";
  gzclose(in);
  if (got < 0) return fail(stage, "cannot decompress file: " + why, 0, path);
  return out;
}

}  // namespace

Expected<std::string> read_file(const std::string& path, Stage stage) {
  if (path.ends_with(".gz")) return read_gzip(path, stage);
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(stage, "cannot read file", 0, path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tdx
