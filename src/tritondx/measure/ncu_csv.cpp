// Nsight Compute CSV exports: `ncu -i R --csv --page details|raw` and
// `--page source --csv --print-source sass`, parsed into NcuProfile.
//
// The CSV is RFC 4180: fields separated by commas, quoted with '"', a quote inside a quoted
// field doubled, line breaks allowed inside quotes. Numbers are printed with thousands
// separators ("339,484") and "n/a" where a metric has no value.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "tritondx/measure/ncu_profile.h"

namespace tdx {

namespace {

struct CsvRow {
  int line = 0;  // 1-based line where the row starts
  std::vector<std::string> fields;
};

Expected<std::vector<CsvRow>> split_csv(std::string_view text, std::string_view page) {
  std::vector<CsvRow> rows;
  CsvRow row;
  std::string field;
  int line = 1;
  row.line = 1;
  bool quoted = false, any = false;
  size_t i = 0;
  if (text.starts_with("\xEF\xBB\xBF")) i = 3;  // UTF-8 byte order mark
  auto end_row = [&] {
    if (any || !field.empty() || !row.fields.empty()) {
      row.fields.push_back(std::move(field));
      rows.push_back(std::move(row));
    }
    row = CsvRow{};
    field.clear();
    any = false;
  };
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        quoted = true;
        any = true;
        break;
      case ',':
        row.fields.push_back(std::move(field));
        field.clear();
        any = true;
        break;
      case '\r':
        break;
      case '\n':
        end_row();
        ++line;
        row.line = line;
        break;
      default:
        field += c;
        any = true;
    }
  }
  if (quoted) return fail(Stage::Profile, fmt::format("{} page: unterminated quoted field", page), row.line);
  end_row();
  return rows;
}

// Column positions by header name; -1 when absent.
struct Columns {
  std::vector<std::string> names;
  int operator[](std::string_view name) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return static_cast<int>(i);
    return -1;
  }
};

const std::string& cell(const CsvRow& row, int column) {
  static const std::string empty;
  return column >= 0 && static_cast<size_t>(column) < row.fields.size() ? row.fields[static_cast<size_t>(column)]
                                                                         : empty;
}

long long count(const CsvRow& row, int column) {
  double v = parse_ncu_number(cell(row, column));
  return std::isnan(v) ? 0 : std::llround(v);
}

Expected<Columns> header(const CsvRow& row, std::string_view page, std::initializer_list<std::string_view> required) {
  Columns c{row.fields};
  for (auto name : required)
    if (c[name] < 0)
      return fail(Stage::Profile, fmt::format("{} page: no \"{}\" column in the header", page, name), row.line);
  return c;
}

// ncu's row order within one result: all rows of ID 0, then ID 1, ... Keeps the first ID's rows.
bool same_result(const CsvRow& row, int id_column, const std::string& first_id) {
  return id_column < 0 || cell(row, id_column) == first_id;
}

}  // namespace

double parse_ncu_number(std::string_view text) {
  std::string s;
  s.reserve(text.size());
  for (char c : text)
    if (c != ',' && c != ' ') s += c;
  if (s.empty()) return std::nan("");
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nan("");
  return v;
}

double ncu_unit_scale(std::string_view unit) {
  auto prefix = [](char c) {
    switch (c) {
      case 'K': case 'k': return 1e3;
      case 'M': return 1e6;
      case 'G': return 1e9;
      case 'T': return 1e12;
      case 'P': return 1e15;
      case 'm': return 1e-3;
      case 'u': return 1e-6;
      case 'n': return 1e-9;
      default: return 0.0;
    }
  };
  // Only the numerator carries a prefix that matters: "Mbyte/s", "Kbyte/block", "sector/ns"
  // (the latter scales by the denominator).
  std::string_view num = unit, den;
  if (auto slash = unit.find('/'); slash != std::string_view::npos) {
    num = unit.substr(0, slash);
    den = unit.substr(slash + 1);
  }
  auto scale_of = [&](std::string_view u) {
    if (u == "s" || u == "second" || u.empty()) return 1.0;
    static constexpr std::array<std::string_view, 6> kBases{"byte", "hz", "Hz", "second", "s", "inst"};
    for (auto base : kBases)
      if (u.size() == base.size() + 1 && u.substr(1) == base)
        if (double p = prefix(u[0]); p != 0) return p;
    if (u.size() > 1 && (u.substr(1) == "hz" || u.substr(1) == "Hz"))
      if (double p = prefix(u[0]); p != 0) return p;
    return 1.0;
  };
  double s = scale_of(num);
  if (!den.empty()) s /= scale_of(den);
  return s;
}

double NcuMetric::si() const { return value * ncu_unit_scale(unit); }

const NcuMetric* NcuProfile::metric(std::string_view section, std::string_view name) const {
  for (const auto& m : metrics)
    if ((section.empty() || m.section == section) && m.name == name) return &m;
  return nullptr;
}

std::optional<double> NcuProfile::value(std::string_view section, std::string_view name) const {
  const NcuMetric* m = metric(section, name);
  if (!m || std::isnan(m->value)) return std::nullopt;
  return m->value;
}

std::optional<double> NcuProfile::raw_value(std::string_view name) const {
  auto it = raw.find(std::string(name));
  if (it == raw.end()) return std::nullopt;
  return it->second;
}

std::optional<double> NcuProfile::raw_si(std::string_view name) const {
  auto v = raw_value(name);
  if (!v) return std::nullopt;
  auto u = raw_units.find(std::string(name));
  return *v * (u == raw_units.end() ? 1.0 : ncu_unit_scale(u->second));
}

std::vector<const NcuRuleResult*> NcuProfile::rule_results(std::string_view rule) const {
  std::vector<const NcuRuleResult*> out;
  for (const auto& r : rules)
    if (r.rule == rule) out.push_back(&r);
  return out;
}

long long NcuProfile::total_samples() const {
  long long n = 0;
  for (const auto& s : source) n += s.samples;
  return n;
}

Expected<void> parse_ncu_details_csv(std::string_view csv, NcuProfile& profile) {
  auto rows = split_csv(csv, "details");
  if (!rows) return std::unexpected(rows.error());
  if (rows->empty()) return fail(Stage::Profile, "details page: empty export (no kernel was profiled?)");
  auto cols = header(rows->front(), "details",
                     {"Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value"});
  if (!cols) return std::unexpected(cols.error());
  const Columns& c = *cols;
  int id = c["ID"], kernel = c["Kernel Name"], section = c["Section Name"], name = c["Metric Name"],
      unit = c["Metric Unit"], value = c["Metric Value"], rule = c["Rule Name"], type = c["Rule Type"],
      description = c["Rule Description"], speedup_type = c["Estimated Speedup Type"],
      speedup = c["Estimated Speedup"], block = c["Block Size"], grid = c["Grid Size"];
  std::string first_id;
  for (size_t i = 1; i < rows->size(); ++i) {
    const CsvRow& r = (*rows)[i];
    // Metric rows stop after "Metric Value" (the rule columns are left out), so only the
    // columns up to the metric's name must be there.
    if (r.fields.size() <= static_cast<size_t>(std::max({kernel, section, name})))
      return fail(Stage::Profile,
                  fmt::format("details page: a row has {} fields, the header {}", r.fields.size(), c.names.size()),
                  r.line);
    if (i == 1) {
      first_id = cell(r, id);
      profile.kernel = cell(r, kernel);
      if (block >= 0) profile.block_size = cell(r, block);
      if (grid >= 0) profile.grid_size = cell(r, grid);
    }
    if (!same_result(r, id, first_id)) continue;
    if (!cell(r, rule).empty()) {
      NcuRuleResult res;
      res.section = cell(r, section);
      res.rule = cell(r, rule);
      res.type = cell(r, type);
      res.description = cell(r, description);
      res.speedup_type = cell(r, speedup_type);
      double s = parse_ncu_number(cell(r, speedup));
      res.estimated_speedup = std::isnan(s) ? 0 : s;
      profile.rules.push_back(std::move(res));
      continue;
    }
    if (cell(r, name).empty()) continue;
    NcuMetric m;
    m.section = cell(r, section);
    m.name = cell(r, name);
    m.unit = cell(r, unit);
    m.text = cell(r, value);
    m.value = parse_ncu_number(m.text);
    profile.metrics.push_back(std::move(m));
  }
  return {};
}

Expected<void> parse_ncu_raw_csv(std::string_view csv, NcuProfile& profile) {
  auto rows = split_csv(csv, "raw");
  if (!rows) return std::unexpected(rows.error());
  if (rows->size() < 3)
    return fail(Stage::Profile, "raw page: expected a header, a units row and a row of values", rows->empty() ? 0 : 1);
  const CsvRow& names = (*rows)[0];
  const CsvRow& units = (*rows)[1];
  const CsvRow& values = (*rows)[2];
  if (values.fields.size() != names.fields.size())
    return fail(Stage::Profile,
                fmt::format("raw page: {} values for {} metric names", values.fields.size(), names.fields.size()),
                values.line);
  Columns c{names.fields};
  if (profile.kernel.empty()) profile.kernel = cell(values, c["Kernel Name"]);
  if (profile.block_size.empty()) profile.block_size = cell(values, c["Block Size"]);
  if (profile.grid_size.empty()) profile.grid_size = cell(values, c["Grid Size"]);
  for (size_t i = 0; i < names.fields.size(); ++i) {
    double v = parse_ncu_number(values.fields[i]);
    if (std::isnan(v)) continue;
    profile.raw[names.fields[i]] = v;
    if (i < units.fields.size() && !units.fields[i].empty()) profile.raw_units[names.fields[i]] = units.fields[i];
  }
  return {};
}

Expected<void> parse_ncu_source_csv(std::string_view csv, NcuProfile& profile) {
  auto rows = split_csv(csv, "source");
  if (!rows) return std::unexpected(rows.error());
  // Optional preamble `"Kernel Name","NAME",` then the header (one block per kernel; the
  // block of profile.kernel if named, else the first).
  size_t i = 0;
  std::string kernel;
  std::optional<Columns> cols;
  std::vector<NcuSourceInstruction> out;
  bool taking = false;
  for (; i < rows->size(); ++i) {
    const CsvRow& r = (*rows)[i];
    if (!r.fields.empty() && r.fields[0] == "Kernel Name") {
      if (taking && !out.empty()) break;  // the next kernel's block
      kernel = r.fields.size() > 1 ? r.fields[1] : std::string();
      cols.reset();
      continue;
    }
    if (!r.fields.empty() && r.fields[0] == "Address") {
      auto h = header(r, "source", {"Address", "Source", "Warp Stall Sampling (All Samples)"});
      if (!h) return std::unexpected(h.error());
      cols = std::move(*h);
      taking = profile.kernel.empty() || kernel.empty() || kernel == profile.kernel;
      continue;
    }
    if (!cols) return fail(Stage::Profile, "source page: a row before the header (\"Address\",\"Source\",...)", r.line);
    if (!taking) continue;
    const Columns& c = *cols;
    NcuSourceInstruction ins;
    const std::string& addr = cell(r, c["Address"]);
    char* end = nullptr;
    ins.absolute_address = std::strtoull(addr.c_str(), &end, 16);
    if (addr.empty() || end != addr.c_str() + addr.size())
      return fail(Stage::Profile, fmt::format("source page: address '{}' is not hexadecimal", addr), r.line);
    ins.sass = cell(r, c["Source"]);
    size_t b = ins.sass.find_first_not_of(' ');
    ins.sass = b == std::string::npos ? std::string() : ins.sass.substr(b);
    ins.samples = count(r, c["Warp Stall Sampling (All Samples)"]);
    ins.samples_not_issued = count(r, c["Warp Stall Sampling (Not-issued Samples)"]);
    ins.instructions_executed = count(r, c["Instructions Executed"]);
    ins.l2_sectors = count(r, c["L2 Theoretical Sectors Global"]);
    ins.l2_sectors_ideal = count(r, c["L2 Theoretical Sectors Global Ideal"]);
    ins.l2_sectors_excessive = count(r, c["L2 Theoretical Sectors Global Excessive"]);
    ins.shared_wavefronts = count(r, c["L1 Wavefronts Shared"]);
    ins.shared_wavefronts_ideal = count(r, c["L1 Wavefronts Shared Ideal"]);
    ins.shared_wavefronts_excessive = count(r, c["L1 Wavefronts Shared Excessive"]);
    for (size_t k = 0; k < c.names.size(); ++k) {
      const std::string& n = c.names[k];
      if (!n.starts_with("stall_") || n.find("(Not Issued)") != std::string::npos) continue;
      if (long long v = count(r, static_cast<int>(k)); v > 0) ins.stalls[n.substr(6)] = v;
    }
    out.push_back(std::move(ins));
  }
  if (out.empty()) return fail(Stage::Profile, "source page: no instructions (was the report taken with --set full?)");
  if (profile.kernel.empty()) profile.kernel = kernel;
  uint64_t base = out.front().absolute_address;
  for (const auto& s : out) base = std::min(base, s.absolute_address);
  for (auto& s : out) s.address = static_cast<uint32_t>(s.absolute_address - base);
  profile.source = std::move(out);
  return {};
}

}  // namespace tdx
