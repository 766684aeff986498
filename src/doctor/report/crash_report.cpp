// SPDX-License-Identifier: MIT
#include <doctor/report/crash_report.hpp>
#include <doctor/report/text_layout.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>
#include <doctor/util/strings.hpp>
#include <doctor/util/time.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>

namespace doctor::report {

namespace {

using crash::CrashReport;
using crash::Incident;
using Json = nlohmann::ordered_json;

std::string origin_text(const crash::Origin& o) {
  return o.locator.empty() ? o.source : o.source + ", " + o.locator;
}

std::string count_text(const Incident& inc) {
  return inc.count > 1 ? fmt::format("  (×{})", inc.count) : std::string();
}

// The consequences of each incident, by index.
std::map<std::size_t, std::vector<std::size_t>> consequences(const CrashReport& r) {
  std::map<std::size_t, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < r.incidents.size(); ++i) {
    if (r.incidents[i].consequence_of) {
      out[*r.incidents[i].consequence_of].push_back(i);
    }
  }
  return out;
}

// Root incidents (not consequences) by cause class.
std::map<std::string, std::size_t> roots_by_class(const CrashReport& r, std::size_t& roots) {
  std::map<std::string, std::size_t> by_class;
  roots = 0;
  for (const Incident& inc : r.incidents) {
    if (!inc.consequence_of) {
      ++roots;
      ++by_class[std::string(to_string(inc.cause_class))];
    }
  }
  return by_class;
}

std::string crash_summary_line(const CrashReport& r) {
  std::size_t roots = 0;
  const auto by_class = roots_by_class(r, roots);
  std::vector<std::string> parts;
  parts.reserve(by_class.size());
  for (const auto& [cls, n] : by_class) {
    parts.push_back(fmt::format("{} ×{}", cls, n));
  }
  return fmt::format("{} incident{}{}",
                     roots,
                     roots == 1 ? "" : "s",
                     parts.empty() ? "" : ": " + util::join(parts, ", "));
}

using util::escape_markdown;
using util::escape_terminal;

// Incidents carry what logs, dumps and event records said (module names, messages, paths): every
// such string passes escape_terminal (escape_markdown) on its way out.
void text_incident(std::string& out,
                   const CrashReport& r,
                   std::size_t index,
                   const Style& st,
                   const std::map<std::size_t, std::vector<std::size_t>>& follows) {
  const Incident& inc = r.incidents[index];
  out += "\n";
  out += st.bold(when_text(inc.when));
  if (inc.count > 1 && (inc.last.utc_usec || !inc.last.label.empty())) {
    out += st.dim(" … " + when_text(inc.last));
  }
  out += "\n";
  out += st.apply(severity_color(inc.severity), fmt::format("{:<9}", severity_label(inc.severity)));
  out += st.bold(escape_terminal(inc.title)) + count_text(inc) + "\n";
  out += wrap(fmt::format("cause: {} · {} {}{} · finding {}",
                          to_string(inc.cause_class),
                          to_string(inc.kind),
                          escape_terminal(inc.code),
                          inc.name.empty() ? "" : " " + escape_terminal(inc.name),
                          inc.finding),
              "         ",
              "         ");
  if (!inc.meaning.empty()) {
    out += wrap(escape_terminal(inc.meaning), "         ", "         ");
  }
  if (!inc.evidence.empty()) {
    out += "         evidence:\n";
    std::string last_source;
    for (const Evidence& e : inc.evidence) {
      if (e.source != last_source) {
        out += "           " + st.dim(escape_terminal(e.source)) + "\n";
        last_source = e.source;
      }
      out += wrap(escape_terminal(e.value), "             ", "               ");
    }
  }
  if (inc.origins.size() > 1 || inc.count > inc.origins.size()) {
    out += fmt::format("         seen {} time(s), in {} place(s)\n", inc.count, inc.origins.size());
  }
  for (const std::string& n : inc.notes) {
    out += wrap("note: " + escape_terminal(n), "         ", "               ");
  }
  if (auto it = follows.find(index); it != follows.end()) {
    out += "         followed by:\n";
    for (std::size_t c : it->second) {
      const Incident& con = r.incidents[c];
      out += wrap(fmt::format("- {}{} ({})",
                              escape_terminal(con.title),
                              count_text(con),
                              escape_terminal(when_text(con.when))),
                  "           ",
                  "             ");
    }
  }
  if (!inc.fixes.empty()) {
    out += "         next steps:\n";
    for (std::size_t k = 0; k < inc.fixes.size(); ++k) {
      out += wrap(fmt::format("{}. {}", k + 1, escape_terminal(inc.fixes[k].text)),
                  "           ",
                  "              ");
      if (!inc.fixes[k].command.empty()) {
        out +=
            "              " + st.apply("36", "$ " + escape_terminal(inc.fixes[k].command)) + "\n";
      }
    }
  }
}

Json when_json(const crash::When& w) {
  Json j;
  j["time"] = w.utc_usec ? Json(util::iso_utc(*w.utc_usec)) : Json(nullptr);
  j["time_label"] = w.label;
  j["uptime_s"] = w.uptime_usec ? Json(static_cast<double>(*w.uptime_usec) / 1e6) : Json(nullptr);
  j["boot"] = w.boot;
  return j;
}

} // namespace

std::string when_text(const crash::When& when) {
  if (when.utc_usec) {
    return util::readable_utc(*when.utc_usec);
  }
  // A label of digits only is a raw counter (kmsg's microseconds): the uptime says it better.
  const bool raw = when.label.find_first_not_of("0123456789.") == std::string::npos;
  if (!when.label.empty() && !(raw && when.uptime_usec)) {
    return when.label;
  }
  if (when.uptime_usec) {
    const std::string secs =
        fmt::format("{:.3f} s after boot", static_cast<double>(*when.uptime_usec) / 1e6);
    return when.boot.empty() ? secs : fmt::format("boot {}, {}", when.boot, secs);
  }
  return "time unknown";
}

std::string render_crashes_text(const CrashReport& r, const CrashMeta& meta, bool color) {
  const Style st{color};
  std::string out =
      st.bold(fmt::format("cudnn-doctor crashes — {}", escape_terminal(meta.target))) + "\n";
  out += crash_summary_line(r) + "\n";
  const auto follows = consequences(r);
  for (std::size_t i = 0; i < r.incidents.size(); ++i) {
    if (!r.incidents[i].consequence_of) {
      text_incident(out, r, i, st, follows);
    }
  }
  if (r.incidents.empty()) {
    out += "\nNo crash evidence found in the sources below.\n";
  }
  for (const Finding& f : r.notes) {
    out += "\n";
    out += st.apply(severity_color(f.severity), fmt::format("{:<9}", severity_label(f.severity)));
    out += st.bold(escape_terminal(f.title)) + "\n";
    out += wrap(escape_terminal(f.message), "         ", "         ");
    for (std::size_t k = 0; k < f.fixes.size(); ++k) {
      out += wrap(fmt::format("{}. {}", k + 1, escape_terminal(f.fixes[k].text)),
                  "           ",
                  "              ");
      if (!f.fixes[k].command.empty()) {
        out += "              " + st.apply("36", "$ " + escape_terminal(f.fixes[k].command)) + "\n";
      }
    }
  }
  out += "\n" + st.bold("Sources") + "\n";
  for (const crash::SourceStatus& s : r.sources) {
    out += fmt::format("  {:<11}", s.status) + escape_terminal(s.source) + "\n";
    std::string detail = escape_terminal(s.detail);
    if (s.status == "read") {
      detail += fmt::format("; {} event(s) used", s.events);
    }
    out += wrap(detail, "             ", "             ");
  }
  out += st.dim(fmt::format(
             "\ncudnn-doctor {} · knowledge base {}", meta.tool_version, meta.kb_version))
         + "\n";
  return out;
}

std::string render_crashes_json(const CrashReport& r, const CrashMeta& meta) {
  Json j;
  j["schema"] = std::string(k_crashes_schema);
  j["tool_version"] = meta.tool_version;
  j["kb_version"] = meta.kb_version;
  j["target"] = meta.target;
  Json summary;
  std::size_t roots = 0;
  const auto by_class = roots_by_class(r, roots);
  summary["incidents"] = roots;
  summary["records"] = r.incidents.size();
  summary["observations"] = r.observations;
  summary["by_cause_class"] = by_class;
  j["summary"] = summary;
  Json incidents = Json::array();
  for (std::size_t i = 0; i < r.incidents.size(); ++i) {
    const Incident& inc = r.incidents[i];
    Json e;
    e["id"] = i + 1;
    const Json w = when_json(inc.when);
    for (const auto& [k, v] : w.items()) {
      e[k] = v;
    }
    e["last_time"] = inc.last.utc_usec ? Json(util::iso_utc(*inc.last.utc_usec)) : Json(nullptr);
    e["count"] = inc.count;
    e["source"] = inc.origins.empty() ? std::string() : origin_text(inc.origins[0]);
    Json sources = Json::array();
    for (const crash::Origin& o : inc.origins) {
      sources.push_back(origin_text(o));
    }
    e["sources"] = sources;
    e["kind"] = std::string(to_string(inc.kind));
    e["code"] = inc.code;
    e["name"] = inc.name;
    e["title"] = inc.title;
    e["cause_class"] = std::string(to_string(inc.cause_class));
    e["severity"] = std::string(to_string(inc.severity));
    e["finding"] = inc.finding;
    e["platform"] = inc.platform;
    e["subject"] = inc.subject;
    e["meaning"] = inc.meaning;
    e["consequence_of"] = inc.consequence_of ? Json(*inc.consequence_of + 1) : Json(nullptr);
    Json ev = Json::array();
    for (const Evidence& x : inc.evidence) {
      ev.push_back(Json{{"source", x.source}, {"value", x.value}});
    }
    e["evidence"] = ev;
    Json fixes = Json::array();
    for (const Fix& f : inc.fixes) {
      Json fx;
      fx["text"] = f.text;
      fx["command"] = f.command;
      fixes.push_back(fx);
    }
    e["fixes"] = fixes;
    e["notes"] = inc.notes;
    Json fields = Json::object();
    for (const auto& [k, v] : inc.fields) {
      if (!fields.contains(k)) {
        fields[k] = v;
      }
    }
    e["fields"] = fields;
    incidents.push_back(std::move(e));
  }
  j["incidents"] = incidents;
  Json sources = Json::array();
  for (const crash::SourceStatus& s : r.sources) {
    sources.push_back(Json{
        {"source", s.source}, {"status", s.status}, {"detail", s.detail}, {"events", s.events}});
  }
  j["sources"] = sources;
  Json notes = Json::array();
  for (const Finding& f : r.notes) {
    Json n;
    n["id"] = f.id;
    n["severity"] = std::string(to_string(f.severity));
    n["cause_class"] = std::string(to_string(f.cause_class));
    n["title"] = f.title;
    n["message"] = f.message;
    Json fixes = Json::array();
    for (const Fix& x : f.fixes) {
      fixes.push_back(Json{{"text", x.text}, {"command", x.command}});
    }
    n["fixes"] = fixes;
    notes.push_back(std::move(n));
  }
  j["notes"] = notes;
  util::keep_bytes(j);
  return j.dump(2) + "\n";
}

std::string render_crashes_markdown(const CrashReport& r, const CrashMeta& meta) {
  std::string out = fmt::format("## cudnn-doctor crashes — {}\n\n{}\n\n",
                                util::markdown_code_span(meta.target),
                                crash_summary_line(r));
  if (!r.incidents.empty()) {
    out += "| # | time | kind | code | incident | cause class |\n|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < r.incidents.size(); ++i) {
      const Incident& inc = r.incidents[i];
      std::string title = escape_markdown(inc.title);
      if (inc.consequence_of) {
        title = fmt::format("↳ {} (after #{})", title, *inc.consequence_of + 1);
      }
      out += fmt::format("| {} | {} | {} | {} | {}{} | {} |\n",
                         i + 1,
                         escape_markdown(when_text(inc.when)),
                         to_string(inc.kind),
                         escape_markdown(inc.code),
                         title,
                         count_text(inc),
                         to_string(inc.cause_class));
    }
  }
  for (std::size_t i = 0; i < r.incidents.size(); ++i) {
    const Incident& inc = r.incidents[i];
    if (inc.consequence_of) {
      continue;
    }
    out += fmt::format("\n### {}. {}\n\n", i + 1, escape_markdown(inc.title));
    if (!inc.meaning.empty()) {
      out += escape_markdown(inc.meaning) + "\n\n";
    }
    if (!inc.evidence.empty()) {
      std::string block;
      for (const Evidence& e : inc.evidence) {
        block += escape_terminal(e.value) + "\n";
      }
      out += util::markdown_code_block(block);
      out += "\n";
    }
    for (const std::string& n : inc.notes) {
      out += "- " + escape_markdown(n) + "\n";
    }
    for (std::size_t k = 0; k < inc.fixes.size(); ++k) {
      out += fmt::format("{}. {}", k + 1, escape_markdown(inc.fixes[k].text));
      if (!inc.fixes[k].command.empty()) {
        out += " " + util::markdown_code_span(inc.fixes[k].command);
      }
      out += "\n";
    }
  }
  out += "\n| source | status | detail |\n|---|---|---|\n";
  for (const crash::SourceStatus& s : r.sources) {
    out += fmt::format(
        "| {} | {} | {} |\n", escape_markdown(s.source), s.status, escape_markdown(s.detail));
  }
  return out;
}

std::string
render_crashes(const CrashReport& report, const CrashMeta& meta, Format format, bool color) {
  switch (format) {
  case Format::json:
    return render_crashes_json(report, meta);
  case Format::markdown:
    return render_crashes_markdown(report, meta);
  case Format::text:
    break;
  }
  return render_crashes_text(report, meta, color);
}

} // namespace doctor::report
