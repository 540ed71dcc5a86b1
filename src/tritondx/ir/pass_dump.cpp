// Splits MLIR_ENABLE_DUMP output into snapshots and decides which passes changed the IR.
#include "tritondx/ir/pass_dump.h"

#include <algorithm>
#include <optional>

#include "tritondx/ir/text_scan.h"

namespace tdx {
namespace {

using scan::trim;

constexpr std::string_view kHeader = "// -----// IR Dump ";
constexpr std::string_view kHeaderEnd = "//----- //";

// Parses the text after "// -----// IR Dump ":
//   "Before NAME (arg) ('anchor' operation[: @sym]) //----- //"
//   "After NAME Failed (arg) ('anchor' operation) //----- //"
bool parse_header(std::string_view h, PassSnapshot& snap) {
  h = trim(h);
  if (scan::consume(h, "Before ")) snap.before = true;
  else if (scan::consume(h, "After ")) snap.before = false;
  else return false;
  if (h.ends_with(kHeaderEnd)) h = trim(h.substr(0, h.size() - kHeaderEnd.size()));
  if (size_t a = h.rfind(" ('"); a != std::string_view::npos && h.ends_with(')')) {
    std::string_view anchor = h.substr(a + 3);
    snap.anchor = std::string(anchor.substr(0, anchor.find('\'')));
    h = trim(h.substr(0, a));
  }
  if (h.ends_with(" Failed")) {
    snap.failed = true;
    h = trim(h.substr(0, h.size() - 7));
  }
  if (h.ends_with(')')) {
    if (size_t p = h.rfind(" ("); p != std::string_view::npos) {
      snap.pass_arg = std::string(h.substr(p + 2, h.size() - p - 3));
      h = trim(h.substr(0, p));
    }
  }
  if (h.ends_with(" Failed")) {
    snap.failed = true;
    h = trim(h.substr(0, h.size() - 7));
  }
  snap.pass_name = std::string(h);
  return !snap.pass_name.empty();
}

// Streams an IR text with `loc(...)` annotations, `#locN = ...` table lines and whitespace
// differences removed: runs of whitespace read as one space, none at the ends.
class NormalizedReader {
 public:
  explicit NormalizedReader(std::string_view s) : s_(s) {}

  int next() {
    while (i_ < s_.size()) {
      if (at_line_start_) {
        at_line_start_ = false;
        size_t j = i_;
        while (j < s_.size() && (s_[j] == ' ' || s_[j] == '\t')) ++j;
        if (!in_str_ && is_loc_def(j)) {
          size_t nl = s_.find('\n', j);
          i_ = nl == std::string_view::npos ? s_.size() : nl + 1;
          at_line_start_ = true;
          continue;
        }
      }
      char c = s_[i_];
      if (in_str_) {  // strings are compared verbatim
        ++i_;
        if (escaped_) escaped_ = false;
        else if (c == '\\') escaped_ = true;
        else if (c == '"') in_str_ = false;
        if (c == '\n') at_line_start_ = true, in_str_ = false;  // MLIR strings stay on one line
        return static_cast<unsigned char>(c);
      }
      if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
        if (c == '\n') at_line_start_ = true;
        pending_space_ = emitted_;
        ++i_;
        continue;
      }
      if (c == 'l' && s_.compare(i_, 4, "loc(") == 0 && (i_ == 0 || !is_word(s_[i_ - 1]))) {
        size_t end = scan::match_bracket(s_, i_ + 3);
        i_ = end == std::string_view::npos ? s_.size() : end;
        pending_space_ = false;  // "x loc(#l))" reads as "x)"; a space after the group counts again
        continue;
      }
      if (pending_space_) {
        pending_space_ = false;
        return ' ';
      }
      emitted_ = true;
      ++i_;
      if (c == '"') in_str_ = true;
      return static_cast<unsigned char>(c);
    }
    return -1;
  }

 private:
  static bool is_word(char c) { return scan::is_alpha(c) || scan::is_digit(c) || c == '_' || c == '.' || c == '$'; }

  bool is_loc_def(size_t j) const {
    if (s_.compare(j, 4, "#loc") != 0) return false;
    j += 4;
    while (j < s_.size() && scan::is_digit(s_[j])) ++j;
    while (j < s_.size() && s_[j] == ' ') ++j;
    return j < s_.size() && s_[j] == '=';
  }

  std::string_view s_;
  size_t i_ = 0;
  bool at_line_start_ = true;
  bool pending_space_ = false;
  bool emitted_ = false;
  bool in_str_ = false;
  bool escaped_ = false;
};

bool same_ir(std::string_view a, std::string_view b) {
  if (a == b) return true;  // the common case: nothing changed, not even the #loc numbering
  NormalizedReader ra(a), rb(b);
  while (true) {
    int ca = ra.next();
    int cb = rb.next();
    if (ca != cb) return false;
    if (ca < 0) return true;
  }
}

}  // namespace

Expected<PassDump> split_pass_dump(std::string_view text) {
  PassDump dump;
  // Header positions, found with find() so the IR bodies are never scanned line by line.
  std::vector<size_t> starts;
  for (size_t pos = text.find(kHeader); pos != std::string_view::npos; pos = text.find(kHeader, pos + 1)) {
    size_t bol = pos;
    while (bol > 0 && (text[bol - 1] == ' ' || text[bol - 1] == '\t')) --bol;
    if (bol == 0 || text[bol - 1] == '\n') starts.push_back(pos);
  }
  if (starts.empty()) return fail(Stage::PassDump, "no `// -----// IR Dump` header found");

  dump.snapshots.reserve(starts.size());
  int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(starts[0]), '\n'));
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t pos = starts[k];
    if (k > 0)
      line += static_cast<int>(std::count(text.begin() + static_cast<std::ptrdiff_t>(starts[k - 1]),
                                          text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    PassSnapshot snap;
    snap.line = line;
    std::string_view header = text.substr(pos + kHeader.size(), eol - pos - kHeader.size());
    if (!header.empty() && header.back() == '\r') header.remove_suffix(1);
    if (!parse_header(header, snap)) return fail(Stage::PassDump, "malformed IR dump header", line);
    size_t body_begin = std::min(eol + 1, text.size());
    size_t body_end = k + 1 < starts.size() ? starts[k + 1] : text.size();
    snap.ir = std::string(text.substr(body_begin, body_end - body_begin));
    dump.snapshots.push_back(std::move(snap));
  }

  for (size_t k = 0; k < dump.snapshots.size(); ++k) {
    const PassSnapshot& s = dump.snapshots[k];
    if (!s.before) continue;  // an "After ... Failed" snapshot closes the previous step
    PassStep step;
    step.pass_name = s.pass_name;
    step.pass_arg = s.pass_arg;
    step.before = static_cast<int>(k);
    if (k + 1 < dump.snapshots.size()) {
      step.after = static_cast<int>(k + 1);
      step.changed = !same_ir(s.ir, dump.snapshots[k + 1].ir);
    }
    dump.steps.push_back(std::move(step));
  }
  return dump;
}

}  // namespace tdx
