// SPDX-License-Identifier: MIT
#include <doctor/kb/render.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace doctor::kb {

Expected<std::string> fill(std::string_view text, const Params& params) {
  auto names = placeholders(text);
  if (!names) {
    return tl::unexpected(names.error());
  }
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    const auto close = text.find('}', i);
    const std::string_view name = text.substr(i + 1, close - i - 1);
    const auto it =
        std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
    if (it == params.end()) {
      return make_error(ErrorCode::internal, fmt::format("no value for {{{}}}", name));
    }
    out += it->second;
    i = close;
  }
  return out;
}

Expected<Finding> render(const KnowledgeBase& kb, const FindingDraft& draft) {
  const FindingTemplate* t = kb.finding(draft.id);
  if (t == nullptr) {
    return make_error(ErrorCode::internal,
                      fmt::format("finding id {} is not in the knowledge base", draft.id));
  }
  Finding f;
  f.id = t->id;
  f.severity = std::max(t->severity, draft.severity.value_or(t->severity));
  f.cause_class = t->cause_class;
  f.title = t->title;
  f.subject = draft.subject;
  f.evidence = draft.evidence;
  auto message = fill(t->message, draft.params);
  if (!message) {
    return make_error(ErrorCode::internal,
                      fmt::format("{}: message: {}", t->id, message.error().message));
  }
  f.message = std::move(*message);
  for (const FixTemplate& ft : t->fixes) {
    if (!ft.when.empty()
        && std::find(draft.tags.begin(), draft.tags.end(), ft.when) == draft.tags.end()) {
      continue;
    }
    auto text = fill(ft.text, draft.params);
    auto command = fill(ft.command, draft.params);
    if (!text || !command) {
      return make_error(ErrorCode::internal,
                        fmt::format("{}: fix: {}",
                                    t->id,
                                    !text ? text.error().message : command.error().message));
    }
    f.fixes.push_back(Fix{std::move(*text), std::move(*command)});
  }
  return f;
}

} // namespace doctor::kb
