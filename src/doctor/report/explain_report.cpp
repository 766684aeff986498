// SPDX-License-Identifier: MIT
#include <doctor/report/explain_report.hpp>
#include <doctor/report/text_layout.hpp>
#include <doctor/util/escape.hpp>
#include <doctor/util/json_bytes.hpp>
#include <doctor/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace doctor::report {

namespace {

using explain::EvidenceLine;
using explain::ExplainedCause;
using explain::ExplainResult;
using explain::Mention;
using Json = nlohmann::ordered_json;
using util::escape_markdown;
using util::escape_terminal;

// The texts below hold the input's own lines and names: in text and Markdown each passes
// util::escape_terminal (escape_markdown) on its way out, so a log line cannot drive the terminal.

std::string input_line(const explain::InputSummary& in) {
  std::vector<std::string> parts;
  parts.push_back(fmt::format("{} lines", in.lines));
  parts.emplace_back(util::encoding_name(in.decode.encoding));
  if (in.decode.bom) {
    parts.emplace_back("BOM");
  }
  if (in.decode.crlf_seen) {
    parts.emplace_back("CRLF");
  }
  if (in.decode.ansi_removed) {
    parts.emplace_back("colour codes removed");
  }
  if (in.decode.syslog_expanded) {
    parts.emplace_back("#012 expanded");
  }
  if (in.decode.replacements > 0) {
    parts.push_back(fmt::format("{} invalid bytes replaced", in.decode.replacements));
  }
  if (in.decode.cut_lines > 0) {
    parts.push_back(fmt::format("{} long lines cut", in.decode.cut_lines));
  }
  if (in.decode.wrap_joined > 0) {
    parts.push_back(fmt::format("{} {} cut at {} columns joined",
                                in.decode.wrap_joined,
                                in.decode.wrap_joined == 1 ? "line" : "lines",
                                in.decode.wrap_width));
  }
  return fmt::format("{} ({})", escape_terminal(in.name), util::join(parts, ", "));
}

std::string evidence_text(const ExplainResult& r, const EvidenceLine& l) {
  return escape_terminal(fmt::format("{}  {}", explain::where(r, l), l.text));
}

Json evidence_json(const ExplainResult& r, const std::vector<EvidenceLine>& lines) {
  Json out = Json::array();
  for (const EvidenceLine& l : lines) {
    Json e;
    e["input"] = l.input < r.inputs.size() ? r.inputs[l.input].name : "";
    e["line"] = l.line;
    if (l.part > 0) {
      e["part"] = l.part;
    }
    e["text"] = l.text;
    out.push_back(std::move(e));
  }
  return out;
}

Json mention_json(const ExplainResult& r, const Mention& m) {
  Json j;
  j["id"] = m.finding;
  j["cause_class"] = std::string(to_string(m.cause_class));
  j["signature"] = m.signature;
  j["title"] = m.title;
  j["count"] = m.count;
  j["evidence"] = evidence_json(r, m.lines);
  return j;
}

// The start of `text` that fits `width` columns, cut at a character boundary.
std::string first_columns(std::string_view text, std::size_t width) {
  std::size_t cols = 0;
  std::size_t i = 0;
  for (; i < text.size(); ++i) {
    bool starts_char = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (starts_char && cols++ == width) {
      break;
    }
  }
  return std::string(text.substr(0, i));
}

// An evidence line for people: where (file:line) on its own line, then the line's text wrapped
// below it, so the layout does not depend on how long the file's path is.
std::string text_evidence(const Style& st,
                          const ExplainResult& r,
                          const EvidenceLine& l,
                          std::string_view indent) {
  const std::string more = std::string(indent) + "  ";
  return std::string(indent) + st.dim(escape_terminal(explain::where(r, l))) + "\n"
         + wrap(escape_terminal(l.text), more, more);
}

std::string summary(const ExplainResult& r) {
  if (r.causes.empty()) {
    return "no known cause found";
  }
  return r.causes.size() == 1 ? std::string("1 cause found")
                              : fmt::format("{} causes found, most likely first", r.causes.size());
}

std::string machine_line(const ExplainResult& r) {
  if (r.machine.empty()) {
    return "not used";
  }
  return escape_terminal(r.machine);
}

void text_mentions(std::string& out,
                   const Style& st,
                   const ExplainResult& r,
                   const std::vector<Mention>& list,
                   std::string_view label,
                   std::string_view note) {
  for (const Mention& m : list) {
    out += wrap(fmt::format("{:<9}{} ({}), {} line{}{}",
                            label,
                            m.title,
                            m.finding,
                            m.count,
                            m.count == 1 ? "" : "s",
                            note),
                "  ",
                "           ");
    // Where it first appears on a line of its own (the layout must not depend on the path's
    // length), then that line's start.
    if (!m.lines.empty()) {
      out += "           "
             + st.dim("first at " + escape_terminal(explain::where(r, m.lines.front()))) + "\n";
      out +=
          st.dim("           " + first_columns(escape_terminal(m.lines.front().text), k_width - 11))
          + "\n";
    }
  }
}

} // namespace

std::string render_explain_text(const ExplainResult& r, const ExplainMeta& meta, bool color) {
  const Style st{color};
  std::string out;
  out += st.bold(fmt::format("cudnn-doctor {}", meta.tool_version));
  out += st.dim(" · explain\n");
  for (const auto& in : r.inputs) {
    out += "  " + st.dim("read ") + input_line(in) + "\n";
  }
  out += "  " + st.dim("machine ") + machine_line(r) + "\n";
  out += "\n" + st.bold(fmt::format("Causes: {}", summary(r))) + "\n";
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const ExplainedCause& c = r.causes[i];
    const Finding& f = c.finding;
    out += "\n";
    out += st.apply(severity_color(f.severity), fmt::format("{:<8}", fmt::format("{}.", i + 1)));
    out += " " + st.bold(f.title) + "\n";
    out +=
        st.dim(fmt::format("         {} · {} · confidence {}{}",
                           f.id,
                           to_string(f.cause_class),
                           c.confidence,
                           c.from_symptoms ? (c.confirm.empty() ? " · only symptoms matched"
                                                                : " · most likely, from a symptom")
                                           : ""))
        + "\n";
    out += wrap(escape_terminal(f.message), "         ", "         ");
    if (!c.confirm.empty()) {
      out += "         " + st.bold("To confirm it") + "\n";
      out += wrap(escape_terminal(c.confirm), "           ", "           ");
    }
    out += "         " + st.bold("Evidence")
           + (c.matches > c.lines.size()
                  ? st.dim(fmt::format(" ({} lines, first {} shown)", c.matches, c.lines.size()))
                  : "")
           + "\n";
    for (const EvidenceLine& l : c.lines) {
      out += text_evidence(st, r, l, "           ");
    }
    if (!c.consequences.empty()) {
      out += "         " + st.bold("What followed from it") + "\n";
      for (const Mention& m : c.consequences) {
        out += wrap(fmt::format("- {} ({})", m.title, m.finding), "           ", "             ");
        for (const EvidenceLine& l : m.lines) {
          out += text_evidence(st, r, l, "             ");
        }
      }
    }
    if (!c.machine.empty()) {
      out += "         " + st.bold("On the machine") + "\n";
      for (const explain::MachineNote& n : c.machine) {
        out += wrap(fmt::format("{} {}", n.confirms ? "+" : "-", escape_terminal(n.text)),
                    "           ",
                    "             ");
        if (!n.command.empty()) {
          out += "             " + st.apply("32", "$ " + escape_terminal(n.command)) + "\n";
        }
      }
    }
    if (!c.alternatives.empty()) {
      out += "         " + st.bold("Or else") + "\n";
      for (const explain::Alternative& a : c.alternatives) {
        out += wrap(fmt::format("- {} ({} · {} · confidence {}): if {}",
                                a.title,
                                a.finding,
                                to_string(a.cause_class),
                                a.confidence,
                                escape_terminal(a.tell)),
                    "           ",
                    "             ");
      }
    }
    if (!f.fixes.empty()) {
      out += "         " + st.bold("Fix") + "\n";
      for (std::size_t k = 0; k < f.fixes.size(); ++k) {
        out += wrap(fmt::format("{}. {}", k + 1, escape_terminal(f.fixes[k].text)),
                    "           ",
                    "              ");
        if (!f.fixes[k].command.empty()) {
          out +=
              "              " + st.apply("32", "$ " + escape_terminal(f.fixes[k].command)) + "\n";
        }
      }
    }
  }
  if (r.causes.empty()) {
    out += wrap(r.lines_matched == 0
                    ? "None of the known error signatures occurs in the input. If it is the whole "
                      "error, run `cudnn-doctor check` on the machine where it happened."
                    : "Only lines that are not causes were recognised (below). Run `cudnn-doctor "
                      "check` on the machine where the error happened.",
                "  ",
                "  ");
  }
  if (!r.symptoms.empty() || !r.noise.empty() || !r.context.empty()) {
    out += "\n" + st.bold("Also recognised, not causes") + "\n";
    text_mentions(out, st, r, r.symptoms, "symptom", "");
    text_mentions(out, st, r, r.noise, "harmless", "; known harmless");
    text_mentions(out, st, r, r.context, "context", "");
  }
  return out;
}

std::string render_explain_json(const ExplainResult& r, const ExplainMeta& meta) {
  Json doc;
  doc["schema"] = std::string(k_explain_schema);
  doc["tool_version"] = meta.tool_version;
  doc["kb_version"] = meta.kb_version;
  doc["inputs"] = Json::array();
  for (const auto& in : r.inputs) {
    Json j;
    j["name"] = in.name;
    j["encoding"] = std::string(util::encoding_name(in.decode.encoding));
    j["bom"] = in.decode.bom;
    j["crlf"] = in.decode.crlf_seen;
    j["ansi_removed"] = in.decode.ansi_removed;
    j["syslog_expanded"] = in.decode.syslog_expanded;
    j["replacements"] = in.decode.replacements;
    j["cut_lines"] = in.decode.cut_lines;
    j["wrap_width"] = in.decode.wrap_width;
    j["wrap_joined"] = in.decode.wrap_joined;
    j["bytes"] = in.bytes;
    j["lines"] = in.lines;
    j["fast_scan"] = in.fast_scan;
    doc["inputs"].push_back(std::move(j));
  }
  doc["log_platform"] = r.log_platform.empty() ? Json(nullptr) : Json(r.log_platform);
  doc["machine"] = {{"joined", r.machine_joined}, {"detail", machine_line(r)}};
  doc["causes"] = Json::array();
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const ExplainedCause& c = r.causes[i];
    Json j;
    j["rank"] = i + 1;
    j["id"] = c.finding.id;
    j["cause_class"] = std::string(to_string(c.finding.cause_class));
    j["severity"] = std::string(to_string(c.finding.severity));
    j["confidence"] = c.confidence;
    j["from_symptoms"] = c.from_symptoms;
    j["confirm"] = c.confirm;
    j["title"] = c.finding.title;
    j["message"] = c.finding.message;
    j["signatures"] = c.signatures;
    Json fields = Json::object();
    for (const auto& [k, v] : c.fields) {
      fields[k] = v;
    }
    j["fields"] = std::move(fields);
    j["matches"] = c.matches;
    j["evidence"] = evidence_json(r, c.lines);
    j["consequences"] = Json::array();
    for (const Mention& m : c.consequences) {
      j["consequences"].push_back(mention_json(r, m));
    }
    j["machine"] = Json::array();
    for (const auto& n : c.machine) {
      j["machine"].push_back({{"text", n.text}, {"command", n.command}, {"confirms", n.confirms}});
    }
    j["alternatives"] = Json::array();
    for (const explain::Alternative& a : c.alternatives) {
      j["alternatives"].push_back({{"id", a.finding},
                                   {"title", a.title},
                                   {"cause_class", std::string(to_string(a.cause_class))},
                                   {"confidence", a.confidence},
                                   {"tell", a.tell}});
    }
    j["fixes"] = Json::array();
    for (const Fix& f : c.finding.fixes) {
      j["fixes"].push_back({{"text", f.text}, {"command", f.command}});
    }
    doc["causes"].push_back(std::move(j));
  }
  for (const auto& [key, list] : {std::pair{"symptoms", &r.symptoms},
                                  std::pair{"noise", &r.noise},
                                  std::pair{"context", &r.context}}) {
    doc[key] = Json::array();
    for (const Mention& m : *list) {
      doc[key].push_back(mention_json(r, m));
    }
  }
  util::keep_bytes(doc);
  return doc.dump(2) + "\n";
}

std::string render_explain_markdown(const ExplainResult& r, const ExplainMeta& meta) {
  std::string out =
      fmt::format("### cudnn-doctor {} · explain: {}\n\n", meta.tool_version, summary(r));
  for (const auto& in : r.inputs) {
    out += fmt::format("- read {}\n", escape_markdown(input_line(in)));
  }
  out += fmt::format("- machine: {}\n", escape_markdown(machine_line(r)));
  for (std::size_t i = 0; i < r.causes.size(); ++i) {
    const ExplainedCause& c = r.causes[i];
    out += fmt::format("\n#### {}. {}\n\n`{}` · `{}` · confidence {}\n\n{}\n\n",
                       i + 1,
                       c.finding.title, // the knowledge base's own text
                       c.finding.id,
                       to_string(c.finding.cause_class),
                       c.confidence,
                       escape_markdown(c.finding.message));
    // A code block shows the lines as they are (escaped for the terminal); its fence is longer
    // than any run of backticks in them, so no line can close it.
    std::string block;
    for (const EvidenceLine& l : c.lines) {
      block += evidence_text(r, l) + "\n";
    }
    for (const Mention& m : c.consequences) {
      for (const EvidenceLine& l : m.lines) {
        block += evidence_text(r, l) + "\n";
      }
    }
    out += util::markdown_code_block(block);
    for (const auto& n : c.machine) {
      out += fmt::format("- {}{}\n",
                         escape_markdown(n.text),
                         n.command.empty() ? "" : " " + util::markdown_code_span(n.command));
    }
    for (std::size_t k = 0; k < c.finding.fixes.size(); ++k) {
      const Fix& f = c.finding.fixes[k];
      out += fmt::format("{}. {}{}\n",
                         k + 1,
                         escape_markdown(f.text),
                         f.command.empty() ? "" : " " + util::markdown_code_span(f.command));
    }
  }
  return out;
}

std::string
render_explain(const ExplainResult& result, const ExplainMeta& meta, Format format, bool color) {
  switch (format) {
  case Format::json:
    return render_explain_json(result, meta);
  case Format::markdown:
    return render_explain_markdown(result, meta);
  case Format::text:
    break;
  }
  return render_explain_text(result, meta, color);
}

} // namespace doctor::report
