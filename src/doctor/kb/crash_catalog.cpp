// SPDX-License-Identifier: MIT
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/wildcard.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <set>

namespace doctor::kb {

namespace {

using Json = nlohmann::json;

constexpr std::uint32_t k_extended_flag = 0x10000000U;
constexpr unsigned k_max_xid = 1023;
constexpr std::size_t k_max_params = 4;

const std::set<std::string, std::less<>> k_categories = {"application",
                                                         "driver",
                                                         "memory",
                                                         "bus_power",
                                                         "thermal",
                                                         "nvlink",
                                                         "gsp",
                                                         "firmware",
                                                         "informational",
                                                         "video"};
const std::set<std::string, std::less<>> k_legacy_causes = {
    "HW", "DRV", "APP", "SYSMEM", "BUS", "THERM", "FB"};
const std::set<std::string, std::less<>> k_points_at = {
    "gpu_driver", "driver", "hardware", "power", "live_dump", "manual", "other"};
const std::set<std::string, std::less<>> k_module_kinds = {"user", "kernel"};

// A validation failure; caught in parse_crash_catalog and turned into an Error.
struct Invalid {
  std::string message;
};

void known_fields(const Json& row,
                  std::initializer_list<std::string_view> names,
                  const std::string& where) {
  if (!row.is_object()) {
    throw Invalid{fmt::format("{}: not a JSON object", where)};
  }
  for (const auto& item : row.items()) {
    if (std::find(names.begin(), names.end(), item.key()) == names.end()) {
      throw Invalid{fmt::format("{}: unknown field \"{}\"", where, item.key())};
    }
  }
}

const Json& typed(const Json& row, const char* name, Json::value_t type, const std::string& where) {
  if (!row.contains(name)) {
    throw Invalid{fmt::format("{}: missing field \"{}\"", where, name)};
  }
  const Json& v = row.at(name);
  if (v.type() != type) {
    throw Invalid{fmt::format("{}: field \"{}\" has the wrong type", where, name)};
  }
  return v;
}

std::string text(const Json& row, const char* name, const std::string& where) {
  std::string s = typed(row, name, Json::value_t::string, where).get<std::string>();
  if (s.empty()) {
    throw Invalid{fmt::format("{}: field \"{}\" is empty", where, name)};
  }
  return s;
}

std::string optional_text(const Json& row, const char* name, const std::string& where) {
  return row.contains(name) ? text(row, name, where) : std::string();
}

std::vector<std::string>
strings(const Json& row, const char* name, bool required, const std::string& where) {
  std::vector<std::string> out;
  if (!required && !row.contains(name)) {
    return out;
  }
  for (const Json& v : typed(row, name, Json::value_t::array, where)) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      throw Invalid{fmt::format("{}: \"{}\" must hold non-empty strings", where, name)};
    }
    out.push_back(v.get<std::string>());
  }
  if (required && out.empty()) {
    throw Invalid{fmt::format("{}: \"{}\" is empty", where, name)};
  }
  return out;
}

std::string one_of(const Json& row,
                   const char* name,
                   const std::set<std::string, std::less<>>& allowed,
                   const std::string& where) {
  std::string s = text(row, name, where);
  if (allowed.count(s) == 0) {
    throw Invalid{fmt::format("{}: unknown {} \"{}\"", where, name, s)};
  }
  return s;
}

CauseClass cause(const Json& row, const std::string& where) {
  const std::string s = text(row, "cause_class", where);
  const auto c = parse_cause_class(s);
  if (!c) {
    throw Invalid{fmt::format("{}: unknown cause class \"{}\"", where, s)};
  }
  return *c;
}

// A 32-bit code written in hexadecimal ("0x116"): JSON has no hexadecimal numbers, and these codes
// are only ever read in hexadecimal.
std::uint32_t hex_code(const Json& row, const std::string& where) {
  const std::string s = text(row, "code", where);
  const auto v = s.starts_with("0x") ? util::parse_hex(s) : std::nullopt;
  if (!v || *v > 0xFFFFFFFFU) {
    throw Invalid{fmt::format("{}: \"code\" must be a 32-bit hexadecimal number \"0x…\"", where)};
  }
  return static_cast<std::uint32_t>(*v);
}

// A catalogue bucket: upper-case letters, digits, '_' and '/' ("CHECK_APP/CUDA").
bool valid_bucket(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/';
  });
}

void header(const Json& doc,
            std::string_view kind,
            std::initializer_list<std::string_view> tables,
            const std::string& file) {
  if (!doc.is_object()) {
    throw Invalid{fmt::format("{}: not a JSON object", file)};
  }
  for (const auto& item : doc.items()) {
    const std::string& k = item.key();
    if (k != "spec" && k != "kind" && k != "description"
        && std::find(tables.begin(), tables.end(), k) == tables.end()) {
      throw Invalid{fmt::format("{}: unknown field \"{}\"", file, k)};
    }
  }
  if (text(doc, "spec", file) != k_spec) {
    throw Invalid{fmt::format("{}: \"spec\" must be \"{}\"", file, k_spec)};
  }
  if (text(doc, "kind", file) != kind) {
    throw Invalid{fmt::format("{}: \"kind\" must be \"{}\"", file, kind)};
  }
}

// "category_findings": exactly one finding per category.
std::vector<XidCategoryFinding> parse_xid_categories(const Json& doc, const std::string& file) {
  std::vector<XidCategoryFinding> out;
  std::set<std::string, std::less<>> seen;
  const Json& rows = typed(doc, "category_findings", Json::value_t::array, file);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string where = fmt::format("{}: category_findings[{}]", file, i);
    known_fields(rows[i], {"category", "finding", "source"}, where);
    XidCategoryFinding c;
    c.category = one_of(rows[i], "category", k_categories, where);
    if (!seen.insert(c.category).second) {
      throw Invalid{fmt::format("{}: duplicate category \"{}\"", where, c.category)};
    }
    c.finding = text(rows[i], "finding", where);
    c.source = text(rows[i], "source", where);
    out.push_back(std::move(c));
  }
  for (const std::string& category : k_categories) {
    if (seen.count(category) == 0) {
      throw Invalid{
          fmt::format("{}: category_findings names no finding for \"{}\"", file, category)};
    }
  }
  return out;
}

std::vector<XidEntry> parse_xids(const Json& doc,
                                 const std::vector<XidCategoryFinding>& categories,
                                 const std::string& file) {
  std::vector<XidEntry> out;
  std::set<unsigned> seen;
  std::set<std::uint64_t> nvlddmkm_events;
  const Json& rows = typed(doc, "xids", Json::value_t::array, file);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    std::string where = fmt::format("{}: xids[{}]", file, i);
    known_fields(row,
                 {"code",
                  "name",
                  "description",
                  "category",
                  "cause_class",
                  "secondary",
                  "immediate_action",
                  "investigatory_action",
                  "legacy_causes",
                  "meaning",
                  "fixes",
                  "source",
                  "finding",
                  "nvlddmkm_event"},
                 where);
    XidEntry x;
    const auto code =
        typed(row, "code", Json::value_t::number_unsigned, where).get<std::uint64_t>();
    if (code == 0 || code > k_max_xid) {
      throw Invalid{fmt::format("{}: \"code\" must be 1..{}", where, k_max_xid)};
    }
    x.code = static_cast<unsigned>(code);
    where += fmt::format(" ({})", x.code);
    if (!seen.insert(x.code).second) {
      throw Invalid{fmt::format("{}: duplicate code", where)};
    }
    x.name = text(row, "name", where);
    x.description = text(row, "description", where);
    x.category = one_of(row, "category", k_categories, where);
    x.cause_class = cause(row, where);
    if (row.contains("secondary")) {
      x.secondary = typed(row, "secondary", Json::value_t::boolean, where).get<bool>();
    }
    x.immediate_action = optional_text(row, "immediate_action", where);
    x.investigatory_action = optional_text(row, "investigatory_action", where);
    for (const std::string* bucket : {&x.immediate_action, &x.investigatory_action}) {
      if (!bucket->empty() && !valid_bucket(*bucket)) {
        throw Invalid{fmt::format(
            "{}: bucket \"{}\" must be upper-case letters, digits, '_' and '/'", where, *bucket)};
      }
    }
    x.legacy_causes = strings(row, "legacy_causes", false, where);
    for (const std::string& c : x.legacy_causes) {
      if (k_legacy_causes.count(c) == 0) {
        throw Invalid{fmt::format("{}: unknown legacy_causes entry \"{}\"", where, c)};
      }
    }
    x.meaning = text(row, "meaning", where);
    x.fixes = strings(row, "fixes", true, where);
    x.source = text(row, "source", where);
    x.finding = optional_text(row, "finding", where);
    for (const XidCategoryFinding& c : categories) {
      if (x.finding.empty() && c.category == x.category) {
        x.finding = c.finding;
      }
    }
    if (row.contains("nvlddmkm_event")) {
      const auto id =
          typed(row, "nvlddmkm_event", Json::value_t::number_unsigned, where).get<std::uint64_t>();
      if (id == 0 || id > 0xFFFF || !nvlddmkm_events.insert(id).second) {
        throw Invalid{
            fmt::format("{}: \"nvlddmkm_event\" must be an event id 1..65535 of one row", where)};
      }
      x.nvlddmkm_event = static_cast<unsigned>(id);
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<BugCheckEntry> parse_bugchecks(const Json& rows, const std::string& file) {
  std::vector<BugCheckEntry> out;
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    std::string where = fmt::format("{}: bugchecks[{}]", file, i);
    known_fields(row,
                 {"code",
                  "name",
                  "meaning",
                  "params",
                  "address_param",
                  "points_at",
                  "cause_class",
                  "fixes",
                  "source"},
                 where);
    BugCheckEntry b;
    b.code = hex_code(row, where);
    where += fmt::format(" (0x{:X})", b.code);
    if (mask_bugcheck_code(b.code) != b.code) {
      throw Invalid{
          fmt::format("{}: write \"code\" without the 0x10000000 extended-parameter flag", where)};
    }
    if (!seen.insert(b.code).second) {
      throw Invalid{fmt::format("{}: duplicate code", where)};
    }
    b.name = text(row, "name", where);
    b.meaning = text(row, "meaning", where);
    b.params = strings(row, "params", false, where);
    if (b.params.size() > k_max_params) {
      throw Invalid{fmt::format("{}: \"params\" holds more than {} entries", where, k_max_params)};
    }
    if (row.contains("address_param")) {
      const auto a =
          typed(row, "address_param", Json::value_t::number_unsigned, where).get<std::uint64_t>();
      if (a > k_max_params || a > b.params.size()) {
        throw Invalid{
            fmt::format("{}: \"address_param\" must be 0..4 and name a listed parameter", where)};
      }
      b.address_param = static_cast<unsigned>(a);
    }
    b.points_at = one_of(row, "points_at", k_points_at, where);
    b.cause_class = cause(row, where);
    b.fixes = strings(row, "fixes", true, where);
    b.source = text(row, "source", where);
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<ExceptionCodeEntry> parse_exceptions(const Json& rows, const std::string& file) {
  std::vector<ExceptionCodeEntry> out;
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    std::string where = fmt::format("{}: exceptions[{}]", file, i);
    known_fields(row, {"code", "name", "meaning", "cause_class", "fixes", "source"}, where);
    ExceptionCodeEntry e;
    e.code = hex_code(row, where);
    where += fmt::format(" (0x{:08X})", e.code);
    if (!seen.insert(e.code).second) {
      throw Invalid{fmt::format("{}: duplicate code", where)};
    }
    e.name = text(row, "name", where);
    e.meaning = text(row, "meaning", where);
    e.cause_class = cause(row, where);
    e.fixes = strings(row, "fixes", true, where);
    e.source = text(row, "source", where);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<CrashModuleEntry> parse_modules(const Json& rows, const std::string& file) {
  std::vector<CrashModuleEntry> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    std::string where = fmt::format("{}: modules[{}]", file, i);
    known_fields(row, {"pattern", "component", "kind", "gpu", "note", "source"}, where);
    CrashModuleEntry m;
    m.pattern = text(row, "pattern", where);
    where += " (" + m.pattern + ")";
    if (m.pattern != util::to_lower(m.pattern)
        || m.pattern.find_first_of("/\\") != std::string::npos) {
      throw Invalid{
          fmt::format("{}: \"pattern\" must be a lower-case file name without a directory", where)};
    }
    if (!seen.insert(m.pattern).second) {
      throw Invalid{fmt::format("{}: duplicate pattern", where)};
    }
    m.component = text(row, "component", where);
    m.kind = one_of(row, "kind", k_module_kinds, where);
    m.gpu = typed(row, "gpu", Json::value_t::boolean, where).get<bool>();
    m.note = optional_text(row, "note", where);
    m.source = text(row, "source", where);
    out.push_back(std::move(m));
  }
  return out;
}

Json parse_json(std::string_view text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw Invalid{fmt::format("{}: not JSON ({})", file, e.what())};
  }
}

} // namespace

std::uint32_t mask_bugcheck_code(std::uint32_t code) {
  return (code >> 28U) == 1U ? code & ~k_extended_flag : code;
}

CrashCatalog::CrashCatalog(std::vector<XidEntry> xids,
                           std::vector<BugCheckEntry> bugchecks,
                           std::vector<ExceptionCodeEntry> exceptions,
                           std::vector<CrashModuleEntry> modules,
                           std::vector<XidCategoryFinding> xid_categories)
    : m_xids(std::move(xids))
    , m_bugchecks(std::move(bugchecks))
    , m_exceptions(std::move(exceptions))
    , m_modules(std::move(modules))
    , m_xid_categories(std::move(xid_categories)) {}

const XidEntry* CrashCatalog::xid(unsigned code) const {
  for (const XidEntry& x : m_xids) {
    if (x.code == code) {
      return &x;
    }
  }
  return nullptr;
}

const XidEntry* CrashCatalog::xid_with_finding(std::string_view finding) const {
  for (const XidEntry& x : m_xids) {
    if (x.finding == finding) {
      return &x;
    }
  }
  return nullptr;
}

const XidEntry* CrashCatalog::xid_for_nvlddmkm_event(std::uint32_t event_id) const {
  for (const XidEntry& x : m_xids) {
    if (event_id != 0 && x.nvlddmkm_event == event_id) {
      return &x;
    }
  }
  return nullptr;
}

const BugCheckEntry* CrashCatalog::bugcheck(std::uint32_t code) const {
  for (const std::uint32_t c : {code, mask_bugcheck_code(code)}) {
    for (const BugCheckEntry& b : m_bugchecks) {
      if (b.code == c) {
        return &b;
      }
    }
  }
  return nullptr;
}

const ExceptionCodeEntry* CrashCatalog::exception(std::uint32_t code) const {
  for (const ExceptionCodeEntry& e : m_exceptions) {
    if (e.code == code) {
      return &e;
    }
  }
  return nullptr;
}

const CrashModuleEntry* CrashCatalog::module(std::string_view file_name) const {
  const auto slash = file_name.find_last_of("/\\");
  if (slash != std::string_view::npos) {
    file_name.remove_prefix(slash + 1);
  }
  const std::string name = util::to_lower(file_name);
  if (name.empty()) {
    return nullptr;
  }
  for (const CrashModuleEntry& m : m_modules) {
    if (util::wildcard_match(m.pattern, name)) {
      return &m;
    }
  }
  return nullptr;
}

Expected<CrashCatalog> parse_crash_catalog(std::string_view xid_json,
                                           std::string_view bugchecks_json,
                                           const std::string& xid_file,
                                           const std::string& bugchecks_file) {
  try {
    std::vector<XidEntry> xids;
    std::vector<XidCategoryFinding> categories;
    if (!xid_json.empty()) {
      const Json doc = parse_json(xid_json, xid_file);
      header(doc, "xid", {"category_findings", "xids"}, xid_file);
      categories = parse_xid_categories(doc, xid_file);
      xids = parse_xids(doc, categories, xid_file);
    }
    std::vector<BugCheckEntry> bugchecks;
    std::vector<ExceptionCodeEntry> exceptions;
    std::vector<CrashModuleEntry> modules;
    if (!bugchecks_json.empty()) {
      const Json doc = parse_json(bugchecks_json, bugchecks_file);
      header(doc, "bugchecks", {"bugchecks", "exceptions", "modules"}, bugchecks_file);
      bugchecks = parse_bugchecks(typed(doc, "bugchecks", Json::value_t::array, bugchecks_file),
                                  bugchecks_file);
      exceptions = parse_exceptions(typed(doc, "exceptions", Json::value_t::array, bugchecks_file),
                                    bugchecks_file);
      modules = parse_modules(typed(doc, "modules", Json::value_t::array, bugchecks_file),
                              bugchecks_file);
    }
    return CrashCatalog(std::move(xids),
                        std::move(bugchecks),
                        std::move(exceptions),
                        std::move(modules),
                        std::move(categories));
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  } catch (const Json::exception& e) {
    return make_error(ErrorCode::parse, e.what());
  }
}

} // namespace doctor::kb
