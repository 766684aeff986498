// SPDX-License-Identifier: MIT
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/json_rows.hpp>
#include <doctor/kb/kb_docs.hpp>
#include <doctor/kb/knowledge_base.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/wildcard.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <set>

namespace doctor::kb {

namespace {

constexpr std::uint32_t k_extended_flag = 0x10000000U;
constexpr unsigned k_max_xid = 1023;
constexpr std::size_t k_max_params = 4;

// The allowed values, each set built on first use (not at every start of the program).
const std::set<std::string, std::less<>>& categories_set() {
  static const std::set<std::string, std::less<>> k_set = {"application",
                                                           "driver",
                                                           "memory",
                                                           "bus_power",
                                                           "thermal",
                                                           "nvlink",
                                                           "gsp",
                                                           "firmware",
                                                           "informational",
                                                           "video"};
  return k_set;
}
const std::set<std::string, std::less<>>& legacy_causes_set() {
  static const std::set<std::string, std::less<>> k_set = {
      "HW", "DRV", "APP", "SYSMEM", "BUS", "THERM", "FB"};
  return k_set;
}
const std::set<std::string, std::less<>>& points_at_set() {
  static const std::set<std::string, std::less<>> k_set = {
      "gpu_driver", "driver", "hardware", "power", "live_dump", "manual", "other"};
  return k_set;
}
const std::set<std::string, std::less<>>& module_kinds_set() {
  static const std::set<std::string, std::less<>> k_set = {"user", "kernel"};
  return k_set;
}

std::string
one_of(const JsonRow& row, const char* name, const std::set<std::string, std::less<>>& allowed) {
  std::string s = row.text(name);
  if (allowed.count(s) == 0) {
    row.fail(fmt::format("unknown {} \"{}\"", name, s));
  }
  return s;
}

CauseClass cause(const JsonRow& row) {
  const std::string s = row.text("cause_class");
  const auto c = parse_cause_class(s);
  if (!c) {
    row.fail(fmt::format("unknown cause class \"{}\"", s));
  }
  return *c;
}

// A 32-bit code written in hexadecimal ("0x116"): JSON has no hexadecimal numbers, and these codes
// are only ever read in hexadecimal.
std::uint32_t hex_code(const JsonRow& row) {
  const std::string s = row.text("code");
  const auto v = s.starts_with("0x") ? util::parse_hex(s) : std::nullopt;
  if (!v || *v > 0xFFFFFFFFU) {
    row.fail("\"code\" must be a 32-bit hexadecimal number \"0x…\"");
  }
  return static_cast<std::uint32_t>(*v);
}

// A catalogue bucket: upper-case letters, digits, '_' and '/' ("CHECK_APP/CUDA").
bool valid_bucket(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/';
  });
}

// The top level of a catalogue file: the header fields, a "description" and `tables`, nothing
// else.
JsonRow header(JsonView doc,
               std::string_view kind,
               std::initializer_list<std::string_view> tables,
               const std::string& file) {
  JsonRow top(doc, file);
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string_view k = doc.key(i);
    if (k != "spec" && k != "kind" && k != "description"
        && std::find(tables.begin(), tables.end(), k) == tables.end()) {
      top.fail(fmt::format("unknown field \"{}\"", k));
    }
  }
  return file_header(doc, kind, file);
}

// "category_findings": exactly one finding per category.
std::vector<XidCategoryFinding> parse_xid_categories(const JsonRow& top) {
  std::vector<XidCategoryFinding> out;
  std::set<std::string, std::less<>> seen;
  const JsonRows rows = top.rows("category_findings");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JsonRow row = rows[i];
    row.only({"category", "finding", "source"});
    XidCategoryFinding c;
    c.category = one_of(row, "category", categories_set());
    if (!seen.insert(c.category).second) {
      row.fail(fmt::format("duplicate category \"{}\"", c.category));
    }
    c.finding = row.text("finding");
    c.source = row.text("source");
    out.push_back(std::move(c));
  }
  for (const std::string& category : categories_set()) {
    if (seen.count(category) == 0) {
      top.fail(fmt::format("category_findings names no finding for \"{}\"", category));
    }
  }
  return out;
}

std::vector<XidEntry> parse_xids(const JsonRow& top,
                                 const std::vector<XidCategoryFinding>& categories) {
  std::vector<XidEntry> out;
  std::set<unsigned> seen;
  std::set<std::uint64_t> nvlddmkm_events;
  const JsonRows rows = top.rows("xids");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow row = rows[i];
    row.only({"code",
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
              "nvlddmkm_event"});
    XidEntry x;
    const auto code = row.number("code");
    if (code == 0 || code > k_max_xid) {
      row.fail(fmt::format("\"code\" must be 1..{}", k_max_xid));
    }
    x.code = static_cast<unsigned>(code);
    row.name(std::to_string(x.code));
    if (!seen.insert(x.code).second) {
      row.fail("duplicate code");
    }
    x.name = row.text("name");
    x.description = row.text("description");
    x.category = one_of(row, "category", categories_set());
    x.cause_class = cause(row);
    x.secondary = row.optional_flag("secondary", x.secondary);
    x.immediate_action = row.optional_text("immediate_action");
    x.investigatory_action = row.optional_text("investigatory_action");
    for (const std::string* bucket : {&x.immediate_action, &x.investigatory_action}) {
      if (!bucket->empty() && !valid_bucket(*bucket)) {
        row.fail(
            fmt::format("bucket \"{}\" must be upper-case letters, digits, '_' and '/'", *bucket));
      }
    }
    x.legacy_causes = row.optional_texts("legacy_causes");
    for (const std::string& c : x.legacy_causes) {
      if (legacy_causes_set().count(c) == 0) {
        row.fail(fmt::format("unknown legacy_causes entry \"{}\"", c));
      }
    }
    x.meaning = row.text("meaning");
    x.fixes = row.texts("fixes");
    x.source = row.text("source");
    x.finding = row.optional_text("finding");
    for (const XidCategoryFinding& c : categories) {
      if (x.finding.empty() && c.category == x.category) {
        x.finding = c.finding;
      }
    }
    if (const auto id = row.optional_number("nvlddmkm_event")) {
      if (*id == 0 || *id > 0xFFFF || !nvlddmkm_events.insert(*id).second) {
        row.fail("\"nvlddmkm_event\" must be an event id 1..65535 of one row");
      }
      x.nvlddmkm_event = static_cast<unsigned>(*id);
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<BugCheckEntry> parse_bugchecks(const JsonRows& rows) {
  std::vector<BugCheckEntry> out;
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow row = rows[i];
    row.only({"code",
              "name",
              "meaning",
              "params",
              "address_param",
              "points_at",
              "cause_class",
              "fixes",
              "source"});
    BugCheckEntry b;
    b.code = hex_code(row);
    row.name(fmt::format("0x{:X}", b.code));
    if (mask_bugcheck_code(b.code) != b.code) {
      row.fail("write \"code\" without the 0x10000000 extended-parameter flag");
    }
    if (!seen.insert(b.code).second) {
      row.fail("duplicate code");
    }
    b.name = row.text("name");
    b.meaning = row.text("meaning");
    b.params = row.optional_texts("params");
    if (b.params.size() > k_max_params) {
      row.fail(fmt::format("\"params\" holds more than {} entries", k_max_params));
    }
    if (const auto a = row.optional_number("address_param")) {
      if (*a > k_max_params || *a > b.params.size()) {
        row.fail("\"address_param\" must be 0..4 and name a listed parameter");
      }
      b.address_param = static_cast<unsigned>(*a);
    }
    b.points_at = one_of(row, "points_at", points_at_set());
    b.cause_class = cause(row);
    b.fixes = row.texts("fixes");
    b.source = row.text("source");
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<ExceptionCodeEntry> parse_exceptions(const JsonRows& rows) {
  std::vector<ExceptionCodeEntry> out;
  std::set<std::uint32_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow row = rows[i];
    row.only({"code", "name", "meaning", "cause_class", "fixes", "source"});
    ExceptionCodeEntry e;
    e.code = hex_code(row);
    row.name(fmt::format("0x{:08X}", e.code));
    if (!seen.insert(e.code).second) {
      row.fail("duplicate code");
    }
    e.name = row.text("name");
    e.meaning = row.text("meaning");
    e.cause_class = cause(row);
    e.fixes = row.texts("fixes");
    e.source = row.text("source");
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<CrashModuleEntry> parse_modules(const JsonRows& rows) {
  std::vector<CrashModuleEntry> out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    JsonRow row = rows[i];
    row.only({"pattern", "component", "kind", "gpu", "note", "source"});
    CrashModuleEntry m;
    m.pattern = row.text("pattern");
    row.name(m.pattern);
    if (m.pattern != util::to_lower(m.pattern)
        || m.pattern.find_first_of("/\\") != std::string::npos) {
      row.fail("\"pattern\" must be a lower-case file name without a directory");
    }
    if (!seen.insert(m.pattern).second) {
      row.fail("duplicate pattern");
    }
    m.component = row.text("component");
    m.kind = one_of(row, "kind", module_kinds_set());
    m.gpu = row.flag("gpu");
    m.note = row.optional_text("note");
    m.source = row.text("source");
    out.push_back(std::move(m));
  }
  return out;
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

Expected<CrashCatalog> parse_crash_docs(const KbDoc* xid, const KbDoc* bugchecks) {
  try {
    std::vector<XidEntry> xids;
    std::vector<XidCategoryFinding> categories;
    if (xid != nullptr) {
      const JsonRow top = header(xid->root, "xid", {"category_findings", "xids"}, xid->name);
      categories = parse_xid_categories(top);
      xids = parse_xids(top, categories);
    }
    std::vector<BugCheckEntry> bugchecks_out;
    std::vector<ExceptionCodeEntry> exceptions;
    std::vector<CrashModuleEntry> modules;
    if (bugchecks != nullptr) {
      const JsonRow top = header(
          bugchecks->root, "bugchecks", {"bugchecks", "exceptions", "modules"}, bugchecks->name);
      bugchecks_out = parse_bugchecks(top.rows("bugchecks"));
      exceptions = parse_exceptions(top.rows("exceptions"));
      modules = parse_modules(top.rows("modules"));
    }
    return CrashCatalog(std::move(xids),
                        std::move(bugchecks_out),
                        std::move(exceptions),
                        std::move(modules),
                        std::move(categories));
  } catch (const Invalid& e) {
    return make_error(ErrorCode::parse, e.message);
  }
}

Expected<CrashCatalog> parse_crash_catalog(std::string_view xid_json,
                                           std::string_view bugchecks_json,
                                           const std::string& xid_file,
                                           const std::string& bugchecks_file) {
  std::vector<std::pair<std::string, std::string>> files;
  if (!xid_json.empty()) {
    files.emplace_back(xid_file, std::string(xid_json));
  }
  if (!bugchecks_json.empty()) {
    files.emplace_back(bugchecks_file, std::string(bugchecks_json));
  }
  const auto parsed = parse_texts(files);
  if (!parsed) {
    return tl::unexpected(parsed.error());
  }
  const std::vector<KbDoc>& docs = parsed->docs;
  return parse_crash_docs(xid_json.empty() ? nullptr : &docs.front(),
                          bugchecks_json.empty() ? nullptr : &docs.back());
}

} // namespace doctor::kb
