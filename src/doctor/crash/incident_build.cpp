// SPDX-License-Identifier: MIT
#include <doctor/crash/incident_build.hpp>
#include <doctor/crash/incident_readers.hpp>
#include <doctor/crash/observation_kinds.hpp>
#include <doctor/kb/crash_catalog.hpp>
#include <doctor/kb/render.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::crash {

namespace {

constexpr std::size_t k_max_fixes = 6;
// The finding's general fixes fill up to this many after the catalogue's specific ones.
constexpr std::size_t k_general_fill = 5;

void add_fix(Incident& inc, Fix fix) {
  if (inc.fixes.size() >= k_max_fixes) {
    return;
  }
  const bool seen = std::any_of(inc.fixes.begin(), inc.fixes.end(), [&](const Fix& f) {
    return f.text == fix.text && f.command == fix.command;
  });
  if (!seen) {
    inc.fixes.push_back(std::move(fix));
  }
}

} // namespace

namespace readers {

std::string get(const Observation& obs, std::string_view name) {
  const std::string* v = obs.field(name);
  return v != nullptr ? *v : std::string();
}

std::string gpu_subject(const std::string& pci, const MachineContext& machine) {
  if (pci.empty()) {
    return "a GPU";
  }
  for (const auto& [address, name] : machine.gpus) {
    if (address == pci) {
      return fmt::format("GPU {} ({})", pci, name);
    }
  }
  return "GPU " + pci;
}

void merge_fixes(Incident& inc,
                 const std::vector<std::string>& specific,
                 std::vector<Fix> general) {
  std::vector<Fix> generic = std::move(inc.fixes);
  inc.fixes.clear();
  for (const std::string& text : specific) {
    add_fix(inc, Fix{text, ""});
  }
  for (Fix& f : general) {
    add_fix(inc, std::move(f));
  }
  for (Fix& f : generic) {
    if (inc.fixes.size() >= k_general_fill) {
      break;
    }
    // A catalogue step that already quotes the command says the same thing.
    const bool quoted =
        !f.command.empty() && std::any_of(inc.fixes.begin(), inc.fixes.end(), [&](const Fix& have) {
          return have.text.find(f.command) != std::string::npos;
        });
    if (!quoted) {
      add_fix(inc, std::move(f));
    }
  }
}

void add_evidence(Incident& inc, const Observation& obs, std::string value) {
  inc.evidence.push_back(Evidence{origin_label(obs.origin), std::move(value)});
}

bool fatal_text(std::string_view text) {
  const std::string lower = util::to_lower(text);
  if (lower.find("uncorrect") != std::string::npos) {
    return true; // "Uncorrected (Non-Fatal)": not corrected, even if the link survived
  }
  // "Fatal", but not the "Non-fatal" / "Nonfatal" of SXids and NVLink5 Xids.
  for (std::size_t at = lower.find("fatal"); at != std::string::npos;
       at = lower.find("fatal", at + 1)) {
    const std::string_view before = std::string_view(lower).substr(0, at);
    if (!before.ends_with("non") && !before.ends_with("non-")) {
      return true;
    }
  }
  return false;
}

std::optional<std::uint32_t> code_number(std::string_view code) {
  code = util::trim(code);
  std::optional<std::uint64_t> n;
  if (code.size() > 2 && code[0] == '0' && (code[1] == 'x' || code[1] == 'X')) {
    n = util::parse_hex(code.substr(2));
  } else {
    n = util::parse_uint(code);
  }
  if (!n || *n > 0xFFFFFFFFULL) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*n);
}

void hardware_verdict(Incident& inc, const Observation& obs, bool fatal) {
  inc.cause_class = fatal ? CauseClass::hardware_fault : CauseClass::hardware_unstable;
  inc.severity = fatal ? Severity::error : Severity::warning;
  inc.subject = get(obs, "device").empty() ? "this machine" : get(obs, "device");
}

} // namespace readers

std::string origin_label(const Origin& origin) {
  return origin.locator.empty() ? origin.source : origin.source + ", " + origin.locator;
}

Incident
make_incident(const Observation& obs, const kb::KnowledgeBase& kb, const MachineContext& machine) {
  const KindInfo& info = kind_info(obs.kind);
  Incident inc;
  inc.kind = obs.kind;
  inc.code = obs.code;
  inc.when = obs.when;
  inc.last = obs.when;
  inc.origins.push_back(obs.origin);
  inc.fields = obs.fields;
  inc.platform = std::string(to_string(obs.platform));

  const ReadContext ctx{kb, machine, info.xid != nullptr ? info.xid(obs, kb.crash()) : nullptr};
  // The Xid catalogue names the finding of the Xid (by its category, or the row's own); every
  // other observation takes its kind's.
  inc.finding = ctx.xid != nullptr && !ctx.xid->finding.empty() ? ctx.xid->finding
                                                                : std::string(info.finding);
  FindingDraft draft;
  draft.id = inc.finding;
  draft.tags = {inc.platform};
  if (info.params != nullptr) {
    info.params(draft, obs);
  }
  if (auto rendered = kb::render(kb, draft)) {
    inc.title = rendered->title;
    inc.severity = rendered->severity;
    inc.cause_class = rendered->cause_class;
    inc.fixes = rendered->fixes;
    inc.meaning = rendered->message;
  }
  for (const std::string& line : obs.lines) {
    readers::add_evidence(inc, obs, line);
  }
  info.read(inc, obs, ctx);
  // "a GPU fell off…" begins a sentence.
  if (inc.title.rfind("a ", 0) == 0 || inc.title.rfind("the ", 0) == 0) {
    inc.title[0] = static_cast<char>(inc.title[0] - 'a' + 'A');
  }
  return inc;
}

} // namespace doctor::crash
